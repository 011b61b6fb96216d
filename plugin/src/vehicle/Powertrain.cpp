#include "raycar/vehicle/Powertrain.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace raycar {
namespace {
constexpr btScalar kRadiansPerSecondToRpm = btScalar(60) / SIMD_2_PI;
constexpr btScalar kPedalDeadZone = btScalar(1e-3);
constexpr btScalar kRolling = 1;  // rev/min of the wheels: rolling, not creeping
// s: how long the road speed must have stopped gaining before the box looks at the next gear's
// force (Powertrain::nextGearPullsHarder); a car still accelerating keeps the seed's shift point.
constexpr btScalar kHeldSpeedTime = 1;
// s: how long the road speed must stay below the shift-down speed before the box shifts down.
// It is read from the touching wheels' contact speeds, and a wheel landing on the steep face of a
// bump reads a fraction of the car's speed, or less than none, for a step: the offroad scene's
// jeep at 9 m/s in second read 1442 rev/min between steps of 1982, and -316 between 1796s, and
// each time the box dropped to first and the engine ran to its 5000 rev/min limit. A shift
// controller does not act on one reading; a tenth of a second is 12 steps at 1/120 s, 3 at 1/30.
constexpr btScalar kShiftDownConfirmTime = btScalar(0.1);
constexpr btScalar kLockingSlip = btScalar(0.5);  // rad/s (5 rpm) at the clutch
}  // namespace

Powertrain::Powertrain(const EngineSettings& engine, const GearboxSettings& gearbox)
    : engine_(engine), gearbox_(gearbox) {
  state_.engineRpm = engine.idleRpm;
}

btScalar Powertrain::totalRatio() const {
  return gearbox_.gears[state_.gear] * gearbox_.finalDrive;
}

btScalar Powertrain::signedRpmThroughGear(btScalar wheelSpin) const {
  return wheelSpin * totalRatio() * kRadiansPerSecondToRpm;
}

btScalar Powertrain::rpmThroughGear(btScalar wheelSpin) const {
  return std::fabs(signedRpmThroughGear(wheelSpin));
}

void Powertrain::engage(int gear) {
  if (gear == state_.gear) return;
  // Seed 001's engine jumps to its start rpm; an engine with inertia keeps its own speed.
  if (state_.gear == kNeutralGear && !(engine_.inertia > 0)) state_.engineRpm = engine_.startRpm;
  state_.gear = gear;
  state_.clutch = 0;
  state_.clutchLocked = false;
  // A new gear's road speed (through its ratio) starts its own counts.
  heldSpeedTime_ = highestRoadRpm_ = belowShiftDownTime_ = 0;
  // A count, saturating: a restored state may hold any count up to INT_MAX (a fuzzed one did,
  // and the next shift overflowed).
  if (state_.shifts < INT_MAX) ++state_.shifts;
}

bool Powertrain::stopped(const PowertrainInput& input) const {
  const btScalar wheelRpm =
      std::max(std::fabs(input.meanWheelSpin), std::fabs(input.roadWheelSpin)) * kRadiansPerSecondToRpm;
  return wheelRpm < gearbox_.gearDirectionSwitchRpm;
}

