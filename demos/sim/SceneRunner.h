#pragma once
// Runs a scene at its fixed step: builds the world and ground, spawns the vehicles, drives them,
// and keeps the telemetry and headline figures that Report writes out.

#include <btBulletDynamicsCommon.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Drivers.h"
#include "Scene.h"
#include "raycar/extras/KinematicBicycle.h"
#include "raycar/extras/SingleTrack.h"
#include "raycar/io/RigidBodyState.h"
#include "raycar/io/VehicleLoader.h"

namespace raycar::sim {

// One telemetry row of one vehicle (DESIGN.md's columns).
struct TelemetryRow {
  double time = 0;
  btVector3 position{0, 0, 0}, velocity{0, 0, 0};
  double yaw = 0;       // rad, heading counter-clockwise from +x
  double speed = 0;     // m/s forward
  double engineRpm = 0;
  int gear = 0;         // -1 reverse, 0 neutral, 1.. forward
  double clutch = 0;
  double steeringTorque = 0;  // N m at the steering wheel (RaycastVehicle::steeringTorque)
  double escBrakeTorque = 0;  // N m of brake the stability control asked of a wheel this step (before ABS)
  double clutchTorque = 0;    // N m the clutch passed (engine inertia only)
  double clutchHeat = 0;      // J: the clutch's slip energy so far (engine inertia only)
  std::vector<WheelState> wheels;
  bool hasGhost = false;
  double ghostX = 0, ghostY = 0, ghostDistance = 0;  // m
  double rearX = 0, rearY = 0;                       // m: the vehicle's rear axle centre
};

// What the loader made of a vehicle's script and model: the figures a modeller checks an export
// by (in the chassis' own frame unless said).
struct VehicleBuild {
  double mass = 0;                        // kg
  // kg m^2 about the car's forward, right and up axes through the centre of mass: roll, pitch
  // and yaw, in [params] chassis_inertia's order whatever the model's axes.
  btVector3 chassisInertia{0, 0, 0};
  btVector3 centerOfMassInModel{0, 0, 0};  // m, model space
  struct Wheel {
    double radius = 0, width = 0;             // m
    double restLength = 0, maxLength = 0;     // m: len_initial, len_max
    double stiffness = 0;                     // N/m, as resolved
    double staticLoad = 0;                    // N the wheel carries parked on the flat
    btVector3 centreInModel{0, 0, 0};         // m, model space, at rest
  };
  std::vector<Wheel> wheels;
};

struct VehicleSummary {
  std::string script;
  VehicleBuild build;
  double distance = 0;          // m travelled
  double topSpeed = 0;          // m/s
  double time0To100 = -1;       // s, -1 if 100 km/h was never reached
  // The first stop: from the step the brake came on (brake input above 0) at over 1 m/s across
  // the ground, to the step the car was slower than 0.1 m/s with it still on; a release on the
  // way starts the count again at the next application. -1: no such stop.
  double stopFromSpeed = -1;    // m/s when the brake came on
  double stopDistance = -1;     // m travelled to the stop
  double stopTime = -1;         // s
  // The stop being measured (kept here, so that a rollback takes it back with the rest).
  double brakingSince = -1;     // s: the step the brake came on; -1: not braking
  double brakingFromSpeed = 0, brakingDistance = 0, lastSpeed = 0;
  double maxLateralG = 0;       // g
  btVector3 finalPosition{0, 0, 0};
  double finalHeadingDegrees = 0;  // about +z, 0 facing +y (as the scene's heading_deg)
  int gearChanges = 0;
  bool finite = true;           // no NaN or infinity anywhere in its state
  double leftGroundAt = -1;     // s when it fell 5 m below the ground's lowest point; -1: never
  bool hasGhost = false;
  double ghostMaxDistance = 0;  // m between rear axle and bicycle ghost
  double ghostFinalDistance = 0;
  bool insideParkingSpace = false;
  bool hasPath = false;             // a follow_path driver: pathTime is its course time
  double pathTime = -1;             // s from the start to within 1 m of the path's end; -1: not reached
  bool hasModel = false;            // the single-track model of its settings could be made
  SingleTrackModel model;
};

// One vehicle's wheel 1 (front left) at every telemetry row, for the report's side-by-side plot.
struct WheelTrace {
  std::string label;               // "1: sedan, ray": vehicle number, script, ground query
  std::vector<double> time;        // s
  std::vector<double> travelled;   // m along the vehicle's path
  std::vector<double> compression; // m, len_max - length
};

struct SceneSummary {
  std::string name;
  int steps = 0;
  double simulatedTime = 0;  // s
  int rollbacks = 0;                       // [scene] rollback_every: how many times it rewound
  double largestRollbackCorrection = 0;    // m: the most a chassis moved when its steps were replayed
  std::vector<VehicleSummary> vehicles;
};

class SceneRunner {
 public:
  // threads = 0: each vehicle is its own action in the world; threads >= 1: all of them belong to
  // one VehicleGroup of that many threads (the same trajectories, bitwise, for cars that do not
  // drive on each other).
  explicit SceneRunner(const Scene& scene, int threads = 0);
  ~SceneRunner();
  const Scene& scene() const { return scene_; }
  btDiscreteDynamicsWorld& world() { return *world_; }
  // One fixed step of scene.step seconds.
  void step();
  bool finished() const { return steps_ >= totalSteps_; }
  int steps() const { return steps_; }
  int totalSteps() const { return totalSteps_; }
  int substeps() const { return substeps_; }
  // What the loading noticed and is worth telling (a model's objects that are no vehicle part).
  // Each "note: ..." or "warning: ...", for the program to print after its name.
  const std::vector<std::string>& notes() const { return notes_; }
  double time() const { return steps_ * scene_.step; }
  size_t vehicleCount() const { return runs_.size(); }
  SpawnedVehicle& vehicle(size_t index) { return *runs_[index].car; }
  // The ghost's pose, if the vehicle has one: x, y (rear axle), heading.
  const KinematicBicycle* ghost(size_t index) const { return runs_[index].ghost.get(); }
  const std::vector<TelemetryRow>& telemetry() const { return telemetry_; }  // vehicle 0
  // Wheel 1 of each of the first kTracedVehicles vehicles, at the telemetry's rows.
  static constexpr size_t kTracedVehicles = 8;
  const std::vector<WheelTrace>& wheelTraces() const { return wheelTraces_; }
  SceneSummary summary() const;
  // Replaces the driver of vehicle `index` (the viewer's keyboard).
  void overrideInput(size_t index, const DriverInput& input);
  // Replaces vehicle `index` by `vehicle` (the viewer's tuning panel and script reload): the model
  // keeps its pose and the chassis its velocity; the driver and the ghost carry on; wheel spins
  // start from 0. Throws raycar::Error when the vehicle's settings are rejected, and then the old
  // vehicle stays.
  void respawnVehicle(size_t index, const LoadedVehicle& vehicle);

