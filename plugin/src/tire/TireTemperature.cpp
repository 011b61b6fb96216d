#include "raycar/tire/TireTemperature.h"

#include <algorithm>
#include <cmath>

namespace raycar {

btScalar temperatureGripFactor(const TireThermalSettings& thermal, btScalar temperature) {
  if (!thermal.enabled) return 1;
  const btScalar offset = (temperature - thermal.optimalTemperature) / thermal.temperatureWindow;
  return 1 - thermal.gripLoss * std::min(offset * offset, btScalar(1));
}

btScalar stepTireTemperature(const TireThermalSettings& thermal, btScalar temperature,
                             btScalar power, btScalar speed, btScalar dt) {
  // C (T' - T) = dt (P - h (T' - T_ambient)), solved for the change T' - T (as a change, so
  // that rounding stalls it only within microkelvins of where it is heading).
  const btScalar cooling = thermal.cooling + thermal.coolingPerSpeed * std::fabs(speed);
  return temperature + dt * (power - cooling * (temperature - thermal.ambientTemperature)) /
                           (thermal.heatCapacity + dt * cooling);
}

}  // namespace raycar
