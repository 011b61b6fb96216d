#pragma once
// The top-down 2-D view of seed 002: 20 px per metre on an 800 x 600 screen, centred on vehicle 1;
// every car body and wheel a rectangle drawn by the rect shader (scale -> rotate -> translate)
// from the interpolated planar pose: body at the drawn position and yaw, each wheel at its anchor
// turned by its drawn steer angle. Also the ground seen from above, the parking space, the
// bicycle ghost, and the force vectors (Fx blue, Fy green) at each wheel.

#include "FramePose.h"
#include "LitMeshShader.h"
#include "RectRenderer.h"
#include "SceneGeometry.h"

namespace raycar::viewer {

constexpr double kPixelsPerMetre = 20;  // seed 002: PPM

class TopDownView {
 public:
  TopDownView(const LitMeshShader& shader, SceneGeometry& geometry);
  void draw(sim::SceneRunner& runner, const FramePose& pose, int widthPixels, int heightPixels, bool showForces);

 private:
  void drawVehicle(const VehicleModel& model, const VehiclePose& pose, const Color& color) const;
  void drawForces(const VehiclePose& pose) const;

  const LitMeshShader& shader_;
  SceneGeometry& geometry_;
  RectRenderer rects_;
};

}  // namespace raycar::viewer
