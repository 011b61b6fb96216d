#pragma once
// The drivetrain at run time: the powertrain (engine, clutch, gearbox), the driven axles and
// their differentials, the brakes and the driver assists. Stage Drivetrain turns the shaped
// pedal and the brake input into every wheel's drive and brake torque and the differentials'
// locking limits; stage DriveSpin spins the wheels up by their drive torque; after the solve
// the engine follows the wheels it drives (stage FollowWheels). The laws are in
// raycar/vehicle/{Powertrain,Engine,Gearbox,Differential,Brakes}.h.

#include <memory>
#include <vector>

#include "raycar/vehicle/Powertrain.h"
#include "raycar/vehicle/StabilityControl.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "solver/ContactSolver.h"
#include "vehicle/Wheel.h"

namespace raycar {

class Drivetrain {
 public:
  // Resolves the wheels' brake groups (Wheel::front) and the driven axles: the settings'
  // differentials, or an open one per axle with driving wheels.
  Drivetrain(const VehicleSettings& settings, WheelArray& wheels);

  // Manual shifts, held until the next update uses them.
  void requestShifts(bool up, bool down);
  // pedal: shaped, [-1, 1]; brake: the footbrake input, [0, 1]; stability: the brake the
  // stability control asks of one wheel this step; forwardSpeed: the chassis' along its forward
  // axis (m/s), the road speed while no driving wheel touches the ground. Sets every wheel's
  // driveTorque, brakeTorque and engineSpinLimit, and the couplings' limits.
  void update(btScalar pedal, btScalar brake, const StabilityControlState& stability,
              btScalar forwardSpeed, WheelArray& wheels, btScalar dt);
  // Drive torque into wheel spin, up to the engine's spin limit (stage DriveSpin); through a
  // locked clutch the engine's inertia turns with the driving wheels.
  void spinUp(WheelArray& wheels, btScalar dt);
  // After the solve: what the tire did not take back of this step's drive spins no wheel past
  // the engine's max rpm; an engaged engine turns with the wheels the solve left; with engine
  // inertia the clutch decides whether it slips or locks in the next step.
  void followWheels(WheelArray& wheels, btScalar dt);

  std::vector<SpinCoupling>& couplings() { return couplings_; }
  void resetMotion() {  // RaycastVehicle::resetMotion
    powertrain_.resetMotion();
    shiftUpRequested_ = shiftDownRequested_ = false;
    antiLockOnDrivingWheel_ = false;
    for (SpinCoupling& coupling : couplings_) coupling.impulse = 0;
  }
  template <class Archive>
  void transferState(Archive& archive) {  // StateArchive.h
    powertrain_.transferState(archive);
    archive.flag(shiftUpRequested_);
    archive.flag(shiftDownRequested_);
    archive.flag(antiLockOnDrivingWheel_);
    // The differentials' rows: the solve starts from them (N m s).
    for (SpinCoupling& coupling : couplings_) archive.scalar(coupling.impulse);
  }
  // The driving wheels' spins tied to the engine's inertia through a locked clutch, this step.
  const EngineSpinCoupling& engineCoupling() const { return engineCoupling_; }
  const PowertrainState& powertrain() const { return powertrain_.state(); }