 private:
  struct Run {
    std::unique_ptr<SpawnedVehicle> car;
    std::unique_ptr<Driver> driver;
    std::unique_ptr<KinematicBicycle> ghost;
    btVector3 rearAxleLocal{0, 0, 0};   // chassis frame
    double wheelbase = 2.5;
    VehicleSummary summary;
    btVector3 lastPosition{0, 0, 0};
    bool overridden = false;
    DriverInput overrideInput;
    std::vector<btVector3> recentVelocities;  // the last 0.1 s, oldest first (lateral g)
    DriverCommand lastCommand;  // the command of the last step (held while inputs are predicted)
  };
  // Everything a step changes, for a rollback: vehicles, chassis bodies, drivers, ghosts, figures.
  struct RunSnapshot {
    std::vector<std::uint8_t> vehicleState;  // RaycastVehicle::saveState
    RigidBodyState chassis;
    std::unique_ptr<Driver> driver;
    std::optional<KinematicBicycle> ghost;
    VehicleSummary summary;
    btVector3 lastPosition{0, 0, 0};
    std::vector<btVector3> recentVelocities;
    DriverCommand lastCommand;
  };
  struct Snapshot {
    int steps = 0;
    size_t telemetryRows = 0;
    std::vector<size_t> traceLengths;
    std::vector<RunSnapshot> runs;
  };
  // One fixed step; holdInputs: every driver's last command instead of asking it.
  void advance(bool holdInputs);
  // Back to the confirmed snapshot, then forward again to where it was with the drivers' inputs.
  void rollBack();
  void saveSnapshot(Snapshot& snapshot) const;
  void restoreSnapshot(const Snapshot& snapshot);
  void buildGround();
  void spawnVehicles();
  static void measureAxles(Run& run);
  DriverView view(const Run& run) const;
  TelemetryRow record(const Run& run) const;

  Scene scene_;
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::unique_ptr<btCollisionShape> groundShape_;
  std::unique_ptr<btTriangleMesh> groundMesh_;
  std::vector<float> heights_;
  std::unique_ptr<btRigidBody> ground_;
  std::shared_ptr<SurfaceTable> surfaces_;  // [surfaces], null when the scene has none
  std::unique_ptr<VehicleGroup> group_;  // with threads >= 1; outlives the vehicles in runs_
  std::vector<Run> runs_;
  std::vector<std::string> notes_;
  std::vector<TelemetryRow> telemetry_;
  std::vector<WheelTrace> wheelTraces_;
  int steps_ = 0;
  int totalSteps_ = 0;
  int substeps_ = 1;  // Bullet substeps per scene step: none longer than max_time_step_vehicle
  Snapshot confirmed_;        // rollback: the state rollbackSteps before the next rollback point
  bool predicting_ = false;   // rollback: stepping on predicted inputs since confirmed_
  int rollbacks_ = 0;
  double largestCorrection_ = 0;  // m
};

}  // namespace raycar::sim
