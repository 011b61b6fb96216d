// VehicleGroup: one thread and two give bitwise the same trajectories, with cars on hills, on a
// dynamic slab and on each other's paths, for every wheel query kind; and a group of cars on static ground moves exactly as
// the same cars added to the world one by one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "TestWorld.h"
#include "raycar/Error.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/parallel/VehicleGroup.h"
#include "vehicle/VehicleRuntime.h"

using namespace raycar;
using namespace raycar::test;

namespace {

enum class Updater { Separate, GroupOneThread, GroupTwoThreads };

// 12 cars in a 4 x 3 grid 8 m apart on hills, driving and steering, each a little differently;
// with `slab`, the first car stands on a 400 kg dynamic slab lying on the hills. Without it every
// wheel must stay on the static hills (checked): lone cars and a group agree bit for bit only
// there, as a wheel on another body pushes it, which lone cars do in the world's action order.
// (6 m apart, cars that landed from their spawn in first gear, not second, met a neighbour
// after 1.8 s and ran a wheel onto it.)
std::vector<btScalar> driveFleet(Updater updater, bool slab, int* wheelStepsOnSlab = nullptr,
                                 GroundQueryKind query = GroundQueryKind::Ray,
                                 const VehicleGroup::ParallelFor& parallelFor = {},
                                 bool shareSettings = false) {
  TestWorld world;
  world.addHillMesh(60, 1, btTransform::getIdentity(), 1);
  btRigidBody* slabBody = nullptr;
  if (slab) {
    slabBody = world.addBox(400, btVector3(1.5f, 0.1f, 2.5f),
                                     btTransform(btQuaternion::getIdentity(), btVector3(-12, 1.2f, -8)), 1);
    slabBody->setActivationState(DISABLE_DEACTIVATION);
  }
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  for (WheelSettings& wheel : settings.wheels) wheel.groundQuery = query;
  // With `shareSettings`, every grouped car is made from this one copy.
  const auto shared = std::make_shared<const VehicleSettings>(settings);
  // Threads even for a dozen cars (the default waits for 32 per thread).
  VehicleGroup group(updater == Updater::GroupTwoThreads ? 2 : 1, 1);
  group.setParallelFor(parallelFor);
  std::vector<TestCar> separate;
  std::vector<RaycastVehicle*> vehicles;
  std::vector<btRigidBody*> chassis;
  for (int i = 0; i < 12; ++i) {
    const btVector3 position(-12 + 8 * (i % 4), 2.2f, -8 + 8 * (i / 4));
    const btTransform pose(btQuaternion(btVector3(0, 1, 0), 0.3f * i), position);
    if (updater == Updater::Separate) {
      separate.push_back(addCar(world, spec, pose, &settings));
      vehicles.push_back(separate.back().vehicle.get());
      chassis.push_back(separate.back().chassis);
    } else {
      btRigidBody* body = world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f);
      body->setActivationState(DISABLE_DEACTIVATION);
      vehicles.push_back(shareSettings ? &group.addVehicle(*body, shared)
                                       : &group.addVehicle(*body, settings));
      chassis.push_back(body);
    }
  }
  if (updater != Updater::Separate) world.world().addAction(&group);
  std::vector<btScalar> values;
  int wheelStepsOnDynamicBodies = 0;  // wheels on another car
  for (int step = 0; step < 240; ++step) {
    for (size_t i = 0; i < vehicles.size(); ++i) {
      DriverInput input;
      input.pedal = 0.3f + 0.05f * btScalar(i % 3);
      input.steer = 0.4f * std::sin(step * 0.03f + btScalar(i));
      vehicles[i]->setInput(input);
    }
    world.step(1.0f / 120);
    for (int wheel = 0; wheel < 4 && wheelStepsOnSlab != nullptr; ++wheel)
      *wheelStepsOnSlab += slabBody != nullptr && vehicles[0]->wheelState(wheel).groundObject == slabBody;
    for (const RaycastVehicle* vehicle : vehicles)
      for (int wheel = 0; wheel < 4; ++wheel) {
        const btCollisionObject* ground = vehicle->wheelState(wheel).groundObject;
        wheelStepsOnDynamicBodies += ground != nullptr && !ground->isStaticObject() && ground != slabBody;
      }
    for (const btRigidBody* body : chassis) {
      const btTransform& pose = body->getWorldTransform();
      for (const btVector3& v : {pose.getOrigin(), pose.getBasis()[0], pose.getBasis()[1],
                                 body->getLinearVelocity(), body->getAngularVelocity()})
        values.insert(values.end(), v.m_floats, v.m_floats + 3);
    }
  }
  if (updater != Updater::Separate) world.world().removeAction(&group);
  CHECK(wheelStepsOnDynamicBodies == 0);
  return values;
}

