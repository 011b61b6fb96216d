#pragma once
// A bundled vehicle on a road, as a game drives it: a Z-up world, a flat or inclined plane, the
// vehicle loaded from data/vehicles and spawned with SpawnedVehicle, stepped at one fixed step
// with one substep per step (the step under test, not raycar-sim's max_time_step_vehicle split).
// Deactivation is off, so that a car that creeps is seen creeping rather than put to sleep.

#include <btBulletDynamicsCommon.h>

#include <functional>
#include <memory>
#include <string>

#include "raycar/io/VehicleLoader.h"

namespace raycar::test {

struct RoadSpec {
  std::string vehicle;             // name under data/vehicles, without .vehicle.toml
  btScalar step = 1.0f / 120;      // s
  btScalar slopeDegrees = 0;       // the plane rises along +y by this angle
  btScalar headingDegrees = 0;     // about +z; 0 faces +y (uphill on a slope)
  btScalar friction = 1;           // the ground's
  btScalar gravity = btScalar(9.81);
  // Changes to the bundled settings for this rig (a manual gearbox, a tire under test), or none.
  std::function<void(VehicleSettings&)> tune;
};

class RoadRig {
 public:
  explicit RoadRig(const RoadSpec& spec);
  ~RoadRig();
  RoadRig(const RoadRig&) = delete;
  RoadRig& operator=(const RoadRig&) = delete;

  // One step with `input` (held by the vehicle until changed).
  void step(const DriverInput& input);
  // Steps for `seconds` with the input a driver function gives at each step.
  void run(double seconds, const std::function<DriverInput(RoadRig&)>& driver);
  void hold(double seconds, const DriverInput& input = {});  // a constant input

  RaycastVehicle& vehicle() { return spawned_->vehicle(); }
  btRigidBody& chassis() { return spawned_->chassis(); }
  btDiscreteDynamicsWorld& world() { return *world_; }
  const LoadedVehicle& loaded() const { return spawned_->loaded(); }
  const RoadSpec& spec() const { return spec_; }
  double time() const { return time_; }
  btVector3 position() { return chassis().getCenterOfMassPosition(); }
  btScalar speed() { return vehicle().forwardSpeed(); }  // m/s along the chassis' forward axis
  btScalar headingDegrees();  // about +z, from +y, counter-clockwise
  // The gear as a driver reads it: -1 reverse, 0 neutral, 1 first...
  int gear() { return vehicle().powertrain().gear - kNeutralGear; }
  btScalar yawRate();  // rad/s about the world's up axis
  btVector3 up() const { return up_; }  // the ground's normal
  // The steering's geometry: the unsteered wheels' mean (the "rear axle", where the turning
  // centre lies) on the ground, world; and the wheelbase to the steered wheels' mean (m).
  btVector3 rearAxle();
  btScalar wheelbase();

 private:
  RoadSpec spec_;
  btVector3 up_{0, 0, 1};
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::unique_ptr<btStaticPlaneShape> groundShape_;
  std::unique_ptr<btRigidBody> ground_;
  std::unique_ptr<SpawnedVehicle> spawned_;
  double time_ = 0;
};

// The bundled vehicle `name`, loaded once per test process.
const LoadedVehicle& bundledVehicle(const std::string& name);

// A driver that uses every input, for tests that compare runs of one busy drive: pedal and
// steering that vary, and in the last 0.5 s of every 2.5 s a footbrake stop with the pedal
// released, the handbrake pulled in its last 0.15 s. `seconds`: the drive's clock.
DriverInput busyDriver(double seconds);

}  // namespace raycar::test
