#pragma once
// The 3-D view's camera: raycar::ChaseCamera (seed 001) attached to the followed vehicle's
// eye_pos helper with the vehicle's cam_* spring, looking over the car a little ahead of it. Fed
// with the interpolated pose once per frame.

#include <optional>

#include "FramePose.h"
#include "Matrix4.h"
#include "raycar/extras/ChaseCamera.h"
#include "raycar/io/VehicleLoader.h"

namespace raycar::viewer {

class ChaseView {
 public:
  // Takes the vehicle's camera settings; the next update places the camera on the pivot.
  void attach(const LoadedVehicle& vehicle);
  void update(const VehiclePose& pose, double frameSeconds);
  Matrix4 view() const;
  const btVector3& eye() const { return eye_; }

 private:
  std::optional<ChaseCamera> camera_;
  bool placed_ = false;
  btVector3 eyeLocal_{0, -6, 2.5};  // chassis frame
  ChassisAxes axes_;
  btVector3 lastPivot_{0, 0, 0};
  btVector3 eye_{0, -6, 2.5};
  btVector3 target_{0, 0, 0};
};

}  // namespace raycar::viewer
