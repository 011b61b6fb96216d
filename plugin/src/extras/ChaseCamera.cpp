#include "raycar/extras/ChaseCamera.h"

#include <algorithm>
#include <cmath>

namespace raycar {

void ChaseCamera::reset(const btVector3& pivot, const btVector3& pivotVelocity) {
  position_ = pivot;
  velocity_ = pivotVelocity;
}

void ChaseCamera::update(const btVector3& pivot, const btMatrix3x3& basis,
                         const btVector3& pivotVelocity, btScalar dt) {
  if (!(dt > 0)) return;
  const int steps = std::max(1, int(std::ceil(dt / std::max(settings_.maxTimeStep, btScalar(1e-4)))));
  const btScalar h = dt / btScalar(steps);
  for (int step = 0; step < steps; ++step) {
    // Offset and relative velocity in the vehicle's frame.
    btVector3 offset = basis.transpose() * (position_ - pivot);
    btVector3 relative = basis.transpose() * (velocity_ - pivotVelocity);
    for (int axis = 0; axis < 3; ++axis) {
      const btScalar stiffness = offset[axis] >= 0 ? settings_.stiffnessPositive[axis]
                                                   : settings_.stiffnessNegative[axis];
      if (stiffness == 0) {  // rigid along this axis
        offset[axis] = 0;
        relative[axis] = 0;
        continue;
      }
      // Semi-implicit Euler, damping implicit: stable for any cam_damping.
      relative[axis] = (relative[axis] - stiffness * offset[axis] * h) / (1 + settings_.damping * h);
      offset[axis] += relative[axis] * h;
      const btScalar limit = offset[axis] >= 0 ? settings_.limitsPositive[axis] : -settings_.limitsNegative[axis];
      if (std::fabs(offset[axis]) > std::fabs(limit)) {
        offset[axis] = limit;
        relative[axis] = 0;
      }
    }
    if (offset.length() <= settings_.snapDistance && relative.length() <= settings_.snapVelocity) {
      offset.setZero();
      relative.setZero();
    }
    position_ = pivot + basis * offset;
    velocity_ = pivotVelocity + basis * relative;
  }
}

}  // namespace raycar
