#include "raycar/vehicle/Powertrain.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {
constexpr btScalar kRadiansPerSecondToRpm = btScalar(60) / SIMD_2_PI;
constexpr btScalar kPedalDeadZone = btScalar(1e-3);
}  // namespace

Powertrain::Powertrain(const EngineSettings& engine, const GearboxSettings& gearbox)
    : engine_(engine), gearbox_(gearbox) {
  state_.engineRpm = engine.idleRpm;
}

btScalar Powertrain::totalRatio() const {
  return gearbox_.gears[state_.gear] * gearbox_.finalDrive;
}

btScalar Powertrain::rpmThroughGear(btScalar wheelSpin) const {
  return std::fabs(wheelSpin * totalRatio()) * kRadiansPerSecondToRpm;
}

void Powertrain::engage(int gear) {
  if (gear == state_.gear) return;
  if (state_.gear == kNeutralGear) state_.engineRpm = engine_.startRpm;
  state_.gear = gear;
  state_.clutch = 0;
  ++state_.shifts;
}

void Powertrain::selectGear(const PowertrainInput& input, btScalar& throttle,
                            btScalar& pedalBrake) {
  const int lastGear = int(gearbox_.gears.size()) - 1;
  const btScalar pedal = input.pedal;
  if (!gearbox_.automatic) {
    if (input.shiftUp && state_.gear < lastGear) engage(state_.gear + 1);
    if (input.shiftDown && state_.gear > kReverseGear) engage(state_.gear - 1);
    throttle = std::max(pedal, btScalar(0));
    pedalBrake = std::max(-pedal, btScalar(0));
    return;
  }
  const btScalar wheelRpm = std::fabs(input.meanWheelSpin) * kRadiansPerSecondToRpm;
  const bool mayReverse = wheelRpm < gearbox_.gearDirectionSwitchRpm;
  const bool inReverse = state_.gear == kReverseGear;
  const bool inForward = state_.gear >= kFirstGear;
  if (pedal > kPedalDeadZone) {
    if (inForward) {
      throttle = pedal;
    } else if (mayReverse || (!inReverse && input.meanWheelSpin >= 0)) {
      engage(kFirstGear);
      throttle = pedal;
    } else {
      pedalBrake = pedal;  // 'forward' while rolling backwards: brake first
    }
  } else if (pedal < -kPedalDeadZone) {
    if (inReverse) {
      throttle = -pedal;
    } else if (mayReverse || (!inForward && input.meanWheelSpin <= 0)) {
      engage(kReverseGear);
      throttle = -pedal;
    } else {
      pedalBrake = -pedal;  // 'back' while rolling forwards: brake first
    }
  }
}

void Powertrain::shiftAutomatically(btScalar roadRpm, btScalar throttle) {
  if (!gearbox_.automatic || state_.gear < kFirstGear) return;
  // Right after a shift the engine speed is still settling: under throttle the box waits for
  // the clutch. With the throttle closed it keeps stepping down as the car slows.
  const bool clutchClosed = state_.clutch >= 1;
  const int lastGear = int(gearbox_.gears.size()) - 1;
  const bool upAllowed = lastShiftDirection_ >= 0 || sinceShift_ >= gearbox_.shiftDwell;
  const bool downAllowed = lastShiftDirection_ <= 0 || sinceShift_ >= gearbox_.shiftDwell;
  if (roadRpm > gearbox_.shiftUpRpm && state_.gear < lastGear && upAllowed && clutchClosed) {
    shift(state_.gear + 1);
  } else if (roadRpm < gearbox_.shiftDownRpm && downAllowed && (clutchClosed || throttle == 0)) {
    if (state_.gear > kFirstGear) shift(state_.gear - 1);
    else if (throttle == 0) shift(kNeutralGear);
  }
}

void Powertrain::followWheels(btScalar fastestWheelSpin) {
  if (state_.gear == kNeutralGear || state_.clutch < 1) return;
  state_.engineRpm = std::clamp(rpmThroughGear(fastestWheelSpin), engine_.idleRpm, engine_.maxRpm);
}

void Powertrain::shift(int gear) {
  lastShiftDirection_ = gear > state_.gear ? 1 : -1;
  sinceShift_ = 0;
  engage(gear);
}

PowertrainOutput Powertrain::update(const PowertrainInput& input, btScalar dt) {
  PowertrainOutput output;
  sinceShift_ += dt;
  btScalar throttle = 0;
  selectGear(input, throttle, output.pedalBrake);

  shiftAutomatically(rpmThroughGear(input.roadWheelSpin), throttle);
  // Engine speed the wheels would impose through the current gear.
  const btScalar wheelDrivenRpm = rpmThroughGear(input.fastestWheelSpin);

  if (state_.gear == kNeutralGear) {
    state_.clutch = 0;
    state_.engineRpm = engine_.idleRpm;
    state_.engineTorque = 0;
    return output;
  }
  state_.clutch = std::min(btScalar(1), state_.clutch + gearbox_.clutchSpeed * dt);
  // Stall protection: throttle closed and the wheels would drag the engine below minRPM. The
  // clutch opens and the engine, free of the wheels, idles.
  const bool stallProtection = throttle == 0 && wheelDrivenRpm < engine_.minRpm;
  if (stallProtection) state_.clutch = 0;
  const btScalar clutch = state_.clutch;
  state_.engineRpm =
      stallProtection ? engine_.idleRpm
                      : std::clamp(state_.engineRpm + (wheelDrivenRpm - state_.engineRpm) * clutch,
                                   engine_.idleRpm, engine_.maxRpm);

  state_.engineTorque = engineTorque(engine_, state_.engineRpm, throttle);
  output.throttle = throttle;
  const btScalar ratio = totalRatio();
  output.driveTorque = state_.engineTorque * clutch * ratio * gearbox_.efficiency;
  if (output.driveTorque != 0)
    output.maxWheelSpin = engine_.maxRpm / (std::fabs(ratio) * kRadiansPerSecondToRpm);
  if (throttle == 0)
    output.engineBrakingTorque =
        engineBrakingTorque(engine_, state_.engineRpm) * clutch * std::fabs(ratio);
  return output;
}

}  // namespace raycar
