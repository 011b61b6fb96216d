#pragma once
// A vehicle at run time: the objects RaycastVehicle builds from its settings, each owning its
// state and its part of the step (StepStages.h lists the stages in order and runs them), and
// the driver's input they read. RaycastVehicle is the public face of one of these; VehicleGroup
// runs many of them, spread over threads.

#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <memory>
#include <vector>

#include "ground/GroundQuery.h"
#include "io/StateArchive.h"
#include "raycar/tire/SurfaceTable.h"
#include "raycar/vehicle/DriverInput.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "solver/ContactSolver.h"
#include "vehicle/Aero.h"
#include "vehicle/Drivetrain.h"
#include "vehicle/StabilityControl.h"
#include "vehicle/Steering.h"
#include "vehicle/Suspension.h"
#include "vehicle/Wheel.h"

namespace raycar {

class VehicleRuntime {
 public:
  // Throws SettingsError listing every problem with `settings` or the chassis. The settings may
  // be shared by any number of vehicles: a vehicle never changes them. The wheels' block
  // (WheelArray) comes from `wheelMemory`, which must outlive the runtime.
  VehicleRuntime(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings,
                 std::pmr::memory_resource& wheelMemory);
  VehicleRuntime(const VehicleRuntime&) = delete;
  VehicleRuntime& operator=(const VehicleRuntime&) = delete;

  // The stages (StepStages.h), in order.
  // After StepStages checked the call is a step (a world, dt > 0): Skip when the chassis has
  // nothing to do (asleep, out of the world, its state not finite). A sleeping car whose ground
  // moved or left the world is woken first (sleepingGround) and steps. Without
  // `mayReadDynamicBodies` (another thread may be moving them), a sleeping car on a dynamic body
  // asks to begin again where it may.
  enum class Start { Step, Skip, OnMainThread };
  Start beginStep(const btCollisionWorld& world, bool mayReadDynamicBodies);
  // Whether the ground under each wheel that was in contact still rests where it was: Changed
  // when one moves at its contact point or is no longer in `world`. A body resting on another
  // shares its island and wakes with it; a car touches its ground through rays, which no island
  // sees, so it looks for itself while asleep. ReadsDynamicBody: a ground is a dynamic body
  // whose velocity only `mayReadDynamicBodies` may read.
  enum class SleepingGround { Unchanged, Changed, ReadsDynamicBody };
  SleepingGround sleepingGround(const btCollisionWorld& world, bool mayReadDynamicBodies) const;
  void shapeInput(btScalar dt);
  // The ground queries that can answer from the objects near the car (any thread); the wheels
  // they cannot answer are left pending for queryWorldGround (main thread).
  // `batched`: where a VehicleGroup gathered this car's nearby objects with its neighbours'
  // before the step (nearbyBox); the car gathers them itself when the box differs or there is none.
  void queryNearbyGround(const btCollisionWorld& world, bool offMainThread,
                         NearbyBatchSlot batched = {});
  // The box around the wheels' sweeps this step's queryNearbyGround will gather in, from the
  // chassis' pose now; false when the car gathers nothing (no wheel's query uses nearby ground).
  bool nearbyBox(btVector3& boxMin, btVector3& boxMax) const;
  bool groundPending() const;
  void queryWorldGround(btCollisionWorld& world);
  void applyGroundHits();
  bool standsOnDynamicBody() const;  // a wheel touches a dynamic body (which the solve pushes)
  void updateSuspension() { suspension.update(*chassis, wheels); }
  void measureContacts(btScalar dt);
  void updateDrivetrain(btScalar dt) {
    drivetrain.update(steering.pedal(), input.brake, stability.state(), forwardSpeed(), wheels, dt);
  }
  void controlStability() { stability.update(*chassis, worldUp(), forwardSpeed(), wheels); }
  void spinUpWheels(btScalar dt) { drivetrain.spinUp(wheels, dt); }
  void solveContacts(btScalar dt);
  void followWheels(btScalar dt) { drivetrain.followWheels(wheels, dt); }
  void rotateWheels(btScalar dt);

  // Asking the memory system for what a step reads (Prefetch.h). A car stepped on its own asks,
  // as its step begins, for itself, its chassis, its wheels and their cached ground triangles
  // (prefetchStepStart), so that their round trips overlap instead of following one another as
  // the first stages reach each line: a thousand lone cars beside btRaycastVehicle went from
  // 0.738 and 0.726 x its cost to 0.658 and 0.677 x (two alternating runs each), and one car,
  // whose data the other worlds' steps have pushed out of the cache too, stayed at 0.77 to 0.79 x.
  // The drivetrain's and suspension's short lists are not asked for: no difference measured.
  // VehicleGroup asks in stages a few vehicles ahead, each stage reading only what the stage
  // before asked for: the chassis and the wheels (arrays), the wheels' cached ground triangles
  // (caches). The solver's arrays and the nearby objects are the thread's
  // (ContactSolver::beginStep, NearbyGround::forThisThread), already in its cache from the car
  // before.
  void prefetchStepStart() const;
  void prefetchArrays() const;
  void prefetchCaches() const;