void Powertrain::selectGear(const PowertrainInput& input, btScalar& throttle,
                            btScalar& pedalBrake) {
  const int lastGear = int(gearbox_.gears.size()) - 1;
  const btScalar pedal = input.pedal;
  if (!gearbox_.automatic) {
    if (input.shiftUp && state_.gear < lastGear && mayEngageManually(state_.gear + 1, input))
      engage(state_.gear + 1);
    if (input.shiftDown && state_.gear > kReverseGear && mayEngageManually(state_.gear - 1, input))
      engage(state_.gear - 1);
    throttle = std::max(pedal, btScalar(0));
    pedalBrake = std::max(-pedal, btScalar(0));
    return;
  }
  // Seed 001 switches direction once the wheels turn slower than gear_dir_switch_RPM. Wheels the
  // brakes have locked turn at 0 rpm whatever the car's speed, so the wheels count here at the
  // larger of their spin and their road speed (the spin they would have rolling): 'back' while
  // sliding at 45 km/h on locked wheels had engaged reverse and driven against the car (a truck
  // never stopped), and the direction the car rolls is the road's.
  const bool mayReverse = stopped(input);
  const bool inReverse = state_.gear == kReverseGear;
  const bool inForward = state_.gear >= kFirstGear;
  if (pedal > kPedalDeadZone) {
    if (inForward) {
      throttle = pedal;
    } else if (mayReverse || (!inReverse && input.roadWheelSpin >= 0)) {
      engage(kFirstGear);
      throttle = pedal;
    } else {
      pedalBrake = pedal;  // 'forward' while rolling backwards: brake first
    }
  } else if (pedal < -kPedalDeadZone) {
    if (inReverse) {
      throttle = -pedal;
    } else if (mayReverse || (!inForward && input.roadWheelSpin <= 0)) {
      engage(kReverseGear);
      throttle = -pedal;
    } else {
      pedalBrake = -pedal;  // 'back' while rolling forwards: brake first
    }
    // In reverse and still rolling forwards (above a creep of 1 rpm), 'back' brakes the car to a
    // stand rather than leaving it to roll on while reverse's clutch takes up (a jeep given
    // 'back' at 30 km/h rolled 4.5 m on from the 4 km/h where reverse engaged), and keeps the
    // throttle open, so that the clutch is taking up when the brake lets go. With the throttle
    // closed while braking, the stall protection opened the clutch at every step the brake
    // held: nose down a 15% slope the car crept forwards at 0.04 m/s, in reverse at full
    // 'back', and never reversed. 'Forward' in first while rolling backwards keeps driving:
    // that is a hill start, or a spin.
    if (state_.gear == kReverseGear && input.roadWheelSpin > kRolling / kRadiansPerSecondToRpm) pedalBrake = -pedal;
  }
}

bool Powertrain::mayEngageManually(int gear, const PowertrainInput& input) const {
  // A sequential box refuses what would harm the engine or the gears, as automated manuals' and
  // sequential racing boxes' controllers do:
  // - a shift to a larger ratio (a downshift, or a gear from neutral) that would turn the engine
  //   past engine_maxRPM at the road speed: a sedan shifted from 4th to 1st at 114 km/h had its
  //   clutch drag the engine to 6,841 rev/min against a 6,500 limit. A shift to a smaller ratio
  //   only lowers the engine's speed and is never refused (a truck coasting down a grade past
  //   its low gear's limit shifts up out of it);
  // - a change of the direction the box turns the wheels (into reverse rolling forward, into a
  //   forward gear rolling back out of neutral or reverse) while the road speed turns the wheels
  //   faster than gear_dir_switch_RPM, the automatic mode's rule. A forward gear already against
  //   the roll (rolling back in first on a hill) may change to another.
  // The road speed decides, as for the automatic: wheels spinning in mud are no speed.
  // Neutral is always allowed.
  const btScalar ratio = gearbox_.gears[size_t(gear)] * gearbox_.finalDrive;
  if (ratio == 0) return true;
  const btScalar currentRatio = totalRatio();
  const btScalar roadRpm = input.roadWheelSpin * ratio * kRadiansPerSecondToRpm;  // < 0 against the roll
  const bool changesDirection = !(currentRatio * ratio > 0);
  const btScalar roadWheelRpm = std::fabs(input.roadWheelSpin) * kRadiansPerSecondToRpm;
  if (roadRpm < 0 && changesDirection && roadWheelRpm >= gearbox_.gearDirectionSwitchRpm) return false;
  return !(std::fabs(ratio) > std::fabs(currentRatio) && std::fabs(roadRpm) > engine_.maxRpm);
}

