#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Resistive forces (seed 004, step 9): aerodynamic drag, downforce, and rolling resistance.

#include <LinearMath/btVector3.h>


namespace raycar {

struct AeroSettings {
  btScalar airDensity = 1.225;       // rho (kg/m^3)
  btScalar dragArea = 0.7;           // Cd * A (m^2)
  btScalar downforceArea = 0;        // Cl * A (m^2); > 0 presses the car down
  btScalar downforceFrontShare = 0.5;  // [0, 1]: part of the downforce on the front axle
  btScalar rollingResistance = 0.012;  // Crr: rolling resistance force = Crr x N per wheel
};

// Drag on a body moving at `velocity` (m/s) through still air (N): -1/2 rho CdA |v| v.
btVector3 dragForce(const AeroSettings& aero, const btVector3& velocity);
// Downforce magnitude (N) at forward speed `forwardSpeed` (m/s): 1/2 rho ClA v^2.
btScalar downforce(const AeroSettings& aero, btScalar forwardSpeed);
// Rolling resistance torque at a wheel (N m): Crr x N x R, applied against the wheel's spin.
btScalar rollingResistanceTorque(const AeroSettings& aero, btScalar normalLoad, btScalar radius);


}  // namespace raycar
