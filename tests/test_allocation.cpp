// updateAction allocates nothing on the heap: the step of a thousand cars must not touch the
// allocator. Counts every operator new in this test binary while the flag is up.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "TestWorld.h"
#include "Tolerance.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load()) allocations.fetch_add(1);
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

using namespace raycar;
using namespace raycar::test;

TEST_CASE("updateAction makes no heap allocation, on static and on dynamic ground") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  // The left wheels stand on a dynamic slab, the right ones on the plane.
  btRigidBody* slab = world.addBox(300, btVector3(0.5f, 0.1f, 3),
                                   btTransform(btQuaternion::getIdentity(), btVector3(0.8f, 0.1f, 0)), 1);
  slab->setActivationState(DISABLE_DEACTIVATION);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec) + 0.2f, 0)));
  RaycastVehicle& vehicle = *car.vehicle;
  vehicle.setDriveTorque(2, 200);
  vehicle.setSteerAngle(0, 0.2f);
  vehicle.setBrakeTorque(1, 50);
  for (int i = 0; i < 60; ++i) world.step(1.0f / 120);
  REQUIRE(vehicle.wheelState(0).groundObject == slab);
  allocations = 0;
  counting = true;
  for (int i = 0; i < 200; ++i) vehicle.updateAction(&world.world(), 1.0f / 120);
  counting = false;
  CHECK(allocations.load() == 0);
}