// A six-wheeler made from a four-wheeler: its front wheels copied to a fixed middle axle.
VehicleSettings withMiddleAxle(const VehicleSettings& four) {
  VehicleSettings six = four;
  for (int i = 0; i < 2; ++i) {
    WheelSettings middle = four.wheels[size_t(i)];
    middle.attachmentPoint.setZ(0);
    middle.axle = 2;
    middle.steering = SteerMode::Fixed;
    six.wheels.push_back(middle);
  }
  return six;
}

bool sameBits(const std::vector<btScalar>& a, const std::vector<btScalar>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(btScalar)) == 0;
}

}  // namespace

TEST_CASE("VehicleGroup::vehicle checks its index") {
  VehicleGroup group(1);
  CHECK_THROWS_AS(group.vehicle(0), InputError);
  CHECK_THROWS_AS(group.vehicle(-1), InputError);
}

TEST_CASE("a chassis takes one vehicle: the group refuses a chassis one of its vehicles drives") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  const VehicleSettings settings = makeCarSettings(CarSpec{});
  btRigidBody* first = world.addBox(1200, btVector3(0.9f, 0.25f, 2.1f), btTransform::getIdentity(), 0.5f);
  btRigidBody* second = world.addBox(1200, btVector3(0.9f, 0.25f, 2.1f), btTransform::getIdentity(), 0.5f);
  VehicleGroup group(1);
  group.addVehicle(*first, settings);
  group.addVehicle(*second, settings);
  CHECK_THROWS_AS(group.addVehicle(*second, settings), InputError);
  CHECK(group.vehicleCount() == 2);  // as it was
}

