#pragma once
// Engine, clutch and gearbox as one state machine (seed 001, with seed 004's final drive,
// efficiency and engine braking). Each step it takes the shaped pedal and the driving wheels'
// spin and returns the torque at the driven wheels, the pedal's braking request, and engine
// braking.
//
// - Seed 001's engine (no inertia, the default): its speed follows the fastest driving wheel
//   times the gear and final drive ratios. While
//   the clutch re-engages (clutch < 1) it blends from its own speed to that:
//   rpm = lerp(own, wheels, clutch), never below engine_idleRPM nor above engine_maxRPM.
// - Engaging a gear from neutral sets the engine to engine_startRPM. With the throttle closed
//   and the wheels turning the engine slower than engine_minRPM, the clutch opens so the engine
//   does not stall (stalling itself is not modelled), and the engine idles at engine_idleRPM.
// - Automatic mode: when the road speed would turn the engine faster than engine_shiftupRPM one
//   gear up, slower than engine_shiftdownRPM for 0.1 s one down (from first to neutral only with
//   the throttle closed and the car stopped, its wheels slower than gear_dir_switch_RPM: a car
//   that stops with the throttle closed waits in neutral and pulls away in first); never up
//   from reverse, nor while rolling against the gear. The road speed, not the wheels'
//   spin, decides, so wheelspin does not shift; with no driving wheel on the ground it is the
//   chassis' forward speed. A low reading must last 0.1 s: a wheel landing on a bump's steep face
//   reads a fraction of the car's speed for a step. After every change the clutch opens and closes
//   again at clutch_speed, scaling the torque meanwhile; no upshift, nor a downshift under
//   throttle, happens until it has closed (with the throttle closed the box keeps stepping down
//   while the car slows, so a hard stop ends in neutral, not in the gear it braked in); a shift
//   back the other way waits shiftDwell. Under throttle, once the road speed has gained less than
//   1% for 1 s (drag or a grade holds the car below the shift-up speed), the box also shifts up
//   when the next gear gives the wheels more force and keeps the engine a tenth above
//   engine_shiftdownRPM.
// - With engine inertia (EngineSettings::inertia > 0) the engine speed w_e is a state with
//   I_e dw_e/dt = T_engine - T_clutch, where T_engine is the torque curve's at the throttle, less
//   engine braking with the throttle closed. The clutch's capacity is its engagement (ramping at
//   clutch_speed after every shift) x EngineSettings::clutchCapacity. The gearbox side turns at
//   w_g = ratio x the driving wheels' spin weighted by their torque shares.
//   Slipping (w_e != w_g), the clutch and the engine are worked as an automated gearbox works
//   them: while the gearbox side turns slower than engine_startRPM (a launch) the clutch passes
//   what holds the engine at that speed (it neither bogs down nor stalls); after a shift the
//   engine's own torque (cut down to engine braking on an upshift, raised up to full throttle on
//   a downshift) brings it to the gearbox's speed by the end of the clutch's engagement, while
//   the clutch passes the torque the driver asked for; what the engine cannot do goes through
//   the clutch; always within the capacity, and never against the slip: with the gearbox side
//   ahead (a downshift, a landing's wheels) it can only brake it. The engine's speed steps implicitly in its
//   torque's fall with speed.
//   Locked, the engine's torque goes through, and the engine's inertia (I_e ratio^2 at the
//   wheels) turns with the driving wheels' share-weighted mean spin in the contact solve
//   (EngineSpinCoupling, ContactSolver.h): the tire rows see the whole drive's inertia, the
//   differential the wheels' own. The engine's max rpm then caps that mean, not each wheel.
//   Slip and lock are decided on the speeds the solve left (followWheels): a slipping clutch
//   locks when a slip of more than 0.5 rad/s changed sign within the step (or is below that);
//   a locked one slips again when holding the engine to the wheels took more than the
//   capacity. The heat is the clutch torque x the slip speed over the part of the step where
//   the two agree (the slip linear in time), summed in clutchSlipEnergy: it never falls.
//   In neutral the engine revs freely up to max rpm. An idle governor keeps it at idle or
//   above, unless stalling is switched on (EngineSettings::stall); then a closed throttle that
//   lets the wheels drag it below engine_minRPM stalls it (no torque, no governor) until the
//   gearbox is in neutral.
// - Direction (CryEngine): pedal < 0 in a forward gear brakes ('back' while moving forward) until
//   the driving wheels turn slower than gear_dir_switch_RPM, counted at the larger of their spin
//   and their road speed (locked wheels are not slow), then engages reverse, and keeps braking
//   while the car still rolls forwards; pedal > 0 in reverse likewise, without the last part
//   (rolling back in first under throttle is a hill start). Manual mode: DriverInput's shift inputs choose the gear; pedal > 0 drives in
//   the selected gear, pedal < 0 brakes. A downshift (a larger ratio) that would turn the engine
//   past engine_maxRPM at the road speed, or a change of direction (into reverse rolling
//   forward, into a forward gear rolling back) while the road turns the wheels faster than
//   gear_dir_switch_RPM, is refused (the gear stays), as a sequential box's controller refuses it.

