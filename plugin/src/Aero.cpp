#include "raycar/Aero.h"

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

std::vector<std::string> validateAero(const AeroSettings& aero) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const char* text) {
    if (!ok) problems.push_back(std::string("aero: ") + text);
  };
  require(aero.airDensity >= 0 && std::isfinite(aero.airDensity), "air density must be >= 0 kg/m^3");
  require(aero.dragArea >= 0 && std::isfinite(aero.dragArea), "drag area Cd*A must be >= 0 m^2");
  require(aero.downforceArea >= 0 && std::isfinite(aero.downforceArea),
          "downforce area Cl*A must be >= 0 m^2");
  require(aero.downforceFrontShare >= 0 && aero.downforceFrontShare <= 1,
          "downforce front share must lie in [0, 1]");
  require(aero.rollingResistance >= 0 && aero.rollingResistance < 1,
          "rolling resistance Crr must lie in [0, 1)");
  return problems;
}

}  // namespace raycar