 private:
  struct DrivenAxle {
    DifferentialSettings differential;
    std::vector<int> wheels;  // its driving wheels
    btScalar share = 0;       // of the drive torque
    btScalar inputTorque = 0;  // N m: this step's drive into it (update, takeDriveTorqueFall)
    // Its couplings: couplings_[firstCoupling, firstCoupling + couplingCount), one per pair of
    // neighbouring driving wheels of a locked or limited-slip axle; none when open.
    size_t firstCoupling = 0;
    size_t couplingCount = 0;
  };
  // rad/s: the driving wheels' spins weighted by their torque shares.
  btScalar gearboxWheelSpin(const WheelArray& wheels) const;
  // spinUp, before the drive turns the wheels: without engine inertia, the engine's drive cut
  // to what it gives at the spin it leaves the fastest driving wheel with (its torque's fall over
  // the step, implicit). The root's tolerance (of the drive) and most evaluations.
  void takeDriveTorqueFall(WheelArray& wheels, btScalar dt);
  static constexpr btScalar kDriveFallTolerance = btScalar(1e-3);
  static constexpr int kDriveFallIterations = 12;
  // A driving wheel's end spin in takeDriveTorqueFall (rad/s).
  struct DriveFallWheel {
    btScalar start = 0;         // the spin before the drive
    btScalar directSpinUp = 0;  // the game's direct drive's spin-up
    btScalar engineSpinUp = 0;  // the engine's at f = 1
    btScalar road = 0;          // the ground's speed at the wheel; -BT_LARGE_FLOAT in the air
    btScalar spinBack = 0;      // the tire's share taken back in the last step
    btScalar grip = 0;          // the most the tire can take back in this one
  };
  // Driving wheels takeDriveTorqueFall reads on the stack; a car with more keeps its drive
  // explicit.
  static constexpr size_t kMaxDriveFallWheels = 16;
  // The engine's part of every driving wheel's drive torque times `fraction`, and the engine's.
  void scaleEngineDrive(WheelArray& wheels, btScalar fraction, btScalar dt);
  // The couplings' limits from the axle's locking torque at its inputTorque (N m s over dt);
  // a Torsen's are update()'s.
  void setLockingLimits(const DrivenAxle& axle, btScalar dt);
  // The share of a spin-up from `before` to `after` (rad/s, as the wheel will keep them after
  // its tire) that stays below `limit` (the engine's max rpm at the wheel), or that only keeps
  // a faster wheel's speed: 1 when all of it may stay.
  static btScalar keptSpinUp(btScalar before, btScalar after, btScalar limit);
  // keptSpinUp of this step's drive on `wheel`, measured past the spin its tire takes back.
  static btScalar keptDriveOf(const Wheel& wheel);
  // The share of this step's drive spin-up `driveSpinUp` (rad/s) to take back from a wheel that
  // ends the solve at `spin` (rad/s), past `limit`: 0 when it stays within it.
  static btScalar driveBeyondLimit(btScalar spin, btScalar driveSpinUp, btScalar limit);
  // ABS (slipRatio < 0) and traction control (> 0): the torque (N m, >= 0) that holds `wheel`
  // at `slipRatio` in `direction` (+1 forwards, -1 backwards: the brake's against the travel,
  // the drive's its torque's); `engineFeedback` (N m) is the wheel's part in turning the engine
  // behind a locked clutch, `requested` (N m) the wheel's whole torque in that direction before
  // the cap (ABS: every brake torque on it; traction control: the drive less the brake), with
  // which the cap is compared (the integral does not wind up while it is below), `integral` the
  // assist's integral term.
  btScalar assistTorqueCap(const Wheel& wheel, btScalar slipRatio, btScalar direction,
                           btScalar engineFeedback, btScalar requested, btScalar dt,
                           btScalar& integral) const;
  // Wheel `index`'s brake (the pedal's share and the stability control's, N m) through ABS,
  // less `release` (N m the stability control takes off it), and its drive through traction
  // control; adds the brake to its brakeTorque and returns it (N m).
  btScalar brakeWheel(Wheel& wheel, int index, btScalar pedalBrake, btScalar stabilityBrake,
                      btScalar release, btScalar engineFeedbackPerShare, btScalar dt);
  // rad/s: how far `wheel`'s spin is short of the one at `slipRatio` in `direction`, in the
  // sense its torque works (drive: slower than the target; brake: faster).
  static btScalar assistShortfall(const Wheel& wheel, btScalar slipRatio, btScalar direction);
  // s: the time within which the assists' feedback closes a shortfall, at step `dt`.
  static btScalar assistResponseTime(btScalar dt);

  const VehicleSettings* settings_;  // the vehicle's, which outlive this object
  Powertrain powertrain_;
  std::vector<DrivenAxle> drivenAxles_;
  std::vector<int> drivingWheels_;
  std::vector<SpinCoupling> couplings_;  // every axle's (DrivenAxle::firstCoupling)
  std::vector<btScalar> drivingShares_;  // per driving wheel: its share of the drive torque
  std::vector<btScalar> drivingInverseInertias_;  // per driving wheel, this step (scratch)
  EngineSpinCoupling engineCoupling_;
  int frontWheelCount_ = 0;
  // ABS held back a driving wheel's brake in the last step: the clutch stays open
  // (PowertrainInput::antiLockBraking).
  bool antiLockOnDrivingWheel_ = false;
  bool shiftUpRequested_ = false;  // rising edges of the manual shift inputs, until used
  bool shiftDownRequested_ = false;
};

}  // namespace raycar
