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
// The per-step pipeline (updateAction):
//   1. input shaping: pedal speed and cap, steering rate, relaxation, Ackermann angles
//   2. cast one ray per wheel           3. suspension lengths and loads
//   4. contact velocities and friction  5. powertrain, differentials and brakes -> wheel torques
//   6. drive torques into wheel spin
//   7. contact solve: suspension, aero, bump stops, brakes, differentials, tire friction
//   8. wheel rotation for rendering
// A game drives the car with setInput(DriverInput) once per step. The per-wheel inputs
// (setDriveTorque, setBrakeTorque, setSteerAngle) add to what the powertrain, brakes and steering
// produce, for games with drivetrains of their own or for tests of the chassis alone.
// No heap allocation happens in updateAction; the same inputs give bitwise the same trajectory.

#include <BulletDynamics/Dynamics/btActionInterface.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <memory>
#include <vector>

#include "raycar/vehicle/DriverInput.h"
#include "raycar/vehicle/Powertrain.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "raycar/vehicle/Wheel.h"

namespace raycar {

class ContactSolver;
struct WheelContact;
struct SpinCoupling;
struct WheelWork;
class WheelQuery;
class VehicleGroup;

class RaycastVehicle : public btActionInterface {
 public:
  // The chassis must be a dynamic body already in the world (which gives it gravity). Throws
  // SettingsError listing every problem with `settings`.
  RaycastVehicle(btRigidBody& chassis, VehicleSettings settings);
  ~RaycastVehicle() override;
  RaycastVehicle(const RaycastVehicle&) = delete;
  RaycastVehicle& operator=(const RaycastVehicle&) = delete;

  // btActionInterface. dt <= 0 or non-finite: nothing happens. A chassis whose state is not
  // finite is left alone, and so is a sleeping one (Bullet's deactivation): a parked car costs
  // nothing until an input changes, which wakes it.
  void updateAction(btCollisionWorld* world, btScalar dt) override;
  void debugDraw(btIDebugDraw* drawer) override;

  // The driver's input, held until the next call. NaN components count as rejected
  // (rejectedInputs()) and act as 0; out-of-range values are clamped. Wakes the chassis.
  void setInput(const DriverInput& input);

  // Per-wheel inputs, held until changed, added to the drivetrain's; a change wakes the chassis.
  // An index out of range or a non-finite value throws InputError and changes nothing.
  void setDriveTorque(int wheel, btScalar torque);  // N m at the wheel, > 0 drives forward
  void setBrakeTorque(int wheel, btScalar torque);  // N m, >= 0
  void setSteerAngle(int wheel, btScalar angle);    // rad, > 0 turns left, |angle| < pi/2
  void setHandbrake(bool engaged);                  // locks every wheel with canBrake

  int wheelCount() const { return int(wheelSettings_.size()); }
  const WheelSettings& wheelSettings(int wheel) const;
  const WheelState& wheelState(int wheel) const;
  // World transform of a wheel for rendering: at its suspension length, steered and spun. The
  // wheel mesh is expected in the chassis' axes, centred on the wheel.
  btTransform wheelWorldTransform(int wheel) const;
  btTransform wheelWorldTransform(int wheel, const btTransform& chassisTransform) const;

  const VehicleSettings& settings() const { return settings_; }
  const DriverInput& input() const { return input_; }
  int rejectedInputs() const { return rejectedInputs_; }
  const PowertrainState& powertrain() const;
  // The gear as a driver reads it: -1 reverse, 0 neutral, 1 first, ... (PowertrainState::gear is
  // an index into GearboxSettings::gears).
  int gear() const;
  btScalar pedal() const { return shapedPedal_; }     // after pedal_speed and the steering cap
  btScalar steerAngle() const { return steerAngle_; }  // rad, the equivalent bicycle's
  bool isSteered(int wheel) const;
  btRigidBody& chassis() const { return *chassis_; }
  bool handbrake() const { return handbrake_; }
  // The chassis velocity over the coming step (m/s). Bullet runs actions after integrating, so
  // the impulses that hold the car up belong to the next step: between steps the chassis body's
  // own getLinearVelocity() of a parked car reads g dt upward (0.08 m/s at 1/120 s) until
  // gravity takes it back. This adds that coming change and reads 0 for a parked car.
  btVector3 linearVelocity() const;
  btScalar forwardSpeed() const;  // m/s along the chassis forward axis, from linearVelocity()
  btVector3 worldUp() const;
  btVector3 worldForward() const;
  btVector3 worldRight() const;

