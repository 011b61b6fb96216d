#include "raycar/parallel/VehicleGroup.h"

#include <algorithm>

#include <cstring>

#include "Prefetch.h"
#include "io/StateArchive.h"
#include "parallel/WheelBlockPool.h"
#include "parallel/WorkerPool.h"
#include "raycar/Error.h"
#include "vehicle/StepStages.h"
#include "vehicle/VehicleRuntime.h"

namespace raycar {
namespace {
int checkedAtLeastOne(int value, const char* what) {
  if (value < 1)
    throw InputError("vehicle group", std::string(what) + " " + std::to_string(value) + " is below 1");
  return value;
}
}  // namespace

VehicleGroup::VehicleGroup(int threads, int minimumVehiclesPerThread)
    : wheelMemory_(std::make_unique<WheelBlockPool>()),
      minimumVehiclesPerThread_(checkedAtLeastOne(minimumVehiclesPerThread, "minimum vehicles per thread")),
      pool_(std::make_unique<WorkerPool>(checkedAtLeastOne(threads, "thread count"))) {}

VehicleGroup::~VehicleGroup() = default;

int VehicleGroup::threadCount() const { return pool_->threadCount(); }

RaycastVehicle& VehicleGroup::addVehicle(btRigidBody& chassis, VehicleSettings settings) {
  return addVehicle(chassis, std::make_shared<const VehicleSettings>(std::move(settings)));
}

RaycastVehicle& VehicleGroup::addVehicle(btRigidBody& chassis,
                                         std::shared_ptr<const VehicleSettings> settings) {
  // Two vehicles on one chassis would each push it with the whole car's suspension.
  for (size_t i = 0; i < vehicles_.size(); ++i)
    if (&vehicles_[i]->chassis() == &chassis)
      throw InputError("vehicle group", "addVehicle: the chassis already carries the group's vehicle " +
                                            std::to_string(i) + "; a chassis takes one vehicle");
  vehicles_.push_back(std::make_unique<RaycastVehicle>(chassis, std::move(settings), *wheelMemory_));
  runtimes_.push_back(&vehicles_.back()->runtime());
  resumeAt_.push_back(StepStage::Done);
  nearbySlot_.push_back(-1);
  return *vehicles_.back();
}

void VehicleGroup::reserve(const VehicleSettings& settings, int count) {
  if (count < 0)
    throw InputError("vehicle group", "reserve: vehicle count " + std::to_string(count) + " is negative");
  // Checked as addVehicle checks it: the block's size comes from the wheels' query settings.
  std::vector<std::string> problems = validateVehicleSettings(settings);
  if (!problems.empty()) throw SettingsError(problems);
  // The blocks first: the largest request, the one most likely to fail.
  wheelMemory_->reserve(WheelArray::blockBytesFor(settings), WheelArray::kBlockAlignment, size_t(count));
  const size_t total = vehicles_.size() + size_t(count);
  vehicles_.reserve(total);
  runtimes_.reserve(total);
  resumeAt_.reserve(total);
  nearbySlot_.reserve(total);
}

RaycastVehicle& VehicleGroup::vehicle(int index) {
  if (index < 0 || size_t(index) >= vehicles_.size())
    throw InputError("vehicle group", "vehicle index " + std::to_string(index) + " is out of range [0, " +
                                          std::to_string(vehicles_.size()) + ")");
  return *vehicles_[size_t(index)];
}

bool VehicleGroup::removeVehicle(RaycastVehicle& vehicle) {
  if (std::find(spawned_.begin(), spawned_.end(), &vehicle) != spawned_.end()) {
    const auto index = std::find_if(vehicles_.begin(), vehicles_.end(),
                                    [&](const auto& owned) { return owned.get() == &vehicle; }) -
                       vehicles_.begin();
    throw InputError("vehicle group", "removeVehicle: vehicle " + std::to_string(index) +
                                          " belongs to a SpawnedVehicle, which would go on using it; "
                                          "destroy the spawn to remove its vehicle");
  }
  return removeAny(vehicle);
}

RaycastVehicle& VehicleGroup::addSpawnedVehicle(btRigidBody& chassis,
                                                std::shared_ptr<const VehicleSettings> settings) {
  spawned_.reserve(spawned_.size() + 1);  // so that the push below cannot throw
  RaycastVehicle& vehicle = addVehicle(chassis, std::move(settings));
  spawned_.push_back(&vehicle);
  return vehicle;
}

void VehicleGroup::removeSpawnedVehicle(RaycastVehicle& vehicle) {
  spawned_.erase(std::remove(spawned_.begin(), spawned_.end(), &vehicle), spawned_.end());
  removeAny(vehicle);
}

bool VehicleGroup::removeAny(RaycastVehicle& vehicle) {
  const auto found = std::find_if(vehicles_.begin(), vehicles_.end(),
                                  [&](const auto& owned) { return owned.get() == &vehicle; });
  if (found == vehicles_.end()) return false;
  runtimes_.erase(runtimes_.begin() + (found - vehicles_.begin()));
  vehicles_.erase(found);
  resumeAt_.pop_back();
  nearbySlot_.pop_back();
  return true;
}

void VehicleGroup::setParallelFor(ParallelFor parallelFor) { parallelFor_ = std::move(parallelFor); }

VehicleGroup::ParallelFor VehicleGroup::bulletParallelFor(btITaskScheduler& scheduler, int grain) {
  return [&scheduler, grain](int count, const std::function<void(int, int)>& body) {
    struct Body : btIParallelForBody {
      const std::function<void(int, int)>* body;
      void forLoop(int begin, int end) const override { (*body)(begin, end); }
    } forBody;
    forBody.body = &body;
    scheduler.parallelFor(0, count, std::max(grain, 1), forBody);
  };
}

void VehicleGroup::stepIndependent(int begin, int end) {
  // The cars ahead are asked for in stages while this one is worked on, so that their memory
  // round trips overlap this car's work instead of following it (VehicleRuntime::prefetchArrays).
  auto prefetchAhead = [this, end](int i) {
    if (i + 3 < end) prefetchObject(*runtimes_[size_t(i) + 3]);
    if (i + 2 < end) runtimes_[size_t(i) + 2]->prefetchArrays();
  };
  StepContext context{world_, dt_, false, false, {}};
  NearbyGroundBatch& batch = NearbyGroundBatch::forThisThread();
  context.nearby.batch = &batch;
  for (int runBegin = begin; runBegin < end;) {
    // The objects near each of the next cars, in one walk of the broadphase for all of them
    // (NearbyObjectsBatch): neighbours in the group's order share most of their walks. A car
    // that sleeps or moved since walks on its own (queryNearbyGround compares the boxes).
    batch.clear();
    int runEnd = runBegin;
    for (; runEnd < end && !batch.full(); ++runEnd) {
      prefetchAhead(runEnd);
      const VehicleRuntime& vehicle = *runtimes_[size_t(runEnd)];
      btVector3 boxMin, boxMax;
      nearbySlot_[size_t(runEnd)] = vehicle.chassis->isActive() && vehicle.nearbyBox(boxMin, boxMax)
                                        ? batch.add(*vehicle.chassis, boxMin, boxMax)
                                        : -1;
    }
    batch.gather(*world_);
    for (int i = runBegin; i < runEnd; ++i) {
      prefetchAhead(i);
      VehicleRuntime& vehicle = *runtimes_[size_t(i)];
      if (i == begin)
        vehicle.prefetchStepStart();  // nothing asked for it ahead
      else
        vehicle.prefetchCaches();
      context.nearby.slot = nearbySlot_[size_t(i)];
      resumeAt_[size_t(i)] = runStages(vehicle, StepStage::Begin, context);
    }
    runBegin = runEnd;
  }
}

void VehicleGroup::updateAction(btCollisionWorld* world, btScalar dt) {
  if (world == nullptr) return;
  world_ = world;
  dt_ = dt;
  const int count = vehicleCount();
  // 1. All threads: every car whose ground queries the cache answered and whose wheels touch
  //    only static or kinematic ground, start to finish.
  auto task = [](void* group, int begin, int end) {
    static_cast<VehicleGroup*>(group)->stepIndependent(begin, end);
  };
  // The game's job system is asked only when two threads' worth of cars is there to share: one
  // car through a job system that wakes a worker cost 29 us a step against 7 us inline
  // (tests/bench, group2_game at N = 1).
  if (parallelFor_ && count >= 2 * minimumVehiclesPerThread_)
    parallelFor_(count, [this](int begin, int end) { stepIndependent(begin, end); });
  else if (!parallelFor_ && count >= minimumVehiclesPerThread_ * threadCount())
    pool_->run(count, task, this);
  else
    task(this, 0, count);
  // 2. This thread, in order: the world's queries for the rest, and those of them on static
  //    ground.
  const StepContext mainThread{world, dt, true, false, {}};
  for (int i = 0; i < count; ++i) {
    StepStage& stage = resumeAt_[size_t(i)];
    if (stage == StepStage::QueryWorld) stage = runStages(*runtimes_[size_t(i)], stage, mainThread);
  }
  // 3. This thread, in order: cars on dynamic bodies, whose solve pushes those bodies too.
  const StepContext pushing{world, dt, true, true, {}};
  for (int i = 0; i < count; ++i) {
    StepStage& stage = resumeAt_[size_t(i)];
    if (stage != StepStage::Done) stage = runStages(*runtimes_[size_t(i)], stage, pushing);
  }
  world_ = nullptr;
}

void VehicleGroup::debugDraw(btIDebugDraw* drawer) {
  for (auto& vehicle : vehicles_) vehicle->debugDraw(drawer);
}

void VehicleGroup::saveState(std::vector<std::uint8_t>& buffer) const {
  buffer.assign(kStateHeaderBytes, 0);
  std::vector<std::uint8_t> part;
  for (const std::unique_ptr<RaycastVehicle>& vehicle : vehicles_) {
    vehicle->saveState(part);
    const auto length = std::uint32_t(part.size());
    const size_t at = buffer.size();
    buffer.resize(at + sizeof(length));
    std::memcpy(buffer.data() + at, &length, sizeof(length));
    buffer.insert(buffer.end(), part.begin(), part.end());
  }
  writeStateHeader(buffer, StateKind::Group, std::uint32_t(vehicles_.size()), 0);
}

void VehicleGroup::splitState(const void* data, size_t size,
                              std::vector<std::pair<const std::uint8_t*, size_t>>& parts) const {
  size_t payloadBytes = 0;
  const std::uint8_t* at =
      checkStateHeader(data, size, StateKind::Group, std::uint32_t(vehicles_.size()), payloadBytes);
  // A group's header names no layout (its parts do theirs); the checksum does not cover it.
  if (stateLayout(data) != 0) throw StateError("corrupted: a group's header names a layout");
  const std::uint8_t* end = at + payloadBytes;
  for (size_t i = 0; i < vehicles_.size(); ++i) {
    std::uint32_t length = 0;
    if (size_t(end - at) < sizeof(length))
      throw StateError("vehicle index " + std::to_string(i) + "'s part is missing");
    std::memcpy(&length, at, sizeof(length));
    at += sizeof(length);
    if (size_t(end - at) < length)
      throw StateError("vehicle index " + std::to_string(i) + "'s part is cut short");
    parts.emplace_back(at, length);
    at += length;
  }
  if (at != end) throw StateError("bytes follow the last vehicle's part");
}

void VehicleGroup::restoreState(const void* data, size_t size) {
  std::vector<std::pair<const std::uint8_t*, size_t>> parts;
  splitState(data, size, parts);
  for (size_t i = 0; i < parts.size(); ++i) {
    try {
      vehicles_[i]->checkState(parts[i].first, parts[i].second);
    } catch (const StateError& error) {
      throw StateError("vehicle index " + std::to_string(i) + ": " + error.message());
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) vehicles_[i]->restoreState(parts[i].first, parts[i].second);
}

}  // namespace raycar
