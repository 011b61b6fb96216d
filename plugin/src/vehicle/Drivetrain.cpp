#include "vehicle/Drivetrain.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "Inline.h"
#include "RegulaFalsi.h"

namespace raycar {
namespace {

// The engine's limit on each driven axle's wheels: shareOf(wheel) is what the limit asks of one
// wheel's drive (a share of its spin-up), and apply(wheel, share) carries it out. Every
// differential splits its input torque equally between its wheels; a locking one then passes
// torque across through its spin coupling in the solve, up to its own limit. So the limit that
// binds one wheel's drive binds the axle's input, and every wheel of the axle gets `binding` (min
// or max) of their shares. Capped alone, a wheel spinning at the limit had its torque thrown away
// while its partner kept all of its own: a coupe with one rear wheel on ice pushed with 8.5 times
// that wheel's force on the other through an open differential, and with 2.9 times through a
// limited-slip one that should pass nothing across (no preload, no locking coefficient).
template <class Axles, class ShareOf, class Binding, class Apply>
void limitByAxle(const Axles& axles, WheelArray& wheels, ShareOf shareOf, Binding binding, Apply apply) {
  for (const auto& axle : axles) {
    btScalar axleShare = 0;
    for (size_t i = 0; i < axle.wheels.size(); ++i) {
      const btScalar share = shareOf(wheels[size_t(axle.wheels[i])]);
      axleShare = i == 0 ? share : binding(axleShare, share);
    }
    for (int index : axle.wheels) apply(wheels[size_t(index)], axleShare);
  }
}

}  // namespace
namespace {
// The assists' spin feedback settles a wheel on its target slip within this time, 25 ms (3 steps
// at 1/120 s), whatever the step, but never within fewer than 1.5 steps: a correction of the
// spin faster than that overshoots. Counted in steps (3), the controller had been 64 times
// weaker per second at 1/30 s than at 1/240 s: a sedan's traction control held 0.04 slip
// against a 0.1 target after its launch at 1/30 s, and 0.06 at 1/60 s.
constexpr btScalar kAssistResponseTime = 0.025;  // s
constexpr btScalar kAssistMinimumResponseSteps = 1.5;
constexpr btScalar kAssistIntegralTimes = 4;  // the integral's time, in response times
}  // namespace

Drivetrain::Drivetrain(const VehicleSettings& settings, WheelArray& wheels)
    : settings_(&settings), powertrain_(settings.engine, settings.gearbox) {
  for (size_t i = 0; i < wheels.size(); ++i) {
    Wheel& wheel = wheels[i];
    wheel.front = wheel.forwardPosition > 0;
    frontWheelCount_ += wheel.front;
    if (wheel.settings.driving) drivingWheels_.push_back(int(i));
  }
  std::vector<DifferentialSettings> differentials = settings.differentials;
  if (differentials.empty()) {
    for (int wheel : drivingWheels_) {
      const int axle = wheels[size_t(wheel)].settings.axle;
      const bool known = std::any_of(differentials.begin(), differentials.end(),
                                     [&](const DifferentialSettings& d) { return d.axle == axle; });
      if (!known) differentials.push_back(DifferentialSettings{axle});
    }
  }
  for (const DifferentialSettings& differential : differentials) {
    DrivenAxle axle;
    axle.differential = differential;
    for (int wheel : drivingWheels_)
      if (wheels[size_t(wheel)].settings.axle == differential.axle) axle.wheels.push_back(wheel);
    axle.share = differential.torqueShare >= 0
                     ? differential.torqueShare
                     : btScalar(axle.wheels.size()) / btScalar(drivingWheels_.size());
    axle.firstCoupling = couplings_.size();
    for (size_t w = 1; w < axle.wheels.size() && differential.type != DifferentialType::Open; ++w)
      couplings_.push_back(SpinCoupling{axle.wheels[w - 1], axle.wheels[w], 0, 0});
    axle.couplingCount = couplings_.size() - axle.firstCoupling;
    drivenAxles_.push_back(std::move(axle));
  }
  // Each driving wheel's share of the drive torque (normalised), in drivingWheels_' order.
  drivingShares_.assign(drivingWheels_.size(), 0);
  btScalar shareSum = 0;
  for (const DrivenAxle& axle : drivenAxles_)
    for (int wheel : axle.wheels) {
      const size_t slot = size_t(std::find(drivingWheels_.begin(), drivingWheels_.end(), wheel) -
                                 drivingWheels_.begin());
      drivingShares_[slot] += axle.share / btScalar(axle.wheels.size());
      shareSum += axle.share / btScalar(axle.wheels.size());
    }
  if (shareSum > 0)
    for (btScalar& share : drivingShares_) share /= shareSum;
  drivingInverseInertias_.assign(drivingWheels_.size(), 0);
  engineCoupling_.reserve(drivingWheels_.size());
}

void Drivetrain::requestShifts(bool up, bool down) {
  shiftUpRequested_ = shiftUpRequested_ || up;
  shiftDownRequested_ = shiftDownRequested_ || down;
}

namespace {
// +1 or -1: the sense a wheel's drive torque turns it, which traction control holds its slip in.
btScalar driveDirection(const WheelState& state) { return state.driveTorque < 0 ? btScalar(-1) : btScalar(1); }
}  // namespace

btScalar Drivetrain::assistShortfall(const Wheel& wheel, btScalar slipRatio, btScalar direction) {
  // The target spin follows seed 004's slip ratio, s = (R w - Vx) / max(|Vx|, eps_s).
  const WheelSettings& settings = wheel.settings;
  const btScalar speed = wheel.contact.tireContact.forwardSpeed;
  const btScalar referenceSpeed = std::max(std::fabs(speed), settings.tire.slipRatioEpsilon);
  const btScalar targetSpin = (speed + direction * slipRatio * referenceSpeed) / settings.radius;
  return direction * (slipRatio > 0 ? targetSpin - wheel.state.angularSpeed
                                    : wheel.state.angularSpeed - targetSpin);
}

btScalar Drivetrain::assistResponseTime(btScalar dt) {
  return std::max(kAssistResponseTime, kAssistMinimumResponseSteps * dt);
}

btScalar Drivetrain::assistTorqueCap(const Wheel& wheel, btScalar slipRatio, btScalar direction,
                                     btScalar engineFeedback, btScalar requested, btScalar dt,
                                     btScalar& integral) const {
  // A slip controller for ABS (slipRatio < 0: braking) and traction control (> 0):
  // - Feed-forward: the torque the tire transmits at that slip under its present side slip,
  //   read from the tire's own law at the load the last solve settled on (the pre-solve estimate
  //   lags a braking car's weight transfer: ABS held a mean slip of 0.083 against 0.1).
  // - Feedback on the wheel's spin: I (w_target - w) / tau, so that a wheel past its target (a
  //   spinning wheel on the curve's falling branch, where the feed-forward alone would let it
  //   run away) is brought back within tau, and one short of it is given more; behind a locked
  //   clutch, plus `engineFeedback`, the wheel's part in turning the engine (update());
  // - an integral of that feedback (time 4 tau, held within the feed-forward torque), which
  //   removes the steady error: a wheel that decelerates with the car needs I a / R more brake.
  const WheelState& state = wheel.state;
  if (!state.inContact) {
    integral = 0;
    return std::numeric_limits<btScalar>::infinity();
  }
  const WheelContact& contact = wheel.contact;
  const WheelSettings& settings = wheel.settings;
  TireContact tire = contact.tireContact;
  const btScalar solvedLoad = state.normalLoad;  // the last solve's, 0 before the first
  if (solvedLoad > 0) {
    tire.normalLoad = solvedLoad;
    tire.friction = loadedFriction(wheel.friction.surface, settings.tire.loadSensitivity,
                                   solvedLoad, wheel.referenceLoad);
  }
  const btScalar speed = tire.forwardSpeed;
  const btScalar referenceSpeed = std::max(std::fabs(speed), settings.tire.slipRatioEpsilon);
  const FrictionLaw law =
      wheel.tire->longitudinal(tire, -slipRatio * referenceSpeed, contact.lateralSpeed);
  const btScalar force = law.sticks ? wheel.tire->peakLongitudinalForce(tire) : std::fabs(law.force);
  const btScalar responseTime = assistResponseTime(dt);
  const btScalar shortfall = assistShortfall(wheel, slipRatio, direction);
  const btScalar targetTorque = force * settings.radius;  // N m: what the road takes at the target
  // Past its target (a driven wheel spinning, a braked one locking) the feed-forward is what the
  // road takes from the wheel at the slip it has, where that is less: far down the curve's
  // falling branch the road takes less than at the target, and the feedback alone balanced the
  // difference there (a sedan landing from its spawn at full throttle, on a 0.6 grip, kept its
  // front wheels at 0.6 to 1.5 slip for 0.7 s against a 0.1 target).
  btScalar feedForward = targetTorque;
  if (shortfall < 0 && !law.sticks) {
    const FrictionLaw now = wheel.tire->longitudinal(
        tire, speed - settings.radius * state.angularSpeed, contact.lateralSpeed);
    const btScalar sense = slipRatio > 0 ? direction : -direction;  // the torque's, on the road's force
    feedForward = std::clamp(sense * now.force * settings.radius, btScalar(0), targetTorque);
  }
  const btScalar feedback = settings.spinInertia * shortfall / responseTime + engineFeedback;
  // The integral runs only while the wheel is within its target's own slip of the target: it
  // is there for the steady error, and through a wheel's large excursions (one that spun up in
  // the air and lands, a locking wheel) it had wound down by what the feedback was already
  // taking off, and then took seconds to wind back: a sedan's traction control held 0.03 slip
  // against a 0.1 target for 2 s after landing from its spawn at full throttle, on a 0.6 grip.
  // Nor does it wind up while the torque asked for is below the cap (the driver's pedal, not the
  // controller, sets the wheel's torque then): integrated on a wheel short of its target slip as
  // a handling coupe's brake pedal rose over 0.3 s, it reached the whole feed-forward torque, and
  // when the rear wheels then passed the target the cap stayed above the pedal's torque: they
  // slid at 0.24 slip against the 0.1 target, the curve's flat top holding them there.
  const btScalar targetSlipSpin = std::fabs(slipRatio) * referenceSpeed / settings.radius;  // rad/s
  const bool windsUp = feedback > 0 && requested < std::max(btScalar(0), feedForward + feedback + integral);
  if (std::fabs(shortfall) <= targetSlipSpin && !windsUp)
    integral = std::clamp(integral + feedback * dt / (kAssistIntegralTimes * responseTime),
                          -targetTorque, targetTorque);
  return std::max(btScalar(0), feedForward + feedback + integral);
}

RAYCAR_ALWAYS_INLINE btScalar Drivetrain::brakeWheel(Wheel& wheel, int index, btScalar pedalBrake,
                                                     btScalar stabilityBrake, btScalar release,
                                                     btScalar engineFeedbackPerShare, btScalar dt) {
  const AssistSettings& assists = settings_->assists;
  WheelState& state = wheel.state;
  btScalar wheelBrake = pedalBrake + stabilityBrake;
  // ABS: no more brake torque than the tire carries at the target slip, so the wheel turns at
  // about that slip instead of locking. Traction control likewise for drive torque.
  // The cap is the wheel's whole braking torque; the brake gives what the axle friction and
  // engine braking already on the wheel leave of it.
  if (assists.abs && wheelBrake > 0) {
    // The brake works against the direction of travel. A wheel the stability control releases
    // turns at less than the target slip by its choice, not the controller's: its integral does
    // not rise meanwhile (asked as if the request were below the cap), or it would take back
    // the release within its time and then overshoot the target when the release ends.
    const btScalar travel = wheel.contact.tireContact.forwardSpeed < 0 ? btScalar(-1) : btScalar(1);
    const btScalar requested = release > 0 ? 0 : wheelBrake + state.brakeTorque;
    const btScalar cap = assistTorqueCap(wheel, -assists.absTargetSlip, travel, 0, requested, dt,
                                         wheel.antiLockIntegral);
    const btScalar allowed = std::max(btScalar(0), cap - state.brakeTorque);
    // The clutch opens for ABS holding back the pedal (update()), not for a stability brake
    // while the car coasts: its engine braking stays.
    if (allowed < pedalBrake && wheel.settings.driving) antiLockOnDrivingWheel_ = true;
    wheelBrake = std::min(wheelBrake, allowed);
  } else {
    wheel.antiLockIntegral = 0;
  }
  wheelBrake = std::max(btScalar(0), wheelBrake - release);
  if (assists.tractionControl && state.driveTorque != 0) {
    // The drive works in its torque's direction, whichever way the car rolls: a car rolling back
    // on a hill start, driven forwards, needs its wheel ahead of the ground forwards. Taken
    // from the travel, the target had asked for spin backwards, and capped a sedan's drive on
    // a 15% grade to a fifth of what holds it there: it rolled back in first at full throttle.
    const btScalar drive = driveDirection(state);
    const auto driving = std::find(drivingWheels_.begin(), drivingWheels_.end(), index);
    const btScalar engineFeedback =
        driving == drivingWheels_.end()
            ? 0
            : drivingShares_[size_t(driving - drivingWheels_.begin())] * engineFeedbackPerShare;
    const btScalar cap = assistTorqueCap(wheel, assists.tractionTargetSlip, drive, engineFeedback,
                                         std::fabs(state.driveTorque) - state.brakeTorque, dt,
                                         wheel.tractionIntegral) +
                         state.brakeTorque;
    state.driveTorque = std::clamp(state.driveTorque, -cap, cap);
  } else {
    wheel.tractionIntegral = 0;
  }
  state.brakeTorque += wheelBrake;
  return wheelBrake;
}

void Drivetrain::update(btScalar pedal, btScalar brake, const StabilityControlState& stability,
                        btScalar forwardSpeed, WheelArray& wheels, btScalar dt) {
  const VehicleSettings& settings = *settings_;
  PowertrainInput input;
  input.pedal = pedal;
  input.shiftUp = shiftUpRequested_;
  input.shiftDown = shiftDownRequested_;
  shiftUpRequested_ = shiftDownRequested_ = false;
  btScalar roadSpin = 0;  // rad/s: the touching driving wheels' sum
  int touching = 0;
  for (int index : drivingWheels_) {
    const Wheel& wheel = wheels[size_t(index)];
    const btScalar spin = wheel.state.angularSpeed;
    if (std::fabs(spin) > std::fabs(input.fastestWheelSpin)) input.fastestWheelSpin = spin;
    input.meanWheelSpin += spin / btScalar(drivingWheels_.size());
    if (wheel.state.inContact) {
      roadSpin += wheel.contact.tireContact.forwardSpeed / wheel.settings.radius;
      ++touching;
    }
  }
  // With no driving wheel on the ground the road speed is the chassis' own: the wheels, free of
  // the ground, spin up under throttle or stop under the brake. Shifting on their spin, cars
  // dropped 0.6 m at their spawn with the pedal held had landed at a standstill in second or
  // third gear.
  if (touching > 0) {
    input.roadWheelSpin = roadSpin / btScalar(touching);
  } else {
    for (int index : drivingWheels_)
      input.roadWheelSpin += forwardSpeed / wheels[size_t(index)].settings.radius / btScalar(drivingWheels_.size());
  }
  input.gearboxWheelSpin = gearboxWheelSpin(wheels);
  input.antiLockBraking = antiLockOnDrivingWheel_;
  const PowertrainOutput output = powertrain_.update(input, dt);

  for (Wheel& wheel : wheels) {
    wheel.state.driveTorque = wheel.directDrive;
    wheel.state.brakeTorque = wheel.directBrake + settings.brakes.axleFriction;
    wheel.engineSpinLimit = std::numeric_limits<btScalar>::infinity();
  }
  // The engine's torque falls to zero at its max rpm; an explicit step of drive torque must not
  // carry a light wheel past that speed (at 1/30 s a spinning wheel overshot it threefold).
  for (const DrivenAxle& axle : drivenAxles_)
    for (int wheel : axle.wheels) wheels[size_t(wheel)].engineSpinLimit = output.maxWheelSpin;
  for (DrivenAxle& axle : drivenAxles_) {
    const btScalar axleTorque = output.driveTorque * axle.share;
    axle.inputTorque = axleTorque;
    const btScalar perWheel = 1 / btScalar(std::max<size_t>(axle.wheels.size(), 1));
    for (int index : axle.wheels) {
      WheelState& state = wheels[size_t(index)].state;
      state.driveTorque += axleTorque * perWheel;
      // Engine braking drags against the spin like a brake: it slows, never reverses.
      state.brakeTorque += output.engineBrakingTorque * axle.share * perWheel;
    }
    setLockingLimits(axle, dt);
    if (axle.differential.type != DifferentialType::Torsen) continue;
    for (size_t c = 0; c < axle.couplingCount; ++c) {
      SpinCoupling& coupling = couplings_[axle.firstCoupling + c];
      // Torsen: the slower wheel's torque may exceed the faster one's T by (ratio - 1) T, each
      // wheel c = (ratio - 1) T / 2 across, where T is what the faster wheel's ground takes; a
      // wheel in the air takes nothing, so nothing passes (it acts open). T is only known from
      // the last step, and it is itself what the coupling left the faster wheel: T = U - c, U
      // the faster wheel's torque had nothing passed (its ground's torque plus the c it gave
      // away). Taken as the last step's T, the limit answered its own last value with a factor
      // -(ratio - 1) / 2, -1 at the default ratio of 3: a front-drive sedan round a part-
      // throttle bend passed 240, 43, 190, 21, 227 N m... in turn, its solve taking 3.56 sweeps
      // a step (test_drivetrain.cpp). So the limit is the fixed point c = (ratio - 1) / 2
      // (U - c), c = (ratio - 1) / (ratio + 1) U: the same where T is steady, and U, unlike T,
      // does not follow c. Signed, so that on the overrun (both grounds braking) U is the
      // faster wheel's share as well; a wheel in the air has U = the last c, which shrinks
      // by (ratio - 1) / (ratio + 1) a step.
      const Wheel& a = wheels[size_t(coupling.wheelA)];
      const Wheel& b = wheels[size_t(coupling.wheelB)];
      const bool aFaster = a.state.angularSpeed > b.state.angularSpeed;
      const Wheel& faster = aFaster ? a : b;
      const btScalar groundTorque =  // N m
          faster.state.inContact ? faster.state.longitudinalForce * faster.settings.radius : 0;
      // The impulse passes from B to A: what it took off the faster wheel, N m.
      const btScalar passedOff = (aFaster ? -coupling.impulse : coupling.impulse) / dt;
      const btScalar ratio = axle.differential.torqueBiasRatio;
      coupling.limit = (ratio - 1) / (ratio + 1) * std::fabs(groundTorque + passedOff) * dt;
    }
  }

  // A locked clutch ties the driving wheels' share-weighted spin to the engine's inertia.
  for (size_t i = 0; i < drivingWheels_.size(); ++i) {
    const Wheel& wheel = wheels[size_t(drivingWheels_[i])];
    drivingInverseInertias_[i] = wheel.state.locked ? 0 : 1 / wheel.settings.spinInertia;
  }
  engineCoupling_.set(output.reflectedInertia, drivingWheels_, drivingShares_,
                      drivingInverseInertias_);

  const btScalar footbrake = std::max(brake, output.pedalBrake);
  const AssistSettings& assists = settings.assists;
  const int rearWheelCount = int(wheels.size()) - frontWheelCount_;
  antiLockOnDrivingWheel_ = false;
  // Behind a locked clutch the driving wheels turn the engine too: their mean spin (share-
  // weighted) carries its inertia J = I_e ratio^2, each wheel's spin apart from the mean only
  // its own. For every driving wheel's shortfall e_i to close within tau, wheel i needs
  // (I_w e_i + s_i J e_mean) / tau, e_mean the shares' mean shortfall. Counted on the wheel's
  // own inertia alone, traction control gave a 250 kW car's wheels a twentieth of the torque
  // that turns them with the engine: after a landing they sat at half the target slip.
  btScalar engineFeedbackPerShare = 0;  // N m per unit share
  if (assists.tractionControl && output.reflectedInertia > 0) {
    btScalar meanShortfall = 0;  // rad/s
    for (size_t i = 0; i < drivingWheels_.size(); ++i) {
      const Wheel& wheel = wheels[size_t(drivingWheels_[i])];
      if (!wheel.state.inContact || wheel.state.driveTorque == 0) continue;
      const btScalar drive = driveDirection(wheel.state);
      meanShortfall += drivingShares_[i] * assistShortfall(wheel, assists.tractionTargetSlip, drive);
    }
    engineFeedbackPerShare = output.reflectedInertia * meanShortfall / assistResponseTime(dt);
  }
  // Each wheel's brake: the pedal's share, plus the stability control's torque on the wheel it
  // brakes, through ABS together (one modulator for both, as in a car). Added after ABS, the
  // stability control's torque locked its wheel: a braking handling coupe's inside rear wheel,
  // its load down to 350 N, slid at 0.23 to 0.35 slip for 0.5 s against ABS's 0.1.
  // Under a hard stop ABS leaves no room on that wheel, so what ABS holds back of the stability
  // control's torque comes off the brake across the wheel's axle instead, below what ABS gives
  // that wheel, for the same yaw moment. (Without it a full pedal, far above ABS's cap, left the
  // coupe spinning as if the stability control were off.) The braked wheel goes first, so that
  // the release is known before the wheel across is braked.
  auto pedalBrake = [&](const Wheel& wheel) {
    return footbrakeTorque(settings.brakes, footbrake, wheel.front, frontWheelCount_, rearWheelCount);
  };
  const int braked = stability.brakedWheel;
  int partner = -1;                 // the wheel across the braked one's axle
  btScalar partnerRelease = 0;      // N m off the partner's brake
  if (braked >= 0 && size_t(braked) < wheels.size()) {
    Wheel& wheel = wheels[size_t(braked)];
    const btScalar pedal = pedalBrake(wheel);
    const btScalar applied =
        brakeWheel(wheel, braked, pedal, stability.brakeTorque, 0, engineFeedbackPerShare, dt);
    const btScalar heldBack = std::min(stability.brakeTorque, pedal + stability.brakeTorque - applied);
    for (size_t i = 0; i < wheels.size() && heldBack > 0; ++i) {
      const Wheel& other = wheels[i];
      if (other.axleSlot != wheel.axleSlot || other.leftPosition * wheel.leftPosition >= 0) continue;
      partner = int(i);
      // The same yaw moment: a brake torque T at radius R pushes T / R at its wheel's offset l.
      partnerRelease = heldBack * std::fabs(wheel.leftPosition / other.leftPosition) *
                       (other.settings.radius / wheel.settings.radius);
      break;
    }
  }
  for (size_t i = 0; i < wheels.size(); ++i) {
    if (int(i) == braked) continue;
    Wheel& wheel = wheels[i];
    brakeWheel(wheel, int(i), pedalBrake(wheel), 0, int(i) == partner ? partnerRelease : 0,
               engineFeedbackPerShare, dt);
  }
}

void Drivetrain::spinUp(WheelArray& wheels, btScalar dt) {
  // The engine's torque is gone at its max rpm: the drive spins a wheel up to that speed, not
  // past it (a wheel already faster keeps its speed; engine braking slows it). What must stay
  // below the limit is the spin the wheel keeps after the step, once its tire has taken its
  // share back, not the free spin-up T dt / I before the solve: at a launch at 1/30 s that is
  // several times the wheel's whole change over the step, and capping it had thrown away up to
  // 90% of the drive (a coupe needed 7.4 s to 100 km/h at 1/60 s and 5.6 s at 1/240 s, and did
  // not get there within 10 s at 1/30 s). The tire's share is taken as the last step's friction
  // impulse, with which the solve starts (its warm start; for the last step's length, where the
  // solve rescales it to this one's), less what its differential's row gave it (below); a wheel
  // without a tire impulse (in the air, just landed) is capped on its free spin and that row's
  // share. Whatever this estimate misses, followWheels takes back after the solve.
  for (Wheel& wheel : wheels) {
    wheel.spinBeforeDrive = wheel.state.angularSpeed;
    const WheelContact& contact = wheel.contact;
    wheel.tireSpinBack = wheel.state.inContact && contact.warmStart && !wheel.state.locked
                             ? contact.longitudinalImpulse * wheel.settings.radius / wheel.settings.spinInertia
                             : 0;
  }
  // A differential's row passes spin between its wheels, and starts the solve from its last
  // impulse too: a wheel's share taken back is its tire's less what the row gave it. Round a
  // tight bend a locked axle's outer tire drags its wheel forward as hard as the inner one holds
  // its own back; counted alone, the outer wheel's spin past its tire's share looked far beyond
  // the engine's max rpm at 1/30 s, and the axle's drive was cut: the truck given locked axles
  // slowed to a stop on a bend it climbs to 4.9 m/s at 1/960 s.
  // (The row starts from its last impulse within this step's limit: ContactSolver::solve.)
  for (const SpinCoupling& coupling : couplings_) {
    Wheel& a = wheels[size_t(coupling.wheelA)];
    Wheel& b = wheels[size_t(coupling.wheelB)];
    const btScalar given = std::clamp(coupling.impulse, -coupling.limit, coupling.limit);  // N m s
    if (!a.state.locked) a.tireSpinBack -= given / a.settings.spinInertia;
    if (!b.state.locked) b.tireSpinBack += given / b.settings.spinInertia;
  }
  takeDriveTorqueFall(wheels, dt);
  for (Wheel& wheel : wheels)
    if (!wheel.state.locked)
      wheel.state.angularSpeed += wheel.state.driveTorque * dt / wheel.settings.spinInertia;
  // Through a locked clutch the engine's inertia takes its part of the drive torque's impulse,
  // and of the tire's.
  engineCoupling_.engineShare(
      [&](int index) { return wheels[size_t(index)].state.driveTorque * dt; },
      [&](int index) -> btScalar& { return wheels[size_t(index)].state.angularSpeed; });
  engineCoupling_.engineShare(
      [&](int index) {
        const Wheel& wheel = wheels[size_t(index)];
        return wheel.tireSpinBack * wheel.settings.spinInertia;  // the impulse, N m s
      },
      [&](int index) -> btScalar& { return wheels[size_t(index)].tireSpinBack; });
  if (engineCoupling_.active()) {
    // A locked clutch's engine turns at the wheels' weighted mean: its max rpm limits that mean,
    // and the drive's spin-up is scaled back evenly, leaving the wheels' differences to the
    // differential (capping each wheel would hold both at one speed, a locked axle).
    btScalar before = 0, after = 0, spinBack = 0;
    for (size_t i = 0; i < drivingWheels_.size(); ++i) {
      const Wheel& wheel = wheels[size_t(drivingWheels_[i])];
      before += drivingShares_[i] * wheel.spinBeforeDrive;
      after += drivingShares_[i] * wheel.state.angularSpeed;
      spinBack += drivingShares_[i] * wheel.tireSpinBack;
    }
    const btScalar limit = wheels[size_t(drivingWheels_[0])].engineSpinLimit;
    const btScalar kept = keptSpinUp(before - spinBack, after - spinBack, limit);
    if (kept < 1) {
      for (int index : drivingWheels_) {
        Wheel& wheel = wheels[size_t(index)];
        wheel.state.angularSpeed =
            wheel.spinBeforeDrive + kept * (wheel.state.angularSpeed - wheel.spinBeforeDrive);
      }
    }
  } else {
    // Each driving wheel keeps the part of its spin-up that stays below the limit: the least
    // part any wheel of its axle may keep (limitByAxle).
    limitByAxle(drivenAxles_, wheels, keptDriveOf,
                [](btScalar a, btScalar b) { return std::min(a, b); },
                [](Wheel& wheel, btScalar kept) {
                  if (kept < 1)
                    wheel.state.angularSpeed =
                        wheel.spinBeforeDrive + kept * (wheel.state.angularSpeed - wheel.spinBeforeDrive);
                });
  }
  for (Wheel& wheel : wheels) wheel.driveSpinUp = wheel.state.angularSpeed - wheel.spinBeforeDrive;
}

void Drivetrain::takeDriveTorqueFall(WheelArray& wheels, btScalar dt) {
  // Without engine inertia the engine turns with the fastest driving wheel, and past its curve's
  // peak its torque falls as that wheel spins faster (the default curve everywhere, to nothing at
  // max rpm). Taken at the step's start, a wheel the drive broke loose got full torque at low
  // rpm and next to none at high rpm: the 9 t truck launching up its 10% grade at full throttle
  // in first swung its engine 1504, 2756, 1528, 2598 rpm and its driving wheels 4.6, 8.4, 4.6,
  // 7.9 rad/s from step to step for 0.3 s (test_drivetrain.cpp). So the engine's drive is f
  // times update()'s T0, with f T0 = T(w_end(f)): the torque at the spin the step ends with, the
  // step implicit in the torque's fall (as with engine inertia, Powertrain::turnEngine), either
  // way: a wheel that slows gets the torque of the speed it slows to. Where a wheel ends: its
  // tire takes back what the drive gives it up to its grip (this step's peak force), or what it
  // took in the last step if that was more (a sliding wheel slowing to the road), and never
  // below the road's speed: w_end = max(road, w + up - max(back, min(up, grip))); a wheel in the
  // air keeps all of its spin-up. (The last step's share alone, spinUp's estimate for the
  // max-rpm cap, follows the chassis while a tire grips: taken for every wheel, it cut a launch
  // at 1/30 s by a fifth.)
  if (engineCoupling_.active() || !powertrain_.followsWheelsThisStep()) return;
  // Forward gears (a reverse gear's drive, T0 < 0, stays explicit).
  const btScalar startTorque = powertrain_.driveTorqueThisStep();
  if (!(startTorque > 0) || drivingWheels_.size() > kMaxDriveFallWheels) return;
  // Each driving wheel's end spin as a function of f, from numbers read once (rad/s).
  DriveFallWheel driveFall[kMaxDriveFallWheels];
  size_t count = 0;
  for (int index : drivingWheels_) {
    const Wheel& wheel = wheels[size_t(index)];
    if (wheel.state.locked) continue;  // the handbrake holds it
    const btScalar perTorque = dt / wheel.settings.spinInertia;  // rad/s per N m
    DriveFallWheel& fall = driveFall[count++];
    fall.directSpinUp = wheel.directDrive * perTorque;
    fall.engineSpinUp = (wheel.state.driveTorque - wheel.directDrive) * perTorque;
    fall.start = wheel.spinBeforeDrive;
    const WheelContact& contact = wheel.contact;
    const bool touches = wheel.state.inContact && contact.warmStart;
    const btScalar radius = wheel.settings.radius;
    fall.road = touches ? contact.tireContact.forwardSpeed / radius : -BT_LARGE_FLOAT;
    fall.spinBack = touches ? wheel.tireSpinBack : 0;
    fall.grip = touches ? wheel.tire->peakLongitudinalForce(contact.tireContact) * radius * perTorque : 0;
  }
  if (count == 0) return;
  // h(f) = f T0 - T(w_end(f)), rising with f: h(0) <= 0, and h >= 0 where f T0 is the curve's
  // peak. w_end of the fastest wheel, each max(road, start + spin-up - held), held = max(last
  // step's spin-back, min(spin-up, grip)).
  auto excess = [&](btScalar fraction) {
    btScalar fastest = 0;
    for (size_t i = 0; i < count; ++i) {
      const DriveFallWheel& fall = driveFall[i];
      const btScalar spinUp = fall.directSpinUp + fraction * fall.engineSpinUp;
      const btScalar held = std::max(fall.spinBack, std::min(spinUp, fall.grip));
      const btScalar spin = std::max(fall.road, fall.start + spinUp - held);
      if (std::fabs(spin) > std::fabs(fastest)) fastest = spin;
    }
    return fraction * startTorque - powertrain_.driveTorqueAtWheelSpin(fastest);
  };
  // The explicit drive, f = 1, first: where its torque hardly changes over the step (a steady
  // drive) it stands, and so it does before the curve's peak (only the fall is implicit).
  const btScalar tolerance = kDriveFallTolerance * startTorque;
  const btScalar atOne = excess(1);
  if (std::fabs(atOne) <= tolerance || !(powertrain_.driveTorqueSlopeAtStart() < 0)) return;
  btScalar low = 0, high = 1, lowValue = 0, highValue = 0;
  if (atOne > 0) {
    highValue = atOne;
    lowValue = excess(0);
  } else {
    low = 1;
    lowValue = atOne;
    high = std::max(btScalar(1), powertrain_.peakDriveTorque() / startTorque);
    highValue = excess(high);
  }
  if (!(lowValue < 0) || !(highValue > 0)) return;
  // To within kDriveFallTolerance of the drive in a few evaluations.
  const btScalar fraction = illinoisRoot(excess, low, lowValue, high, highValue, tolerance, kDriveFallIterations);
  scaleEngineDrive(wheels, fraction, dt);
}

void Drivetrain::scaleEngineDrive(WheelArray& wheels, btScalar fraction, btScalar dt) {
  for (int index : drivingWheels_) {
    Wheel& wheel = wheels[size_t(index)];
    wheel.state.driveTorque = wheel.directDrive + fraction * (wheel.state.driveTorque - wheel.directDrive);
  }
  powertrain_.scaleDrive(fraction);
  // A limited-slip differential's locking torque follows its input torque.
  for (DrivenAxle& axle : drivenAxles_) {
    axle.inputTorque *= fraction;
    setLockingLimits(axle, dt);
  }
}

void Drivetrain::setLockingLimits(const DrivenAxle& axle, btScalar dt) {
  // The locking torque is the most the two wheels' torques may differ by: the coupling's
  // impulse goes to one wheel and its opposite to the other, each half of that difference.
  // A Torsen's follows its wheels' traction instead (update()).
  if (axle.differential.type == DifferentialType::Torsen) return;
  const btScalar locking = differentialLockingTorque(axle.differential, axle.inputTorque);
  for (size_t c = 0; c < axle.couplingCount; ++c)
    couplings_[axle.firstCoupling + c].limit = std::isinf(locking) ? locking : locking / 2 * dt;
}

btScalar Drivetrain::driveBeyondLimit(btScalar spin, btScalar driveSpinUp, btScalar limit) {
  // Only the drive's own spin-up is taken back, and only in its direction: a wheel faster than
  // the limit for another reason (rolling downhill in a low gear) keeps that speed.
  if (!(std::fabs(spin) > limit) || !(spin * driveSpinUp > 0)) return 0;
  return std::min(std::fabs(spin) - limit, std::fabs(driveSpinUp)) / std::fabs(driveSpinUp);
}

btScalar Drivetrain::keptDriveOf(const Wheel& wheel) {
  return keptSpinUp(wheel.spinBeforeDrive - wheel.tireSpinBack, wheel.state.angularSpeed - wheel.tireSpinBack,
                    wheel.engineSpinLimit);
}

btScalar Drivetrain::keptSpinUp(btScalar before, btScalar after, btScalar limit) {
  if (!(std::fabs(after) > limit && std::fabs(after) > std::fabs(before))) return 1;
  return (std::copysign(std::max(limit, std::fabs(before)), after) - before) / (after - before);
}

btScalar Drivetrain::gearboxWheelSpin(const WheelArray& wheels) const {
  // The spin the gearbox's output sees: the wheels' spins weighted by the torque each gets (an
  // open differential's carrier turns at its wheels' mean), so the clutch's power T w_gearbox
  // equals the wheels' sum of T_i w_i.
  btScalar spin = 0;
  for (size_t i = 0; i < drivingWheels_.size(); ++i)
    spin += wheels[size_t(drivingWheels_[i])].state.angularSpeed * drivingShares_[i];
  return spin;
}

void Drivetrain::followWheels(WheelArray& wheels, btScalar dt) {
  // The cap before the solve (spinUp) counted on the tire taking back what it took last step;
  // where it took less (a tire past its peak, a wheel unloading), the drive's spin-up beyond the
  // engine's max rpm is taken back here: the engine has no torque there.
  if (engineCoupling_.active()) {
    btScalar spin = 0, driveSpin = 0;
    for (size_t i = 0; i < drivingWheels_.size(); ++i) {
      const Wheel& wheel = wheels[size_t(drivingWheels_[i])];
      spin += drivingShares_[i] * wheel.state.angularSpeed;
      driveSpin += drivingShares_[i] * wheel.driveSpinUp;
    }
    const btScalar share = driveBeyondLimit(spin, driveSpin, wheels[size_t(drivingWheels_[0])].engineSpinLimit);
    if (share > 0)
      for (int index : drivingWheels_) {
        Wheel& wheel = wheels[size_t(index)];
        wheel.state.angularSpeed -= share * wheel.driveSpinUp;
      }
  } else {
    // As in spinUp: an axle's wheels give back the largest share any of them must.
    limitByAxle(
        drivenAxles_, wheels,
        [](const Wheel& wheel) {
          return driveBeyondLimit(wheel.state.angularSpeed, wheel.driveSpinUp, wheel.engineSpinLimit);
        },
        [](btScalar a, btScalar b) { return std::max(a, b); },
        [](Wheel& wheel, btScalar share) {
          if (share > 0) wheel.state.angularSpeed -= share * wheel.driveSpinUp;
        });
  }
  btScalar fastest = 0;
  for (int index : drivingWheels_) {
    const btScalar spin = wheels[size_t(index)].state.angularSpeed;
    if (std::fabs(spin) > std::fabs(fastest)) fastest = spin;
  }
  powertrain_.followWheels(fastest, gearboxWheelSpin(wheels), dt);
}

}  // namespace raycar
