#pragma once
// The benchmark scene: one world on the hill terrain, and fleets of identical cars driving circles
// on a 16 m grid (32 x 32 places on 512 m), either raycar's or Bullet's btRaycastVehicle, with
// the same mass, chassis box, wheel layout, suspension travel and static sag.
//
// The vehicle updates are timed on their own: the fleet's cars are not actions of their own; one
// TimedVehicles action updates all of them and measures that alone, leaving out the rest of
// stepSimulation (broadphase, chassis-terrain contacts, the constraint solver). The whole
// stepSimulation is timed too, as the game's frame sees it.

#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Vehicle/btRaycastVehicle.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <functional>
#include <memory>
#include <vector>

#include "HillTerrain.h"
#include "raycar/vehicle/RaycastVehicle.h"
#include "raycar/parallel/VehicleGroup.h"

namespace raycar::bench {

constexpr btScalar kStep = 1.0f / 120;  // s

// A dynamics world on a terrain; several worlds may share one terrain (and its BVH).
class BenchWorld {
 public:
  explicit BenchWorld(HillTerrain& terrain);
  ~BenchWorld();
  btDiscreteDynamicsWorld& world() { return *world_; }
  HillTerrain& terrain() { return terrain_; }
  // One step of kStep (a variable step of exactly kStep, so never zero or two substeps).
  void step() { world_->stepSimulation(kStep, 0); }

 private:
  HillTerrain& terrain_;
  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_{&configuration_};
  btDbvtBroadphase broadphase_;
  btSequentialImpulseConstraintSolver solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::unique_ptr<btRigidBody> ground_;
};

// Wall-clock time of the vehicle updates inside one stepSimulation.
class TimedVehicles final : public btActionInterface {
 public:
  explicit TimedVehicles(std::function<void(btCollisionWorld*, btScalar)> update)
      : update_(std::move(update)) {}
  void updateAction(btCollisionWorld* world, btScalar dt) override {
    const auto start = std::chrono::steady_clock::now();
    update_(world, dt);
    lastSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void debugDraw(btIDebugDraw*) override {}
  double lastSeconds() const { return lastSeconds_; }

 private:
  std::function<void(btCollisionWorld*, btScalar)> update_;
  double lastSeconds_ = 0;
};

enum class FleetKind {
  Raycar,          // RaycastVehicle::updateAction per car, in order
  RaycarNoCache,   // the same with WheelQuerySettings::cache off (a full rayTest per wheel)
  RaycarSphere,    // the same with every wheel's ground query a sphere cast
  RaycarCylinder,  // the same with every wheel's ground query a cylinder cast
  RaycarGroup,     // one VehicleGroup, `threads` threads
  RaycarGroupGameJobs,  // one VehicleGroup run by a game's job system of `threads` threads
  Bullet,          // btRaycastVehicle::updateAction per car
};

// A game's job system as a small engine has one: the calling thread and threads - 1 workers that
// live as long as the game and wait on a condition variable between jobs. parallelFor splits
// [0, count) into one range per thread and returns when all are done (VehicleGroup::ParallelFor).
class GameJobSystem {
 public:
  explicit GameJobSystem(int threads);
  ~GameJobSystem();
  GameJobSystem(const GameJobSystem&) = delete;
  GameJobSystem& operator=(const GameJobSystem&) = delete;
  void parallelFor(int count, const std::function<void(int begin, int end)>& body);

 private:
  void work(int worker);
  const int threads_;  // the calling thread and threads_ - 1 workers
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int, int)>* body_ = nullptr;
  int count_ = 0;
  int generation_ = 0;  // one per parallelFor: a worker runs each generation once
  int pending_ = 0;     // workers still running this generation's ranges
  bool stopping_ = false;
};

// N cars of one kind added to a BenchWorld; removed again on destruction.
class Fleet {
 public:
  Fleet(BenchWorld& world, FleetKind kind, int count, int threads = 1);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // Sets every car's throttle and steering for the coming step (a circle of about 6 m at 6 m/s).
  void drive();
  // drive() and one world step; returns the seconds spent in the vehicle updates.
  double step();
  // Seconds the last step's whole stepSimulation took (Bullet's own work and the vehicles').
  double lastFrameSeconds() const { return frameSeconds_; }
  int count() const { return int(chassis_.size()); }
  // Wheel ray (world) of car `car`, wheel `wheel`, as the vehicles cast it.
  void wheelRay(int car, int wheel, btVector3& from, btVector3& to) const;
  btRigidBody& chassis(int car) { return *chassis_[car]; }
  RaycastVehicle& raycar(int car) { return *raycars_[size_t(car)]; }  // car < loneRaycarCount()
  int loneRaycarCount() const { return int(raycars_.size()); }  // 0 but for the lone raycar kinds
  // The wheels' cached mesh triangles, all lone raycar cars together (0 for other kinds).
  int cachedTriangles() const;

 private:
  void updateVehicles(btCollisionWorld* world, btScalar dt);

  BenchWorld& world_;
  FleetKind kind_;
  std::unique_ptr<btBoxShape> chassisShape_;
  std::vector<std::unique_ptr<btRigidBody>> chassis_;
  std::vector<btVector3> cellCentres_;  // each car's circle
  std::vector<std::unique_ptr<RaycastVehicle>> raycars_;
  std::unique_ptr<GameJobSystem> jobs_;  // RaycarGroupGameJobs
  std::unique_ptr<VehicleGroup> group_;
  btRaycastVehicle::btVehicleTuning tuning_;
  std::unique_ptr<btDefaultVehicleRaycaster> raycaster_;
  std::vector<std::unique_ptr<btRaycastVehicle>> bulletCars_;
  std::unique_ptr<TimedVehicles> timed_;
  double frameSeconds_ = 0;
};

// Bytes on the heap one more vehicle of `kind` takes (its chassis body excluded), measured with
// mallinfo2 around the construction of `count` vehicles.
double bytesPerVehicle(FleetKind kind, int count);

}  // namespace raycar::bench
