#include "RoadRig.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

namespace raycar::test {
namespace {
constexpr double kDegree = SIMD_PI / 180;
}

const LoadedVehicle& bundledVehicle(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, LoadedVehicle> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(name);
  if (found == loaded.end())
    found = loaded.emplace(name, loadVehicle(std::string(RAYCAR_DATA_DIR) + "/vehicles/" + name +
                                             ".vehicle.toml")).first;
  return found->second;
}

RoadRig::RoadRig(const RoadSpec& spec)
    : spec_(spec),
      configuration_(std::make_unique<btDefaultCollisionConfiguration>()),
      dispatcher_(std::make_unique<btCollisionDispatcher>(configuration_.get())),
      broadphase_(std::make_unique<btDbvtBroadphase>()),
      solver_(std::make_unique<btSequentialImpulseConstraintSolver>()),
      world_(std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                       solver_.get(), configuration_.get())) {
  world_->setGravity(btVector3(0, 0, -spec.gravity));
  const btScalar slope = btScalar(spec.slopeDegrees * kDegree);
  up_ = btVector3(0, -std::sin(slope), std::cos(slope));
  groundShape_ = std::make_unique<btStaticPlaneShape>(up_, 0);
  ground_ = std::make_unique<btRigidBody>(0, nullptr, groundShape_.get());
  ground_->setFriction(spec.friction);
  world_->addRigidBody(ground_.get());

  // The model stands on the plane, its lowest wheel point 2 cm above it, tilted with the slope.
  LoadedVehicle vehicle = bundledVehicle(spec.vehicle);
  if (spec.tune) spec.tune(vehicle.settings);
  btScalar lowest = BT_LARGE_FLOAT;
  for (const WheelSettings& wheel : vehicle.settings.wheels)
    lowest = std::min(lowest, wheel.attachmentPoint.dot(vehicle.settings.axes.up) -
                                  wheel.suspensionMaxLength - wheel.radius);
  // The chassis' up axis on the plane's normal, its forward axis along the heading.
  const btQuaternion tilt(btVector3(1, 0, 0), slope);
  const btQuaternion heading(btVector3(0, 0, 1), btScalar(spec.headingDegrees * kDegree));
  const btMatrix3x3 ground(tilt * heading);
  const ChassisAxes& axes = vehicle.settings.axes;
  const btMatrix3x3 chassisAxes(axes.right().x(), axes.forward.x(), axes.up.x(),
                                axes.right().y(), axes.forward.y(), axes.up.y(),
                                axes.right().z(), axes.forward.z(), axes.up.z());
  const btTransform chassisPose(ground * chassisAxes.transpose(), up_ * (0.02f - lowest));
  spawned_ = std::make_unique<SpawnedVehicle>(*world_, vehicle,
                                              chassisPose * vehicle.modelFromChassis.inverse());
  spawned_->chassis().setActivationState(DISABLE_DEACTIVATION);
}

RoadRig::~RoadRig() {
  spawned_.reset();  // the vehicle leaves the world before the ground and the world go
  world_->removeRigidBody(ground_.get());
}

void RoadRig::step(const DriverInput& input) {
  vehicle().setInput(input);
  world_->stepSimulation(spec_.step, 1, spec_.step);
  time_ += spec_.step;
}

void RoadRig::run(double seconds, const std::function<DriverInput(RoadRig&)>& driver) {
  const int steps = int(std::lround(seconds / spec_.step));
  for (int i = 0; i < steps; ++i) step(driver(*this));
}

void RoadRig::hold(double seconds, const DriverInput& input) {
  run(seconds, [&input](RoadRig&) { return input; });
}

btScalar RoadRig::headingDegrees() {
  const btVector3 forward = vehicle().worldForward();
  return btScalar(std::atan2(-forward.x(), forward.y()) / kDegree);
}

btVector3 RoadRig::rearAxle() {
  RaycastVehicle& car = vehicle();
  btVector3 sum(0, 0, 0);
  int count = 0;
  for (int i = 0; i < car.wheelCount(); ++i) {
    if (car.isSteered(i)) continue;
    sum += car.wheelWorldTransform(i).getOrigin();
    ++count;
  }
  return count > 0 ? sum / btScalar(count) : position();
}

btScalar RoadRig::wheelbase() {
  RaycastVehicle& car = vehicle();
  const btVector3 forward = car.settings().axes.forward;
  btScalar steered = 0, fixed = 0;
  int steeredCount = 0, fixedCount = 0;
  for (int i = 0; i < car.wheelCount(); ++i) {
    const btScalar ahead = car.wheelSettings(i).attachmentPoint.dot(forward);
    if (car.isSteered(i)) {
      steered += ahead;
      ++steeredCount;
    } else {
      fixed += ahead;
      ++fixedCount;
    }
  }
  return steered / btScalar(std::max(steeredCount, 1)) - fixed / btScalar(std::max(fixedCount, 1));
}

btScalar RoadRig::yawRate() { return chassis().getAngularVelocity().dot(up_); }

DriverInput busyDriver(double seconds) {
  DriverInput input;
  input.pedal = btScalar(0.6 + 0.4 * std::sin(seconds / 0.4));
  input.steer = btScalar(0.6 * std::sin(seconds / 0.3));
  const double intoCycle = std::fmod(seconds, 2.5);  // s
  if (intoCycle > 2.0) {
    input.pedal = 0;
    input.brake = btScalar(0.8);
    input.handbrake = intoCycle > 2.35;
  }
  return input;
}

}  // namespace raycar::test
