#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Brakes and driver assists (seeds 001 and 004).
//
// The footbrake applies brake_torque per wheel at full input when the bias is even; frontBias
// moves a share of the total to the wheels ahead of the centre of mass. axle_friction always acts
// against each wheel's spin. The handbrake (RaycastVehicle) locks the can_brake wheels.
// ABS and traction control are slip controllers (RaycastVehicle::assistTorqueCap): each caps its
// wheel's brake or drive torque at what the tire transmits at the target slip ratio under the
// present side slip (from the tire model itself, so cornering lowers the cap), plus a feedback
// on the wheel's spin against the target and its integral. The wheel then turns at the target
// slip, just below the curve's peak, instead of locking or spinning, and keeps lateral grip for
// steering. With a Coulomb tire (no slip law) the feed-forward is the friction limit itself.

#include <LinearMath/btScalar.h>


namespace raycar {

struct BrakeSettings {
  btScalar brakeTorque = 2500;   // brake_torque (N m per wheel at full input, even bias)
  btScalar frontBias = 0.6;      // [0, 1]: share of the total footbrake torque on the front wheels
  btScalar axleFriction = 0;     // axle_friction (N m): always opposes each wheel's spin
};

struct AssistSettings {
  bool abs = false;                  // anti-lock brakes
  btScalar absTargetSlip = 0.1;      // slip ratio ABS holds a braking wheel at, (0, 1]
  bool tractionControl = false;
  btScalar tractionTargetSlip = 0.1;  // slip ratio traction control holds a driven wheel at
  // Electronic stability control (StabilityControl.h): brakes single wheels to make the yaw
  // moment that brings the yaw rate to the driver's reference.
  bool stabilityControl = false;
  btScalar escYawGain = 8;               // 1/s: yaw moment = gain x Izz x (reference - yaw rate)
  btScalar escDeadband = 0.05;           // rad/s of yaw-rate error left alone
  btScalar escUndersteerGradient = 1;    // deg/g: the reference car's (a mildly understeering one)
  btScalar escMaxBrakeTorque = 3000;     // N m on one wheel
};

// Footbrake torque (N m) on one wheel for input in [0, 1]. `front`: the wheel is ahead of the
// centre of mass; frontWheels and rearWheels count the braked wheels of each group.
btScalar footbrakeTorque(const BrakeSettings& brakes, btScalar input, bool front, int frontWheels,
                         int rearWheels);


}  // namespace raycar
