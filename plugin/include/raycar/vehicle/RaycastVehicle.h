#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// RaycastVehicle: a car as a Bullet action. Add it to a btDiscreteDynamicsWorld with
// addAction(); Bullet calls updateAction() after every substep's integration.
//
// One ray per wheel finds the ground; a spring-damper per wheel holds the chassis up; tires turn
// slip into force; all forces reach the bodies as impulses (F dt). applyForce would be wrong in
// an action: stepSimulation clears forces only after its last substep, so a force applied in
// substep k acts again in substep k+1 and the last substep's force is dropped.
//
// Each step runs the stages listed in plugin/src/vehicle/StepStages.h: input shaping, one ground
// query per wheel, suspension, contact velocities and friction, powertrain and brakes, drive
// torque into wheel spin, and one contact solve (suspension, aero, bump stops, brakes,
// differentials, tire friction) whose impulses act on the chassis, the ground and the wheels.
// A game drives the car with setInput(DriverInput) once per step. The per-wheel inputs
// (setDriveTorque, setBrakeTorque, setSteerAngle) add to what the powertrain, brakes and steering
// produce, for games with drivetrains of their own or for tests of the chassis alone.
// No heap allocation happens in updateAction; the same inputs give bitwise the same trajectory.

#include <BulletDynamics/Dynamics/btActionInterface.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <vector>

#include "raycar/vehicle/DriverInput.h"
#include "raycar/vehicle/Powertrain.h"
#include "raycar/vehicle/StabilityControl.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "raycar/vehicle/Wheel.h"

