#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// VehicleGroup: many vehicles updated from one action, spread over threads.
//
// A game with many cars adds one VehicleGroup to its world instead of each RaycastVehicle:
//
//   raycar::VehicleGroup group(2);                       // this thread and one worker
//   raycar::RaycastVehicle& car = group.addVehicle(*chassis, settings);
//   world->addAction(&group);
//   car.setInput(input);                                 // as for a lone vehicle
//
// Each step runs in three phases:
//   1. on all threads: every vehicle whose wheel rays the cache answered (they only read the
//      world, which does not move during an action) and whose wheels touch only static or
//      kinematic ground runs its whole step; it writes its own chassis alone;
//   2. on this thread, in vehicle order: the full rayTests the cache left to Bullet (its
//      broadphase ray walk shares one stack), and the steps of those vehicles on static ground;
//   3. on this thread, in vehicle order: the vehicles with a wheel on a dynamic body (a box, a
//      platform, another car), whose solve pushes that body too.
// No vehicle's result depends on which thread ran it or on the thread count: 1 and N threads
// give bitwise the same trajectories. Compared with adding the vehicles to the world one by one,
// only vehicles in phase 3 differ, and only in order (they run after the others).

#include <BulletDynamics/Dynamics/btActionInterface.h>

#include <LinearMath/btThreads.h>

#include <functional>
#include <memory>
#include <vector>

#include "raycar/vehicle/RaycastVehicle.h"

namespace raycar {

class WheelBlockPool;
class WorkerPool;
class VehicleRuntime;
enum class StepStage : char;  // plugin/src/vehicle/StepStages.h

class VehicleGroup : public btActionInterface {
 public:
  // threads >= 1: the calling thread plus threads - 1 workers (started here, idle between steps).
  // With fewer than minimumVehiclesPerThread (>= 1) vehicles per thread, waking the workers costs
  // more than it saves (tens of microseconds a step), and phase 1 runs on the calling thread
  // alone, with the same results. Either below 1 throws InputError.
  explicit VehicleGroup(int threads = 1, int minimumVehiclesPerThread = 32);
  ~VehicleGroup() override;
  VehicleGroup(const VehicleGroup&) = delete;
  VehicleGroup& operator=(const VehicleGroup&) = delete;

  // A vehicle owned by the group (throws SettingsError like RaycastVehicle's constructor), after
  // the ones it holds: the group steps, saves and numbers its vehicles in the order they were
  // added. Do not also add it to the world as an action. A chassis one of the group's vehicles
  // already drives throws InputError (the group cannot see a lone RaycastVehicle on it).
  RaycastVehicle& addVehicle(btRigidBody& chassis, VehicleSettings settings);
  // The same with settings other vehicles may share (RaycastVehicle's shared constructor).
  RaycastVehicle& addVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings);
  // Room for `count` more vehicles of the model `settings` describes, as std::vector::reserve:
  // their wheel blocks are set aside in one run of memory, in the order they will be added and
  // stepped, and the group's own lists are sized for them. Without it the blocks come in chunks
  // that double up to 64 blocks, and the last chunk is partly empty (1,020 blocks for 1,000
  // cars). Only the memory changes, never a result. Throws InputError for count < 0,
  // SettingsError as addVehicle does, and std::bad_alloc when the memory is not there (as
  // std::vector::reserve: 2e9 cars of 6.7 kB ask for 13 TB); the group is then as it was.
  void reserve(const VehicleSettings& settings, int count);
  // Destroys `vehicle`, one the group holds; the others keep their order (and their numbers
  // shift down past it). The chassis stays in the world, the game's. Returns false, changing
  // nothing, for a vehicle the group does not hold. Any reference to the removed vehicle dangles
  // afterwards: the next addVehicle may well build its vehicle at the same address, so a second
  // removeVehicle through the old reference would remove that one. A group's saved state holds
  // its vehicles by position: restore it into the same vehicles in the same order (a vehicle of
  // another layout, as after a remove and an add, refuses its part). A vehicle a SpawnedVehicle
  // put here is the spawn's: removing it throws InputError (the spawn would keep using it);
  // destroy the spawn instead.
  bool removeVehicle(RaycastVehicle& vehicle);
  int vehicleCount() const { return int(vehicles_.size()); }
  // Expires when the group is destroyed: what holds one of its vehicles (SpawnedVehicle) can
  // tell whether the vehicle went with the group.
  std::weak_ptr<const void> lifetime() const { return lifetime_; }
  // Throws InputError for an index outside [0, vehicleCount()).
  RaycastVehicle& vehicle(int index);
  int threadCount() const;