void Powertrain::shiftAutomatically(btScalar roadRpm, bool standing, btScalar throttle, btScalar dt) {
  if (!gearbox_.automatic || state_.gear < kFirstGear) return;
  // How long the road speed has gained less than 1% under throttle in this gear. Lifting starts
  // the count over from the speed then: a car accelerating again after a lift, below the speed
  // it had before, is not held.
  if (!(throttle > 0)) {
    heldSpeedTime_ = 0;
    highestRoadRpm_ = roadRpm;
  } else if (roadRpm <= btScalar(1.01) * highestRoadRpm_) {
    heldSpeedTime_ += dt;
  } else {
    heldSpeedTime_ = 0;
    highestRoadRpm_ = roadRpm;
  }
  // Right after a shift the engine speed is still settling: under throttle the box waits for
  // the clutch. With the throttle closed it keeps stepping down as the car slows.
  const bool clutchClosed = state_.clutch >= 1;
  const int lastGear = int(gearbox_.gears.size()) - 1;
  const bool upAllowed = lastShiftDirection_ >= 0 || sinceShift_ >= gearbox_.shiftDwell;
  const bool downAllowed = lastShiftDirection_ <= 0 || sinceShift_ >= gearbox_.shiftDwell;
  const bool speedHeld = heldSpeedTime_ >= kHeldSpeedTime;
  // Counted up to the confirmation time, no further (a car standing in first stays below). The
  // slack is the float sum's: ten steps of 1/100 s add up to 0.0999999866 in floats.
  belowShiftDownTime_ = roadRpm < gearbox_.shiftDownRpm
                            ? std::min(belowShiftDownTime_ + dt, kShiftDownConfirmTime)
                            : 0;
  const bool belowShiftDown = belowShiftDownTime_ >= kShiftDownConfirmTime - btScalar(1e-4);
  if (state_.gear < lastGear && upAllowed && clutchClosed &&
      (roadRpm > gearbox_.shiftUpRpm || (speedHeld && nextGearPullsHarder(roadRpm, throttle)))) {
    shift(state_.gear + 1);
  } else if (belowShiftDown && downAllowed && (clutchClosed || throttle == 0)) {
    // Seed 001 steps down to neutral. From first only once the car has stopped (its wheels
    // slower than gear_dir_switch_RPM) with the throttle closed: below its shift-down speed in
    // first, a car lifting off had gone to neutral and back to first with every touch of the
    // pedal (a sedan creeping in a queue, 118 changes in 10 s), coasting without engine braking
    // in between. First with the throttle closed is safe at any speed: below engine_minRPM the
    // clutch opens (turnEngine, followWheels).
    if (state_.gear > kFirstGear) shift(state_.gear - 1);
    else if (throttle == 0 && standing) shift(kNeutralGear);
  }
}

bool Powertrain::nextGearPullsHarder(btScalar roadRpm, btScalar throttle) const {
  // Seed 001's box shifts up at engine_shiftupRPM. Where drag holds the car below that speed
  // under throttle (shiftAutomatically: its road speed has stopped gaining), the box also shifts
  // up when the next gear gives the wheels more force (torque x ratio), which then carries the
  // car faster; by the seed's rule alone it stayed in its gear for good (a sedan in 4th at
  // 167 km/h, 5425 rpm and 50 kW, where 5th gives 87 kW). The next gear must keep the engine
  // above the downshift speed, with a tenth to spare, so that the box does not hunt.
  if (!(throttle > 0) || !(roadRpm > 0)) return false;
  const btScalar ratio = gearbox_.gears[size_t(state_.gear)];
  const btScalar nextRatio = gearbox_.gears[size_t(state_.gear) + 1];
  if (!(ratio > 0) || !(nextRatio > 0)) return false;
  const btScalar nextRpm = roadRpm * nextRatio / ratio;
  if (!(nextRpm > btScalar(1.1) * gearbox_.shiftDownRpm)) return false;
  return engineTorque(engine_, nextRpm, throttle) * nextRatio > engineTorque(engine_, roadRpm, throttle) * ratio;
}

