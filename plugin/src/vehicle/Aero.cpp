#include "vehicle/Aero.h"

#include <algorithm>
#include <cmath>

namespace raycar {

btVector3 dragForce(const AeroSettings& aero, const btVector3& velocity) {
  return velocity * (-btScalar(0.5) * aero.airDensity * aero.dragArea * velocity.length());
}

btScalar downforce(const AeroSettings& aero, btScalar forwardSpeed) {
  return btScalar(0.5) * aero.airDensity * aero.downforceArea * forwardSpeed * forwardSpeed;
}

btScalar rollingResistanceTorque(const AeroSettings& aero, btScalar normalLoad, btScalar radius) {
  return aero.rollingResistance * normalLoad * radius;
}

// ---------------------------------------------------------------------------------------------
// The runtime object

Aero::Aero(const AeroSettings& settings, const WheelArray& wheels) : settings_(&settings) {
  for (size_t i = 0; i < wheels.size(); ++i) {
    const btScalar forward = wheels[i].forwardPosition;
    frontAxleForward_ = i == 0 ? forward : std::max(frontAxleForward_, forward);
    rearAxleForward_ = i == 0 ? forward : std::min(rearAxleForward_, forward);
  }
}

void Aero::apply(SolverBody& chassis, const btVector3& worldForward, const btVector3& worldUp,
                 btScalar dt) const {
  const AeroSettings& aero = *settings_;
  // Drag, implicit in the speed (v' = v / (1 + rho CdA |v| dt / (2 m))): it slows the chassis by
  // at most its whole velocity, whatever the mass; applied explicitly, a 0.1 g chassis reversed
  // and diverged on its first step.
  const btScalar dragRate = btScalar(0.5) * aero.airDensity * aero.dragArea *
                           chassis.linearVelocity.length() * chassis.inverseMass * dt;
  if (!chassis.linearFactored) {
    chassis.linearVelocity /= 1 + dragRate;
  } else {
    // Along an axis the body does not move on (Bullet's linear factor 0) drag moves nothing.
    for (int axis = 0; axis < 3; ++axis)
      chassis.linearVelocity[axis] /= 1 + dragRate * chassis.linearFactor[axis];
  }
  const btScalar downforceMagnitude = downforce(aero, chassis.linearVelocity.dot(worldForward));
  if (downforceMagnitude > 0) {
    const btScalar point = aero.downforceFrontShare * frontAxleForward_ +
                           (1 - aero.downforceFrontShare) * rearAxleForward_;
    chassis.applyImpulse(-worldUp * (downforceMagnitude * dt), worldForward * point);
  }
}

}  // namespace raycar
