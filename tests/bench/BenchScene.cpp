#include "BenchScene.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>

namespace raycar::bench {
namespace {

// The car both kinds share (Y up, Z forward, like the test car).
constexpr btScalar kMass = 1200;                    // kg
const btVector3 kChassisHalfExtents(0.9f, 0.25f, 2.1f);  // m
constexpr btScalar kHalfWheelbase = 1.3f;           // m
constexpr btScalar kHalfTrack = 0.8f;               // m
constexpr btScalar kWheelRadius = 0.33f;            // m
constexpr btScalar kSuspensionMax = 0.3f;           // m: relaxed spring (raycar len_max)
constexpr btScalar kSuspensionRest = 0.2f;          // m: under the static load
constexpr btScalar kCenterOfMassHeight = 0.55f;     // m above the ground at rest
constexpr btScalar kAttachmentUp = kWheelRadius + kSuspensionRest - kCenterOfMassHeight;
// Driving: a circle of about 6 m radius at 6 m/s in every 15 m cell. The 32 x 32 cells of a
// thousand cars fill 480 m of the 512 m terrain, so that a car knocked off its circle (its box
// grazing a valley, as one did) is steered back on the terrain, not over its edge: with 16 m
// cells the outer circles came within 2 m of it, and one such car fell off.
constexpr btScalar kCellSpacing = 15;               // m
constexpr int kCellsPerRow = 32;
constexpr btScalar kCircleRadius = 6;               // m
constexpr btScalar kTargetSpeed = 6;                // m/s
constexpr btScalar kSteerAngle = 0.41f;             // rad: atan(wheelbase / radius)
// Car groups never collide with each other (they may share a cell edge); the terrain with all.
constexpr int kCarGroup = 1 << 6;

btVector3 wheelPosition(int wheel) {
  const btScalar right = wheel % 2 == 0 ? -kHalfTrack : kHalfTrack;  // 0 front left
  const btScalar forward = wheel < 2 ? kHalfWheelbase : -kHalfWheelbase;
  return btVector3(-right, kAttachmentUp, forward);  // right is -X when Z is forward and Y up
}

VehicleSettings raycarSettings(bool cache, GroundQueryKind query) {
  VehicleSettings settings;
  for (int i = 0; i < 4; ++i) {
    WheelSettings wheel;
    wheel.attachmentPoint = wheelPosition(i);
    wheel.radius = kWheelRadius;
    wheel.suspensionMaxLength = kSuspensionMax;
    wheel.suspensionRestLength = kSuspensionRest;
    wheel.damping = -0.8f;
    wheel.spinInertia = 0.8f;
    wheel.axle = i < 2 ? 0 : 1;
    wheel.driving = i >= 2;
    wheel.steering = i < 2 ? SteerMode::Steered : SteerMode::Fixed;
    wheel.groundQuery = query;
    settings.wheels.push_back(wheel);
  }
  settings.wheelQuery.cache = cache;
  return settings;
}

// The bench car as the raycar fleet of `kind` runs it (its ground query, with or without the
// cache), one copy for all its cars.
std::shared_ptr<const VehicleSettings> sharedRaycarSettings(FleetKind kind) {
  const GroundQueryKind query = kind == FleetKind::RaycarSphere     ? GroundQueryKind::Sphere
                                : kind == FleetKind::RaycarCylinder ? GroundQueryKind::Cylinder
                                                                    : GroundQueryKind::Ray;
  return std::make_shared<const VehicleSettings>(raycarSettings(kind != FleetKind::RaycarNoCache, query));
}

// The centre of car `index`'s cell: the N cars fill the middle of the terrain, a square block of
// cells, so that none drives near its edge (a single car once stood in the corner cell and,
// drifting off its circle, fell off the terrain within 5 s: the N = 1 figures timed a falling
// car).
btVector3 cellCentre(int index, int count) {
  const int side = std::max(1, int(std::ceil(std::sqrt(double(count)))));
  const int offset = (kCellsPerRow - std::min(side, kCellsPerRow)) / 2;
  const int column = offset + index % side, row = offset + index / side;
  const btScalar first = -kCellSpacing * (kCellsPerRow - 1) / 2;
  return btVector3(first + column * kCellSpacing, 0, first + row * kCellSpacing);
}

// Where car `index` starts: on the west edge of its circle, heading north (+Z), a little above
// its resting height.
btTransform startPose(int index, int count) {
  const btVector3 centre = cellCentre(index, count);
  const btScalar x = centre.x() - kCircleRadius, z = centre.z();
  const btScalar y = HillTerrain::height(x, z) + kCenterOfMassHeight + 0.05f;
  return btTransform(btQuaternion::getIdentity(), btVector3(x, y, z));
}

// The steer angle (rad, > 0 left) that holds a car on its circle: the circle's own angle plus a
// correction for the distance from it (the slopes push a car with a fixed steer off its circle).
btScalar circleSteer(const btRigidBody& chassis, const btVector3& centre) {
  btVector3 offset = chassis.getCenterOfMassPosition() - centre;
  offset.setY(0);
  const btScalar radialError = offset.length() - kCircleRadius;  // m, > 0 outside
  return std::clamp(kSteerAngle + 0.15f * radialError, btScalar(0), btScalar(0.6f));
}

btScalar forwardSpeed(const btRigidBody& chassis) {
  return chassis.getLinearVelocity().dot(chassis.getWorldTransform().getBasis().getColumn(2));
}

}  // namespace

BenchWorld::BenchWorld(HillTerrain& terrain)
    : terrain_(terrain),
      world_(std::make_unique<btDiscreteDynamicsWorld>(&dispatcher_, &broadphase_, &solver_,
                                                       &configuration_)) {
  world_->setGravity(btVector3(0, -9.81f, 0));
  btRigidBody::btRigidBodyConstructionInfo info(0, nullptr, &terrain_.shape());
  info.m_friction = 1;
  ground_ = std::make_unique<btRigidBody>(info);
  world_->addRigidBody(ground_.get());
}

BenchWorld::~BenchWorld() { world_->removeRigidBody(ground_.get()); }

GameJobSystem::GameJobSystem(int threads) : threads_(std::max(threads, 1)) {
  for (int worker = 1; worker < threads; ++worker) workers_.emplace_back([this, worker] { work(worker); });
}

GameJobSystem::~GameJobSystem() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void GameJobSystem::parallelFor(int count, const std::function<void(int begin, int end)>& body) {
  const int threads = threads_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    count_ = count;
    pending_ = threads_ - 1;
    ++generation_;
  }
  wake_.notify_all();
  body(0, count / threads);  // the calling thread's range: the first
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void GameJobSystem::work(int worker) {
  int seen = 0;
  const int threads = threads_;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const std::function<void(int, int)>& body = *body_;
    const int count = count_;
    lock.unlock();
    body(count * worker / threads, count * (worker + 1) / threads);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

Fleet::Fleet(BenchWorld& world, FleetKind kind, int count, int threads)
    : world_(world), kind_(kind), chassisShape_(std::make_unique<btBoxShape>(kChassisHalfExtents)) {
  btVector3 inertia;
  chassisShape_->calculateLocalInertia(kMass, inertia);
  if (kind == FleetKind::RaycarGroup) group_ = std::make_unique<VehicleGroup>(threads);
  if (kind == FleetKind::RaycarGroupGameJobs) {
    // The group starts no threads of its own: every step's work goes through the game's jobs.
    jobs_ = std::make_unique<GameJobSystem>(threads);
    group_ = std::make_unique<VehicleGroup>(1);
    group_->setParallelFor([jobs = jobs_.get()](int count, const std::function<void(int, int)>& body) {
      jobs->parallelFor(count, body);
    });
  }
  if (kind == FleetKind::Bullet) {
    raycaster_ = std::make_unique<btDefaultVehicleRaycaster>(&world.world());
    // Bullet's rates are per unit of chassis mass: k = g / (4 x static sag) gives the same sag
    // as raycar's automatic stiffness; damping about 0.8 of critical per quarter car.
    tuning_.m_suspensionStiffness = 9.81f / (4 * (kSuspensionMax - kSuspensionRest));
    tuning_.m_suspensionDamping = 0.8f * 2 * std::sqrt(tuning_.m_suspensionStiffness / 4);
    tuning_.m_suspensionCompression = tuning_.m_suspensionDamping;
    tuning_.m_maxSuspensionTravelCm = 100 * kSuspensionMax;
    tuning_.m_frictionSlip = 1.2f;
    tuning_.m_maxSuspensionForce = 1e5f;
  }
  // One model, many cars: every raycar car of the fleet shares one copy of the settings, as a
  // game's cars of one model would (RaycastVehicle's shared constructor).
  const std::shared_ptr<const VehicleSettings> settings = sharedRaycarSettings(kind);
  if (group_) group_->reserve(*settings, count);  // the cars' wheel blocks in one run
  for (int i = 0; i < count; ++i) {
    btRigidBody::btRigidBodyConstructionInfo info(kMass, nullptr, chassisShape_.get(), inertia);
    info.m_startWorldTransform = startPose(i, count);
    cellCentres_.push_back(cellCentre(i, count));
    info.m_friction = 0.5f;
    chassis_.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody& body = *chassis_.back();
    body.setActivationState(DISABLE_DEACTIVATION);
    world.world().addRigidBody(&body, kCarGroup, btBroadphaseProxy::AllFilter ^ kCarGroup);
    switch (kind) {
      case FleetKind::Raycar:
      case FleetKind::RaycarNoCache:
      case FleetKind::RaycarSphere:
      case FleetKind::RaycarCylinder:
        raycars_.push_back(std::make_unique<RaycastVehicle>(body, settings));
        break;
      case FleetKind::RaycarGroup:
      case FleetKind::RaycarGroupGameJobs:
        group_->addVehicle(body, settings);
        break;
      case FleetKind::Bullet: {
        bulletCars_.push_back(std::make_unique<btRaycastVehicle>(tuning_, &body, raycaster_.get()));
        btRaycastVehicle& car = *bulletCars_.back();
        car.setCoordinateSystem(0, 1, 2);
        for (int wheel = 0; wheel < 4; ++wheel)
          car.addWheel(wheelPosition(wheel), btVector3(0, -1, 0), btVector3(-1, 0, 0),
                       kSuspensionMax, kWheelRadius, tuning_, wheel < 2);
        for (int wheel = 0; wheel < 4; ++wheel) car.getWheelInfo(wheel).m_rollInfluence = 0.1f;
        break;
      }
    }
  }
  timed_ = std::make_unique<TimedVehicles>(
      [this](btCollisionWorld* collisionWorld, btScalar dt) { updateVehicles(collisionWorld, dt); });
  world.world().addAction(timed_.get());
}

Fleet::~Fleet() {
  world_.world().removeAction(timed_.get());
  for (auto& body : chassis_) world_.world().removeRigidBody(body.get());
}

void Fleet::updateVehicles(btCollisionWorld* world, btScalar dt) {
  switch (kind_) {
    case FleetKind::Raycar:
    case FleetKind::RaycarNoCache:
    case FleetKind::RaycarSphere:
    case FleetKind::RaycarCylinder:
      for (auto& car : raycars_) car->updateAction(world, dt);
      break;
    case FleetKind::RaycarGroup:
    case FleetKind::RaycarGroupGameJobs:
      group_->updateAction(world, dt);
      break;
    case FleetKind::Bullet:
      for (auto& car : bulletCars_) car->updateAction(world, dt);
      break;
  }
}

void Fleet::drive() {
  for (int i = 0; i < count(); ++i) {
    const btScalar speedError = kTargetSpeed - forwardSpeed(*chassis_[size_t(i)]);
    if (kind_ == FleetKind::Bullet) {
      btRaycastVehicle& car = *bulletCars_[size_t(i)];
      const btScalar force = std::clamp(1500 * speedError, btScalar(-1500), btScalar(4000));
      car.applyEngineForce(force, 2);
      car.applyEngineForce(force, 3);
      const btScalar steer = circleSteer(*chassis_[size_t(i)], cellCentres_[size_t(i)]);
      car.setSteeringValue(steer, 0);
      car.setSteeringValue(steer, 1);
      continue;
    }
    RaycastVehicle& car = group_ ? group_->vehicle(i) : *raycars_[size_t(i)];
    DriverInput input;
    input.pedal = std::clamp(0.2f + 0.3f * speedError, btScalar(0), btScalar(1));
    input.brake = std::clamp(-0.2f * speedError, btScalar(0), btScalar(1));
    input.steer = circleSteer(*chassis_[size_t(i)], cellCentres_[size_t(i)]) /
                  btRadians(car.settings().steering.maxSteer);
    car.setInput(input);
  }
}

double Fleet::step() {
  drive();
  const auto start = std::chrono::steady_clock::now();
  world_.step();
  frameSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return timed_->lastSeconds();
}

void Fleet::wheelRay(int car, int wheel, btVector3& from, btVector3& to) const {
  const btTransform& pose = chassis_[size_t(car)]->getWorldTransform();
  from = pose * wheelPosition(wheel);
  to = from - pose.getBasis().getColumn(1) * (kSuspensionMax + kWheelRadius);
}

int Fleet::cachedTriangles() const {
  int count = 0;
  for (const auto& car : raycars_) count += car->cachedTriangleCount();
  return count;
}

double bytesPerVehicle(FleetKind kind, int count) {
  HillTerrain terrain(64, 4);
  BenchWorld world(terrain);
  btBoxShape shape(kChassisHalfExtents);
  std::vector<std::unique_ptr<btRigidBody>> chassis;
  for (int i = 0; i < count; ++i) {
    chassis.push_back(std::make_unique<btRigidBody>(kMass, nullptr, &shape));
    world.world().addRigidBody(chassis.back().get());
  }
  btRaycastVehicle::btVehicleTuning tuning;
  btDefaultVehicleRaycaster raycaster(&world.world());
  std::vector<std::unique_ptr<RaycastVehicle>> raycars;
  std::vector<std::unique_ptr<btRaycastVehicle>> bulletCars;
  raycars.reserve(size_t(count));
  bulletCars.reserve(size_t(count));
  // One copy of the settings for all the cars, as in the fleets (made before counting: a game
  // keeps it once per model, not per car).
  const std::shared_ptr<const VehicleSettings> settings = sharedRaycarSettings(kind);
  // In use on the heap before and after: the vehicles alone (their wheels, caches and state),
  // allocator overhead included; in a group, with the chunks of its pool that their wheel blocks
  // fill (the group itself is made before counting: a game keeps one).
  VehicleGroup group(1);
  const size_t before = mallinfo2().uordblks;
  // As a game that knows its fleet: the cars' wheel blocks in one chunk of exactly `count`, set
  // aside inside the count (VehicleGroup::reserve).
  if (kind == FleetKind::RaycarGroup) group.reserve(*settings, count);
  for (int i = 0; i < count; ++i) {
    if (kind == FleetKind::RaycarGroup) {
      group.addVehicle(*chassis[size_t(i)], settings);
    } else if (kind == FleetKind::Bullet) {
      bulletCars.push_back(std::make_unique<btRaycastVehicle>(tuning, chassis[size_t(i)].get(), &raycaster));
      for (int wheel = 0; wheel < 4; ++wheel)
        bulletCars.back()->addWheel(wheelPosition(wheel), btVector3(0, -1, 0), btVector3(-1, 0, 0),
                                    kSuspensionMax, kWheelRadius, tuning, wheel < 2);
    } else {
      raycars.push_back(std::make_unique<RaycastVehicle>(*chassis[size_t(i)], settings));
    }
  }
  const size_t after = mallinfo2().uordblks;
  raycars.clear();
  bulletCars.clear();
  for (auto& body : chassis) world.world().removeRigidBody(body.get());
  return double(after - before) / count;
}

}  // namespace raycar::bench