  btVector3 worldUp() const { return chassis->getWorldTransform().getBasis() * settings.axes.up; }
  btVector3 worldForward() const {
    return chassis->getWorldTransform().getBasis() * settings.axes.forward;
  }
  // The chassis velocity over the coming step (m/s, RaycastVehicle::linearVelocity says why).
  // Asleep, the chassis holds no velocity and no gravity is pending.
  btVector3 linearVelocity() const {
    return chassis->isActive() ? chassis->getLinearVelocity() + pendingVelocityChange
                               : chassis->getLinearVelocity();
  }
  btScalar forwardSpeed() const { return linearVelocity().dot(worldForward()); }  // m/s

  // RaycastVehicle::resetMotion: each part's motion as built.
  void resetMotion();
  // The wheels' cached ground triangles forgotten (RaycastVehicle::clearWheelQueryCache, and a
  // step in another world than the last: beginStep).
  void forgetGroundCaches() {
    for (Wheel& wheel : wheels) wheel.ground().clear();
  }

  // Everything that evolves from step to step (RaycastVehicle::saveState, StateArchive.h).
  template <class Archive>
  void transferState(Archive& archive) {
    // The held input in the ranges setInput keeps it in.
    archive.scalar(input.pedal, -1, 1);
    archive.scalar(input.brake, 0, 1);
    archive.scalar(input.steer, -1, 1);
    for (bool* value : {&input.handbrake, &input.shiftUp, &input.shiftDown, &handbrake})
      archive.flag(*value);
    archive.integer(rejectedInputs, 0);
    archive.vector(pendingVelocityChange);
    archive.scalar(stillTime, 0, kStateMagnitude);
    archive.scalar(raisedSleepThreshold, 0, kStateMagnitude);
    archive.scalar(replacedSleepThreshold, 0, kStateMagnitude);
    steering.transferState(archive);
    drivetrain.transferState(archive);
    stability.transferState(archive);
    solver.transferState(archive);
    for (Wheel& wheel : wheels) wheel.transferState(archive);
  }

  btRigidBody* chassis;
  // Declared before `settings`, which refers to it: held, so that vehicles made from the same
  // settings share one copy (a thousand cars of one model keep it once, and a step reads it
  // from the cache the car before left it in).
  const std::shared_ptr<const VehicleSettings> sharedSettings;
  const VehicleSettings& settings;  // *sharedSettings
  const std::uint32_t layout;  // layoutFingerprint(settings): a saved state names it
  WheelArray wheels;
  Steering steering;
  Drivetrain drivetrain;
  Suspension suspension;
  Aero aero;
  StabilityControl stability;
  bool usesNearbyGround = false;  // some wheel's query answers from NearbyGround
  // The game's friction table (RaycastVehicle::setSurfaceTable); null: (tire + ground) / 2.
  std::shared_ptr<const SurfaceTable> surfaces;
  ContactSolver solver;
  // The driver
  DriverInput input;
  int rejectedInputs = 0;
  bool handbrake = false;
  btVector3 pendingVelocityChange{0, 0, 0};  // m/s the chassis' forces add next step
  // Sleep (prepareSleep): s the car has stood still (standsStill), and the linear sleeping
  // threshold (m/s) it raised its chassis to for Bullet's test (0: none) with the one it replaced.
  bool chassisIntegrated = false;  // this step's beginStep found the chassis awake: Bullet moved it
  // The world the last step ran in (beginStep): in another the wheels' cached triangles, named by
  // object addresses and broadphase numbers that a new world gives out again, are forgotten.
  const btCollisionWorld* lastWorld = nullptr;
  btScalar stillTime = 0;
  btScalar raisedSleepThreshold = 0;
  btScalar replacedSleepThreshold = 0;

 private:
  int groundBodyIndex(btRigidBody* body);
  // Whether the car stands still after the solve `body` holds, and what Bullet's sleep test at
  // the end of the step will make of the velocity it leaves the chassis.
  bool standsStill(const SolverBody& body) const;
  void prepareSleep(const SolverBody& body, btScalar dt);

 public:
  // The game's linear sleeping threshold back on the chassis if the last step raised it (and the
  // game has not set another since): at the start of every step, asleep or not, and before a
  // restore.
  void putBackSleepThreshold();
};

}  // namespace raycar
