#include "vehicle/Steering.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {
constexpr btScalar kRadiansPerDegree = SIMD_PI / 180;
constexpr btScalar kLargestSteer = 89 * kRadiansPerDegree;

btScalar moveToward(btScalar value, btScalar target, btScalar step) {
  if (value < target) return std::min(value + step, target);
  return std::max(value - step, target);
}
}  // namespace

btScalar maxSteerAngle(const SteeringSettings& steering, btScalar speed) {
  const btScalar degrees = steering.maxSteerV0 > 0
                               ? steering.maxSteerV0 + steering.maxSteerKv * std::fabs(speed)
                               : steering.maxSteer;
  return std::clamp(degrees * kRadiansPerDegree, btScalar(1e-4), kLargestSteer);
}

btScalar updateSteerAngle(const SteeringSettings& steering, btScalar angle, btScalar input,
                          btScalar speed, btScalar dt) {
  const btScalar limit = maxSteerAngle(steering, speed);
  if (input == 0) {
    const btScalar relaxation =
        std::max(btScalar(0), steering.steerRelaxationV0 + steering.steerRelaxationKv * std::fabs(speed));
    return std::clamp(moveToward(angle, 0, relaxation * kRadiansPerDegree * dt), -limit, limit);
  }
  const btScalar lock = std::min(std::fabs(angle) / limit, btScalar(1));
  const btScalar rate = std::max(
      steering.steerSpeed * (1 + (steering.steerSpeedValScale - 1) * lock * lock),
      steering.steerSpeedMin);
  return std::clamp(moveToward(angle, input * limit, std::max(rate, btScalar(0)) * kRadiansPerDegree * dt),
                    -limit, limit);
}

btScalar ackermannWheelAngle(btScalar steer, btScalar forwardFromReference,
                             btScalar referenceToSteeredAxle, btScalar left) {
  if (steer == 0 || referenceToSteeredAxle <= 0) return steer;
  // Turning centre on the reference line, R to the left (R < 0: to the right).
  const btScalar radius = referenceToSteeredAxle / std::tan(steer);
  const btScalar arm = radius - left;
  if (arm * radius <= 0) return steer;  // the wheel beyond the turning centre: no geometry left
  return std::atan(forwardFromReference / arm);
}

btScalar rampPedal(const SteeringSettings& steering, btScalar current, btScalar requested,
                   btScalar dt) {
  return steering.pedalSpeed > 0 ? moveToward(current, requested, steering.pedalSpeed * dt)
                                 : requested;
}

btScalar capPedal(const SteeringSettings& steering, btScalar pedal, btScalar lockFraction,
                  btScalar speed) {
  if (std::fabs(speed) <= steering.pedalLimitSpeed) return pedal;
  const btScalar lock = std::clamp(lockFraction, btScalar(0), btScalar(1));
  const btScalar cap = 1 + (steering.maxSteeringPedal - 1) * lock;
  return std::clamp(pedal, -cap, cap);
}


// ---------------------------------------------------------------------------------------------
// The runtime object

Steering::Steering(const SteeringSettings& settings, WheelArray& wheels)
    : settings_(&settings) {
  btScalar steeredSum = 0, referenceSum = 0;
  int steeredCount = 0, referenceCount = 0;
  for (Wheel& wheel : wheels) {
    const btScalar ahead = wheel.forwardPosition;
    wheel.steered = wheel.settings.steering == SteerMode::Steered ||
                    (wheel.settings.steering == SteerMode::Automatic && ahead > 0);
    if (wheel.steered) {
      steeredSum += ahead;
      ++steeredCount;
    } else {
      referenceSum += ahead;
      ++referenceCount;
    }
  }
  // The turning centre lies on the line of the unsteered wheels (the centre of mass if all steer).
  referenceForward_ = referenceCount > 0 ? referenceSum / btScalar(referenceCount) : 0;
  steeredAxleForward_ = steeredCount > 0 ? steeredSum / btScalar(steeredCount) : 0;
}

btScalar Steering::columnTorque(const WheelArray& wheels) const {
  btScalar moment = 0;
  for (const Wheel& wheel : wheels)
    if (wheel.steered) moment += wheel.state.aligningMoment;
  return moment / settings_->steeringRatio;
}

void Steering::turnColumn(btScalar steerInput, btScalar forwardSpeed, btScalar dt,
                          const WheelArray& wheels) {
  const SteeringSettings& steering = *settings_;
  // I dw/dt = T_driver + T_aligning - c w. The damping is taken implicitly (a stiff damper
  // stays stable at any step); the aligning moment is last step's, whose stiffness at the column
  // (cornering stiffness x trail / ratio^2, ~30 N m/rad for a car at speed) leaves w dt far
  // below the explicit limit of 2 at 1/30 s with a column inertia of 0.05 kg m^2.
  const btScalar torque = steerInput * steering.maxDriverTorque + columnTorque(wheels);
  const btScalar inertia = steering.columnInertia;
  columnSpeed_ = (columnSpeed_ + dt * torque / inertia) / (1 + dt * steering.columnDamping / inertia);
  const btScalar limit = maxSteerAngle(steering, forwardSpeed);
  angle_ += dt * columnSpeed_ / steering.steeringRatio;
  // The steering's stops: the column halts there.
  if (std::fabs(angle_) >= limit) {
    angle_ = std::clamp(angle_, -limit, limit);
    columnSpeed_ = 0;
  }
}

void Steering::update(btScalar steerInput, btScalar pedalInput, btScalar forwardSpeed, btScalar dt,
                      WheelArray& wheels) {
  const SteeringSettings& steering = *settings_;
  if (steering.mode == SteeringMode::Torque)
    turnColumn(steerInput, forwardSpeed, dt, wheels);
  else
    angle_ = updateSteerAngle(steering, angle_, steerInput, forwardSpeed, dt);
  rampedPedal_ = rampPedal(steering, rampedPedal_, pedalInput, dt);
  const btScalar lock = std::fabs(angle_) / maxSteerAngle(steering, forwardSpeed);
  shapedPedal_ = capPedal(steering, rampedPedal_, lock, forwardSpeed);

  // The wheels' Ackermann angles (a tan and an atan each) change only when the steering does.
  const bool moved = angle_ != ackermannAngle_;
  ackermannAngle_ = angle_;
  for (Wheel& wheel : wheels) {
    if (moved && wheel.steered) {
      wheel.geometricSteer =
          steering.ackermann
              ? ackermannWheelAngle(angle_, wheel.forwardPosition - referenceForward_,
                                    steeredAxleForward_ - referenceForward_, wheel.leftPosition)
              : angle_;
    }
    wheel.state.steerAngle = std::clamp(wheel.geometricSteer + wheel.directSteer,
                                        -SIMD_HALF_PI * btScalar(0.99), SIMD_HALF_PI * btScalar(0.99));
  }
}

}  // namespace raycar