TEST_CASE("a spawned car whose group was destroyed first only takes its chassis out of the world") {
  // Members destroyed in the wrong order (the group declared after the cars): the group took the
  // cars' vehicles with it, and each SpawnedVehicle must not reach into the freed group (the
  // sanitizer build checks the memory).
  const LoadedVehicle sedan = loadVehicle(std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml");
  TestWorld world(btVector3(0, 0, -9.81f));
  world.addStaticPlane(btVector3(0, 0, 1), btVector3(0, 0, 0), 1);
  const int objects = world.world().getNumCollisionObjects();
  auto group = std::make_unique<VehicleGroup>(1);
  world.world().addAction(group.get());
  auto car = std::make_unique<SpawnedVehicle>(world.world(), sedan, btTransform::getIdentity(), group.get());
  for (int i = 0; i < 10; ++i) world.step(kStep);
  world.world().removeAction(group.get());
  group.reset();
  CHECK(world.world().getNumCollisionObjects() == objects + 1);
  CHECK_THROWS_AS(car->suspensionPoses(), InputError);  // its wheels went with the group
  car.reset();
  CHECK(world.world().getNumCollisionObjects() == objects);
}

TEST_CASE("a spawned car's vehicle is the spawn's: the group refuses to remove it, the spawn removes it") {
  // Removed through the group, the spawn's vehicle() dangled: the game's next setInput through it
  // crashed, and the spawn's destructor later removed whatever vehicle sat at the freed address.
  const LoadedVehicle sedan = loadVehicle(std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml");
  TestWorld world(btVector3(0, 0, -9.81f));
  world.addStaticPlane(btVector3(0, 0, 1), btVector3(0, 0, 0), 1);
  VehicleGroup group(1);
  world.world().addAction(&group);
  auto spawned = std::make_unique<SpawnedVehicle>(world.world(), sedan, btTransform::getIdentity(), &group);
  btTransform aside = btTransform::getIdentity();
  aside.setOrigin(btVector3(5, 0, 0));
  SpawnedVehicle other(world.world(), sedan, aside, &group);
  CHECK_THROWS_WITH_AS(group.removeVehicle(spawned->vehicle()),
                       "vehicle group: removeVehicle: vehicle 0 belongs to a SpawnedVehicle, which would go "
                       "on using it; destroy the spawn to remove its vehicle",
                       InputError);
  CHECK(group.vehicleCount() == 2);  // as it was
  world.step(kStep);
  spawned.reset();
  CHECK(group.vehicleCount() == 1);
  CHECK(&group.vehicle(0) == &other.vehicle());
  world.world().removeAction(&group);
}

TEST_CASE("a vehicle group gives bitwise the same trajectories on one thread and on two") {
  int wheelStepsOnSlab = 0;
  const std::vector<btScalar> oneThread = driveFleet(Updater::GroupOneThread, true, &wheelStepsOnSlab);
  CHECK(wheelStepsOnSlab > 100);  // the first car's solve pushes the slab (phase 4)
  CHECK(sameBits(oneThread, driveFleet(Updater::GroupTwoThreads, true)));
  CHECK(sameBits(driveFleet(Updater::GroupOneThread, false), driveFleet(Updater::GroupTwoThreads, false)));
}

TEST_CASE("with sphere and cylinder wheels too: one thread and two give bitwise the same trajectories") {
  for (const GroundQueryKind query : {GroundQueryKind::Sphere, GroundQueryKind::Cylinder}) {
    CAPTURE(int(query));
    int wheelStepsOnSlab = 0;
    const std::vector<btScalar> oneThread = driveFleet(Updater::GroupOneThread, true, &wheelStepsOnSlab, query);
    CHECK(wheelStepsOnSlab > 100);
    CHECK(sameBits(oneThread, driveFleet(Updater::GroupTwoThreads, true, nullptr, query)));
    CHECK(sameBits(driveFleet(Updater::Separate, false, nullptr, query),
                   driveFleet(Updater::GroupTwoThreads, false, nullptr, query)));
  }
}

TEST_CASE("cars made from one shared copy of the settings move exactly as cars with copies of their own") {
  // A vehicle never writes its settings (what it resolves, it keeps in its wheels), so a dozen
  // cars sharing one copy, on the hills and the slab, must give the trajectories bit for bit.
  for (const GroundQueryKind query : {GroundQueryKind::Ray, GroundQueryKind::Cylinder}) {
    CAPTURE(int(query));
    CHECK(sameBits(driveFleet(Updater::GroupTwoThreads, true, nullptr, query),
                   driveFleet(Updater::GroupTwoThreads, true, nullptr, query, {}, true)));
  }
  TestWorld world;
  btRigidBody* chassis = world.addBox(1200, btVector3(0.9f, 0.25f, 2.1f), btTransform::getIdentity(), 0.5f);
  VehicleGroup group(1);
  CHECK_THROWS_AS(group.addVehicle(*chassis, std::shared_ptr<const VehicleSettings>()), SettingsError);
  CHECK_THROWS_AS(RaycastVehicle(*chassis, std::shared_ptr<const VehicleSettings>()), SettingsError);
  // The resolved spring rate is the vehicle's, not written into the shared settings.
  CarSpec spec;
  VehicleSettings automatic = makeCarSettings(spec);
  automatic.wheels[0].stiffness = 0;  // the automatic rule: from the static load
  const auto sharedAutomatic = std::make_shared<const VehicleSettings>(automatic);
  RaycastVehicle vehicle(*chassis, sharedAutomatic);
  const bool sharesTheCopy = vehicle.sharedSettings() == sharedAutomatic;
  CHECK(sharesTheCopy);
  CHECK(sharedAutomatic->wheels[0].stiffness == 0);
  CHECK(vehicle.wheelSettings(0).stiffness > 0);
}

TEST_CASE("cars of different wheel counts share each thread's solve scratch without touching each other's results") {
  // The solve's rows and the nearby-object list are kept once per thread and rebuilt for every
  // car (ContactSolver::beginStep): four-wheeled cars and six-wheeled ones, interleaved, must move
  // bit for bit alike whichever car a thread stepped before, so one thread and two agree, and so
  // do the two orders of a six- and a four-wheeler stepped as separate actions.
  CarSpec spec;
  const VehicleSettings four = makeCarSettings(spec);
  const VehicleSettings six = withMiddleAxle(four);
  auto drive = [&](int threads, bool sixFirst) {
    TestWorld world;
    world.addHillMesh(60, 1, btTransform::getIdentity(), 1);
    VehicleGroup group(threads, 1);
    std::vector<btRigidBody*> chassis;
    for (int i = 0; i < 8; ++i) {
      const bool isSix = (i % 2 == 0) == sixFirst;
      const btTransform pose(btQuaternion(btVector3(0, 1, 0), 0.4f * i),
                             btVector3(-9 + 6 * (i % 4), 2.2f, -6 + 8 * (i / 4)));
      chassis.push_back(world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f));
      chassis.back()->setActivationState(DISABLE_DEACTIVATION);
      DriverInput input;
      input.pedal = 0.4f;
      input.steer = 0.3f * btScalar(i % 3) - 0.3f;
      group.addVehicle(*chassis.back(), isSix ? six : four).setInput(input);
    }
    world.world().addAction(&group);
    for (int step = 0; step < 240; ++step) world.step(1.0f / 120);
    world.world().removeAction(&group);
    // Each car's pose, in a fixed order of cars whatever order they were added in.
    std::vector<btScalar> values;
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < chassis.size(); ++i) {
        if ((i % 2) != size_t(pass)) continue;
        const btTransform& pose = chassis[i]->getWorldTransform();
        for (const btVector3& v : {pose.getOrigin(), pose.getBasis()[0], chassis[i]->getLinearVelocity()})
          values.insert(values.end(), v.m_floats, v.m_floats + 3);
      }
    return values;
  };
  const std::vector<btScalar> oneThread = drive(1, true);
  CHECK(sameBits(oneThread, drive(2, true)));
  CHECK(sameBits(drive(1, false), drive(2, false)));
}