#include "raycar/vehicle/Engine.h"
#include "raycar/vehicle/Gearbox.h"

#include <limits>

namespace raycar {

struct PowertrainInput {
  btScalar pedal = 0;              // [-1, 1], already shaped (pedal speed, steering cap)
  bool shiftUp = false;            // manual mode: shift one gear up this step
  bool shiftDown = false;          // manual mode: shift one gear down this step
  btScalar fastestWheelSpin = 0;   // rad/s, the driving wheel spin of largest magnitude (signed)
  btScalar meanWheelSpin = 0;      // rad/s, mean of the driving wheels' spins (signed)
  // rad/s: the spin the driving wheels would have rolling on the ground without slip (their
  // contact points' forward speed over the radius; the chassis' forward speed over it while none
  // touches). The automatic gearbox shifts on it, as a gearbox controller shifts on road speed:
  // wheelspin at a launch, or wheels spinning free in the air, must not change gear.
  btScalar roadWheelSpin = 0;
  // rad/s: the driving wheels' spin weighted by their torque shares (what the clutch's gearbox
  // side turns at, over the total ratio).
  btScalar gearboxWheelSpin = 0;
  // ABS held back the brake of a driving wheel in the last step. With the throttle closed the
  // clutch then opens, as an automatic's converter lock-up opens under braking and a driver
  // declutches: through a locked clutch the engine's inertia (in first gear ten times a wheel's)
  // and a downshift's take-up fought the regulation, and a sedan's front wheels held 0.06 and
  // swung to 0.18 against ABS's 0.1 target slip.
  bool antiLockBraking = false;
};

struct PowertrainOutput {
  btScalar driveTorque = 0;         // N m, sum over the driven wheels, > 0 drives forward
  btScalar engineBrakingTorque = 0;  // N m, sum over the driven wheels, against their spin
  btScalar pedalBrake = 0;          // [0, 1]: the pedal asks the footbrake for this much
  btScalar throttle = 0;            // [0, 1]: what reached the engine
  // rad/s: the driven wheels' spin at which the engine, through the present gear, reaches its
  // max rpm and has no torque left; drive torque does not spin a wheel past it. Infinite when
  // the engine drives nothing.
  btScalar maxWheelSpin = std::numeric_limits<btScalar>::infinity();
  // kg m^2 at the driven wheels (their sum; each carries its torque share): the engine's
  // inertia through a locked clutch, I_engine ratio^2. 0 without engine inertia or slipping.
  btScalar reflectedInertia = 0;
};

struct PowertrainState {
  int gear = kNeutralGear;   // index into GearboxSettings::gears (RaycastVehicle::gear(): -1, 0, 1...)
  btScalar clutch = 0;       // [0, 1]: 1 engaged
  btScalar engineRpm = 0;    // rev/min
  btScalar engineTorque = 0;  // N m at the crankshaft, this step
  int shifts = 0;            // gear changes so far
  // With engine inertia (EngineSettings::inertia > 0):
  btScalar clutchTorque = 0;       // N m the clutch passes from the engine to the gearbox
  bool clutchLocked = false;       // the clutch does not slip: engine and wheels turn together
  btScalar clutchSlipEnergy = 0;   // J: the integral of clutch torque x slip speed so far
  bool stalled = false;            // EngineSettings::stall: the engine stopped; restarts in neutral
};

class Powertrain {
 public:
  Powertrain(const EngineSettings& engine, const GearboxSettings& gearbox);
  PowertrainOutput update(const PowertrainInput& input, btScalar dt);
  // After the step's solve: with the clutch closed the engine turns with the fastest driving
  // wheel (rad/s, signed) through the gear, within idle and max rpm, so that the engine speed a
  // driver reads agrees with the wheels it drives (update() saw the wheels a step earlier).
  // With engine inertia: decides the clutch's slip or lock for the next step from the driving
  // wheels' share-weighted spin the solve left (gearboxWheelSpin, rad/s), and counts the heat.
  void followWheels(btScalar fastestWheelSpin, btScalar gearboxWheelSpin, btScalar dt);
  const PowertrainState& state() const { return state_; }
  // Without engine inertia, between update() and the step's solve: whether the engine turns with
  // the driving wheels and drives them (in gear, its clutch engaged, the throttle open), and then
  // the drive torque (N m, all driven wheels together, as update()'s driveTorque) it would give
  // had the fastest driving wheel turned at `fastestWheelSpin` (rad/s) when the step began.
  // Drivetrain::spinUp takes the torque's fall over the step from it.
  bool followsWheelsThisStep() const { return follows_.active; }
  btScalar driveTorqueThisStep() const { return follows_.driveTorque; }  // update()'s, N m
  btScalar driveTorqueAtWheelSpin(btScalar fastestWheelSpin) const;
  // The slope of that torque's curve at update()'s engine speed (N m per rad/s of engine speed,
  // < 0 past the curve's peak), and the most it can be (the curve's peak through the clutch).
  btScalar driveTorqueSlopeAtStart() const;
  btScalar peakDriveTorque() const;
  // The drive this step is `fraction` of what update() gave (Drivetrain::spinUp): the engine's
  // torque with it.
  void scaleDrive(btScalar fraction) { state_.engineTorque *= fraction; }
  // As built: neutral, the engine at idle, the clutch open, nothing carried over from the last
  // step (RaycastVehicle::resetMotion).
  void resetMotion() { *this = Powertrain(engine_, gearbox_); }
  // What evolves (a saved state, RaycastVehicle::saveState): archive.scalar/integer/flag each.
  template <class Archive>
  void transferState(Archive& archive) {
    archive.integer(state_.gear, 0, int(gearbox_.gears.size()) - 1);
    archive.integer(state_.shifts, 0);
    archive.integer(lastShiftDirection_, -1, 1);
    archive.scalar(state_.clutch, 0, 1);
    archive.scalar(state_.engineRpm, 0);
    archive.scalar(throttle_, 0, 1);
    // The time since the last shift starts "long ago" (1e9 s) and is only compared with the
    // shift dwell: any size is harmless.
    archive.scalar(sinceShift_, 0, BT_LARGE_FLOAT);
    for (btScalar* value : {&state_.engineTorque, &state_.clutchTorque, &state_.clutchSlipEnergy,
                            &engineSpeedBefore_, &gearboxSpeedBefore_})
      archive.scalar(*value);
    archive.flag(state_.clutchLocked);
    archive.flag(state_.stalled);
    archive.scalar(highestRoadRpm_, 0);
    archive.scalar(heldSpeedTime_, 0, BT_LARGE_FLOAT);
    archive.scalar(belowShiftDownTime_, 0, BT_LARGE_FLOAT);
  }
  // Total ratio engine : wheel in the current gear (gear x final drive); 0 in neutral.
  btScalar totalRatio() const;
  // The engine speed (rev/min) a wheel spin (rad/s, either sign) makes through the present gear.
  btScalar rpmThroughGear(btScalar wheelSpin) const;
  // The same with the spin's sign: < 0 while the wheels turn against the gear (rolling back).
  btScalar signedRpmThroughGear(btScalar wheelSpin) const;

