#include "raycar/extras/ChaseCamera.h"

#include <algorithm>
#include <cmath>

#include "Finite.h"

namespace raycar {
namespace {
// A frame longer than this many of cam_max_timestep's steps places the camera on its pivot:
// the spring would have settled long before its end, and stepping through it had taken 12 s of
// CPU for a 1e7 s frame (and a wrong answer past 2^31 steps).
constexpr int kMostSteps = 1000;
}  // namespace

void ChaseCamera::reset(const btVector3& pivot, const btVector3& pivotVelocity) {
  position_ = lastPivot_ = pivot;
  velocity_ = lastPivotVelocity_ = pivotVelocity;
  placed_ = true;
}

void ChaseCamera::update(const btVector3& pivot, const btMatrix3x3& basis,
                         const btVector3& pivotVelocity, btScalar dt) {
  // A frame with no time, or with a value that is not a number, changes nothing: one NaN pivot
  // had made the camera NaN for good.
  if (!(dt > 0) || !std::isfinite(dt) || !isFinite(pivot) || !isFinite(pivotVelocity) ||
      !isFinite(basis[0]) || !isFinite(basis[1]) || !isFinite(basis[2]))
    return;
  if (!placed_) {  // never reset: the camera springs towards the pivot from where it is
    lastPivot_ = pivot;
    lastPivotVelocity_ = pivotVelocity;
    placed_ = true;
  }
  const btScalar maxStep = std::max(settings_.maxTimeStep, btScalar(1e-4));
  if (dt > kMostSteps * maxStep) {
    reset(pivot, pivotVelocity);
    return;
  }
  const int steps = std::max(1, int(std::ceil(dt / maxStep)));
  const btScalar h = dt / btScalar(steps);
  const btMatrix3x3 toVehicle = basis.transpose();
  for (int step = 0; step < steps; ++step) {
    // The pivot moves through the frame from where the last frame left it. The offset is the
    // camera's from the pivot at the substep's start, and moves by the camera's velocity less
    // the pivot's (measured from its displacement, so that a pivot teleported without velocity
    // is followed by the spring). Measured from the frame's end pivot and moved by the velocity
    // relative to the pivot's, the offset had counted the pivot's motion twice: a camera
    // following a car at a steady 30 m/s hung c v / k = 8 m behind it.
    const btScalar from = btScalar(step) / btScalar(steps), to = btScalar(step + 1) / btScalar(steps);
    const btVector3 pivotFrom = lastPivot_.lerp(pivot, from);
    const btVector3 pivotTo = lastPivot_.lerp(pivot, to);
    // The damping acts against the pivot's velocity at the substep's middle, the mean of a pivot
    // accelerating steadily: taken at its end, the camera hung a / k (1 - c h / 2) behind.
    const btVector3 pivotVelocityMid = lastPivotVelocity_.lerp(pivotVelocity, (from + to) / 2);
    btVector3 offset = toVehicle * (position_ - pivotFrom);
    btVector3 cameraVelocity = toVehicle * velocity_;
    const btVector3 pivotDisplacement = toVehicle * (pivotTo - pivotFrom) / h;  // m/s
    const btVector3 pivotSpeed = toVehicle * pivotVelocityMid;
    for (int axis = 0; axis < 3; ++axis) {
      const btScalar stiffness = offset[axis] >= 0 ? settings_.stiffnessPositive[axis]
                                                   : settings_.stiffnessNegative[axis];
      if (stiffness == 0) {  // rigid along this axis
        offset[axis] = 0;
        cameraVelocity[axis] = pivotSpeed[axis];
        continue;
      }
      // Semi-implicit Euler, the damping (on the velocity relative to the pivot's) implicit:
      // stable for any cam_damping.
      cameraVelocity[axis] = (cameraVelocity[axis] - stiffness * offset[axis] * h +
                              settings_.damping * h * pivotSpeed[axis]) /
                             (1 + settings_.damping * h);
      offset[axis] += (cameraVelocity[axis] - pivotDisplacement[axis]) * h;
      const btScalar limit = offset[axis] >= 0 ? settings_.limitsPositive[axis] : -settings_.limitsNegative[axis];
      if (std::fabs(offset[axis]) > std::fabs(limit)) {
        offset[axis] = limit;
        cameraVelocity[axis] = pivotSpeed[axis];
      }
    }
    if (offset.length() <= settings_.snapDistance &&
        (cameraVelocity - pivotSpeed).length() <= settings_.snapVelocity) {
      offset.setZero();
      cameraVelocity = pivotSpeed;
    }
    position_ = pivotTo + basis * offset;
    velocity_ = basis * cameraVelocity;
  }
  lastPivot_ = pivot;
  lastPivotVelocity_ = pivotVelocity;
}

}  // namespace raycar
