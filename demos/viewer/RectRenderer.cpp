#include "RectRenderer.h"

#include <cmath>

namespace raycar::viewer {
namespace {

const char* kRectVertexShader = R"(#version 330 core
layout(location = 0) in vec2 aCorner;  // unit quad, +-0.5
uniform vec2 uOffset;   // NDC centre
uniform vec2 uScale;    // full NDC size: along the heading, across it
uniform float uYaw;     // rad, counter-clockwise
uniform float uAspect;  // viewport width / height
void main() {
  vec2 scaled = aCorner * uScale;            // 1. scale
  scaled.x *= uAspect;                       //    (in NDC-height units, so right angles stay)
  float c = cos(uYaw);
  float s = sin(uYaw);
  vec2 rotated = vec2(c * scaled.x - s * scaled.y, s * scaled.x + c * scaled.y);  // 2. rotate
  rotated.x /= uAspect;
  gl_Position = vec4(rotated + uOffset, 0.0, 1.0);  // 3. translate: the offset is not rotated
}
)";

const char* kRectFragmentShader = R"(#version 330 core
uniform vec4 uColor;
out vec4 fragColor;
void main() { fragColor = uColor; }
)";

}  // namespace

RectRenderer::RectRenderer()
    : shader_("rect", kRectVertexShader, kRectFragmentShader),
      offset_(shader_.uniform("uOffset")),
      scale_(shader_.uniform("uScale")),
      yaw_(shader_.uniform("uYaw")),
      color_(shader_.uniform("uColor")),
      aspect_(shader_.uniform("uAspect")) {
  const float corners[] = {-0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f, 0.5f};
  const unsigned indices[] = {0, 1, 2, 0, 2, 3};
  glGenVertexArrays(1, &vertexArray_);
  glGenBuffers(1, &vertexBuffer_);
  glGenBuffers(1, &elementBuffer_);
  glBindVertexArray(vertexArray_);
  glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
  glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, elementBuffer_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(indices), indices, GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), nullptr);
  glBindVertexArray(0);
}

RectRenderer::~RectRenderer() {
  glDeleteBuffers(1, &elementBuffer_);
  glDeleteBuffers(1, &vertexBuffer_);
  glDeleteVertexArrays(1, &vertexArray_);
}

void RectRenderer::begin(const PixelMapping& mapping) {
  mapping_ = mapping;
  shader_.use();
  shader_.set(aspect_, float(double(mapping.widthPixels) / mapping.heightPixels));
  glBindVertexArray(vertexArray_);
}

void RectRenderer::drawRect(double x, double y, double length, double width, double yaw,
                            const Color& color) const {
  float offsetX, offsetY, scaleX, scaleY;
  mapping_.metersToNDC(x, y, offsetX, offsetY);
  // The quad's x runs along the heading: its full size is `length` in screen-x NDC units before
  // the rotation, `width` in screen-y units.
  mapping_.rectSizeToNDC(length, width, scaleX, scaleY);
  shader_.set(offset_, offsetX, offsetY);
  shader_.set(scale_, scaleX, scaleY);
  shader_.set(yaw_, float(yaw));
  shader_.set(color_, color.red, color.green, color.blue, color.alpha);
  glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_INT, nullptr);
}

void RectRenderer::drawSegment(double x0, double y0, double x1, double y1, double width,
                               const Color& color) const {
  const double length = std::hypot(x1 - x0, y1 - y0);
  if (length <= 0) return;
  drawRect((x0 + x1) / 2, (y0 + y1) / 2, length, width, std::atan2(y1 - y0, x1 - x0), color);
}

}  // namespace raycar::viewer
