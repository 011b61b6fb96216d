#include "raycar/vehicle/Brakes.h"

#include <algorithm>
#include <cmath>

namespace raycar {

btScalar footbrakeTorque(const BrakeSettings& brakes, btScalar input, bool front, int frontWheels,
                         int rearWheels) {
  const int wheels = frontWheels + rearWheels;
  const btScalar total = brakes.brakeTorque * btScalar(wheels) * std::clamp(input, btScalar(0), btScalar(1));
  // With only one group the bias has nowhere to go: everything goes to that group.
  if (frontWheels == 0 || rearWheels == 0) return total / btScalar(wheels);
  return front ? total * brakes.frontBias / btScalar(frontWheels)
               : total * (1 - brakes.frontBias) / btScalar(rearWheels);
}

}  // namespace raycar
