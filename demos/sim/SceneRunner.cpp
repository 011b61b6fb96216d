#include "SceneRunner.h"

#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "raycar/Error.h"
#include "raycar/io/ObjModel.h"
#include "raycar/tire/SurfaceTable.h"

namespace raycar::sim {
namespace {

// The loader's figures for the summary (VehicleBuild).
VehicleBuild describeBuild(const LoadedVehicle& loaded, const RaycastVehicle& vehicle) {
  VehicleBuild build;
  build.mass = loaded.mass;
  // The loader's moments are about the chassis frame's (principal) axes, in the order its
  // eigen-solve and the model's axes gave them: taken about the car's own axes instead.
  const ChassisAxes& axes = loaded.settings.axes;
  const btVector3& moments = loaded.principalInertia;
  auto about = [&moments](const btVector3& axis) { return (axis * axis).dot(moments); };
  build.chassisInertia = btVector3(about(axes.forward), about(axes.right()), about(axes.up));
  build.centerOfMassInModel = loaded.modelFromChassis.getOrigin();
  for (int i = 0; i < vehicle.wheelCount(); ++i) {
    const WheelSettings wheel = vehicle.wheelSettings(i);
    VehicleBuild::Wheel out;
    out.radius = wheel.radius;
    out.width = wheel.width;
    out.restLength = wheel.suspensionRestLength;
    out.maxLength = wheel.suspensionMaxLength;
    out.stiffness = wheel.stiffness;  // wheelSettings: with the automatic rate resolved
    out.staticLoad = vehicle.wheelState(i).staticLoad;
    out.centreInModel = loaded.modelFromChassis *
                        (wheel.attachmentPoint - vehicle.settings().axes.up * wheel.suspensionRestLength);
    build.wheels.push_back(out);
  }
  return build;
}
constexpr double kDegree = SIMD_PI / 180;

bool isFinite(const btVector3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}
}  // namespace

SceneRunner::SceneRunner(const Scene& scene, int threads)
    : scene_(scene),
      configuration_(std::make_unique<btDefaultCollisionConfiguration>()),
      dispatcher_(std::make_unique<btCollisionDispatcher>(configuration_.get())),
      broadphase_(std::make_unique<btDbvtBroadphase>()),
      solver_(std::make_unique<btSequentialImpulseConstraintSolver>()),
      world_(std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(),
                                                       configuration_.get())) {
  world_->setGravity(btVector3(0, 0, btScalar(-scene.gravity)));
  totalSteps_ = int(std::lround(scene.duration / scene.step));
  buildGround();
  if (threads > 0) {
    group_ = std::make_unique<VehicleGroup>(threads);
    world_->addAction(group_.get());
  }
  spawnVehicles();
  // Seed 001's max_time_step_vehicle: the scene step is split into equal substeps no longer than
  // the smallest cap among the vehicles.
  double cap = scene_.step;
  for (const Run& run : runs_) cap = std::min(cap, double(run.car->loaded().chassis.maxTimeStep));
  substeps_ = int(std::ceil(scene_.step / cap - 1e-9));
}

SceneRunner::~SceneRunner() {
  runs_.clear();  // vehicles leave the world (and the group) before the ground and the world go
  if (group_) world_->removeAction(group_.get());
  if (ground_) world_->removeRigidBody(ground_.get());
}

