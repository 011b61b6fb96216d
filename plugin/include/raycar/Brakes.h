#pragma once
// Brakes and driver assists (seeds 001 and 004).
//
// The footbrake applies brake_torque per wheel at full input when the bias is even; frontBias
// moves a share of the total to the wheels ahead of the centre of mass. axle_friction always acts
// against each wheel's spin. The handbrake (RaycastVehicle) locks the can_brake wheels.
// ABS caps each wheel's brake torque at absLongitudinalShare x the torque the tire can carry at
// its friction peak (mu peak_x N R): the wheel then slows to the slip of that force, just below
// the curve's peak, instead of locking, and keeps lateral grip for steering. Traction control
// caps drive torque the same way.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

namespace raycar {

struct BrakeSettings {
  btScalar brakeTorque = 2500;   // brake_torque (N m per wheel at full input, even bias)
  btScalar frontBias = 0.6;      // [0, 1]: share of the total footbrake torque on the front wheels
  btScalar axleFriction = 0;     // axle_friction (N m): always opposes each wheel's spin
};

struct AssistSettings {
  bool abs = false;                        // anti-lock brakes
  btScalar absLongitudinalShare = 0.9;     // (0, 1]: brake torque cap as a share of peak grip
  bool tractionControl = false;
  btScalar tractionLongitudinalShare = 0.9;  // (0, 1]: drive torque cap as a share of peak grip
};

// Footbrake torque (N m) on one wheel for input in [0, 1]. `front`: the wheel is ahead of the
// centre of mass; frontWheels and rearWheels count the braked wheels of each group.
btScalar footbrakeTorque(const BrakeSettings& brakes, btScalar input, bool front, int frontWheels,
                         int rearWheels);

std::vector<std::string> validateBrakes(const BrakeSettings& brakes, const AssistSettings& assists);

}  // namespace raycar