  // The game's job system instead of the group's own threads: parallelFor(count, body) must call
  // body(begin, end) over disjoint ranges covering [0, count) - in any order, on any threads -
  // and return once all have returned (the shape of btITaskScheduler::parallelFor). Empty (the
  // default): the group's own pool. The results are the same bit for bit however the ranges are
  // split and ordered; the world's ray tests that Debian's Bullet cannot run on several threads
  // stay on the calling thread either way. With fewer than 2 x minimumVehiclesPerThread
  // vehicles the step runs on the calling thread without asking the job system.
  using ParallelFor =
      std::function<void(int count, const std::function<void(int begin, int end)>& body)>;
  void setParallelFor(ParallelFor parallelFor);
  // A ParallelFor over a game's btITaskScheduler, `grain` vehicles per range at least.
  static ParallelFor bulletParallelFor(btITaskScheduler& scheduler, int grain = 8);

  // Every vehicle's state (RaycastVehicle::saveState) in one buffer, in the group's order. A
  // restore checks every vehicle's part before it restores any: a StateError (another vehicle
  // count, a part that is not its vehicle's: another layout or wheel count, named by the
  // vehicle's index, as vehicle(i) takes it) changes nothing. Vehicles of one layout cannot tell
  // their parts apart: after removing and adding cars, save again rather than restore an older
  // buffer.
  void saveState(std::vector<std::uint8_t>& buffer) const;
  void restoreState(const void* data, size_t size);

  // btActionInterface
  void updateAction(btCollisionWorld* world, btScalar dt) override;
  void debugDraw(btIDebugDraw* drawer) override;

 private:
  void stepIndependent(int begin, int end);  // phase 1 for vehicles [begin, end)

  // A SpawnedVehicle's own: its vehicle is added and removed here, and removeVehicle refuses it.
  friend class SpawnedVehicle;
  RaycastVehicle& addSpawnedVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings);
  void removeSpawnedVehicle(RaycastVehicle& vehicle);
  bool removeAny(RaycastVehicle& vehicle);

  // The vehicles' parts of a group state buffer: each's start and length (throws StateError).
  void splitState(const void* data, size_t size,
                  std::vector<std::pair<const std::uint8_t*, size_t>>& parts) const;

  // Where the cars' wheels and cached ground live (RaycastVehicle's wheelMemory), one car's
  // after another's, as the group steps them (plugin/src/parallel/WheelBlockPool.h). Declared
  // before vehicles_, which give their blocks back to it.
  std::unique_ptr<WheelBlockPool> wheelMemory_;
  std::vector<std::unique_ptr<RaycastVehicle>> vehicles_;
  std::vector<VehicleRuntime*> runtimes_;  // vehicles_[i]'s step state
  std::vector<StepStage> resumeAt_;        // per vehicle, this step: where phase 1 stopped
  std::vector<int> nearbySlot_;  // per vehicle, this step: its slot in its thread's NearbyGroundBatch, or -1
  std::vector<const RaycastVehicle*> spawned_;  // the vehicles SpawnedVehicles own
  int minimumVehiclesPerThread_;
  std::unique_ptr<WorkerPool> pool_;
  ParallelFor parallelFor_;            // the game's, or empty
  std::shared_ptr<const int> lifetime_ = std::make_shared<const int>(0);  // lifetime()
  btCollisionWorld* world_ = nullptr;  // during updateAction
  btScalar dt_ = 0;
};

}  // namespace raycar
