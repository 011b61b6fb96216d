#include "raycar/vehicle/Aero.h"

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

}  // namespace raycar
