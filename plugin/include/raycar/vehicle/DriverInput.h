#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// What a driver does in one step (RaycastVehicle::setInput).

#include <LinearMath/btScalar.h>

namespace raycar {

struct DriverInput {
  btScalar pedal = 0;      // [-1, 1]: > 0 accelerate; < 0 'back': brakes while rolling forward,
                           // then engages reverse (automatic gearbox, seed 001)
  btScalar brake = 0;      // [0, 1]: footbrake
  btScalar steer = 0;      // [-1, 1]: > 0 steers left
  bool handbrake = false;  // locks the can_brake wheels
  bool shiftUp = false;    // manual gearbox: a change from false to true shifts one gear up
  bool shiftDown = false;  // manual gearbox: a change from false to true shifts one gear down
  // (A downshift that would over-rev the engine at the road speed, or a change of direction
  // while the car rolls faster than gear_dir_switch_RPM, is refused, the gear kept: Powertrain.h.)
};

// The input made safe to use: NaN components become 0 (no pedal, no brake, no steering) and
// count in `rejected`; values outside their range are clamped into it.
struct SanitizedInput {
  DriverInput input;
  int rejected = 0;  // components that were NaN or infinite
};
SanitizedInput sanitize(const DriverInput& input);

}  // namespace raycar
