#include "raycar/VehicleGroup.h"

#include <algorithm>

#include "WorkerPool.h"

namespace raycar {
namespace {
// Below this many vehicles per thread, waking the workers costs more than it saves; the phases
// then run on the calling thread (with the same results).
constexpr int kMinimumVehiclesPerThread = 4;
}  // namespace

VehicleGroup::VehicleGroup(int threads)
    : pool_(std::make_unique<WorkerPool>(std::max(threads, 1))) {}

VehicleGroup::~VehicleGroup() = default;

int VehicleGroup::threadCount() const { return pool_->threadCount(); }

RaycastVehicle& VehicleGroup::addVehicle(btRigidBody& chassis, VehicleSettings settings) {
  vehicles_.push_back(std::make_unique<RaycastVehicle>(chassis, std::move(settings)));
  active_.push_back(0);
  dependent_.push_back(0);
  return *vehicles_.back();
}

void VehicleGroup::removeVehicle(RaycastVehicle& vehicle) {
  const auto found = std::find_if(vehicles_.begin(), vehicles_.end(),
                                  [&](const auto& owned) { return owned.get() == &vehicle; });
  if (found == vehicles_.end()) return;
  vehicles_.erase(found);
  active_.pop_back();
  dependent_.pop_back();
}

void VehicleGroup::queryGround(int begin, int end) {
  for (int i = begin; i < end; ++i) {
    RaycastVehicle& vehicle = *vehicles_[size_t(i)];
    active_[size_t(i)] = vehicle.beginStep(world_, dt_);
    if (!active_[size_t(i)]) continue;
    vehicle.shapeInput(dt_);
    vehicle.queryWheelRays(*world_, true);
  }
}

void VehicleGroup::finishIndependent(int begin, int end) {
  for (int i = begin; i < end; ++i)
    if (active_[size_t(i)] && !dependent_[size_t(i)]) vehicles_[size_t(i)]->finishStep(dt_);
}

void VehicleGroup::updateAction(btCollisionWorld* world, btScalar dt) {
  if (world == nullptr) return;
  world_ = world;
  dt_ = dt;
  const int count = vehicleCount();
  const bool parallel = count >= kMinimumVehiclesPerThread * threadCount();
  auto runPhase = [&](WorkerPool::Task task) {
    if (parallel) pool_->run(count, task, this);
    else task(this, 0, count);
  };
  // 1. Inputs and cached ground queries, all threads.
  runPhase([](void* group, int begin, int end) {
    static_cast<VehicleGroup*>(group)->queryGround(begin, end);
  });
  // 2. Full rayTests and hits, this thread.
  for (int i = 0; i < count; ++i) {
    if (!active_[size_t(i)]) continue;
    RaycastVehicle& vehicle = *vehicles_[size_t(i)];
    vehicle.castPendingWheelRays(*world);
    vehicle.applyWheelRays();
    dependent_[size_t(i)] = vehicle.standsOnDynamicBody();
  }
  // 3. Vehicles on static or kinematic ground, all threads.
  runPhase([](void* group, int begin, int end) {
    static_cast<VehicleGroup*>(group)->finishIndependent(begin, end);
  });
  // 4. Vehicles on dynamic bodies, this thread, in order.
  for (int i = 0; i < count; ++i)
    if (active_[size_t(i)] && dependent_[size_t(i)]) vehicles_[size_t(i)]->finishStep(dt);
  world_ = nullptr;
}

void VehicleGroup::debugDraw(btIDebugDraw* drawer) {
  for (auto& vehicle : vehicles_) vehicle->debugDraw(drawer);
}

}  // namespace raycar
