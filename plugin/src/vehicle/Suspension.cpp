#include "raycar/vehicle/Suspension.h"

#include <cmath>

namespace raycar {

btScalar springDamperForce(btScalar stiffness, btScalar damping, btScalar compression,
                           btScalar compressionSpeed) {
  return stiffness * compression + damping * compressionSpeed;
}

btScalar antiRollForce(btScalar stabilizer, btScalar stiffness, btScalar compression,
                       btScalar otherWheelsCompression) {
  return stabilizer * stiffness * (compression - otherWheelsCompression);
}

btScalar criticalDamping(btScalar stiffness, btScalar sprungMass) {
  return 2 * std::sqrt(stiffness * sprungMass);
}

SuspensionRates resolveSuspensionRates(const WheelSettings& wheel, btScalar staticLoad,
                                       btScalar gravity) {
  SuspensionRates rates{wheel.stiffness, wheel.damping};
  if (rates.stiffness == 0)
    rates.stiffness = staticLoad / (wheel.suspensionMaxLength - wheel.suspensionRestLength);
  if (rates.damping <= 0) {
    const btScalar sprungMass = gravity > 0 ? staticLoad / gravity : 0;
    rates.damping = -wheel.damping * criticalDamping(rates.stiffness, sprungMass);
  }
  return rates;
}

}  // namespace raycar
