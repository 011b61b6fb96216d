// Edge cases a game will hit: light bodies under a wheel, long steps, odd wheel counts, sleep.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "RoadRig.h"
#include "TestWorld.h"
#include "raycar/io/ObjModel.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/io/VehicleScript.h"
#include "raycar/parallel/VehicleGroup.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {
bool isFinite(const btVector3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

// The two step-change tests' car: a test car standing on a plane, kept awake (a chassis put to
// sleep would hide what the change of step does to it).
TestCar awakeCarOnPlane(TestWorld& world, const CarSpec& spec) {
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, touchdownHeight(spec), 0)));
  car.chassis->setActivationState(DISABLE_DEACTIVATION);
  return car;
}

void stepFor(TestWorld& world, double seconds, btScalar dt) {
  for (int i = 0; i < int(seconds / dt); ++i) world.step(dt);
}

// Back at rest at its spring length, within the 2% of the long-step test.
void checkSettled(const TestCar& car, const CarSpec& spec) {
  CHECK(std::fabs(car.vehicle->linearVelocity().y()) < 0.005);
  CHECK(car.vehicle->wheelState(0).suspensionLength == within(spec.lenInitial, 0.02));
}
}  // namespace

TEST_CASE("a 20 kg box under a wheel carries its share and stays put") {
  // The wheel presses a 20 kg, 40 cm box into the ground with ~3 kN. The reaction impulses reach
  // the box after Bullet's contact solve, which corrects them in the next step; from about this
  // mass up (for a 1.2 t car at 1/120 s) that keeps the box within a millimetre. Lighter bodies
  // are shoved harder than Bullet's box contacts recover from (README, known limitations).
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  btRigidBody* box = world.addBox(20, btVector3(0.2f, 0.2f, 0.2f),
                                  btTransform(btQuaternion::getIdentity(), btVector3(0.8f, 0.2f, 1.3f)), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec) + 0.3f, 0)));
  // Parked: standing tilted on the box, free wheels would let it roll back.
  car.vehicle->setHandbrake(true);
  double lowest = 1e9, highest = 0;
  btVector3 settled(0, 0, 0);
  for (int i = 0; i < int(4 / kStep); ++i) {
    world.step(kStep);
    const btVector3 centre = box->getCenterOfMassPosition();
    lowest = std::min<double>(lowest, centre.y());
    highest = std::max<double>(highest, centre.y());
    if (i == int(2 / kStep)) settled = centre;  // the car has landed and settled, tilted
  }
  const double crept = (box->getCenterOfMassPosition() - settled).length();
  INFO("box centre height in [" << lowest << ", " << highest << "] m, crept " << crept << " m");
  CHECK(car.vehicle->wheelState(0).groundObject == box);
  CHECK(lowest > 0.198);
  CHECK(highest < 0.202);
  CHECK(crept < 0.001);
  CHECK(isFinite(car.chassis->getCenterOfMassPosition()));
}

TEST_CASE("a parked car stays stable at long steps (1/30 and 1/15 s)") {
  for (btScalar dt : {btScalar(1.0 / 30), btScalar(1.0 / 15)}) {
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    CarSpec spec;
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, touchdownHeight(spec), 0)));
    for (int i = 0; i < int(5 / dt); ++i) world.step(dt);
    INFO("dt " << dt);
    CHECK(car.vehicle->linearVelocity().length() < 0.01);
    CHECK(car.vehicle->wheelState(0).suspensionLength == within(spec.lenInitial, 0.02));
  }
}

TEST_CASE("a one-wheeled vehicle stays finite while it topples") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  settings.wheels.resize(1);
  settings.wheels[0].attachmentPoint = btVector3(0, -0.02f, 0);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.6f, 0)), &settings);
  car.vehicle->setDriveTorque(0, 100);
  for (int i = 0; i < int(3 / kStep); ++i) {
    world.step(kStep);
    REQUIRE(isFinite(car.chassis->getCenterOfMassPosition()));
    REQUIRE(std::isfinite(car.vehicle->wheelState(0).longitudinalForce));
  }
}

TEST_CASE("a car Bullet has put to sleep wakes when the handbrake is released") {
  // A parked car on a 5 degree slope with default activation falls asleep; releasing the
  // handbrake must wake it, and it rolls.
  TestWorld world;
  const btQuaternion tilt(btVector3(1, 0, 0), btScalar(5 * SIMD_PI / 180));
  const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
  world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(tilt, normal * restHeight(spec)));
  car.chassis->forceActivationState(ACTIVE_TAG);  // Bullet's default: may sleep
  car.vehicle->setHandbrake(true);
  for (int i = 0; i < int(6 / kStep); ++i) world.step(kStep);
  REQUIRE(car.chassis->getActivationState() == ISLAND_SLEEPING);
  const btVector3 parked = car.chassis->getCenterOfMassPosition();
  car.vehicle->setHandbrake(false);
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  CHECK((car.chassis->getCenterOfMassPosition() - parked).length() > 0.5);
}