TEST_CASE("a group lays its cars' wheel blocks one after another, in the order it steps them") {
  // Each car keeps its wheels and their cached ground in one block (WheelArray). A group takes
  // the blocks from its own pool, cut in ascending order from chunks of 4, 8, 16, 32, then 64
  // blocks: 120 cars of one model fill the first four chunks and a 64-block one up to 60 (124
  // in all), so of their 119 neighbours at most 4 (the chunk seams) are not adjacent. Cars of
  // another model, added in between, have a block size of their own and do not break the run.
  CarSpec spec;
  const auto four = std::make_shared<const VehicleSettings>(makeCarSettings(spec));
  const auto six = std::make_shared<const VehicleSettings>(withMiddleAxle(*four));
  TestWorld world;
  VehicleGroup group(1);
  std::vector<RaycastVehicle*> fours, sixes;
  for (int i = 0; i < 120; ++i) {
    const btTransform pose(btQuaternion::getIdentity(), btVector3(4.0f * btScalar(i % 12), 2, 6.0f * btScalar(i / 12)));
    fours.push_back(&group.addVehicle(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f), four));
    if (i % 10 == 0)
      sixes.push_back(&group.addVehicle(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f), six));
  }
  auto blockOf = [](RaycastVehicle* car) {
    return static_cast<const unsigned char*>(car->runtime().wheels.block());
  };
  auto seams = [&](const std::vector<RaycastVehicle*>& cars) {
    const size_t bytes = cars.front()->runtime().wheels.blockBytes();
    int apart = 0;
    for (size_t k = 1; k < cars.size(); ++k) apart += blockOf(cars[k]) != blockOf(cars[k - 1]) + bytes;
    return apart;
  };
  const size_t fourBytes = fours.front()->runtime().wheels.blockBytes();
  CHECK(fourBytes >= 4 * sizeof(Wheel));
  CHECK(six->wheels.size() == 6);
  CHECK(sixes.front()->runtime().wheels.blockBytes() > fourBytes);
  CHECK(seams(fours) <= 4);
  CHECK(seams(sixes) <= 1);  // 12 blocks: chunks of 4 and 8
  // A car removed gives its block back, and the next car of that model takes it (the group then
  // steps that car last).
  const unsigned char* freed = blockOf(fours[57]);
  group.removeVehicle(*fours[57]);
  RaycastVehicle& added = group.addVehicle(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f),
                                                         btTransform::getIdentity(), 0.5f), four);
  CHECK(blockOf(&added) == freed);
  // A lone vehicle's block is its own, from the heap, with the same code.
  RaycastVehicle lone(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), btTransform::getIdentity(), 0.5f), four);
  CHECK(lone.runtime().wheels.blockBytes() == fourBytes);
}

