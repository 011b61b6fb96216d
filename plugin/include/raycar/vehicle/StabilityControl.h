#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Electronic stability control (seed 004's assists: "ESC (yaw moment control)").
//
// Each step the controller compares the chassis' yaw rate r with a reference: the steady-state
// yaw rate of the single-track model at the driver's steer angle delta (the steered wheels'
// mean) and speed V, r_ss = V delta / (L + K V^2), for a mildly understeering reference car
// (K = AssistSettings::escUndersteerGradient), limited to what the road allows, mu g / V, with mu
// the contacts' own friction. Past a deadband, the gap asks for the yaw moment
// M = gain x Izz x (r_ref - r), made by braking one wheel on the side M turns toward: the outer
// front against oversteer (M opposes the yaw), the inner rear against understeer (M adds to it).
// A braking force F on a wheel l to the left of the centre of mass turns the car by F l; the
// brake torque F R is capped by escMaxBrakeTorque and by 80% of what the tire can carry
// (mu N R), so the braked wheel keeps rolling and keeps its side grip. Below 5 m/s, in reverse
// and with no steered wheel on the ground the controller rests.

#include <LinearMath/btScalar.h>

namespace raycar {

// What the stability control did in the last step (RaycastVehicle::stabilityControl).
struct StabilityControlState {
  bool active = false;            // it braked a wheel this step
  btScalar referenceYawRate = 0;  // rad/s, > 0 turning left
  btScalar yawRate = 0;           // rad/s, the chassis' about its up axis
  btScalar yawMoment = 0;         // N m it asked for, > 0 turning left
  int brakedWheel = -1;           // the wheel it braked, -1 none
  btScalar brakeTorque = 0;       // N m it asked of that wheel's brake (applied through ABS)
};

// The single-track model's steady-state yaw rate (rad/s) at steer angle delta (rad) and speed
// V (m/s) on a wheelbase L (m) with understeer gradient K (rad per m/s^2), limited to
// friction x gravity / V.
btScalar referenceYawRate(btScalar steer, btScalar speed, btScalar wheelbase,
                          btScalar understeerGradient, btScalar friction, btScalar gravity);

}  // namespace raycar