TEST_CASE("a parked car falls asleep below a script's sleeping threshold, fed the same input") {
  // Between steps a parked chassis holds g dt upwards (the gravity the solve cancels: 0.08 m/s
  // at 1/120 s), above sleep_speed_vehicle's 0.04 m/s. The car times its own stillness and hands
  // itself to Bullet's sleep after gDeactivationTime (2 s) of it: asleep within 2 s of settling
  // (0.5 s budget for the landing from the spawn height and the handbrake's hold), whatever the
  // step, on the flat and on a slope, with the game setting the same input every step (which
  // must not wake it). Asleep, it does not move.
  struct Case {
    btScalar dt;       // s
    btScalar degrees;  // slope
  };
  for (const Case& parked : {Case{1 / btScalar(60), 0}, Case{1 / btScalar(120), 0},
                             Case{1 / btScalar(240), 0}, Case{1 / btScalar(120), 5}}) {
    INFO("dt " << parked.dt << " s, slope " << parked.degrees << " deg");
    TestWorld world;
    const btQuaternion tilt(btVector3(1, 0, 0), parked.degrees * SIMD_PI / 180);
    const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
    world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
    CarSpec spec;
    TestCar car = addCar(world, spec, btTransform(tilt, normal * restHeight(spec)));
    car.chassis->forceActivationState(ACTIVE_TAG);  // Bullet's default: may sleep
    car.chassis->setSleepingThresholds(0.04f, 1.0f);  // sleep_speed_vehicle's default
    DriverInput input;
    input.handbrake = true;
    int asleepAt = -1;
    for (int i = 0; i < int(2.5 / parked.dt) && asleepAt < 0; ++i) {
      car.vehicle->setInput(input);
      world.step(parked.dt);
      if (car.chassis->getActivationState() == ISLAND_SLEEPING) asleepAt = i;
    }
    CHECK(asleepAt > 0);
    const btVector3 asleep = car.chassis->getCenterOfMassPosition();
    for (int i = 0; i < int(1 / parked.dt); ++i) {
      car.vehicle->setInput(input);
      world.step(parked.dt);
    }
    CHECK(car.chassis->getActivationState() == ISLAND_SLEEPING);
    CHECK((car.chassis->getCenterOfMassPosition() - asleep).length() == 0);
    // The threshold it raised for Bullet's test is the game's again (the next update put it
    // back), so a vehicle replaced or removed now leaves the chassis as the game set it.
    CHECK(car.chassis->getLinearSleepingThreshold() == 0.04f);
  }
}

TEST_CASE("a car on its roof comes to rest on Bullet's contacts and falls asleep") {
  // Dropped upside down from 1 m, the chassis box lands on its roof, its wheels in the air, and
  // rests on Bullet's own contacts. Bullet's rule then holds as for any body: still (below the
  // sleeping thresholds, 0.04 m/s and 1 rad/s) for gDeactivationTime (2 s), it sleeps. Budget:
  // 1.5 s for the fall (0.45 s) and the box's settling, so asleep by 3.5 s; asleep, it does not
  // move.
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  const btQuaternion upsideDown(btVector3(0, 0, 1), SIMD_PI);
  TestCar car = addCar(world, spec, btTransform(upsideDown, btVector3(0, 1.25f, 0)));
  car.chassis->forceActivationState(ACTIVE_TAG);
  car.chassis->setSleepingThresholds(0.04f, 1.0f);
  int asleepAt = -1;
  for (int i = 0; i < int(3.5 / kStep) && asleepAt < 0; ++i) {
    world.step(kStep);
    if (car.chassis->getActivationState() == ISLAND_SLEEPING) asleepAt = i;
  }
  REQUIRE(asleepAt > 0);
  for (int i = 0; i < 4; ++i) CHECK(!car.vehicle->wheelState(i).inContact);  // on its roof
  const btVector3 asleep = car.chassis->getCenterOfMassPosition();
  for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
  CHECK(car.chassis->getActivationState() == ISLAND_SLEEPING);
  CHECK((car.chassis->getCenterOfMassPosition() - asleep).length() == 0);
}

TEST_CASE("a car whose chassis left the world is left alone, its group's other cars drive on") {
  // A game despawning a car takes its chassis out of the world and may remove the vehicle from
  // its group later: meanwhile the group must not push the detached body (it had gathered
  // 0.5 m/s in 2 s).
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  const VehicleSettings settings = makeCarSettings(spec);
  VehicleGroup group;
  btRigidBody* kept = world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f),
                                   btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)), 0.5f);
  btRigidBody* detached = world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f),
                                       btTransform(btQuaternion::getIdentity(), btVector3(10, restHeight(spec), 0)), 0.5f);
  RaycastVehicle& keptCar = group.addVehicle(*kept, settings);
  RaycastVehicle& detachedCar = group.addVehicle(*detached, settings);
  world.world().addAction(&group);
  DriverInput input;
  input.pedal = 0.5f;
  keptCar.setInput(input);
  detachedCar.setInput(input);
  for (int i = 0; i < int(0.5 / kStep); ++i) world.step(kStep);
  world.world().removeRigidBody(detached);
  const btTransform pose = detached->getWorldTransform();
  const btVector3 velocity = detached->getLinearVelocity();
  const btVector3 keptStart = kept->getCenterOfMassPosition();
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  CHECK(detached->getWorldTransform().getOrigin() == pose.getOrigin());
  CHECK(detached->getLinearVelocity() == velocity);
  // The other car drove on: at half throttle it covers metres in 2 s; 1 m tells driving from
  // standing (a skipped car would move 0).
  CHECK((kept->getCenterOfMassPosition() - keptStart).length() > 1);
  world.world().removeAction(&group);
}