TEST_CASE("a group that reserves its cars lays all their blocks in one run, with nothing spare") {
  // VehicleGroup::reserve sets aside one chunk of exactly the blocks asked for: 100 cars then lie
  // one after another with no seam (four seams without it: chunks of 4, 8, 16, 32 and 64), and the 101st
  // car, beyond the reservation, starts a chunk of its own. A block given back before a
  // reservation goes out first, then the reserved run in ascending order.
  CarSpec spec;
  const auto four = std::make_shared<const VehicleSettings>(makeCarSettings(spec));
  TestWorld world;
  VehicleGroup group(1);
  auto addCar = [&](int i) -> RaycastVehicle& {
    const btTransform pose(btQuaternion::getIdentity(), btVector3(4.0f * btScalar(i % 12), 2, 6.0f * btScalar(i / 12)));
    return group.addVehicle(*world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f), pose, 0.5f), four);
  };
  RaycastVehicle& first = addCar(0);
  group.removeVehicle(first);  // its block (of a 4-block chunk: 4 free now) goes back to the pool
  group.reserve(*four, 100);
  std::vector<const unsigned char*> blocks;
  for (int i = 0; i < 101; ++i)
    blocks.push_back(static_cast<const unsigned char*>(addCar(i).runtime().wheels.block()));
  const size_t bytes = group.vehicle(0).runtime().wheels.blockBytes();
  CHECK(bytes == WheelArray::blockBytesFor(*four));
  // The four free blocks of the first chunk, in ascending order, then the 96 reserved.
  for (int i = 1; i < 4; ++i) CHECK(blocks[size_t(i)] == blocks[0] + size_t(i) * bytes);
  int seams = 0;
  for (size_t i = 5; i < 100; ++i) seams += blocks[i] != blocks[i - 1] + bytes;
  CHECK(seams == 0);
  // The 101st car's block is not in the reserved run.
  CHECK(blocks[100] != blocks[99] + bytes);
  CHECK_THROWS_AS(group.reserve(*four, -1), InputError);
  VehicleSettings broken = *four;
  broken.wheels.front().radius = -1;
  CHECK_THROWS_AS(group.reserve(broken, 10), SettingsError);
  CHECK(group.vehicleCount() == 101);
}

TEST_CASE("on static ground a vehicle group moves its cars exactly as separate actions do") {
  CHECK(sameBits(driveFleet(Updater::Separate, false), driveFleet(Updater::GroupTwoThreads, false)));
}

TEST_CASE("the game's job system: any split and order of the ranges gives the group's own result, bit for bit") {
  // Schedulers a game might have: ranges of 1 to 5 cars run in reverse order, in a shuffled
  // order (a fixed seed), and split over two std::threads; and Bullet's sequential
  // btITaskScheduler through the adapter. Each against the group's own two threads.
  const std::vector<btScalar> own = driveFleet(Updater::GroupTwoThreads, true);
  auto ranges = [](int count, int size) {
    std::vector<std::pair<int, int>> list;
    for (int begin = 0; begin < count; begin += size) list.emplace_back(begin, std::min(count, begin + size));
    return list;
  };
  int calls = 0;
  const VehicleGroup::ParallelFor reverse = [&](int count, const std::function<void(int, int)>& body) {
    auto list = ranges(count, 1);
    std::reverse(list.begin(), list.end());
    for (const auto& [begin, end] : list) body(begin, end);
    ++calls;
  };
  std::mt19937 random(7);
  const VehicleGroup::ParallelFor shuffled = [&](int count, const std::function<void(int, int)>& body) {
    auto list = ranges(count, 1 + int(random() % 5));
    std::shuffle(list.begin(), list.end(), random);
    for (const auto& [begin, end] : list) body(begin, end);
  };
  const VehicleGroup::ParallelFor twoThreads = [](int count, const std::function<void(int, int)>& body) {
    std::thread other([&] { body(count / 2, count); });
    body(0, count / 2);
    other.join();
  };
  CHECK(sameBits(own, driveFleet(Updater::GroupOneThread, true, nullptr, GroundQueryKind::Ray, reverse)));
  CHECK(calls == 240);  // the game's job system ran every step's independent phase
  CHECK(sameBits(own, driveFleet(Updater::GroupOneThread, true, nullptr, GroundQueryKind::Ray, shuffled)));
  CHECK(sameBits(own, driveFleet(Updater::GroupOneThread, true, nullptr, GroundQueryKind::Ray, twoThreads)));
  btITaskScheduler* bullet = btGetSequentialTaskScheduler();
  REQUIRE(bullet != nullptr);
  CHECK(sameBits(own, driveFleet(Updater::GroupOneThread, true, nullptr, GroundQueryKind::Ray,
                                 VehicleGroup::bulletParallelFor(*bullet, 3))));
}
