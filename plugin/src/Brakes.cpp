#include "raycar/Brakes.h"

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

std::vector<std::string> validateBrakes(const BrakeSettings& brakes, const AssistSettings& assists) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const char* text) {
    if (!ok) problems.push_back(std::string("brakes: ") + text);
  };
  require(brakes.brakeTorque >= 0 && std::isfinite(brakes.brakeTorque), "brake_torque must be >= 0 N m");
  require(brakes.frontBias >= 0 && brakes.frontBias <= 1, "front bias must lie in [0, 1]");
  require(brakes.axleFriction >= 0 && std::isfinite(brakes.axleFriction), "axle_friction must be >= 0 N m");
  require(assists.absTargetSlip > 0 && assists.absTargetSlip <= 1,
          "ABS target slip ratio must lie in (0, 1]");
  require(assists.tractionTargetSlip > 0 && assists.tractionTargetSlip <= 1,
          "traction control target slip ratio must lie in (0, 1]");
  return problems;
}

}  // namespace raycar