TEST_CASE("a handbrake released just before a parked car's wait for sleep ends lets it roll") {
  // The car's wait starts over when an input changes: released 3 steps before the step it would
  // have slept at, on a 2 degree slope, it rolls away (it had slept where it stood, the brake
  // released). Asleep, it reports no velocity (the gravity its chassis held is not pending).
  const btScalar slope = 2 * SIMD_PI / 180;
  const btQuaternion tilt(btVector3(1, 0, 0), slope);
  const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
  CarSpec spec;
  auto park = [&](TestWorld& world) {
    world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
    TestCar car = addCar(world, spec, btTransform(tilt, normal * restHeight(spec)));
    car.chassis->forceActivationState(ACTIVE_TAG);
    car.chassis->setSleepingThresholds(0.04f, 1.0f);
    return car;
  };
  DriverInput held;
  held.handbrake = true;
  int sleepStep = -1;
  {
    TestWorld world;
    TestCar car = park(world);
    for (int i = 0; i < int(4 / kStep) && sleepStep < 0; ++i) {
      car.vehicle->setInput(held);
      world.step(kStep);
      if (car.chassis->getActivationState() == ISLAND_SLEEPING) sleepStep = i;
    }
    REQUIRE(sleepStep > 0);
    CHECK(car.vehicle->linearVelocity().length() == 0);
  }
  TestWorld world;
  TestCar car = park(world);
  const DriverInput released;
  for (int i = 0; i < sleepStep - 3; ++i) {
    car.vehicle->setInput(held);
    world.step(kStep);
  }
  const btVector3 start = car.chassis->getCenterOfMassPosition();
  for (int i = 0; i < int(3 / kStep); ++i) {
    car.vehicle->setInput(released);
    world.step(kStep);
  }
  // Rolling freely down 2 deg (g sin 2 deg = 0.34 m/s^2, less rolling resistance) it covers
  // about a metre in 3 s; asleep it moves 0. 0.3 m tells the two apart with room for the
  // rolling resistance.
  CHECK((car.chassis->getCenterOfMassPosition() - start).length() > 0.3);
}

TEST_CASE("parked cars whose boxes overlap fall asleep together, though they settled apart") {
  // Bullet's islands join bodies whose broadphase boxes overlap, and an island sleeps only when
  // every body in it wants to: two cars 2 cm apart, one set down 0.3 m higher (settling later),
  // must both sleep (each passes Bullet's test every step from the end of its own wait on).
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  const btScalar halfWidth = 0.9f;
  TestCar first = addCar(world, spec, btTransform(btQuaternion::getIdentity(),
                                                  btVector3(0, restHeight(spec), 0)));
  TestCar second = addCar(world, spec, btTransform(btQuaternion::getIdentity(),
                                                   btVector3(2 * halfWidth + 0.02f, restHeight(spec) + 0.3f, 0)));
  for (TestCar* car : {&first, &second}) {
    car->chassis->forceActivationState(ACTIVE_TAG);
    car->chassis->setSleepingThresholds(0.04f, 1.0f);
  }
  for (int i = 0; i < int(6 / kStep); ++i) world.step(kStep);
  CHECK(first.chassis->getActivationState() == ISLAND_SLEEPING);
  CHECK(second.chassis->getActivationState() == ISLAND_SLEEPING);
}