void SceneRunner::buildGround() {
  std::vector<int> triangleMaterials;  // a track's, in the order its triangles enter the mesh
  switch (scene_.ground) {
    case GroundType::Plane:
      groundShape_ = std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0);
      break;
    case GroundType::Incline: {
      // Rising along +y by slope_deg.
      const double slope = scene_.slopeDegrees * kDegree;
      groundShape_ = std::make_unique<btStaticPlaneShape>(
          btVector3(0, btScalar(-std::sin(slope)), btScalar(std::cos(slope))), 0);
      break;
    }
    case GroundType::Track: {
      const ObjModel model = loadObjModel(scene_.trackObj);
      for (const auto& [name, material] : scene_.objectMaterials)
        if (model.find(name) == nullptr)
          throw Error({scene_.path, scene_.surfacesLine, "surfaces.materials." + name},
                      "the track " + scene_.trackObj + " has no object of this name");
      groundMesh_ = std::make_unique<btTriangleMesh>();
      for (const ObjObject& object : model.objects) {
        int material = 0;
        for (const auto& [name, objectMaterial] : scene_.objectMaterials)
          if (name == object.name) material = objectMaterial;
        for (const auto& t : object.triangles) {
          groundMesh_->addTriangle(object.vertices[t[0]], object.vertices[t[1]], object.vertices[t[2]]);
          triangleMaterials.push_back(material);
        }
      }
      if (groundMesh_->getNumTriangles() == 0)
        throw Error({scene_.trackObj, 0, ""}, "the track has no triangles");
      groundShape_ = std::make_unique<btBvhTriangleMeshShape>(groundMesh_.get(), true);
      break;
    }
    case GroundType::Heightfield: {
      // Gentle hills: amplitude sin(2 pi x / wavelength) cos(2 pi y / (1.3 wavelength)).
      const int samples = int(std::lround(scene_.heightfieldSize / scene_.heightfieldCell)) + 1;
      heights_.resize(size_t(samples) * size_t(samples));
      float low = 0, high = 0;
      for (int j = 0; j < samples; ++j)
        for (int i = 0; i < samples; ++i) {
          const double x = -scene_.heightfieldSize / 2 + i * scene_.heightfieldCell;
          const double y = -scene_.heightfieldSize / 2 + j * scene_.heightfieldCell;
          const double k = 2 * SIMD_PI / scene_.heightfieldWavelength;
          const float h = float(scene_.heightfieldAmplitude * std::sin(k * x) * std::cos(k * y / 1.3));
          heights_[size_t(j) * samples + i] = h;
          low = std::min(low, h);
          high = std::max(high, h);
        }
      // The typed constructor: the legacy one reads PHY_FLOAT as btScalar, i.e. as doubles in a
      // double-precision Bullet, past the end of these floats.
      auto shape = std::make_unique<btHeightfieldTerrainShape>(samples, samples, heights_.data(), low, high, 2, false);
      shape->setLocalScaling(btVector3(btScalar(scene_.heightfieldCell), btScalar(scene_.heightfieldCell), 1));
      groundShape_ = std::move(shape);
      // Bullet centres a height field on its AABB: shift it back so heights are world heights.
      ground_ = std::make_unique<btRigidBody>(0, nullptr, groundShape_.get());
      ground_->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 0, (low + high) / 2)));
      break;
    }
  }
  if (!ground_) ground_ = std::make_unique<btRigidBody>(0, nullptr, groundShape_.get());
  ground_->setFriction(btScalar(scene_.friction));
  world_->addRigidBody(ground_.get());
  if (!scene_.objectMaterials.empty() || !scene_.surfaceFriction.empty() ||
      !scene_.surfaceRollingResistance.empty()) {
    surfaces_ = std::make_shared<SurfaceTable>();
    if (!scene_.objectMaterials.empty()) surfaces_->setTriangleMaterials(*ground_, std::move(triangleMaterials));
    for (const SurfacePair& pair : scene_.surfaceFriction)
      surfaces_->setFriction(pair.surfaceId, pair.material, btScalar(pair.value));
    for (const SurfacePair& pair : scene_.surfaceRollingResistance)
      surfaces_->setRollingResistance(pair.surfaceId, pair.material, btScalar(pair.value));
  }
}