  // Forgets the wheels' cached ground triangles (WheelQuerySettings::cache). Needed only after
  // the vertices of a triangle mesh the car drives on were changed in place; moving, adding or
  // removing objects needs nothing.
  void clearWheelQueryCache();
  // Ground triangles the wheels hold now (for tests and benchmarks).
  int cachedTriangleCount() const;

 private:
  friend class VehicleGroup;  // runs the stages below for many vehicles, spread over threads

  // Asking the memory system for what a step reads (Prefetch.h). A lone vehicle asks for it all
  // as its step begins; VehicleGroup asks in stages a few vehicles ahead, each stage reading
  // only what the stage before asked for, so that nothing waits: the vehicle object itself, the
  // arrays it points to, the solver's and wheel query's arrays, the cached ground triangles.
  void prefetchStepData() const;
  void prefetchArrays() const;
  void prefetchInternals() const;
  void prefetchCaches() const;

  // Stages of updateAction, in order. Input shaping and the drivetrain live in
  // VehicleControl.cpp, the rest in RaycastVehicle.cpp.
  bool beginStep(const btCollisionWorld* world, btScalar dt);  // false: nothing to do this step
  void shapeInput(btScalar dt);
  // Stage 2 in three parts: the cached queries (any thread; wheels they cannot answer are left
  // pending), the full rayTests of the pending wheels (main thread), the hits into the wheels.
  void queryWheelRays(const btCollisionWorld& world, bool offMainThread);
  void castPendingWheelRays(btCollisionWorld& world);
  bool hasPendingWheelRays() const;
  void applyWheelRays();
  void finishStep(btScalar dt);  // stages 3-8
  bool standsOnDynamicBody() const;  // a wheel touches a dynamic body (which the solve pushes)
  void updateSuspension();
  void measureContacts();
  void applyDrivetrainAndBrakes(btScalar dt);
  void integrateDriveTorque(btScalar dt);
  void solveContacts(btScalar dt);
  void followDrivingWheels();
  void integrateWheelRotation(btScalar dt);

  void buildDrivetrainLayout();
  btScalar assistTorqueCap(int wheel, btScalar slipRatio, btScalar dt, btScalar& integral) const;
  void checkWheelIndex(int wheel, const char* what) const;
  void wake() const;
  int groundBodyIndex(btRigidBody* body);

  btRigidBody* chassis_;
  VehicleSettings settings_;
  std::vector<WheelSettings> wheelSettings_;  // settings_.wheels with automatic values resolved
  std::vector<WheelState> wheels_;
  std::vector<std::shared_ptr<const TireModel>> tires_;
  std::vector<WheelWork> work_;                // per wheel, what WheelState does not show
  std::unique_ptr<WheelQuery> wheelQuery_;     // null with WheelQuerySettings::cache off
  std::vector<WheelContact> contacts_;
  std::unique_ptr<ContactSolver> solver_;
  btScalar frontAxleForward_ = 0;  // m, chassis forward coordinate of the front-most wheel
  btScalar rearAxleForward_ = 0;   // m, of the rear-most wheel
  btVector3 pendingVelocityChange_{0, 0, 0};  // m/s the chassis' forces add next step
  std::vector<int> axleWheelCounts_;          // per axle slot (WheelWork::axleSlot)
  std::vector<btScalar> axleCompressionSums_;  // m, per axle slot, this step
  bool handbrake_ = false;

  // Driver and drivetrain
  struct DrivenAxle {
    DifferentialSettings differential;
    std::vector<int> wheels;  // its driving wheels
    btScalar share = 0;       // of the drive torque
  };
  DriverInput input_;
  bool shiftUpRequested_ = false;    // rising edges of the manual shift inputs, until used
  bool shiftDownRequested_ = false;
  int rejectedInputs_ = 0;
  btScalar rampedPedal_ = 0;         // after pedal_speed
  btScalar shapedPedal_ = 0;         // and after max_steering_pedal
  btScalar steerAngle_ = 0;          // rad, bicycle
  btScalar ackermannSteer_ = 0;      // rad: steerAngle_ when the wheels' angles were computed
  std::unique_ptr<Powertrain> powertrain_;
  std::vector<DrivenAxle> drivenAxles_;
  std::vector<int> drivingWheels_;
  int frontWheelCount_ = 0;
  btScalar steerReferenceForward_ = 0;  // m: the line the turning centre lies on
  btScalar steeredAxleForward_ = 0;     // m: mean forward position of the steered wheels
  std::vector<SpinCoupling> couplings_;
};

}  // namespace raycar
