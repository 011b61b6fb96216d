#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// The chase camera of seed 001: attached to the vehicle at the `eye_pos` helper with a 3-D spring.
//
// The camera's offset from its pivot (eye_pos on the moving chassis) is expressed in the vehicle's
// frame (x right, y forward, z up, as CryEngine). Along each axis the spring stiffness differs
// for positive and negative offsets; a stiffness of 0 fixes the camera rigidly along that axis.
// The damping is uniform (it acts on the camera's velocity relative to the pivot, in every
// direction). Offsets are limited per axis and sign. Long frames are split into steps of at most
// cam_max_timestep, the pivot moving through the frame from where the last one left it; a frame
// longer than 1000 of them places the camera on the pivot. When the camera is within
// cam_snap_dist of the pivot and its velocity within cam_snap_vel of the pivot's, it snaps onto
// the pivot and takes its velocity. So a pivot at a steady velocity is followed without lag, and
// one accelerating at a by a / k along each axis. A frame with dt <= 0 or a value that is not a
// number changes nothing.

#include <LinearMath/btTransform.h>

namespace raycar {

struct ChaseCameraSettings {
  btVector3 stiffnessPositive{0, 0, 0};  // cam_stiffness_positive (1/s^2 per axis): x, y, z
  btVector3 stiffnessNegative{0, 0, 0};  // cam_stiffness_negative
  btVector3 limitsPositive{1, 1, 1};     // cam_limits_positive (m): largest offset per axis
  btVector3 limitsNegative{1, 1, 1};     // cam_limits_negative (m), as positive numbers
  btScalar damping = 0;                  // cam_damping (1/s)
  btScalar maxTimeStep = 0.02;           // cam_max_timestep (s)
  btScalar snapDistance = 0;             // cam_snap_dist (m)
  btScalar snapVelocity = 0;             // cam_snap_vel (m/s)
};

class ChaseCamera {
 public:
  explicit ChaseCamera(const ChaseCameraSettings& settings) : settings_(settings) {}
  // Places the camera on the pivot at rest.
  void reset(const btVector3& pivot, const btVector3& pivotVelocity);
  // pivot: eye_pos in the world; basis: the vehicle's (right, forward, up) axes in the world as
  // columns; pivotVelocity in m/s; dt in s.
  void update(const btVector3& pivot, const btMatrix3x3& basis, const btVector3& pivotVelocity,
              btScalar dt);
  const btVector3& position() const { return position_; }
  const btVector3& velocity() const { return velocity_; }

 private:
  ChaseCameraSettings settings_;
  btVector3 position_{0, 0, 0};
  btVector3 velocity_{0, 0, 0};
  btVector3 lastPivot_{0, 0, 0};          // the pivot at the end of the last frame
  btVector3 lastPivotVelocity_{0, 0, 0};
  bool placed_ = false;                   // reset, or updated once
};

}  // namespace raycar