void Powertrain::followWheels(btScalar fastestWheelSpin, btScalar gearboxWheelSpin, btScalar dt) {
  if (engine_.inertia > 0) {
    settleClutch(gearboxWheelSpin, dt);
    return;
  }
  if (state_.gear == kNeutralGear || state_.clutch < 1) return;
  state_.engineRpm = std::clamp(rpmThroughGear(fastestWheelSpin), engine_.idleRpm, engine_.maxRpm);
}

void Powertrain::shift(int gear) {
  lastShiftDirection_ = gear > state_.gear ? 1 : -1;
  sinceShift_ = 0;
  engage(gear);
}

btScalar Powertrain::netEngineTorque(btScalar rpm, btScalar throttle) const {
  if (state_.stalled) return 0;
  btScalar torque = engineTorque(engine_, rpm, throttle);
  if (throttle == 0) torque -= engineBrakingTorque(engine_, rpm);
  return torque;
}

namespace {
// N m per rad/s: the slope at `rpm` of torque(rpm) (N m), a central difference over 1% of the
// engine's speed range (the curve may be a table of points).
template <class Torque>
btScalar torqueSlope(const EngineSettings& engine, btScalar rpm, const Torque& torque) {
  const btScalar step = btScalar(0.01) * engine.maxRpm;
  const btScalar low = std::max(btScalar(0), rpm - step);
  const btScalar high = std::min(engine.maxRpm, rpm + step);
  if (!(high > low)) return 0;
  return (torque(high) - torque(low)) / (high - low) * kRadiansPerSecondToRpm;
}
}  // namespace

btScalar Powertrain::netEngineTorqueSlope(btScalar rpm, btScalar throttle) const {
  return torqueSlope(engine_, rpm, [&](btScalar at) { return netEngineTorque(at, throttle); });
}

btScalar Powertrain::clutchCapacity() const {
  const btScalar full =
      engine_.clutchCapacity > 0 ? engine_.clutchCapacity : 2 * peakEngineTorque(engine_);
  return state_.clutch * full;
}

