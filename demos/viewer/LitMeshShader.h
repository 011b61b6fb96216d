#pragma once
// Flat shading with one directional light for GpuMesh: ambient plus diffuse, lit on both sides
// (models need not be consistently wound), and an optional 5 m checker in world x, y that makes
// motion over flat ground visible.

#include <LinearMath/btTransform.h>

#include "GpuMesh.h"
#include "Matrix4.h"
#include "ShaderProgram.h"

namespace raycar::viewer {

struct Color {
  float red = 1, green = 1, blue = 1, alpha = 1;  // [0, 1]
};

class LitMeshShader {
 public:
  LitMeshShader();
  // Per frame: the camera and the direction towards the light (world, any length).
  void begin(const Matrix4& viewProjection, const btVector3& towardsLight) const;
  // `model` maps mesh coordinates to the world; `normalBasis` maps normals (the inverse
  // transpose of the model's 3x3 part; its rotation for a rigid model).
  void draw(const GpuMesh& mesh, const Matrix4& model, const btMatrix3x3& normalBasis, const Color& color,
            float checkerContrast = 0) const;
  void draw(const GpuMesh& mesh, const btTransform& rigid, const Color& color, float checkerContrast = 0) const {
    draw(mesh, Matrix4::fromTransform(rigid), rigid.getBasis(), color, checkerContrast);
  }

 private:
  ShaderProgram program_;
  GLint model_, normalMatrix_, viewProjection_, color_, towardsLight_, checker_;
};

}  // namespace raycar::viewer