namespace raycar {

class SurfaceTable;
class VehicleRuntime;

class RaycastVehicle : public btActionInterface {
 public:
  // The chassis must be a dynamic body already in the world (which gives it gravity). Throws
  // SettingsError listing every problem with `settings`, and a given spring rate that cannot
  // carry its wheel's static load within its travel at the chassis' gravity.
  RaycastVehicle(btRigidBody& chassis, VehicleSettings settings);
  // The same with settings that other vehicles may share (the vehicle never changes them): a
  // game with many cars of one model makes them from one copy, e.g. `other.sharedSettings()`,
  // and each car then keeps only its own state (README, "Many cars of one model"). Nobody may
  // change the settings while a vehicle holds them: the vehicle checked and resolved them once,
  // and its wheels refer to them. For other settings, make a new vehicle from a new copy.
  RaycastVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings);
  // The same, with the vehicle's wheels and their cached ground (one block of a few kilobytes,
  // allocated here and freed with the vehicle) taken from `wheelMemory`, which must outlive the
  // vehicle. VehicleGroup keeps its cars' blocks in one pool this way, one car's after another's;
  // the constructors above take them from the heap (std::pmr::new_delete_resource()).
  RaycastVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings,
                 std::pmr::memory_resource& wheelMemory);
  ~RaycastVehicle() override;
  RaycastVehicle(const RaycastVehicle&) = delete;
  RaycastVehicle& operator=(const RaycastVehicle&) = delete;

  // btActionInterface. dt <= 0 or non-finite: nothing happens. A chassis whose state is not
  // finite is left alone, and so is one taken out of the world (no broadphase handle), one in
  // another world than `world`, and a
  // sleeping one (Bullet's deactivation): a parked car costs
  // nothing until an input changes, which wakes it. The car decides when it may sleep: once it
  // has stood still for Bullet's deactivation time (its own velocity and its wheels' rims below
  // the chassis' sleeping thresholds, no pedal, no drive torque of the game's, no ground moving
  // under it), whatever the gravity its chassis holds between steps (linearVelocity()); not
  // while it moves, whatever Bullet's test of that velocity says. README, "Sleeping".
  void updateAction(btCollisionWorld* world, btScalar dt) override;
  void debugDraw(btIDebugDraw* drawer) override;

  // The driver's input, held until the next call. NaN and infinite components count as rejected
  // (rejectedInputs()) and act as 0; finite out-of-range values are clamped. An input that
  // differs from the one held wakes the chassis; the same input again does not.
  void setInput(const DriverInput& input);

  // Per-wheel inputs, held until changed, added to the drivetrain's; a change wakes the chassis.
  // An index out of range or a non-finite value throws InputError and changes nothing.
  void setDriveTorque(int wheel, btScalar torque);  // N m at the wheel, > 0 drives forward
  void setBrakeTorque(int wheel, btScalar torque);  // N m, >= 0
  void setSteerAngle(int wheel, btScalar angle);    // rad, > 0 turns left, |angle| < pi/2
  // Locks every wheel with canBrake. Not a per-wheel input: it sets the handbrake the driver's
  // input holds (DriverInput::handbrake), so the next setInput() replaces it; a game that drives
  // through setInput sets its handbrake there.
  void setHandbrake(bool engaged);
  // A run-time scale of one wheel's friction (after the script's min/max clamp), for games:
  // drift modes, puddles, oil. 1 by default; in [0, 10] (InputError otherwise).
  void setGripScale(int wheel, btScalar scale);
  btScalar gripScale(int wheel) const;
  // The friction of each tire surface on each ground material (SurfaceTable.h); null (the
  // default): every contact uses (tire + ground) / 2. Many vehicles may share one table.
  void setSurfaceTable(std::shared_ptr<const SurfaceTable> table);
  // A tire's temperature (C, WheelState::tireTemperature; tire blankets, a restored save). Finite,
  // in [-100, 500], or InputError.
  void setTireTemperature(int wheel, btScalar temperature);
  // N m at the steering wheel, > 0 turns it left: the steered wheels' aligning moments
  // (WheelState::aligningMoment) over the steering ratio, for a force-feedback wheel. 0 unless
  // the tires have a pneumatic trail or the wheels a mechanical one.
  btScalar steeringTorque() const;
  const std::shared_ptr<const SurfaceTable>& surfaceTable() const;

  int wheelCount() const;
  // A wheel's settings as the vehicle runs them: settings().wheels[wheel] with the automatic
  // stiffness and damping (0 in the settings) resolved from this vehicle's static loads. A copy:
  // the vehicle keeps the settings once, as given, and the resolved rates in the wheel.
  WheelSettings wheelSettings(int wheel) const;
  const WheelState& wheelState(int wheel) const;
  // World transform of a wheel for rendering: at its suspension length, steered and spun. The
  // wheel mesh is expected in the chassis' axes, centred on the wheel.
  btTransform wheelWorldTransform(int wheel) const;
  btTransform wheelWorldTransform(int wheel, const btTransform& chassisTransform) const;

  const VehicleSettings& settings() const;
  // The settings as held, to make more vehicles sharing them.
  const std::shared_ptr<const VehicleSettings>& sharedSettings() const;
  const DriverInput& input() const;
  int rejectedInputs() const;
  const PowertrainState& powertrain() const;
  // The last step's contact solve: the sweeps it ran, its residual and its estimated error (N).
  const SolveReport& solveReport() const;
  // What the stability control (AssistSettings::stabilityControl) did in the last step.
  const StabilityControlState& stabilityControl() const;
  // The gear as a driver reads it: -1 reverse, 0 neutral, 1 first, ... (PowertrainState::gear is
  // an index into GearboxSettings::gears).
  int gear() const;
  btScalar pedal() const;       // after pedal_speed and the steering cap
  btScalar steerAngle() const;  // rad, the equivalent bicycle's
  bool isSteered(int wheel) const;
  btRigidBody& chassis() const;
  bool handbrake() const;
  // The chassis velocity over the coming step (m/s). Bullet runs actions after integrating, so
  // the impulses that hold the car up belong to the next step: between steps the chassis body's
  // own getLinearVelocity() of a parked car reads g dt upward (0.08 m/s at 1/120 s) until
  // gravity takes it back. This adds that coming change and reads 0 for a parked car.
  btVector3 linearVelocity() const;
  btScalar forwardSpeed() const;  // m/s along the chassis forward axis, from linearVelocity()
  btVector3 worldUp() const;
  btVector3 worldForward() const;
  btVector3 worldRight() const;

  // Save and restore, for rollback networking, replays and save games: everything of this
  // vehicle that evolves from step to step (wheel spins and angles, suspension, steering, pedal
  // ramps, powertrain, gearbox and clutch, warm-start impulses and stick anchors, assists'
  // integrals, the stability control, tire temperatures and slip-lag deflections, the held
  // inputs) as a compact, versioned byte buffer. The chassis' Bullet body is the game's to save
  // with its other bodies (transform, velocities, forces). Restoring both and stepping with the
  // same inputs repeats the saved run bit for bit. The wheels' query caches are not saved (they
  // give the same answers rebuilt). The buffer is for the same build on the same kind of
  // machine. WheelState::groundObject reads null after a restore until the next step.
  void saveState(std::vector<std::uint8_t>& buffer) const;  // replaces the buffer's contents
  std::vector<std::uint8_t> saveState() const;
  size_t stateSize() const;  // bytes saveState writes for this vehicle
  // Throws StateError (not a state, another format version or precision, another wheel count or
  // layout (layoutFingerprint: a sedan's state offered to a coupe; a retuned sedan takes it),
  // truncated, corrupted, a value not finite or out of range) and then changes nothing.
  void restoreState(const void* data, size_t size);
  // The checks restoreState makes, without restoring: throws StateError as it would.
  void checkState(const void* data, size_t size) const;

  // After the game moves the car (a teleport, a respawn, righting it), with its chassis' pose and
  // velocities set: the vehicle's own motion as a newly built one's - wheels not turning, the
  // engine at idle in neutral with the clutch open, no contact, warm start, stick anchor or slip
  // lag carried over, no assist acting, the pedal's pedal_speed ramp back at rest - so that it
  // does not drive off on what it did before. Keeps its input (a pedal still held ramps up
  // again from 0), steering angle and tire temperatures. Forgets the wheels' cached ground
  // triangles (of where it was: perhaps another level). Wakes the chassis.
  void resetMotion();
  // Forgets the wheels' cached ground triangles (WheelQuerySettings::cache). Needed only after
  // the vertices of a triangle mesh the car drives on were changed in place; moving, adding or
  // removing objects needs nothing, and resetMotion() and a step by another world than the last
  // forget them too. With a broadphase that gives a removed object's number to the next one
  // (btAxisSweep3, btSimpleBroadphase; not the default btDbvtBroadphase), call it also after a
  // mesh body was replaced by another built in the same memory (a streamed tile's pool slot).
  void clearWheelQueryCache();
  // Ground triangles the wheels hold now (for tests and benchmarks).
  int cachedTriangleCount() const;

  // raycar's own step state (plugin/src/vehicle/VehicleRuntime.h), which VehicleGroup runs; not
  // part of the API.
  VehicleRuntime& runtime() { return *runtime_; }

 private:
  void checkWheelIndex(int wheel, const char* what) const;
  void wake() const;
  void wakeIf(bool inputChanged);
  void hold(btScalar& held, btScalar value);  // a per-wheel input: held, waking on a change

  std::unique_ptr<VehicleRuntime> runtime_;
};

}  // namespace raycar