void SceneRunner::spawnVehicles() {
  // Each script (and wheel query) loaded once; the cars of one entry share it (SpawnedVehicle).
  std::map<std::string, std::shared_ptr<const LoadedVehicle>> loaded;
  for (const VehicleEntry& entry : scene_.vehicles) {
    std::string key = entry.script + "\n" + entry.wheelQuery + "\n" + std::to_string(entry.esc);
    for (const KeyOverride& override : entry.scriptOverrides) key += "\n" + override.text;
    if (!loaded.count(key)) {
      std::vector<KeyOverride> overrides = entry.scriptOverrides;
      overrides.insert(overrides.end(), scene_.scriptOverrides.begin(), scene_.scriptOverrides.end());
      LoadedVehicle vehicle = loadVehicle(entry.script, overrides);
      if (!entry.wheelQuery.empty()) {
        const GroundQueryKind kind = entry.wheelQuery == "sphere"     ? GroundQueryKind::Sphere
                                     : entry.wheelQuery == "cylinder" ? GroundQueryKind::Cylinder
                                                                      : GroundQueryKind::Ray;
        for (WheelSettings& wheel : vehicle.settings.wheels) wheel.groundQuery = kind;
      }
      if (entry.esc >= 0) vehicle.settings.assists.stabilityControl = entry.esc == 1;
      if (!vehicle.ignoredObjects.empty()) {
        std::string names;
        for (const std::string& name : vehicle.ignoredObjects) names += (names.empty() ? "" : ", ") + name;
        notes_.push_back("note: " + vehicle.modelPath + ": not read as vehicle parts, so neither shown nor simulated: " + names +
                         " (a part shown without physics is a hullN with flags 2 and mass 0)");
      }
      for (const std::string& warning : vehicle.warnings) notes_.push_back("warning: " + warning);
      loaded.emplace(key, std::make_shared<const LoadedVehicle>(std::move(vehicle)));
    }
    const std::shared_ptr<const LoadedVehicle>& model = loaded.at(key);
    const LoadedVehicle& vehicle = *model;
    for (int copy = 0; copy < entry.count; ++copy) {
      const int column = copy % entry.columns, row = copy / entry.columns;
      btVector3 position = entry.position + btVector3(btScalar(column * entry.spacing[0]),
                                                      btScalar(row * entry.spacing[1]), 0);
      // Stand on the ground below, its model's ground plane on the ground's surface there:
      // entry z is the height above it, along the surface's normal. A car spawned level on a
      // slope had its uphill wheels in the ground (on 15 degrees a van's first step put 168 kN
      // on one wheel, 23 times its static load, and threw the car).
      btCollisionWorld::ClosestRayResultCallback down(position + btVector3(0, 0, 1000), position - btVector3(0, 0, 1000));
      // The ground and what stands fixed on it (Bullet's static and kinematic group), not a car
      // spawned before this one at the same spot, whose roof the car would be tilted to.
      down.m_collisionFilterMask = btBroadphaseProxy::StaticFilter;
      world_->rayTest(down.m_rayFromWorld, down.m_rayToWorld, down);
      btQuaternion tilt = btQuaternion::getIdentity();
      if (down.hasHit()) {
        btVector3 normal = down.m_hitNormalWorld.normalized();
        // A surface that faces sideways or down (the inside of a convex hull the ray started in)
        // is no ground to stand on: the car stands level above the hit, as on the flat.
        if (!(normal.z() > 0)) normal = btVector3(0, 0, 1);
        const btScalar height = position.z();
        // Level ground (normal (0, 0, 1)) keeps x and y and gives the identity exactly, so a
        // flat scene spawns bit for bit where it always did.
        position = btVector3(position.x() + normal.x() * height, position.y() + normal.y() * height,
                             down.m_hitPointWorld.z() + normal.z() * height);
        tilt = shortestArcQuat(btVector3(0, 0, 1), normal);
      }
      const btQuaternion heading(btVector3(0, 0, 1), btScalar(entry.headingDegrees * kDegree));
      Run run;
      // The scene's world is Z up and heading 0 faces +Y; the model stands on its script's axes.
      const btTransform upright = placeModel(vehicle, btVector3(0, 0, 1), btVector3(0, 1, 0), btVector3(0, 0, 0));
      run.car = std::make_unique<SpawnedVehicle>(*world_, model, btTransform(tilt * heading, position) * upright,
                                                 group_.get());
      run.car->vehicle().setSurfaceTable(surfaces_);
      run.driver = makeDriver(entry);
      measureAxles(run);
      // Shown without "dir/.." (a trial's summary named its car scenes/../car/hatch.vehicle.toml).
      run.summary.script = std::filesystem::path(entry.script).lexically_normal().string();
      run.summary.build = describeBuild(vehicle, run.car->vehicle());
      run.summary.hasPath = entry.driver == DriverType::FollowPath;
      try {
        run.summary.model = singleTrackModel(vehicle.settings, vehicle.mass, btScalar(scene_.gravity),
                                             btScalar(scene_.friction));
        run.summary.hasModel = true;
      } catch (const SettingsError&) {
        run.summary.hasModel = false;  // e.g. no wheels behind the centre of mass
      }
      run.lastPosition = run.car->chassis().getCenterOfMassPosition();
      if (entry.ghost) {
        const DriverView start = view(run);
        KinematicBicycleSettings bicycle;
        bicycle.wheelbase = btScalar(run.wheelbase);
        run.ghost = std::make_unique<KinematicBicycle>(
            bicycle, KinematicBicycleState{btScalar(start.x), btScalar(start.y), btScalar(start.heading), 0, 0});
        run.summary.hasGhost = true;
      }
      runs_.push_back(std::move(run));
    }
  }
}

