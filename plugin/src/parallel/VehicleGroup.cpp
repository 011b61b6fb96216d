#include "raycar/parallel/VehicleGroup.h"

#include <algorithm>

#include "parallel/Prefetch.h"
#include "parallel/WorkerPool.h"
#include "raycar/Error.h"

namespace raycar {
VehicleGroup::VehicleGroup(int threads, int minimumVehiclesPerThread)
    : minimumVehiclesPerThread_(std::max(minimumVehiclesPerThread, 1)),
      pool_(std::make_unique<WorkerPool>(std::max(threads, 1))) {}

VehicleGroup::~VehicleGroup() = default;

int VehicleGroup::threadCount() const { return pool_->threadCount(); }

RaycastVehicle& VehicleGroup::addVehicle(btRigidBody& chassis, VehicleSettings settings) {
  vehicles_.push_back(std::make_unique<RaycastVehicle>(chassis, std::move(settings)));
  progress_.push_back(Progress::Idle);
  return *vehicles_.back();
}

RaycastVehicle& VehicleGroup::vehicle(int index) {
  if (index < 0 || size_t(index) >= vehicles_.size())
    throw InputError("vehicle group", "vehicle index " + std::to_string(index) + " is out of range [0, " +
                                          std::to_string(vehicles_.size()) + ")");
  return *vehicles_[size_t(index)];
}

void VehicleGroup::removeVehicle(RaycastVehicle& vehicle) {
  const auto found = std::find_if(vehicles_.begin(), vehicles_.end(),
                                  [&](const auto& owned) { return owned.get() == &vehicle; });
  if (found == vehicles_.end()) return;
  vehicles_.erase(found);
  progress_.pop_back();
}

void VehicleGroup::stepIndependent(int begin, int end) {
  for (int i = begin; i < end; ++i) {
    // The cars ahead are asked for in stages while this one works, so that their memory round
    // trips overlap this car's work instead of following it (RaycastVehicle::prefetchArrays).
    if (i + 3 < end) prefetchObject(*vehicles_[size_t(i) + 3]);
    if (i + 2 < end) vehicles_[size_t(i) + 2]->prefetchArrays();
    if (i + 1 < end) vehicles_[size_t(i) + 1]->prefetchInternals();
    RaycastVehicle& vehicle = *vehicles_[size_t(i)];
    if (i == begin) vehicle.prefetchStepData();
    vehicle.prefetchCaches();
    Progress& progress = progress_[size_t(i)];
    progress = Progress::Idle;
    if (!vehicle.beginStep(world_, dt_)) continue;
    vehicle.shapeInput(dt_);
    vehicle.queryWheelRays(*world_, true);
    progress = Progress::RaysPending;
    if (vehicle.hasPendingWheelRays()) continue;
    vehicle.applyWheelRays();
    progress = Progress::OnDynamicBody;
    if (vehicle.standsOnDynamicBody()) continue;
    vehicle.finishStep(dt_);
    progress = Progress::Done;
  }
}

void VehicleGroup::updateAction(btCollisionWorld* world, btScalar dt) {
  if (world == nullptr) return;
  world_ = world;
  dt_ = dt;
  const int count = vehicleCount();
  // 1. All threads: every car whose rays the cache answered and whose wheels touch only static
  //    or kinematic ground, start to finish.
  auto task = [](void* group, int begin, int end) {
    static_cast<VehicleGroup*>(group)->stepIndependent(begin, end);
  };
  if (count >= minimumVehiclesPerThread_ * threadCount())
    pool_->run(count, task, this);
  else
    task(this, 0, count);
  // 2. This thread, in order: full rayTests for the rest, and those of them on static ground.
  for (int i = 0; i < count; ++i) {
    Progress& progress = progress_[size_t(i)];
    if (progress != Progress::RaysPending) continue;
    RaycastVehicle& vehicle = *vehicles_[size_t(i)];
    vehicle.castPendingWheelRays(*world);
    vehicle.applyWheelRays();
    progress = Progress::OnDynamicBody;
    if (vehicle.standsOnDynamicBody()) continue;
    vehicle.finishStep(dt);
    progress = Progress::Done;
  }
  // 3. This thread, in order: cars on dynamic bodies, whose solve pushes those bodies too.
  for (int i = 0; i < count; ++i)
    if (progress_[size_t(i)] == Progress::OnDynamicBody) vehicles_[size_t(i)]->finishStep(dt);
  world_ = nullptr;
}

void VehicleGroup::debugDraw(btIDebugDraw* drawer) {
  for (auto& vehicle : vehicles_) vehicle->debugDraw(drawer);
}

}  // namespace raycar