TEST_CASE("a sleeping car wakes when the ground under its wheels moves or leaves the world") {
  // A body resting on another shares its island in Bullet and wakes when the other moves; a
  // car touches its ground through rays, not contacts, so it must look for itself. Each case
  // parks the car on a 0.5 m thick platform whose top is 1 m above a static floor, lets it fall
  // asleep (Bullet's default activation, handbrake on), and then changes the platform.
  // Removed, also under sweep and prune with a crate added 100 m away straight after, which
  // takes the platform's proxy number (the car had stayed asleep in the air).
  enum class Change { LiftedAsAnElevator, RemovedFromTheWorld, RemovedAndNumberReused };
  for (Change change :
       {Change::LiftedAsAnElevator, Change::RemovedFromTheWorld, Change::RemovedAndNumberReused}) {
    const bool lift = change == Change::LiftedAsAnElevator;
    const bool reused = change == Change::RemovedAndNumberReused;
    INFO((lift ? "lifted at 0.5 m/s for 2 s" : reused ? "removed, its number reused" : "removed"));
    TestWorld world(btVector3(0, -kGravity, 0),
                    reused ? Broadphase::SweepAndPrune : Broadphase::DynamicTree);
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    const btTransform platformStart(btQuaternion::getIdentity(), btVector3(0, 0.75f, 0));
    btRigidBody* platform = world.addBox(0, btVector3(6, 0.25f, 6), platformStart, 1, lift);
    CarSpec spec;
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, 1 + restHeight(spec), 0)));
    car.chassis->forceActivationState(ACTIVE_TAG);  // Bullet's default: may sleep
    car.vehicle->setHandbrake(true);
    for (int i = 0; i < int(3 / kStep); ++i) world.step(kStep);
    REQUIRE(car.chassis->getActivationState() == ISLAND_SLEEPING);
    const btVector3 parked = car.chassis->getCenterOfMassPosition();
    if (lift) {
      // The game moves its kinematic platform through the motion state (Bullet's way), up 1 m
      // over 2 s, then holds it for 1 s: the car rides up and settles on its springs again.
      const btScalar speed = 0.5f;  // m/s
      for (int i = 1; i <= int(3 / kStep); ++i) {
        const btScalar rise = std::min(speed * i * kStep, btScalar(1));
        platform->getMotionState()->setWorldTransform(
            btTransform(btQuaternion::getIdentity(), platformStart.getOrigin() + btVector3(0, rise, 0)));
        world.step(kStep);
        // Awake from the platform's first step, long before it would reach the chassis' box (and
        // Bullet's own contacts would wake it).
        if (i == 1) CHECK(car.chassis->isActive());
      }
      // Budget 2 mm: the car rests on the same springs 1 m higher; a critically damped
      // 1.5 Hz suspension keeps well under 0.1 mm of the 2 s ride's transient after 1 s.
      CHECK(std::fabs(car.chassis->getCenterOfMassPosition().y() - parked.y() - 1) < 0.002);
    } else {
      const int platformNumber = platform->getBroadphaseHandle()->m_uniqueId;
      world.world().removeRigidBody(platform);
      if (reused) {
        const btRigidBody* crate = world.addBox(
            0, btVector3(0.5f, 0.5f, 0.5f), btTransform(btQuaternion::getIdentity(), btVector3(100, 0.5f, 0)), 1);
        REQUIRE(crate->getBroadphaseHandle()->m_uniqueId == platformNumber);
      }
      for (int i = 0; i < int(3 / kStep); ++i) world.step(kStep);
      // It fell the platform's 1 m onto the floor and stands at its ride height there again.
      CHECK(std::fabs(car.chassis->getCenterOfMassPosition().y() - restHeight(spec)) < 0.002);
      world.world().addRigidBody(platform);  // TestWorld removes what it added
    }
    CHECK(std::fabs(car.chassis->getCenterOfMassPosition().x() - parked.x()) < 0.002);
  }
}

TEST_CASE("sleeping cars in a group wake on its worker threads as their lift rises, bit for bit as on one") {
  // Two parked cars asleep on one kinematic platform, stepped by a VehicleGroup whose threads
  // each take a car (at least one car a thread): the platform rises, and each car, asleep on its
  // thread, finds its ground moving and wakes. One thread and two give bitwise the same poses.
  auto ride = [](int threads) {
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    const btTransform platformStart(btQuaternion::getIdentity(), btVector3(0, 0.75f, 0));
    btRigidBody* platform = world.addBox(0, btVector3(8, 0.25f, 8), platformStart, 1, true);
    CarSpec spec;
    const VehicleSettings settings = makeCarSettings(spec);
    VehicleGroup group(threads, 1);
    std::vector<btRigidBody*> bodies;
    for (btScalar x : {-3.0f, 3.0f}) {
      btRigidBody* body = world.addBox(spec.mass, btVector3(0.9f, 0.25f, 2.1f),
                                       btTransform(btQuaternion::getIdentity(), btVector3(x, 1 + restHeight(spec), 0)), 0.5f);
      body->forceActivationState(ACTIVE_TAG);
      group.addVehicle(*body, settings).setHandbrake(true);
      bodies.push_back(body);
    }
    world.world().addAction(&group);
    for (int i = 0; i < int(3 / kStep); ++i) world.step(kStep);
    for (const btRigidBody* body : bodies) REQUIRE(body->getActivationState() == ISLAND_SLEEPING);
    std::vector<btScalar> poses;
    for (int i = 1; i <= int(2 / kStep); ++i) {
      const btScalar rise = std::min(btScalar(0.5) * btScalar(i) * kStep, btScalar(0.5));
      platform->getMotionState()->setWorldTransform(
          btTransform(btQuaternion::getIdentity(), platformStart.getOrigin() + btVector3(0, rise, 0)));
      world.step(kStep);
      if (i == 1)
        for (const btRigidBody* body : bodies) CHECK(body->isActive());
      for (const btRigidBody* body : bodies) {
        const btVector3 at = body->getCenterOfMassPosition();
        poses.insert(poses.end(), at.m_floats, at.m_floats + 3);
      }
    }
    // Both rode the 0.5 m up (budget as for one car on its lift: 2 mm after 1 s of rest).
    for (const btRigidBody* body : bodies)
      CHECK(std::fabs(body->getCenterOfMassPosition().y() - (1.5 + restHeight(spec))) < 0.002);
    world.world().removeAction(&group);
    return poses;
  };
  const std::vector<btScalar> one = ride(1), two = ride(2);
  REQUIRE(one.size() == two.size());
  CHECK(std::equal(one.begin(), one.end(), two.begin()));
}