 private:
  void engage(int gear);
  void selectGear(const PowertrainInput& input, btScalar& throttle, btScalar& pedalBrake);
  // Manual mode: whether `gear` may be engaged at the road speed (no downshift into over-rev, no
  // change of direction at speed); a refused shift leaves the gear as it was.
  bool mayEngageManually(int gear, const PowertrainInput& input) const;
  // roadRpm: the engine speed the road speed makes through this gear, negative rolling against
  // it; standing: stopped(), the car may change direction.
  void shiftAutomatically(btScalar roadRpm, bool standing, btScalar throttle, btScalar dt);
  // Whether the driving wheels turn slower than gear_dir_switch_RPM, counted at the larger of
  // their spin and their road speed (locked wheels are not slow): the car may change direction.
  bool stopped(const PowertrainInput& input) const;
  // Whether the next gear gives the wheels more force than this one at road speed `roadRpm`
  // (engine rev/min through this gear), keeping the engine above the downshift speed.
  bool nextGearPullsHarder(btScalar roadRpm, btScalar throttle) const;
  void shift(int gear);  // an automatic shift: remembers its direction and time
  // EngineSettings::inertia > 0: the engine speed as a state and a slipping clutch.
  // Before the solve: the clutch's torque and the engine's step (slipping) or the engine's
  // torque and inertia onto the wheels (locked).
  void turnEngine(const PowertrainInput& input, btScalar throttle, btScalar dt,
                  PowertrainOutput& output);
  // After the solve, with engine inertia.
  void settleClutch(btScalar gearboxWheelSpin, btScalar dt);
  btScalar clutchCapacity() const;  // N m at the present engagement
  // N m at the crankshaft: the torque curve's at the throttle, less engine braking when it is
  // closed; 0 while stalled. And its slope, N m per rad/s.
  btScalar netEngineTorque(btScalar rpm, btScalar throttle) const;
  btScalar netEngineTorqueSlope(btScalar rpm, btScalar throttle) const;

