#include "vehicle/StabilityControl.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {
constexpr btScalar kSlowestSpeed = 5;  // m/s: below it the controller rests
// The share of the tire's force limit a stability brake may ask for: the wheel keeps rolling
// (and its side grip) under the slip-curve tire's peak.
constexpr btScalar kBrakeGripShare = btScalar(0.8);
// Below this share of its free inverse inertia about up, the chassis' yaw is locked by its
// angular factor (update()).
constexpr btScalar kLockedYawShare = btScalar(0.1);
}  // namespace

btScalar referenceYawRate(btScalar steer, btScalar speed, btScalar wheelbase,
                          btScalar understeerGradient, btScalar friction, btScalar gravity) {
  if (!(speed > 0) || !(wheelbase > 0)) return 0;
  const btScalar steady = speed * steer / (wheelbase + understeerGradient * speed * speed);
  const btScalar limit = friction * gravity / speed;
  return std::clamp(steady, -limit, limit);
}

void StabilityControl::update(const btRigidBody& chassis, const btVector3& up,
                              btScalar forwardSpeed, const WheelArray& wheels) {
  const AssistSettings& settings = *settings_;
  state_ = StabilityControlState{};
  state_.yawRate = chassis.getAngularVelocity().dot(up);
  if (!settings.stabilityControl || wheelbase_ <= 0 || forwardSpeed < kSlowestSpeed) return;

  // The driver's steer and the road's friction, from the wheels on the ground.
  btScalar steer = 0, friction = 0;
  int steeredOnGround = 0, onGround = 0;
  for (const Wheel& wheel : wheels) {
    if (!wheel.state.inContact) continue;
    friction += wheel.state.friction;
    ++onGround;
    if (wheel.steered) {
      steer += wheel.state.steerAngle;
      ++steeredOnGround;
    }
  }
  if (steeredOnGround == 0) return;
  const btScalar gravity = chassis.getGravity().length();
  const btScalar understeer = settings.escUndersteerGradient * SIMD_RADS_PER_DEG / gravity;  // rad per m/s^2
  state_.referenceYawRate =
      referenceYawRate(steer / btScalar(steeredOnGround), forwardSpeed, wheelbase_, understeer,
                       friction / btScalar(onGround), gravity);

  const btScalar error = state_.referenceYawRate - state_.yawRate;
  if (std::fabs(error) <= settings.escDeadband) return;
  // 1 / Izz about the chassis' up axis, from the world inverse inertia as the body's angular
  // factor D scales it (D I^-1 D, as the contact solve takes it). A game that locks the chassis'
  // yaw (setAngularFactor, a zero about world up) leaves nothing to control: the yaw rate stays
  // near 0 against any reference, and braking a wheel for it only slowed the car (every step of a
  // full-lock run). The factors are the world's axes, so a car rolled by phi still turns about
  // its own up through the free roll axis, by sin^2 phi of the free inverse inertia, a few
  // hundredths: below a tenth the yaw counts as locked.
  const btMatrix3x3& inverseInertia = chassis.getInvInertiaTensorWorld();
  const btVector3 factoredUp = up * chassis.getAngularFactor();
  const btScalar inverseYawInertia = factoredUp.dot(inverseInertia * factoredUp);
  const btScalar freeInverseYawInertia = up.dot(inverseInertia * up);
  if (!(inverseYawInertia > kLockedYawShare * freeInverseYawInertia)) return;
  const btScalar demand = error - std::copysign(settings.escDeadband, error);
  state_.yawMoment = settings.escYawGain * demand / inverseYawInertia;

  // The wheel: on the side the moment turns toward (braking a wheel l to the left turns the car
  // left by F l); the front-most against oversteer, the rear-most against understeer.
  const bool towardLeft = state_.yawMoment > 0;
  const bool oversteer = state_.yawMoment * state_.yawRate < 0;
  int chosen = -1;
  for (int i = 0; i < int(wheels.size()); ++i) {
    const Wheel& wheel = wheels[size_t(i)];
    if (!wheel.state.inContact || (wheel.leftPosition > 0) != towardLeft || wheel.leftPosition == 0)
      continue;
    if (chosen < 0) {
      chosen = i;
      continue;
    }
    const btScalar ahead = wheel.forwardPosition - wheels[size_t(chosen)].forwardPosition;
    if (oversteer ? ahead > 0 : ahead < 0) chosen = i;
  }
  if (chosen < 0) return;
  const Wheel& wheel = wheels[size_t(chosen)];
  const btScalar force = std::fabs(state_.yawMoment) / std::fabs(wheel.leftPosition);  // N
  const btScalar grip = kBrakeGripShare * wheel.state.friction * wheel.state.normalLoad;
  const btScalar torque =
      std::min({force * wheel.settings.radius, grip * wheel.settings.radius, settings.escMaxBrakeTorque});
  if (!(torque > 0)) return;
  // The brakes apply it, through ABS (Drivetrain::update).
  state_.active = true;
  state_.brakedWheel = chosen;
  state_.brakeTorque = torque;
}

}  // namespace raycar
