#include "LitMeshShader.h"

namespace raycar::viewer {
namespace {

const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec3 aPosition;
layout(location = 1) in vec3 aNormal;
uniform mat4 uModel;
uniform mat4 uNormalMatrix;
uniform mat4 uViewProjection;
out vec3 vNormal;
out vec3 vWorld;
void main() {
  vec4 world = uModel * vec4(aPosition, 1.0);
  vWorld = world.xyz;
  vNormal = mat3(uNormalMatrix) * aNormal;
  gl_Position = uViewProjection * world;
}
)";

const char* kFragmentShader = R"(#version 330 core
in vec3 vNormal;
in vec3 vWorld;
uniform vec4 uColor;
uniform vec3 uTowardsLight;
uniform float uChecker;
out vec4 fragColor;
void main() {
  vec3 normal = normalize(vNormal);
  if (!gl_FrontFacing) normal = -normal;
  float light = 0.4 + 0.6 * max(dot(normal, uTowardsLight), 0.0);
  vec3 color = uColor.rgb;
  if (uChecker > 0.0) {
    float cell = mod(floor(vWorld.x / 5.0) + floor(vWorld.y / 5.0), 2.0);
    color *= 1.0 - uChecker * cell;
  }
  fragColor = vec4(color * light, uColor.a);
}
)";

}  // namespace

LitMeshShader::LitMeshShader()
    : program_("lit mesh", kVertexShader, kFragmentShader),
      model_(program_.uniform("uModel")),
      normalMatrix_(program_.uniform("uNormalMatrix")),
      viewProjection_(program_.uniform("uViewProjection")),
      color_(program_.uniform("uColor")),
      towardsLight_(program_.uniform("uTowardsLight")),
      checker_(program_.uniform("uChecker")) {}

void LitMeshShader::begin(const Matrix4& viewProjection, const btVector3& towardsLight) const {
  program_.use();
  program_.set(viewProjection_, viewProjection);
  const btVector3 light = towardsLight.normalized();
  program_.set(towardsLight_, float(light.x()), float(light.y()), float(light.z()));
}

void LitMeshShader::draw(const GpuMesh& mesh, const Matrix4& model, const btMatrix3x3& normalBasis,
                         const Color& color, float checkerContrast) const {
  program_.set(model_, model);
  program_.set(normalMatrix_, Matrix4::affine(normalBasis, btVector3(0, 0, 0)));
  program_.set(color_, color.red, color.green, color.blue, color.alpha);
  program_.set(checker_, checkerContrast);
  mesh.draw();
}

}  // namespace raycar::viewer