  EngineSettings engine_;
  GearboxSettings gearbox_;
  PowertrainState state_;
  btScalar sinceShift_ = 1e9;  // s since the last automatic shift
  int lastShiftDirection_ = 0;  // +1 up, -1 down
  btScalar highestRoadRpm_ = 0;  // rev/min: the road speed through this gear, its highest so far
  btScalar heldSpeedTime_ = 0;   // s under throttle without gaining 1% on highestRoadRpm_
  btScalar belowShiftDownTime_ = 0;  // s the road speed has stayed below the shift-down speed
  // Without engine inertia, update()'s engine speed from the wheels' (rev/min), and a torque at
  // the crankshaft through the clutch and gearing to the wheels (N m): one formula for update()
  // and driveTorqueAtWheelSpin.
  btScalar followingRpm(btScalar wheelDrivenRpm) const;
  btScalar throughClutch(btScalar engineTorque) const;
  // Without engine inertia, this step's update(): what driveTorqueAtWheelSpin needs.
  struct FollowingEngine {
    bool active = false;
    btScalar rpmBefore = 0;  // rev/min: the engine's speed before update() moved it
    btScalar clutch = 0;
    btScalar throttle = 0;
    btScalar driveTorque = 0;  // N m: update()'s driveTorque
  };
  FollowingEngine follows_;
  // With engine inertia, this step's values before the solve, for settleClutch:
  btScalar engineSpeedBefore_ = 0;   // rad/s
  btScalar gearboxSpeedBefore_ = 0;  // rad/s at the clutch
  btScalar throttle_ = 0;
};

}  // namespace raycar