void SceneRunner::measureAxles(Run& run) {
  // Rear axle centre and wheelbase from the wheel layout.
  const VehicleSettings& settings = run.car->loaded().settings;
  btScalar front = -BT_LARGE_FLOAT, rear = BT_LARGE_FLOAT;
  for (const WheelSettings& wheel : settings.wheels) {
    front = std::max(front, wheel.attachmentPoint.dot(settings.axes.forward));
    rear = std::min(rear, wheel.attachmentPoint.dot(settings.axes.forward));
  }
  btVector3 rearAxle(0, 0, 0);
  int rearWheels = 0;
  for (const WheelSettings& wheel : settings.wheels) {
    if (wheel.attachmentPoint.dot(settings.axes.forward) > rear + btScalar(0.05)) continue;
    rearAxle += wheel.attachmentPoint - settings.axes.up * (wheel.suspensionRestLength + wheel.radius);
    ++rearWheels;
  }
  run.rearAxleLocal = rearAxle / btScalar(std::max(rearWheels, 1));
  run.wheelbase = std::max(double(front - rear), 0.1);
}

void SceneRunner::respawnVehicle(size_t index, const LoadedVehicle& vehicle) {
  Run& run = runs_.at(index);
  const btRigidBody& old = run.car->chassis();
  // The model keeps its place; the centre of mass may move if the masses changed.
  const btTransform modelToWorld = old.getWorldTransform() * run.car->loaded().modelFromChassis.inverse();
  const btVector3 linearVelocity = old.getLinearVelocity();
  const btVector3 angularVelocity = old.getAngularVelocity();
  const btVector3 oldCentre = old.getCenterOfMassPosition();
  // Built before the old one goes: if the settings are rejected, the old vehicle stays.
  auto car = std::make_unique<SpawnedVehicle>(*world_, vehicle, modelToWorld, group_.get());
  run.car = std::move(car);
  run.car->vehicle().setSurfaceTable(surfaces_);
  btRigidBody& chassis = run.car->chassis();
  const btVector3 centre = chassis.getCenterOfMassPosition();
  chassis.setLinearVelocity(linearVelocity + angularVelocity.cross(centre - oldCentre));
  chassis.setAngularVelocity(angularVelocity);
  measureAxles(run);
  run.lastPosition = centre;
}

