// RaycastVehicle's driver side: input shaping and steering geometry (pipeline stage 1), and the
// powertrain, differentials, brakes and assists that turn the input into wheel torques (stage 5).

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver/ContactSolver.h"
#include "vehicle/WheelWork.h"
#include "raycar/vehicle/RaycastVehicle.h"

namespace raycar {
namespace {
// The assists' spin feedback settles a wheel on its target slip in about this many steps:
// fewer, and the one-step lag of the tire force behind the spin would make it ring.
constexpr btScalar kAssistResponseSteps = 3;
constexpr btScalar kAssistIntegralTimes = 4;  // the integral's time, in response times
}  // namespace

void RaycastVehicle::buildDrivetrainLayout() {
  const size_t count = wheelSettings_.size();
  const btVector3 forward = settings_.axes.forward;
  btScalar steeredSum = 0, referenceSum = 0;
  int steeredCount = 0, referenceCount = 0;
  for (size_t i = 0; i < count; ++i) {
    const WheelSettings& wheel = wheelSettings_[i];
    const btScalar ahead = wheel.attachmentPoint.dot(forward);
    work_[i].front = ahead > 0;
    frontWheelCount_ += work_[i].front;
    work_[i].steered = wheel.steering == SteerMode::Steered ||
                  (wheel.steering == SteerMode::Automatic && ahead > 0);
    if (work_[i].steered) {
      steeredSum += ahead;
      ++steeredCount;
    } else {
      referenceSum += ahead;
      ++referenceCount;
    }
    if (wheel.driving) drivingWheels_.push_back(int(i));
  }
  // The turning centre lies on the line of the unsteered wheels (the centre of mass if all steer).
  steerReferenceForward_ = referenceCount > 0 ? referenceSum / btScalar(referenceCount) : 0;
  steeredAxleForward_ = steeredCount > 0 ? steeredSum / btScalar(steeredCount) : 0;

  // Driven axles: the settings' differentials, or an open one per axle with driving wheels.
  std::vector<DifferentialSettings> differentials = settings_.differentials;
  if (differentials.empty()) {
    for (int wheel : drivingWheels_) {
      const int axle = wheelSettings_[wheel].axle;
      const bool known = std::any_of(differentials.begin(), differentials.end(),
                                     [&](const DifferentialSettings& d) { return d.axle == axle; });
      if (!known) differentials.push_back(DifferentialSettings{axle});
    }
  }
  for (const DifferentialSettings& differential : differentials) {
    DrivenAxle axle;
    axle.differential = differential;
    for (int wheel : drivingWheels_)
      if (wheelSettings_[wheel].axle == differential.axle) axle.wheels.push_back(wheel);
    axle.share = differential.torqueShare >= 0
                     ? differential.torqueShare
                     : btScalar(axle.wheels.size()) / btScalar(drivingWheels_.size());
    for (size_t w = 1; w < axle.wheels.size() && differential.type != DifferentialType::Open; ++w)
      couplings_.push_back(SpinCoupling{axle.wheels[w - 1], axle.wheels[w], 0, 0});
    drivenAxles_.push_back(std::move(axle));
  }
  powertrain_ = std::make_unique<Powertrain>(settings_.engine, settings_.gearbox);
}

const PowertrainState& RaycastVehicle::powertrain() const { return powertrain_->state(); }

int RaycastVehicle::gear() const { return powertrain_->state().gear - kNeutralGear; }

bool RaycastVehicle::isSteered(int wheel) const {
  checkWheelIndex(wheel, "steering");
  return work_[wheel].steered != 0;
}

void RaycastVehicle::setInput(const DriverInput& input) {
  const SanitizedInput sanitized = sanitize(input);
  rejectedInputs_ += sanitized.rejected;
  shiftUpRequested_ = shiftUpRequested_ || (sanitized.input.shiftUp && !input_.shiftUp);
  shiftDownRequested_ = shiftDownRequested_ || (sanitized.input.shiftDown && !input_.shiftDown);
  input_ = sanitized.input;
  handbrake_ = input_.handbrake;
  wake();
}

// Stage 1: pedal speed and cap, steering rate and relaxation, per-wheel steer angles.
void RaycastVehicle::shapeInput(btScalar dt) {
  const SteeringSettings& steering = settings_.steering;
  const btScalar speed = forwardSpeed();
  steerAngle_ = updateSteerAngle(steering, steerAngle_, input_.steer, speed, dt);
  rampedPedal_ = rampPedal(steering, rampedPedal_, input_.pedal, dt);
  const btScalar lock = std::fabs(steerAngle_) / maxSteerAngle(steering, speed);
  shapedPedal_ = capPedal(steering, rampedPedal_, lock, speed);

  const btVector3 forward = settings_.axes.forward;
  const btVector3 left = -settings_.axes.right();
  // The wheels' Ackermann angles (a tan and an atan each) change only when the steering does.
  const bool steeringMoved = steerAngle_ != ackermannSteer_;
  ackermannSteer_ = steerAngle_;
  for (int i = 0; i < wheelCount(); ++i) {
    WheelWork& work = work_[i];
    if (steeringMoved && work.steered) {
      const btVector3& point = wheelSettings_[i].attachmentPoint;
      work.geometricSteer =
          steering.ackermann
              ? ackermannWheelAngle(steerAngle_, point.dot(forward) - steerReferenceForward_,
                                    steeredAxleForward_ - steerReferenceForward_, point.dot(left))
              : steerAngle_;
    }
    const btScalar angle = work.geometricSteer;
    wheels_[i].steerAngle =
        std::clamp(angle + work_[i].directSteer, -SIMD_HALF_PI * btScalar(0.99), SIMD_HALF_PI * btScalar(0.99));
  }
}

btScalar RaycastVehicle::assistTorqueCap(int wheel, btScalar slipRatio, btScalar dt,
                                         btScalar& integral) const {
  // A slip controller for ABS (slipRatio < 0: braking) and traction control (> 0): the torque
  // (N m, >= 0) that holds the wheel at `slipRatio`.
  // - Feed-forward: the torque the tire transmits at that slip under its present side slip,
  //   read from the tire's own law at the load the last solve settled on (the pre-solve estimate
  //   lags a braking car's weight transfer: ABS held a mean slip of 0.083 against 0.1).
  // - Feedback on the wheel's spin: I (w_target - w) / tau, so that a wheel past its target (a
  //   spinning wheel on the curve's falling branch, where the feed-forward alone would let it
  //   run away) is brought back within tau, and one short of it is given more;
  // - an integral of that feedback (time 4 tau, held within the feed-forward torque), which
  //   removes the steady error: a wheel that decelerates with the car needs I a / R more brake.
  // The target spin follows seed 004's slip ratio, s = (R w - Vx) / max(|Vx|, eps_s).
  const WheelState& state = wheels_[wheel];
  if (!state.inContact) {
    integral = 0;
    return std::numeric_limits<btScalar>::infinity();
  }
  const WheelContact& contact = contacts_[wheel];
  const WheelSettings& settings = wheelSettings_[wheel];
  const WheelWork& work = work_[wheel];
  TireContact tire = contact.tireContact;
  if (work.solvedLoad > 0) {
    tire.normalLoad = work.solvedLoad;
    tire.friction = work.baseFriction * loadSensitivityFactor(settings.tire.loadSensitivity,
                                                              work.solvedLoad, work.referenceLoad);
  }
  const btScalar speed = tire.forwardSpeed;
  const btScalar referenceSpeed = std::max(std::fabs(speed), settings.tire.slipRatioEpsilon);
  const FrictionLaw law =
      tires_[wheel]->longitudinal(tire, -slipRatio * referenceSpeed, contact.lateralSpeed);
  const btScalar force = law.sticks ? tires_[wheel]->peakLongitudinalForce(tire) : std::fabs(law.force);
  // Direction of travel: braking and driving mirror when the car rolls backwards.
  const btScalar direction = speed < 0 ? btScalar(-1) : btScalar(1);
  const btScalar targetSpin = (speed + direction * slipRatio * referenceSpeed) / settings.radius;
  const btScalar responseTime = kAssistResponseSteps * dt;
  // Spin short of the target in the sense the torque works (drive: slower; brake: faster).
  const btScalar shortfall = direction * (slipRatio > 0 ? targetSpin - state.angularSpeed
                                                        : state.angularSpeed - targetSpin);
  const btScalar feedForward = force * settings.radius;
  const btScalar feedback = settings.spinInertia * shortfall / responseTime;
  integral = std::clamp(integral + feedback * dt / (kAssistIntegralTimes * responseTime),
                        -feedForward, feedForward);
  return std::max(btScalar(0), feedForward + feedback + integral);
}

// Stage 5: powertrain, differentials, brakes and assists -> drive and brake torque per wheel,
// and the differentials' locking limits for the solve.
void RaycastVehicle::applyDrivetrainAndBrakes(btScalar dt) {
  PowertrainInput input;
  input.pedal = shapedPedal_;
  input.shiftUp = shiftUpRequested_;
  input.shiftDown = shiftDownRequested_;
  shiftUpRequested_ = shiftDownRequested_ = false;
  btScalar roadSpin = 0;
  int touching = 0;
  for (int wheel : drivingWheels_) {
    const btScalar spin = wheels_[wheel].angularSpeed;
    if (std::fabs(spin) > std::fabs(input.fastestWheelSpin)) input.fastestWheelSpin = spin;
    input.meanWheelSpin += spin / btScalar(drivingWheels_.size());
    if (wheels_[wheel].inContact) {
      roadSpin += contacts_[wheel].tireContact.forwardSpeed / wheelSettings_[wheel].radius;
      ++touching;
    }
  }
  input.roadWheelSpin = touching > 0 ? roadSpin / btScalar(touching) : input.meanWheelSpin;
  const PowertrainOutput output = powertrain_->update(input, dt);

  for (int i = 0; i < wheelCount(); ++i) {
    wheels_[i].driveTorque = work_[i].directDrive;
    wheels_[i].brakeTorque = work_[i].directBrake + settings_.brakes.axleFriction;
    work_[i].engineSpinLimit = std::numeric_limits<btScalar>::infinity();
  }
  // The engine's torque falls to zero at its max rpm; an explicit step of drive torque must not
  // carry a light wheel past that speed (at 1/30 s a spinning wheel overshot it threefold).
  for (const DrivenAxle& axle : drivenAxles_)
    for (int wheel : axle.wheels) work_[wheel].engineSpinLimit = output.maxWheelSpin;
  size_t coupling = 0;
  for (const DrivenAxle& axle : drivenAxles_) {
    const btScalar axleTorque = output.driveTorque * axle.share;
    const btScalar perWheel = 1 / btScalar(std::max<size_t>(axle.wheels.size(), 1));
    for (int wheel : axle.wheels) {
      wheels_[wheel].driveTorque += axleTorque * perWheel;
      // Engine braking drags against the spin like a brake: it slows, never reverses.
      wheels_[wheel].brakeTorque += output.engineBrakingTorque * axle.share * perWheel;
    }
    const btScalar locking = differentialLockingTorque(axle.differential, axleTorque);
    for (size_t w = 1; w < axle.wheels.size() && axle.differential.type != DifferentialType::Open; ++w)
      couplings_[coupling++].limit = std::isinf(locking) ? locking : locking * dt;
  }

  const btScalar footbrake = std::max(input_.brake, output.pedalBrake);
  const AssistSettings& assists = settings_.assists;
  const int rearWheelCount = wheelCount() - frontWheelCount_;
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    btScalar brake = footbrakeTorque(settings_.brakes, footbrake, work_[i].front != 0,
                                     frontWheelCount_, rearWheelCount);
    // ABS: no more brake torque than the tire carries at the target slip, so the wheel turns at
    // about that slip instead of locking. Traction control likewise for drive torque.
    // The cap is the wheel's whole braking torque; the footbrake gives what the axle friction
    // and engine braking already on the wheel leave of it.
    WheelWork& work = work_[i];
    if (assists.abs && brake > 0) {
      const btScalar cap = assistTorqueCap(i, -assists.absTargetSlip, dt, work.antiLockIntegral);
      brake = std::min(brake, std::max(btScalar(0), cap - state.brakeTorque));
    } else {
      work.antiLockIntegral = 0;
    }
    if (assists.tractionControl && state.driveTorque != 0) {
      const btScalar cap =
          assistTorqueCap(i, assists.tractionTargetSlip, dt, work.tractionIntegral) + state.brakeTorque;
      state.driveTorque = std::clamp(state.driveTorque, -cap, cap);
    } else {
      work.tractionIntegral = 0;
    }
    state.brakeTorque += brake;
  }
}

}  // namespace raycar