void Powertrain::turnEngine(const PowertrainInput& input, btScalar throttle, btScalar dt,
                            PowertrainOutput& output) {
  const btScalar inertia = engine_.inertia;
  const bool inGear = state_.gear != kNeutralGear;
  const btScalar ratio = inGear ? totalRatio() : 0;
  const btScalar gearboxSpeed = input.gearboxWheelSpin * ratio;  // rad/s at the clutch
  if (!inGear) state_.stalled = false;  // the starter turns it back to idle
  state_.clutch = inGear ? std::min(btScalar(1), state_.clutch + gearbox_.clutchSpeed * dt) : 0;
  // Seed 001's stall protection: with the throttle closed and the wheels turning the engine
  // slower than minRPM the clutch opens (unless the engine may stall). Signed: a car rolling
  // against its gear (back in first, forward in reverse) would turn the engine backwards, which
  // is slower still; the clutch opens there too, rather than stay engaged passing nothing.
  if (inGear && !engine_.stall && throttle == 0 &&
      gearboxSpeed * kRadiansPerSecondToRpm < engine_.minRpm)
    state_.clutch = 0;
  // Braking under ABS with the throttle closed: the clutch opens (PowertrainInput::antiLockBraking).
  if (inGear && input.antiLockBraking && throttle == 0) state_.clutch = 0;
  // An engine that may stall, its clutch engaged and the throttle closed, is stopped, and held
  // stopped, by wheels that turn it backwards: no clutch locks it to them (forwards, a locked
  // clutch drags it down to minRPM, where settleClutch stalls it).
  if (inGear && engine_.stall && throttle == 0 && state_.clutch > 0 && gearboxSpeed < 0) {
    state_.stalled = true;
    state_.engineRpm = 0;
    state_.clutchLocked = false;
  }
  const btScalar capacity = clutchCapacity();
  if (capacity <= 0) state_.clutchLocked = false;

  const btScalar engineSpeed = state_.engineRpm / kRadiansPerSecondToRpm;  // rad/s
  btScalar torque = netEngineTorque(state_.engineRpm, throttle);
  state_.engineTorque = torque;
  engineSpeedBefore_ = engineSpeed;
  gearboxSpeedBefore_ = gearboxSpeed;
  throttle_ = throttle;
  // The engine's speed steps implicitly in its own torque's fall with speed (the curve past its
  // peak, engine braking): I (w' - w) = dt (T(w) + dT/dw (w' - w) - T_clutch), so it is stable
  // at any step. A rising curve is taken explicitly.
  const btScalar slope = std::min(btScalar(0), netEngineTorqueSlope(state_.engineRpm, throttle));
  const btScalar stepInertia = inertia - dt * slope;  // kg m^2

  btScalar clutchTorque = 0;
  if (state_.clutchLocked) {
    // The engine's torque goes through, and its inertia turns with the wheels; settleClutch
    // checks afterwards that the capacity held that.
    clutchTorque = torque;
    output.reflectedInertia = inertia * ratio * ratio;
  } else {
    if (capacity > 0) {
      // The clutch is automated, with the engine's controller, as an automated gearbox works
      // them. While the gearbox turns slower than engine_startRPM (a launch) the clutch passes
      // what holds the engine there, so that a launch neither bogs it down nor stalls it.
      // Otherwise (after a shift) the engine's own torque matches its speed to the gearbox's by
      // the end of the clutch's engagement - cut down to engine braking on an upshift, raised
      // up to full throttle on a downshift (a blip) - while the clutch passes the torque the
      // driver asked for; only what the engine cannot do goes through the clutch, within its
      // capacity. The wheels then feel no shift shock beyond that.
      const btScalar slip = engineSpeed - gearboxSpeed;
      const btScalar hold = engine_.startRpm / kRadiansPerSecondToRpm;
      if (slip > 0 && gearboxSpeed < hold) {
        clutchTorque =
            std::clamp(torque + stepInertia * (engineSpeed - hold) / dt, btScalar(0), capacity);
      } else {
        const btScalar engagementLeft =
            std::max(dt, (1 - state_.clutch) / std::max(gearbox_.clutchSpeed, btScalar(1e-6)));
        const btScalar matching = -stepInertia * slip / engagementLeft;  // N m on the engine
        if (!state_.stalled) {
          torque = std::clamp(torque + matching,
                              -engineBrakingTorque(engine_, state_.engineRpm),
                              engineTorque(engine_, state_.engineRpm, 1));
          state_.engineTorque = torque;
        }
        // A slipping clutch passes torque only from its faster side to its slower: with the
        // gearbox ahead (a downshift, or driven wheels that spun up past the engine) it can
        // only brake them while the engine catches up. Passing the driver's torque there too
        // had made energy: a sedan landing at full throttle spun its wheels 1200 rpm past the
        // engine and its clutch's heat fell to -1.6 kJ.
        // Within the locking slip either way: the clutch is locking, and holds either way.
        const btScalar most = slip < -kLockingSlip ? btScalar(0) : capacity;
        const btScalar least = slip > kLockingSlip ? btScalar(0) : -capacity;
        clutchTorque = std::clamp(torque - matching, least, most);
      }
    }
    state_.engineRpm =
        (engineSpeed + dt * (torque - clutchTorque) / stepInertia) * kRadiansPerSecondToRpm;
  }
  state_.clutchTorque = clutchTorque;
  if (!state_.clutchLocked) {
    // The idle governor below (unless stalled), the rev limit above: no torque at max rpm.
    const btScalar floor = state_.stalled ? btScalar(0) : engine_.idleRpm;
    state_.engineRpm = std::clamp(state_.engineRpm, floor, engine_.maxRpm);
  }

  output.throttle = throttle;
  output.driveTorque = clutchTorque * ratio * gearbox_.efficiency;
  if (output.driveTorque != 0)
    output.maxWheelSpin = engine_.maxRpm / (std::fabs(ratio) * kRadiansPerSecondToRpm);
}

