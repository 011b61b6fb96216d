// updateAction allocates nothing on the heap: a thousand cars must not touch the allocator every
// step. Counts every malloc (which Bullet's btAlignedAlloc and operator new both end in) made
// inside the vehicle's updateAction while the world steps normally. Under the sanitizers, which
// own malloc themselves, only operator new is counted.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "TestWorld.h"
#include "raycar/parallel/VehicleGroup.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void countAllocation() {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
}
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
void* operator new(std::size_t size) {
  countAllocation();
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
// The nothrow form too (std::stable_sort's temporary buffer uses it): left to AddressSanitizer, its
// memory would come from ASan's new and go back through the free above, a reported mismatch.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  countAllocation();
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
#else
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* memory, std::size_t size);
void* malloc(std::size_t size) {
  countAllocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  countAllocation();
  return __libc_calloc(count, size);
}
void* realloc(void* memory, std::size_t size) {
  countAllocation();
  return __libc_realloc(memory, size);
}
}
#endif

using namespace raycar;
using namespace raycar::test;

namespace {
// Stands in for the vehicle in the world, counting allocations during its updateAction only.
class CountingAction final : public btActionInterface {
 public:
  explicit CountingAction(RaycastVehicle& vehicle) : vehicle_(vehicle) {}
  void updateAction(btCollisionWorld* world, btScalar dt) override {
    counting = true;
    vehicle_.updateAction(world, dt);
    counting = false;
  }
  void debugDraw(btIDebugDraw*) override {}

 private:
  RaycastVehicle& vehicle_;
};
}  // namespace

TEST_CASE("updateAction makes no heap allocation, on static and on dynamic ground, for every ground query kind") {
  for (const GroundQueryKind kind : {GroundQueryKind::Ray, GroundQueryKind::Sphere, GroundQueryKind::Cylinder}) {
    CAPTURE(int(kind));
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    // The left wheels stand on a dynamic slab, the right ones on the plane.
    btRigidBody* slab = world.addBox(300, btVector3(0.5f, 0.1f, 3),
                                     btTransform(btQuaternion::getIdentity(), btVector3(0.8f, 0.1f, 0)), 1);
    slab->setActivationState(DISABLE_DEACTIVATION);
    CarSpec spec;
    VehicleSettings settings = makeCarSettings(spec);
    for (WheelSettings& wheel : settings.wheels) wheel.groundQuery = kind;
    TestCar car = addCar(world, spec,
                         btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec) + 0.2f, 0)),
                         &settings);
    RaycastVehicle& vehicle = *car.vehicle;
    world.world().removeAction(&vehicle);
    CountingAction counted(vehicle);
    world.world().addAction(&counted);
    vehicle.setDriveTorque(2, 200);
    vehicle.setSteerAngle(0, 0.2f);
    vehicle.setBrakeTorque(1, 50);
    for (int i = 0; i < 60; ++i) world.step(1.0f / 120);
    REQUIRE(vehicle.wheelState(0).groundObject == slab);
    allocations = 0;
    for (int i = 0; i < 240; ++i) world.step(1.0f / 120);
    CHECK(allocations.load() == 0);
    // The counter itself works: an allocation while counting is seen.
    counting = true;
    void* volatile probe = ::operator new(64);
    counting = false;
    ::operator delete(probe);
    CHECK(allocations.load() >= 1);
    world.world().removeAction(&counted);
  }
}

TEST_CASE("a vehicle group on two threads makes no heap allocation per step") {
  TestWorld world;
  world.addHillMesh(40, 1, btTransform::getIdentity(), 1);
  btRigidBody* slab = world.addBox(300, btVector3(1.5f, 0.1f, 2.5f),
                                   btTransform(btQuaternion::getIdentity(), btVector3(-6, 1.2f, -3)), 1);
  slab->setActivationState(DISABLE_DEACTIVATION);
  CarSpec spec;
  VehicleGroup group(2, 1);  // threads even for 8 cars
  for (int i = 0; i < 8; ++i) {
    const btTransform pose(btQuaternion::getIdentity(), btVector3(-6 + 6 * (i % 3), 2.2f, -3 + 6 * (i / 3)));
    btRigidBody* chassis = world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f);
    chassis->setActivationState(DISABLE_DEACTIVATION);
    DriverInput input;
    input.pedal = i == 0 ? 0 : 0.4f;  // the first car stays on the slab
    input.steer = 0.2f;
    group.addVehicle(*chassis, makeCarSettings(spec)).setInput(input);
  }
  class CountingGroup final : public btActionInterface {
   public:
    explicit CountingGroup(VehicleGroup& group) : group_(group) {}
    void updateAction(btCollisionWorld* world, btScalar dt) override {
      counting = true;
      group_.updateAction(world, dt);
      counting = false;
    }
    void debugDraw(btIDebugDraw*) override {}

   private:
    VehicleGroup& group_;
  } counted(group);
  world.world().addAction(&counted);
  for (int i = 0; i < 120; ++i) world.step(1.0f / 120);
  REQUIRE(group.vehicle(0).wheelState(0).groundObject == slab);
  allocations = 0;
  for (int i = 0; i < 240; ++i) world.step(1.0f / 120);
  CHECK(allocations.load() == 0);
  world.world().removeAction(&counted);
}

TEST_CASE("a vehicle group takes its cars back without allocating") {
  // A car removed from a group gives its wheel block back to the group's pool, whose list of
  // free blocks has room for every block it ever cut: giving a hundred back (past its largest
  // chunk of 64) allocates nothing, so despawning cars, or a group's destructor, cannot fail for
  // want of memory.
  TestWorld world;
  CarSpec spec;
  const auto settings = std::make_shared<const VehicleSettings>(makeCarSettings(spec));
  VehicleGroup group(1);
  std::vector<RaycastVehicle*> cars;
  for (int i = 0; i < 100; ++i) {
    const btTransform pose(btQuaternion::getIdentity(), btVector3(4.0f * btScalar(i % 10), 2, 6.0f * btScalar(i / 10)));
    cars.push_back(&group.addVehicle(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f), settings));
  }
  allocations = 0;
  counting = true;
  for (RaycastVehicle* car : cars) group.removeVehicle(*car);
  counting = false;
  CHECK(group.vehicleCount() == 0);
  CHECK(allocations.load() == 0);
}