DriverView SceneRunner::view(const Run& run) const {
  RaycastVehicle& vehicle = run.car->vehicle();
  const btTransform transform = run.car->chassis().getWorldTransform();
  const btVector3 rear = transform * run.rearAxleLocal;
  const btVector3 forward = vehicle.worldForward();
  DriverView view;
  view.time = time();
  view.dt = scene_.step;
  view.x = rear.x();
  view.y = rear.y();
  view.heading = std::atan2(forward.y(), forward.x());
  view.speed = vehicle.forwardSpeed();
  view.wheelbase = run.wheelbase;
  view.maxSteer = maxSteerAngle(vehicle.settings().steering, btScalar(view.speed));
  const btVector3 velocity = vehicle.linearVelocity();
  if (velocity.x() * velocity.x() + velocity.y() * velocity.y() > 0.25) {
    view.slipAngle = std::remainder(std::atan2(velocity.y(), velocity.x()) - view.heading, SIMD_2_PI);
  }
  return view;
}

void SceneRunner::overrideInput(size_t index, const DriverInput& input) {
  runs_[index].overridden = true;
  runs_[index].overrideInput = input;
}

void SceneRunner::step() {
  const int every = scene_.rollbackEvery;
  if (every > 0 && !predicting_ && (steps_ + scene_.rollbackSteps) % every == 0) {
    // The last confirmed step before a rollback point: what the replay starts from.
    saveSnapshot(confirmed_);
    predicting_ = true;
  }
  advance(predicting_ && scene_.rollbackHoldsInputs);
  if (predicting_ && (steps_ % every == 0 || finished())) rollBack();
}

void SceneRunner::rollBack() {
  std::vector<btVector3> predicted;
  for (const Run& run : runs_) predicted.push_back(run.car->chassis().getCenterOfMassPosition());
  const int target = steps_;
  restoreSnapshot(confirmed_);
  predicting_ = false;
  while (steps_ < target) advance(false);
  ++rollbacks_;
  for (size_t i = 0; i < runs_.size(); ++i)
    largestCorrection_ =
        std::max(largestCorrection_, double((runs_[i].car->chassis().getCenterOfMassPosition() - predicted[i]).length()));
}

void SceneRunner::saveSnapshot(Snapshot& snapshot) const {
  snapshot.steps = steps_;
  snapshot.telemetryRows = telemetry_.size();
  snapshot.traceLengths.clear();
  for (const WheelTrace& trace : wheelTraces_) snapshot.traceLengths.push_back(trace.time.size());
  snapshot.runs.resize(runs_.size());
  for (size_t i = 0; i < runs_.size(); ++i) {
    const Run& run = runs_[i];
    RunSnapshot& saved = snapshot.runs[i];
    run.car->vehicle().saveState(saved.vehicleState);
    saved.chassis = RigidBodyState(run.car->chassis());
    saved.driver = run.driver->clone();
    saved.ghost = run.ghost ? std::optional<KinematicBicycle>(*run.ghost) : std::nullopt;
    saved.summary = run.summary;
    saved.lastPosition = run.lastPosition;
    saved.recentVelocities = run.recentVelocities;
    saved.lastCommand = run.lastCommand;
  }
}

void SceneRunner::restoreSnapshot(const Snapshot& snapshot) {
  steps_ = snapshot.steps;
  telemetry_.resize(snapshot.telemetryRows);
  wheelTraces_.resize(snapshot.traceLengths.size());
  for (size_t i = 0; i < wheelTraces_.size(); ++i) {
    wheelTraces_[i].time.resize(snapshot.traceLengths[i]);
    wheelTraces_[i].travelled.resize(snapshot.traceLengths[i]);
    wheelTraces_[i].compression.resize(snapshot.traceLengths[i]);
  }
  for (size_t i = 0; i < runs_.size(); ++i) {
    Run& run = runs_[i];
    const RunSnapshot& saved = snapshot.runs[i];
    run.car->vehicle().restoreState(saved.vehicleState.data(), saved.vehicleState.size());
    saved.chassis.restore(run.car->chassis());
    run.driver = saved.driver->clone();
    if (saved.ghost) *run.ghost = *saved.ghost;
    run.summary = saved.summary;
    run.lastPosition = saved.lastPosition;
    run.recentVelocities = saved.recentVelocities;
    run.lastCommand = saved.lastCommand;
  }
}

