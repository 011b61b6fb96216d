#pragma once
// Engine, clutch and gearbox as one state machine (seed 001, with seed 004's final drive,
// efficiency and engine braking). Each step it takes the shaped pedal and the driving wheels'
// spin and returns the torque at the driven wheels, the pedal's braking request, and engine
// braking.
//
// - Engine speed follows the fastest driving wheel times the gear and final drive ratios. While
//   the clutch re-engages (clutch < 1) it blends from its own speed to that:
//   rpm = lerp(own, wheels, clutch), never below engine_idleRPM nor above engine_maxRPM.
// - Engaging a gear from neutral sets the engine to engine_startRPM. With the throttle closed
//   and the wheels turning the engine slower than engine_minRPM, the clutch opens so the engine
//   does not stall (stalling itself is not modelled), and the engine idles at engine_idleRPM.
// - Automatic mode: when the road speed would turn the engine faster than engine_shiftupRPM one
//   gear up, slower than engine_shiftdownRPM one down (from first to neutral only with the
//   throttle closed, as seed 001 has it: a car that stops with the throttle closed waits in
//   neutral and pulls away in first); never up from reverse. The road speed, not the wheels'
//   spin, decides, so wheelspin does not shift. After every change the clutch opens and closes
//   again at clutch_speed, scaling the torque meanwhile; no upshift, nor a downshift under
//   throttle, happens until it has closed (with the throttle closed the box keeps stepping down
//   while the car slows, so a hard stop ends in neutral, not in the gear it braked in); a shift
//   back the other way waits shiftDwell.
// - Direction (CryEngine): pedal < 0 in a forward gear brakes ('back' while moving forward) until
//   the driving wheels turn slower than gear_dir_switch_RPM, then engages reverse; pedal > 0 in
//   reverse likewise. Manual mode: DriverInput's shift inputs choose the gear; pedal > 0 drives in
//   the selected gear, pedal < 0 brakes.

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
  // contact points' forward speed over the radius; their mean spin while none touches). The
  // automatic gearbox shifts on it, as a gearbox controller shifts on road speed: wheelspin
  // at a launch must not change gear.
  btScalar roadWheelSpin = 0;
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
};

struct PowertrainState {
  int gear = kNeutralGear;   // index into GearboxSettings::gears (RaycastVehicle::gear(): -1, 0, 1...)
  btScalar clutch = 0;       // [0, 1]: 1 engaged
  btScalar engineRpm = 0;    // rev/min
  btScalar engineTorque = 0;  // N m at the crankshaft, this step
  int shifts = 0;            // gear changes so far
};

class Powertrain {
 public:
  Powertrain(const EngineSettings& engine, const GearboxSettings& gearbox);
  PowertrainOutput update(const PowertrainInput& input, btScalar dt);
  // After the step's solve: with the clutch closed the engine turns with the fastest driving
  // wheel (rad/s, signed) through the gear, within idle and max rpm, so that the engine speed a
  // driver reads agrees with the wheels it drives (update() saw the wheels a step earlier).
  void followWheels(btScalar fastestWheelSpin);
  const PowertrainState& state() const { return state_; }
  // Total ratio engine : wheel in the current gear (gear x final drive); 0 in neutral.
  btScalar totalRatio() const;
  // The engine speed (rev/min) a wheel spin (rad/s, either sign) makes through the present gear.
  btScalar rpmThroughGear(btScalar wheelSpin) const;

 private:
  void engage(int gear);
  void selectGear(const PowertrainInput& input, btScalar& throttle, btScalar& pedalBrake);
  void shiftAutomatically(btScalar roadRpm, btScalar throttle);
  void shift(int gear);  // an automatic shift: remembers its direction and time

  EngineSettings engine_;
  GearboxSettings gearbox_;
  PowertrainState state_;
  btScalar sinceShift_ = 1e9;  // s since the last automatic shift
  int lastShiftDirection_ = 0;  // +1 up, -1 down
};

}  // namespace raycar