TEST_CASE("a car with its pedal pressed, or rolling, does not fall asleep") {
  // Held on its brakes with the throttle open (the engine revving against them), and coasting
  // at 0.5 m/s in gear: neither is a parked car, though the first one's chassis stands still.
  // The first also under Bullet's 0.8 m/s default, which the velocity the chassis holds between
  // steps (0.08 m/s) passes: the car's own test decides. (Under 0.8 m/s the coasting car is
  // below the threshold itself, and may sleep.)
  struct Case {
    bool throttleOnBrakes;
    btScalar threshold;  // m/s
  };
  for (const Case& awake : {Case{true, 0.04f}, Case{false, 0.04f}, Case{true, 0.8f}}) {
    const bool throttleOnBrakes = awake.throttleOnBrakes;
    const btScalar threshold = awake.threshold;
    INFO(std::string(throttleOnBrakes ? "throttle against the brakes" : "coasting") << ", threshold " << threshold);
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    CarSpec spec;
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(),
                                                  btVector3(0, restHeight(spec), 0)));
    car.chassis->forceActivationState(ACTIVE_TAG);
    car.chassis->setSleepingThresholds(threshold, 1.0f);
    DriverInput input;
    if (throttleOnBrakes) {
      input.pedal = 0.3f;
      input.brake = 1;
    } else {
      car.chassis->setLinearVelocity(btVector3(0, 0, 0.5f));
    }
    car.vehicle->setInput(input);
    for (int i = 0; i < int(1.5 / kStep); ++i) world.step(kStep);
    bool slept = false;
    for (int i = 0; i < int(3 / kStep); ++i) {
      world.step(kStep);
      slept = slept || car.chassis->getActivationState() == ISLAND_SLEEPING;
    }
    CHECK_FALSE(slept);
  }
}

TEST_CASE("max_braking_friction caps a handbraked car's grip on a slope") {
  // Every wheel handbraked, cap 0.4: the box's limit becomes tan(slope) = 0.4 instead of 0.85,
  // and the cap holds for the slide too: once the contacts slide faster than stickSpeed the
  // locked tires slide on their laws at 0.4 share (lockedSlideShare), where without the cap they
  // would have the tire and ground's 1 share.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  VehicleSettings settings = makeCarSettings(spec);
  settings.friction.maxBrakingFriction = 0.4f;
  for (btScalar degrees : {btScalar(18), btScalar(25)}) {
    TestWorld world;
    const btScalar slope = degrees * SIMD_PI / 180;
    const btQuaternion tilt(btVector3(1, 0, 0), slope);
    const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
    world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
    TestCar car = addCar(world, spec, btTransform(tilt, normal * restHeight(spec)), &settings);
    car.vehicle->setHandbrake(true);
    for (int i = 0; i < int(0.5 / kStep); ++i) world.step(kStep);
    const btVector3 start = car.chassis->getCenterOfMassPosition();
    btScalar slidingSince = -1, speedThen = 0;  // s after the start, m/s: past 1 m/s, on the laws
    for (int i = 0; i < int(2 / kStep); ++i) {
      world.step(kStep);
      if (slidingSince < 0 && car.chassis->getLinearVelocity().length() > 1) {
        slidingSince = (i + 1) * kStep;
        speedThen = car.chassis->getLinearVelocity().length();
      }
    }
    const double moved = (car.chassis->getCenterOfMassPosition() - start).length();
    INFO(degrees << " degrees: moved " << moved << " m");
    if (std::tan(slope) < 0.4) CHECK(moved < 0.01);
    else {
      REQUIRE(slidingSince > 0);
      const double sliding = 2 - slidingSince;
      const double acceleration = (car.chassis->getLinearVelocity().length() - speedThen) / sliding;
      CHECK(acceleration ==
            within(9.81 * (std::sin(slope) - 0.4 * lockedSlideShare(spec) * std::cos(slope)), 0.05));
    }
  }
}

TEST_CASE("a wheel ray that passes through the chassis ignores it and finds the ground") {
  // Attachment points 0.45 m above the centre of mass, above the chassis box (half height 0.25):
  // each ray crosses the whole box before it reaches the ground.
  TestWorld world;
  btRigidBody* ground = world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  spec.lenMax = 0.8f;
  spec.lenInitial = 0.67f;
  spec.centerOfMassHeight = spec.radius + spec.lenInitial - 0.45f;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  REQUIRE(car.vehicle->wheelSettings(0).attachmentPoint.y() == within(0.45, 1e-5));
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  for (int w = 0; w < 4; ++w) {
    CHECK(car.vehicle->wheelState(w).groundObject == ground);
    CHECK(car.vehicle->wheelState(w).suspensionLength == within(spec.lenInitial, 0.01));
  }
}

