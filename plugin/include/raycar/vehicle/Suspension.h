#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Suspension forces along the suspension axis (seeds 000, 001, 003, 004).
//
// Force on the chassis = k x + c dx/dt + anti-roll, where x is the compression (len_max minus the
// current length). The bump stop at full compression is a hard, inelastic limit solved with the
// tire contacts (ContactSolver.cpp), not a stiff spring, so it cannot launch the car.
//
// Automatic tuning (seed 001): stiffness 0 means k = N_static / (len_max - len_initial), so that
// the static load rests the spring at len_initial; damping d <= 0 means |d| x critical damping of
// the wheel's share of the sprung mass, 2 sqrt(k N_static / g). For a car whose wheels share one
// static sag the heave mode is then exactly critical; other modes are only approximately so,
// which the seed also says of its own calculation.

#include <LinearMath/btScalar.h>

#include <vector>

#include "raycar/Error.h"
#include "raycar/vehicle/Wheel.h"

namespace raycar {

// Spring plus damper (N), > 0 pushes the chassis away from the ground.
btScalar springDamperForce(btScalar stiffness, btScalar damping, btScalar compression,
                           btScalar compressionSpeed);

// CryEngine's `stabilizer` (seed 001): a fraction of the wheel's stiffness times the difference
// between its compression and the mean compression of the other wheels on its axle (N).
// The anti-roll fraction a wheel's axle uses: its own (WheelSettings::stabilizer) if >= 0, else
// the vehicle's.
inline btScalar wheelStabilizer(const WheelSettings& wheel, btScalar vehicleStabilizer) {
  return wheel.stabilizer >= 0 ? wheel.stabilizer : vehicleStabilizer;
}
btScalar antiRollForce(btScalar stabilizer, btScalar stiffness, btScalar compression,
                       btScalar otherWheelsCompression);

// Damping (N s/m) at which a mass on a spring returns without oscillating: 2 sqrt(k m).
btScalar criticalDamping(btScalar stiffness, btScalar sprungMass);

struct SuspensionRates {
  btScalar stiffness;  // N/m
  btScalar damping;    // N s/m
};

// The stiffness and damping a wheel uses, after the automatic rules above.
// staticLoad (N) is the wheel's share of the weight; gravity (m/s^2) its magnitude.
SuspensionRates resolveSuspensionRates(const WheelSettings& wheel, btScalar staticLoad,
                                       btScalar gravity);

// The wheels whose spring rate, given in their settings (stiffness > 0), sags more than their
// travel (len_max) under their static loads (N, in wheel order: staticWheelLoads): the car would
// rest on its bump stops, with no suspension left. One problem each, of the wheel's stiffness.
// The loads are the most even split that balances (StaticLoads.h); with unequal given rates on
// more than three wheels the springs' own split differs, and so may a marginal case.
std::vector<SettingsProblem> springsShortOfTheirLoads(const std::vector<WheelSettings>& wheels,
                                                      const std::vector<btScalar>& staticLoads);

}  // namespace raycar
