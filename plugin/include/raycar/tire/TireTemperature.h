#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Tire temperature (seed 004's "heat cycles: tire temperature model feeding mu curves").
//
// One thermal node per tire: the sliding power it takes from the contact, |Fx sx| + |Fy sy|
// (force times slip speed in each direction: the work friction turns into heat), warms it; the
// air cools it toward the ambient temperature, faster with speed:
//   C dT/dt = P - (h0 + hv |V|) (T - T_ambient),
// integrated implicitly (stable at any step). The contact's friction is scaled by
//   g(T) = 1 - loss min(1, ((T - T_optimal) / window)^2),
// 1 at the optimum, falling to 1 - loss a window away on either side and staying there: a cold
// tire and an overheated one both grip less. Defaults: a road tire whose surface layer holds
// 4 kJ/K, cooled by 20 W/K at rest and 8 W/K more per m/s, at its best at 90 C, losing 15% of its
// grip 60 C away (so 13% at an ambient 20 C).

#include <LinearMath/btScalar.h>

namespace raycar {

struct TireThermalSettings {
  bool enabled = false;               // off: no temperature, grip factor 1
  btScalar heatCapacity = 4000;       // J/K, the tire's heated layer
  btScalar cooling = 20;              // W/K at rest (h0)
  btScalar coolingPerSpeed = 8;       // W/K per m/s of rolling speed (hv)
  btScalar ambientTemperature = 20;   // C; also the tire's temperature when the vehicle is built
  btScalar optimalTemperature = 90;   // C
  btScalar temperatureWindow = 60;    // C: the grip loss is complete this far from the optimum
  btScalar gripLoss = 0.15;           // share of the grip lost a window away, [0, 1]
};

// g(T): the friction factor at temperature T (C).
btScalar temperatureGripFactor(const TireThermalSettings& thermal, btScalar temperature);

// The temperature (C) after dt (s) of sliding power `power` (W, >= 0) at rolling speed `speed`
// (m/s), from `temperature`.
btScalar stepTireTemperature(const TireThermalSettings& thermal, btScalar temperature,
                             btScalar power, btScalar speed, btScalar dt);

}  // namespace raycar