TEST_CASE("tire forces on a dynamic slab are equal and opposite: momentum is conserved") {
  // A 2000 kg slab on frictionless ground carries the car. Driving forward pushes the slab back;
  // no horizontal force acts from outside, so m_car v_car + m_slab v_slab stays zero.
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 0);  // ice: Bullet multiplies frictions
  const btScalar slabMass = 2000;
  btRigidBody* slab = world.addBox(slabMass, btVector3(3, 0.1f, 10),
                                   btTransform(btQuaternion::getIdentity(), btVector3(0, 0.1f, 0)), 1);
  slab->setActivationState(DISABLE_DEACTIVATION);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.2f + restHeight(spec), 0)));
  for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
  car.vehicle->setDriveTorque(2, 400);
  car.vehicle->setDriveTorque(3, 400);
  car.vehicle->setSteerAngle(0, 0.1f);
  car.vehicle->setSteerAngle(1, 0.1f);
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  const btVector3 carMomentum = car.chassis->getLinearVelocity() * spec.mass;
  const btVector3 slabMomentum = slab->getLinearVelocity() * slabMass;
  const btVector3 total = carMomentum + slabMomentum;
  const double horizontal = btVector3(total.x(), 0, total.z()).length();
  const double carHorizontal = btVector3(carMomentum.x(), 0, carMomentum.z()).length();
  INFO("car " << carHorizontal << " N s, total " << horizontal << " N s");
  CHECK(carHorizontal > 2000);  // the car is moving
  CHECK(horizontal < 1e-3 * carHorizontal);  // float rounding of two 5-digit momenta
}

TEST_CASE("a change of step size gives one vertical kick of g (dt1 - dt2), then the car settles") {
  // The solve cancels the gravity the next step will add, assuming it lasts as long as this one
  // (README, known limitations). From 1/30 s to 1/240 s that over-cancels by
  // g (1/30 - 1/240) = 0.286 m/s once; the suspension then brings the car back to rest. The
  // implicit damper already absorbs part of the kick within that step (8% here), hence 15%;
  // at rest again the spring length meets the 2% of the long-step test above.
  TestWorld world;
  CarSpec spec;
  TestCar car = awakeCarOnPlane(world, spec);
  const btScalar longStep = btScalar(1.0 / 30), shortStep = btScalar(1.0 / 240);
  stepFor(world, 5, longStep);
  REQUIRE(std::fabs(car.vehicle->linearVelocity().y()) < 0.01);
  world.step(shortStep);
  const double kick = car.vehicle->linearVelocity().y();
  const double expectedKick = 9.81 * (longStep - shortStep);
  stepFor(world, 5, shortStep);
  INFO("kick " << kick << " m/s, expected " << expectedKick << " m/s");
  CHECK(kick == within(expectedKick, 0.15));
  checkSettled(car, spec);
}

TEST_CASE("one long step after short ones drops a parked car g dt (dt - dt_prev), and it comes back") {
  // Bullet integrates a step's gravity before any action runs, and the last solve cancelled only
  // a step of its own length (README, changing the step size): a parked car falls
  // g dt (dt - dt_prev) in the long step, whatever its springs. Budget: 1 mm, what the 0.005 m/s
  // a car may still move at when it counts as standing carries it over the 0.2 s. Then, on a plane, the bump stops and
  // the chassis box's contact bring it back to rest at its spring length (the 2% above).
  TestWorld world;
  CarSpec spec;
  TestCar car = awakeCarOnPlane(world, spec);
  const btScalar shortStep = btScalar(1.0 / 120), longStep = btScalar(0.2);
  stepFor(world, 3, shortStep);
  REQUIRE(std::fabs(car.vehicle->linearVelocity().y()) < 0.005);
  const double before = car.chassis->getCenterOfMassPosition().y();
  world.step(longStep);
  const double drop = before - car.chassis->getCenterOfMassPosition().y();
  const double expectedDrop = 9.81 * longStep * (longStep - shortStep);  // 0.376 m
  INFO("drop " << drop << " m, expected " << expectedDrop << " m");
  CHECK(std::fabs(drop - expectedDrop) < 0.005 * longStep);
  stepFor(world, 3, shortStep);
  checkSettled(car, spec);
}

TEST_CASE("subnormal friction limits never put a NaN into the world") {
  // Valid settings whose friction limits are subnormal numbers: 1 / limit is infinite there, and
  // 0 x infinity made NaN on the first step. A limit that small is no limit: the car slides
  // freely, and every state stays finite for 2 s. Also a chassis taken out of the world while
  // its vehicle action stays: its loads decayed into subnormals and gave NaN after 1.5 s.
  // (A tire friction of 1e-40 gave NaN too; the field table now rejects any below 1e-9, see the
  // abuse tests.)
  struct Row {
    const char* what;
    void (*tune)(VehicleSettings&);
  };
  const Row rows[] = {
      {"max_friction 1e-40", [](VehicleSettings& s) { for (WheelSettings& w : s.wheels) w.maxFriction = 1e-40f; }},
      {"a curve peaking at 1e-40", [](VehicleSettings& s) {
         for (WheelSettings& w : s.wheels) {
           w.tire.lateralCurve.form = FrictionCurveSettings::Form::Points;
           w.tire.lateralCurve.points = {{0, 0}, {0.1f, 1e-40f}, {1, 1e-40f}};
         }
       }},
  };
  for (const Row& row : rows) {
    INFO(std::string(row.what));
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    CarSpec spec;
    VehicleSettings settings = makeCarSettings(spec);
    row.tune(settings);
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)),
                         &settings);
    car.chassis->setLinearVelocity(btVector3(0, 0, 5));
    DriverInput input;
    input.steer = 0.5f;
    input.brake = 0.5f;
    for (int i = 0; i < int(2 / kStep); ++i) {
      car.vehicle->setInput(input);
      world.step(kStep);
    }
    CHECK(isFinite(car.chassis->getCenterOfMassPosition()));
    CHECK(isFinite(car.chassis->getLinearVelocity()));
    for (int i = 0; i < 4; ++i) CHECK(std::isfinite(car.vehicle->wheelState(i).angularSpeed));
  }
  // The chassis leaves the world; its action keeps running.
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
  world.world().removeRigidBody(car.chassis);
  for (int i = 0; i < int(4 / kStep); ++i) world.step(kStep);
  CHECK(isFinite(car.chassis->getCenterOfMassPosition()));
  CHECK(isFinite(car.chassis->getLinearVelocity()));
  CHECK(isFinite(car.chassis->getAngularVelocity()));
  world.world().addRigidBody(car.chassis);  // back, so that the world removes it as usual
}