namespace {
// J: the heat a slipping clutch makes over a step, its torque (N m) working against the slip
// across it (rad/s), taken as linear in time from `slipBefore` to `slipAfter`. Friction works
// only against the slip: where the step's torque and the slip disagree (past a crossing, where
// the clutch locks, or within the locking slip as it lets go) it does no work, so only the part
// of the step where torque x slip > 0 counts.
btScalar frictionWork(btScalar torque, btScalar slipBefore, btScalar slipAfter, btScalar dt) {
  const btScalar powerBefore = torque * slipBefore;  // W
  const btScalar powerAfter = torque * slipAfter;
  if (powerBefore >= 0 && powerAfter >= 0) return (powerBefore + powerAfter) / 2 * dt;
  if (powerBefore <= 0 && powerAfter <= 0) return 0;
  const btScalar positive = std::max(powerBefore, powerAfter);
  return positive * positive / (2 * std::fabs(powerAfter - powerBefore)) * dt;
}
}  // namespace

void Powertrain::settleClutch(btScalar gearboxWheelSpin, btScalar dt) {
  if (state_.gear == kNeutralGear) return;
  const btScalar inertia = engine_.inertia;
  const btScalar gearboxSpeed = gearboxWheelSpin * totalRatio();  // rad/s, after the solve
  const btScalar capacity = clutchCapacity();
  if (state_.clutchLocked) {
    // The engine turned with the wheels. What the clutch passed to do that: the engine's torque
    // less what its own speed-up took.
    const btScalar clutchTorque = state_.engineTorque - inertia * (gearboxSpeed - engineSpeedBefore_) / dt;
    state_.clutchTorque = clutchTorque;
    state_.engineRpm = std::fabs(gearboxSpeed) * kRadiansPerSecondToRpm;
    if (std::fabs(clutchTorque) > capacity) {
      state_.clutchLocked = false;  // it slips from the next step, at its capacity
      state_.clutchTorque = std::copysign(capacity, clutchTorque);
    }
  } else if (capacity > 0) {
    const btScalar engineSpeed = state_.engineRpm / kRadiansPerSecondToRpm;
    const btScalar slipBefore = engineSpeedBefore_ - gearboxSpeedBefore_;
    const btScalar slipAfter = engineSpeed - gearboxSpeed;
    state_.clutchSlipEnergy += frictionWork(state_.clutchTorque, slipBefore, slipAfter, dt);
    // It locks where the slip changed sign within the step, or has all but ended. A slip that
    // began within the locking slip had no sign yet: the clutch had just let go (a locked
    // clutch asked for more than its capacity, a landing car's wheels stopped by the road), and
    // snapping the engine to the gearbox there had thrown away its speed (3000 rpm in a step).
    const bool crossed = std::fabs(slipBefore) > kLockingSlip && (slipBefore > 0) != (slipAfter > 0);
    if (crossed || std::fabs(slipAfter) < kLockingSlip) {
      state_.clutchLocked = true;
      state_.engineRpm = std::fabs(gearboxSpeed) * kRadiansPerSecondToRpm;
    }
  }
  // Below idle: the governor holds idle and the clutch slips, or, allowed to stall with the
  // throttle closed, the engine stops below minRPM.
  if (state_.stalled) return;
  if (engine_.stall && throttle_ == 0 && state_.engineRpm < engine_.minRpm) {
    state_.stalled = true;
    // It stops; held by a locked clutch it turns on with the wheels (the locked branch above
    // follows them).
    if (!state_.clutchLocked) state_.engineRpm = 0;
    return;
  }
  // (An engine that may stall, held by a locked clutch with the throttle closed, follows the
  // wheels down instead, and stalls at minRPM.)
  const bool draggedDown = engine_.stall && throttle_ == 0 && state_.clutchLocked;
  if (state_.engineRpm < engine_.idleRpm && !draggedDown) {
    state_.engineRpm = engine_.idleRpm;
    state_.clutchLocked = false;
  }
}