void SceneRunner::advance(bool holdInputs) {
  for (Run& run : runs_) {
    // A held input stands for a remote player's input not yet received: the driver is not asked.
    DriverCommand command = holdInputs ? run.lastCommand : run.driver->update(view(run));
    if (run.overridden) command.input = run.overrideInput;
    run.lastCommand = command;
    run.car->vehicle().setInput(command.input);
    if (run.ghost) run.ghost->step(btScalar(command.acceleration), btScalar(command.steerAngle), btScalar(scene_.step));
  }
  world_->stepSimulation(btScalar(scene_.step), substeps_, btScalar(scene_.step / substeps_));
  ++steps_;
  for (size_t index = 0; index < runs_.size(); ++index) {
    Run& run = runs_[index];
    RaycastVehicle& vehicle = run.car->vehicle();
    VehicleSummary& summary = run.summary;
    const btVector3 position = run.car->chassis().getCenterOfMassPosition();
    const btVector3 velocity = vehicle.linearVelocity();
    summary.finite = summary.finite && isFinite(position) && isFinite(velocity);
    // Off the ground's edge: 5 m below its lowest point, the car is falling for good.
    if (summary.leftGroundAt < 0 && ground_) {
      btVector3 groundMin, groundMax;
      ground_->getCollisionShape()->getAabb(ground_->getWorldTransform(), groundMin, groundMax);
      if (position.z() < groundMin.z() - 5) summary.leftGroundAt = time();
    }
    // Driven distance: a car's fall once it has left the ground is none (a trial's sedan that
    // fell at 18 s was given 2.3 km, 2.2 of them falling, and squashed every car's plots).
    const double travelled = (position - run.lastPosition).length();  // m this step
    if (summary.leftGroundAt < 0) summary.distance += travelled;
    run.lastPosition = position;
    // Across the ground (scenes are z up): a car falling off the ground's edge had been given a
    // top speed of 105 m/s and a 0-100 km/h time by its fall.
    const double speed = std::hypot(double(velocity.x()), double(velocity.y()));
    summary.topSpeed = std::max(summary.topSpeed, speed);
    if (summary.time0To100 < 0 && speed >= 100 / 3.6) summary.time0To100 = time();
    if (summary.stopDistance < 0) {
      const bool braking = run.lastCommand.input.brake > 0;
      if (!braking) {
        summary.brakingSince = -1;
      } else if (summary.brakingSince < 0 && summary.lastSpeed > 1) {
        summary.brakingSince = time() - scene_.step;  // the step it came on began then
        summary.brakingFromSpeed = summary.lastSpeed;
        summary.brakingDistance = travelled;
      } else if (summary.brakingSince >= 0) {
        summary.brakingDistance += travelled;
      }
      if (summary.brakingSince >= 0 && speed < 0.1) {
        summary.stopFromSpeed = summary.brakingFromSpeed;
        summary.stopDistance = summary.brakingDistance;
        summary.stopTime = time() - summary.brakingSince;
      }
    }
    summary.lastSpeed = speed;
    // Lateral acceleration from the velocity's change over 0.1 s, across the vehicle.
    const size_t window = size_t(std::max(1L, std::lround(0.1 / scene_.step)));
    run.recentVelocities.push_back(velocity);
    if (run.recentVelocities.size() > window + 1) run.recentVelocities.erase(run.recentVelocities.begin());
    if (run.recentVelocities.size() == window + 1) {
      const btVector3 change = (run.recentVelocities.back() - run.recentVelocities.front()) / btScalar(window * scene_.step);
      summary.maxLateralG = std::max(summary.maxLateralG, std::fabs(double(change.dot(vehicle.worldRight()))) / scene_.gravity);
    }
    summary.gearChanges = vehicle.powertrain().shifts;
    if (summary.hasPath && summary.pathTime < 0 && run.driver->pathComplete()) summary.pathTime = time();
    if (run.ghost) {
      const DriverView seen = view(run);
      const double distance = std::hypot(seen.x - run.ghost->state().x, seen.y - run.ghost->state().y);
      summary.ghostMaxDistance = std::max(summary.ghostMaxDistance, distance);
      summary.ghostFinalDistance = distance;
    }
    const bool recorded = steps_ % scene_.recordEvery == 0 || steps_ == totalSteps_;
    if (index == 0 && recorded) telemetry_.push_back(record(run));
    if (index < kTracedVehicles && recorded && vehicle.wheelCount() > 0) {
      if (wheelTraces_.size() <= index) {
        const GroundQueryKind kind = vehicle.settings().wheels[0].groundQuery;
        const char* query = kind == GroundQueryKind::Sphere     ? "sphere"
                            : kind == GroundQueryKind::Cylinder ? "cylinder"
                                                                : "ray";
        wheelTraces_.resize(index + 1);
        wheelTraces_[index].label = std::to_string(index + 1) + ": " +
                                    std::filesystem::path(summary.script).stem().stem().string() + ", " +
                                    query;
      }
      WheelTrace& trace = wheelTraces_[index];
      trace.time.push_back(time());
      trace.travelled.push_back(summary.distance);
      trace.compression.push_back(vehicle.wheelState(0).suspensionCompression);
    }
  }
}