TEST_CASE("a vehicle added twice to the world carries twice its springs (documented, not detected)") {
  // Bullet keeps whatever actions it is given; raycar cannot tell a second addAction from a second
  // substep. Each update adds the suspension's impulses, so the car rests where each update's
  // springs carry half its weight: the static compression halves, m g / (2 k) per axle share.
  // Budget 10%: the second update's implicit damper sees the first one's impulse and adds
  // support of its own (measured 8% under half).
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  spec.stiffness = 30000;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  for (int i = 0; i < int(3 / kStep); ++i) world.step(kStep);
  const double single = car.vehicle->wheelState(0).suspensionCompression;
  world.world().addAction(car.vehicle.get());  // the mistake
  for (int i = 0; i < int(3 / kStep); ++i) world.step(kStep);
  const double twice = car.vehicle->wheelState(0).suspensionCompression;
  world.world().removeAction(car.vehicle.get());
  INFO("compression once " << single << " m, added twice " << twice << " m");
  CHECK(twice == within(single / 2, 0.10));
}

namespace {

// The sedan built from its script with `change` applied, dropped 5 cm onto a plane and left for
// 2 s: its highest and final height above its start, and whether it stayed finite.
struct DropResult {
  bool finite = true;
  double highest = 0;  // m above the spawn height
  double finalSpeed = 0;
  double travel = 0;  // m: the longest suspension travel (len_max)
};
DropResult dropSedan(void (*change)(VehicleScript&)) {
  VehicleScript script = loadVehicleScript(std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml");
  change(script);
  const LoadedVehicle loaded = buildVehicle(script, loadObjModel(script.objPath));
  TestWorld world(btVector3(0, 0, -9.81f));
  world.addStaticPlane(btVector3(0, 0, 1), btVector3(0, 0, 0), 1);
  SpawnedVehicle car(world.world(), loaded, btTransform(btQuaternion::getIdentity(), btVector3(0, 0, 0.05f)));
  car.chassis().setActivationState(DISABLE_DEACTIVATION);
  const double start = car.chassis().getCenterOfMassPosition().z();
  DropResult result;
  for (int i = 0; i < int(2 / kStep); ++i) {
    world.step(kStep);
    const btVector3 p = car.chassis().getCenterOfMassPosition();
    result.finite = result.finite && isFinite(p) && isFinite(car.chassis().getLinearVelocity());
    result.highest = std::max(result.highest, double(p.z()) - start);
  }
  result.finalSpeed = car.vehicle().linearVelocity().length();
  result.travel = 0;
  for (int i = 0; i < car.vehicle().wheelCount(); ++i)
    result.travel = std::max(result.travel, double(car.vehicle().wheelSettings(i).suspensionMaxLength));
  return result;
}

}  // namespace

TEST_CASE("the documented ranges hold: the stiffest springs, the lightest hull and the largest zoffset") {
  // Each value is inside the script's range. Before: stiffness 1e9 and 1e10 N/m with 80% of
  // critical damping launched the sedan 22.9 m and 222 m up (an explicit-in-effect spring far
  // past what one step resolves); a 1e-4 kg hull diverged on the first step (drag applied
  // explicitly); zoffset = 10000 m reached 42 km/s (the range now ends at 1 m). Now each
  // drops 5 cm and settles: it rises at most by its suspension travel (a spring can give back no
  // more than the compression it was spawned with, at the stiffest within one step), is slower
  // than 0.5 m/s after 2 s, and every state stays finite.
  struct Row {
    const char* what;
    void (*change)(VehicleScript&);
  };
  const Row rows[] = {
      {"stiffness 1e9 N/m", [](VehicleScript& s) { for (WheelRecord& w : s.wheels) w.wheel.stiffness = 1e9f; }},
      {"stiffness 1e10 N/m", [](VehicleScript& s) { for (WheelRecord& w : s.wheels) w.wheel.stiffness = 1e10f; }},
      {"hull mass 1e-4 kg", [](VehicleScript& s) { s.hulls[0].mass = 1e-4f; }},
      {"zoffset at the range's upper end", [](VehicleScript& s) { s.hulls[0].zoffset = 1; }},
  };
  for (const Row& row : rows) {
    INFO(std::string(row.what));
    const DropResult result = dropSedan(row.change);
    INFO("highest " << result.highest << " m above the start, final speed " << result.finalSpeed << " m/s");
    CHECK(result.finite);
    CHECK(result.highest < result.travel);
    CHECK(result.finalSpeed < 0.5);
  }
}

namespace {
// What a game does to move a car: the chassis at `pose`, its velocities (and the ones Bullet
// interpolates with) zeroed; then resetMotion, when `reset`.
void moveCar(RoadRig& rig, const btTransform& pose, bool reset) {
  btRigidBody& chassis = rig.chassis();
  chassis.setCenterOfMassTransform(pose);
  chassis.setLinearVelocity(btVector3(0, 0, 0));
  chassis.setAngularVelocity(btVector3(0, 0, 0));
  chassis.setInterpolationLinearVelocity(btVector3(0, 0, 0));
  chassis.setInterpolationAngularVelocity(btVector3(0, 0, 0));
  if (reset) rig.vehicle().resetMotion();
}
// How far the car moves along the ground (Z up) in the second after it was moved, idle.
btScalar travelInASecond(RoadRig& rig) {
  const btVector3 start = rig.position();
  rig.hold(1);
  const btVector3 travel = rig.position() - start;
  return btVector3(travel.x(), travel.y(), 0).length();
}
}  // namespace

TEST_CASE("resetMotion after a teleport: the car stays where the game put it, not driving off on its old spin") {
  // A car at full throttle (the sedan 11.6 m/s after 3 s, the jeep 13.8) is moved
  // 30 m aside and turned 90 deg about the vertical, its body's velocities zeroed, and left with
  // the input idle.
  // Without resetMotion its wheels' stale spin and the engine drive it on (0.6 m in a newcomer's
  // trial); with it the car is one at rest: it settles on its springs where it is. Budget for
  // "stays": 2 cm over the second after the move, the settling of a car that was squatting under
  // full throttle (its springs' pitch swing at the wheels), far below the 0.6 m. The jeep ramps
  // its pedal (pedal_speed 3/s): a ramp kept through the reset, still near full throttle, put
  // it in first and drove it 1.2 m in another trial; reset, the ramp is at rest like a new car's.
  struct Case {
    std::string vehicle;
    btScalar leastSpeed;  // m/s after 3 s at full throttle: well under way
  };
  for (const Case& c : {Case{"sedan", 10}, Case{"jeep", 10}}) {
    auto teleported = [&c](bool reset) {
      RoadSpec spec;
      spec.vehicle = c.vehicle;
      RoadRig rig(spec);
      rig.hold(0.5);
      DriverInput full;
      full.pedal = 1;
      rig.hold(3, full);
      REQUIRE(rig.speed() > c.leastSpeed);
      const btTransform before = rig.chassis().getCenterOfMassTransform();
      const btQuaternion turn(btVector3(0, 0, 1), btScalar(SIMD_HALF_PI));
      moveCar(rig, btTransform(turn * before.getRotation(), before.getOrigin() + btVector3(30, 0, 0)), reset);
      if (reset) CHECK(rig.vehicle().pedal() == 0);  // a new car's pedal, whatever the ramp
      return travelInASecond(rig);
    };
    CAPTURE(c.vehicle);
    const btScalar withReset = teleported(true), without = teleported(false);
    CAPTURE(withReset);
    CAPTURE(without);
    CHECK(withReset < 0.02f);
    CHECK(without > 0.2f);  // what resetMotion is for
  }
}

TEST_CASE("resetMotion after righting: a car set down from revving in reverse in the air stays put") {
  // A sedan held 3 m up (as on its roof, its wheels free) at full reverse throttle for 2 s: the
  // engine revs and the driven wheels spin backward. The game sets it down at rest on its wheels
  // with the input idle. Without resetMotion it sets off backward on that spin (2.1 m/s in a
  // newcomer's trial); with it, it settles where it was put. Budget as for the teleport: 2 cm.
  auto setDown = [](bool reset) {
    RoadSpec spec;
    spec.vehicle = "sedan";
    RoadRig rig(spec);
    rig.hold(0.5);
    const btTransform resting = rig.chassis().getCenterOfMassTransform();
    btTransform lifted = resting;
    lifted.getOrigin() += btVector3(0, 0, 3);
    rig.run(2, [&](RoadRig&) {
      moveCar(rig, lifted, false);
      DriverInput reverse;
      reverse.pedal = -1;
      return reverse;
    });
    REQUIRE(rig.vehicle().wheelState(0).angularSpeed * rig.vehicle().wheelState(0).angularSpeed +
                rig.vehicle().wheelState(2).angularSpeed * rig.vehicle().wheelState(2).angularSpeed >
            100);  // some driven wheel spins at over 10 rad/s
    moveCar(rig, resting, reset);
    return travelInASecond(rig);
  };
  const btScalar withReset = setDown(true), without = setDown(false);
  CAPTURE(withReset);
  CAPTURE(without);
  CHECK(withReset < 0.02f);
  CHECK(without > 0.2f);  // what resetMotion is for
}
