#pragma once
// RaycastVehicle: a car as a Bullet action. Add it to a btDiscreteDynamicsWorld with
// addAction(); Bullet calls updateAction() after every substep's integration.
//
// One ray per wheel finds the ground; a spring-damper per wheel holds the chassis up; tires turn
// slip into force; all forces reach the bodies as impulses (F dt). applyForce would be wrong in
// an action: stepSimulation clears forces only after its last substep, so a force applied in
// substep k acts again in substep k+1 and the last substep's force is dropped.
//
// The per-step pipeline (updateAction) follows DESIGN.md:
//   1. cast one ray per wheel           2. suspension lengths and loads
//   3. contact velocities and slips     4. drive torques into wheel spin
//   5. contact solve: suspension, aero, bump stops, brakes, tire friction -> impulses
//   6. wheel rotation for rendering
// No heap allocation happens in updateAction; the same inputs give bitwise the same trajectory.

#include <BulletDynamics/Dynamics/btActionInterface.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <memory>
#include <vector>

#include "raycar/VehicleSettings.h"
#include "raycar/Wheel.h"

namespace raycar {

class ContactSolver;
struct WheelContact;

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

  // Inputs per wheel, held until changed; a change wakes the chassis. An index out of range, a
  // non-finite value, or steering a wheel that is not steerable throws InputError and changes
  // nothing.
  void setDriveTorque(int wheel, btScalar torque);  // N m at the wheel, > 0 drives forward
  void setBrakeTorque(int wheel, btScalar torque);  // N m, >= 0, footbrake
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

 private:
  void castWheelRays(btCollisionWorld& world);
  void updateSuspension();
  void measureContacts();
  void integrateDriveTorque(btScalar dt);
  void solveContacts(btScalar dt);
  void integrateWheelRotation(btScalar dt);

  void checkWheelIndex(int wheel, const char* what) const;
  void wake() const;
  int groundBodyIndex(btRigidBody* body);

  btRigidBody* chassis_;
  VehicleSettings settings_;
  std::vector<WheelSettings> wheelSettings_;  // settings_.wheels with automatic values resolved
  std::vector<WheelState> wheels_;
  std::vector<std::shared_ptr<const TireModel>> tires_;
  std::vector<btScalar> referenceLoads_;       // N, for load sensitivity
  std::vector<btScalar> rayLengths_;           // m: len_max + radius
  // Per wheel, this step
  std::vector<btScalar> rayLengthsToContact_;  // m: hit distance - radius, < 0 past full travel
  std::vector<btScalar> rayCosines_;           // -down . normal, held >= 0.1
  std::vector<btVector3> groundVelocities_;    // m/s, the ground's velocity at the contact
  std::vector<btScalar> springForces_;         // N, k x + anti-roll
  std::vector<WheelContact> contacts_;
  std::unique_ptr<ContactSolver> solver_;
  btScalar frontAxleForward_ = 0;  // m, chassis forward coordinate of the front-most wheel
  btScalar rearAxleForward_ = 0;   // m, of the rear-most wheel
  btVector3 pendingVelocityChange_{0, 0, 0};  // m/s the chassis' forces add next step
  bool handbrake_ = false;
};

}  // namespace raycar