TelemetryRow SceneRunner::record(const Run& run) const {
  RaycastVehicle& vehicle = run.car->vehicle();
  TelemetryRow row;
  const DriverView seen = view(run);
  row.time = time();
  row.position = run.car->chassis().getCenterOfMassPosition();
  row.velocity = vehicle.linearVelocity();
  row.yaw = seen.heading;
  row.speed = seen.speed;
  row.rearX = seen.x;
  row.rearY = seen.y;
  const PowertrainState& powertrain = vehicle.powertrain();
  row.engineRpm = powertrain.engineRpm;
  row.gear = powertrain.gear - kNeutralGear;
  row.clutch = powertrain.clutch;
  row.steeringTorque = vehicle.steeringTorque();
  row.escBrakeTorque = vehicle.stabilityControl().brakeTorque;
  row.clutchTorque = powertrain.clutchTorque;
  row.clutchHeat = powertrain.clutchSlipEnergy;
  for (int w = 0; w < vehicle.wheelCount(); ++w) row.wheels.push_back(vehicle.wheelState(w));
  if (run.ghost) {
    row.hasGhost = true;
    row.ghostX = run.ghost->state().x;
    row.ghostY = run.ghost->state().y;
    row.ghostDistance = std::hypot(seen.x - row.ghostX, seen.y - row.ghostY);
  }
  return row;
}

SceneSummary SceneRunner::summary() const {
  SceneSummary summary;
  summary.name = scene_.name;
  summary.steps = steps_;
  summary.simulatedTime = time();
  summary.rollbacks = rollbacks_;
  summary.largestRollbackCorrection = largestCorrection_;
  for (const Run& run : runs_) {
    VehicleSummary vehicle = run.summary;
    const btTransform transform = run.car->chassis().getWorldTransform();
    vehicle.finalPosition = transform.getOrigin();
    const btVector3 forward = run.car->vehicle().worldForward();
    // As the scene's heading_deg: about +z, 0 facing +y.
    vehicle.finalHeadingDegrees = std::atan2(-forward.x(), forward.y()) / kDegree;
    if (scene_.hasParkingSpace) {
      // Every corner of the chassis' collision hulls inside the space's rectangle.
      const auto& space = scene_.parkingSpace;
      bool inside = true;
      for (const MeshPart& hull : run.car->loaded().collisionHulls)
        for (const btVector3& v : hull.vertices) {
          const btVector3 p = transform * v;
          inside = inside && p.x() >= space[0] && p.x() <= space[2] && p.y() >= space[1] && p.y() <= space[3];
        }
      vehicle.insideParkingSpace = inside;
    }
    summary.vehicles.push_back(vehicle);
  }
  return summary;
}

}  // namespace raycar::sim
