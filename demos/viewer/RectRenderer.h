#pragma once
// Seed 002's 2-D renderer: one unit quad (corners at +-0.5, shared VAO/VBO/EBO) drawn by a rect
// shader with uniforms uOffset (NDC centre), uScale (full NDC size), uYaw (rad, counter-clockwise)
// and uColor, which applies scale -> rotate (CCW) -> translate; the offset is not rotated.
//
// One addition to the seed: uAspect (viewport width / height). NDC units differ in x and y on an
// 800 x 600 screen, so rotating in NDC would shear a turned rectangle; the shader rotates in
// units of NDC height and converts back.

#include "Gl.h"
#include "LitMeshShader.h"
#include "ShaderProgram.h"

namespace raycar::viewer {

// Metres to NDC for a view of widthPixels x heightPixels at pixelsPerMetre, centred on a point.
struct PixelMapping {
  double pixelsPerMetre = 20;  // seed 002: PPM = 20, 1 px = 5 cm
  int widthPixels = 800;       // seed 002: SCR_WIDTH
  int heightPixels = 600;      // seed 002: SCR_HEIGHT
  double centreX = 0, centreY = 0;  // m: the world point at the screen's centre

  // A point (m) to NDC.
  void metersToNDC(double x, double y, float& ndcX, float& ndcY) const {
    ndcX = float((x - centreX) * pixelsPerMetre * 2 / widthPixels);
    ndcY = float((y - centreY) * pixelsPerMetre * 2 / heightPixels);
  }
  // A size (m) along the screen's x and y to a full NDC size.
  void rectSizeToNDC(double width, double height, float& ndcWidth, float& ndcHeight) const {
    ndcWidth = float(width * pixelsPerMetre * 2 / widthPixels);
    ndcHeight = float(height * pixelsPerMetre * 2 / heightPixels);
  }
};

class RectRenderer {
 public:
  RectRenderer();
  ~RectRenderer();
  RectRenderer(const RectRenderer&) = delete;
  RectRenderer& operator=(const RectRenderer&) = delete;

  // Per frame: the mapping used by drawRect.
  void begin(const PixelMapping& mapping);
  // A rectangle centred at (x, y) (m), `length` along its heading `yaw` (rad, CCW from +x) and
  // `width` across it (m).
  void drawRect(double x, double y, double length, double width, double yaw, const Color& color) const;
  // A bar from (x0, y0) to (x1, y1), `width` m wide (force vectors, grid lines).
  void drawSegment(double x0, double y0, double x1, double y1, double width, const Color& color) const;

 private:
  ShaderProgram shader_;
  GLint offset_, scale_, yaw_, color_, aspect_;
  GLuint vertexArray_ = 0, vertexBuffer_ = 0, elementBuffer_ = 0;
  PixelMapping mapping_;
};

}  // namespace raycar::viewer