btScalar Powertrain::followingRpm(btScalar wheelDrivenRpm) const {
  return std::clamp(follows_.rpmBefore + (wheelDrivenRpm - follows_.rpmBefore) * follows_.clutch, engine_.idleRpm,
                    engine_.maxRpm);
}

btScalar Powertrain::throughClutch(btScalar engineTorque) const {
  return engineTorque * follows_.clutch * totalRatio() * gearbox_.efficiency;
}

btScalar Powertrain::driveTorqueAtWheelSpin(btScalar fastestWheelSpin) const {
  return throughClutch(engineTorque(engine_, followingRpm(rpmThroughGear(fastestWheelSpin)), follows_.throttle));
}

btScalar Powertrain::driveTorqueSlopeAtStart() const {
  return torqueSlope(engine_, state_.engineRpm, [&](btScalar at) { return engineTorque(engine_, at, follows_.throttle); });
}

btScalar Powertrain::peakDriveTorque() const {
  return std::fabs(throughClutch(peakEngineTorque(engine_) * shapedThrottle(engine_, follows_.throttle)));
}

PowertrainOutput Powertrain::update(const PowertrainInput& input, btScalar dt) {
  PowertrainOutput output;
  follows_.active = false;
  sinceShift_ += dt;
  btScalar throttle = 0;
  selectGear(input, throttle, output.pedalBrake);

  // Signed: a car rolling backwards in a forward gear (a failed hill start) turns the engine
  // backwards through it, never fast enough to shift up (a truck rolling back down a 10% grade
  // had shifted 1 -> 5 by -14.7 m/s).
  const btScalar roadRpm = signedRpmThroughGear(input.roadWheelSpin);
  shiftAutomatically(roadRpm, stopped(input), throttle, dt);
  if (engine_.inertia > 0) {
    turnEngine(input, throttle, dt, output);
    return output;
  }
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
  // clutch opens and the engine, free of the wheels, idles. So too where the gearbox turns
  // against the gear (its driving wheels' share-weighted spin, as turnEngine reads it): the
  // wheels would turn the engine backwards, slower still. By the fastest wheel's magnitude alone
  // a coupe rolling back at 2.5 m/s in first kept its clutch closed at 1,190 rpm, engine braking.
  const bool stallProtection =
      throttle == 0 && (wheelDrivenRpm < engine_.minRpm || signedRpmThroughGear(input.gearboxWheelSpin) < 0);
  if (stallProtection) state_.clutch = 0;
  const btScalar clutch = state_.clutch;
  follows_ = {!stallProtection && clutch > 0 && throttle > 0, state_.engineRpm, clutch, throttle};
  state_.engineRpm = stallProtection ? engine_.idleRpm : followingRpm(wheelDrivenRpm);

  state_.engineTorque = engineTorque(engine_, state_.engineRpm, throttle);
  output.throttle = throttle;
  const btScalar ratio = totalRatio();
  output.driveTorque = throughClutch(state_.engineTorque);
  follows_.driveTorque = output.driveTorque;
  if (output.driveTorque != 0)
    output.maxWheelSpin = engine_.maxRpm / (std::fabs(ratio) * kRadiansPerSecondToRpm);
  if (throttle == 0)
    output.engineBrakingTorque =
        engineBrakingTorque(engine_, state_.engineRpm) * clutch * std::fabs(ratio);
  return output;
}

}  // namespace raycar
