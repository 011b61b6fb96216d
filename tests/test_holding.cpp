// Standing still: slopes, rest jitter, moving platforms, dynamic ground.
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {


btScalar degrees(btScalar angle) { return angle * SIMD_PI / 180; }

// A plane through the origin tilted by `slope` about the x axis, and the reference car resting on
// it, facing downhill, with the handbrake on.
struct SlopeScene {
  TestWorld world;
  TestCar car;
  btVector3 downhill;
  SlopeScene(btScalar slope, const CarSpec& spec, const VehicleSettings* settings = nullptr) {
    const btQuaternion tilt(btVector3(1, 0, 0), slope);
    const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
    downhill = quatRotate(tilt, btVector3(0, 0, 1));  // the car's forward: -y along the slope
    world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
    car = addCar(world, spec, btTransform(tilt, normal * restHeight(spec)), settings);
    car.vehicle->setHandbrake(true);
  }
  btVector3 position() const { return car.chassis->getCenterOfMassPosition(); }
  void run(btScalar seconds) {
    for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) world.step(kStep);
  }
};

}  // namespace

TEST_CASE("parked with the rear handbrake on a 15 degree slope at friction 1: < 1 cm in 10 s") {
  CarSpec spec;  // tire friction 1, ground friction 1: mu = 1
  SlopeScene scene(degrees(15), spec);
  scene.run(0.5f);
  const btVector3 start = scene.position();
  scene.run(10);
  const double moved = (scene.position() - start).length();
  INFO("moved " << moved * 1000 << " mm");
  CHECK(moved < 0.01);
}

TEST_CASE("a handbraked car holds wherever its locked tires would slide: no creep between the hold and the slide") {
  // Seed 001's box holds at 0.85 mu; a locked tire that slides is on its laws, at what its curve
  // keeps when locked. A curve keeping more than 0.85 of its peak (Magic Formula B 10, C 1.3:
  // sin(1.3 atan 10) = 0.94) slid harder than the box held: on a slope between the two a parked
  // car broke loose, braked on its laws below stickSpeed, fell back into the box and crept down
  // at about 0.5 m/s (a review's finding: 2.47 m in 5 s here). The hold is now at least the
  // slide: on tan(slope) = 0.9 it stands, but for the creep of the static friction's carcass
  // spring so near its limit (0.9 of 0.94: 12.6 mm in 5 s). Budget: 1% of the break-away's
  // 0.5 m/s over the 5 s, 25 mm.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  VehicleSettings settings = makeCarSettings(spec);
  for (WheelSettings& wheel : settings.wheels) {
    wheel.tire.longitudinalCurve.magicFormula.stiffnessB = 10;
    wheel.tire.longitudinalCurve.magicFormula.shapeC = btScalar(1.3);
  }
  const double lockedShare = std::sin(1.3 * std::atan(10.0));
  REQUIRE(lockedShare > 0.9);
  SlopeScene scene(std::atan(btScalar(0.9)), spec, &settings);
  scene.run(0.5f);
  const btVector3 start = scene.position();
  scene.run(5);
  const double moved = (scene.position() - start).length();
  INFO("moved " << moved * 1000 << " mm");
  CHECK(moved < 0.025);
}

TEST_CASE("with every wheel handbraked the car holds below atan(0.85 mu) and slides above it") {
  // Seed 001: a handbraked wheel held still has its friction multiplied by 0.85 in each
  // direction, so the Coulomb limit of a locked car is tan(slope) = 0.85 mu. Above it the car
  // slides, and once its contacts slide faster than stickSpeed (0.5 m/s) its locked tires are on
  // their laws: a = g (sin - share mu cos), share what the locked tire's curve keeps of its peak
  // (lockedSlideShare, 0.82, below the hold's 0.85). Measured over 2 s from the first step past
  // 0.6 m/s, out of the box.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  const btScalar limit = std::atan(btScalar(0.85));
  {
    SlopeScene holding(limit - degrees(3), spec);
    holding.run(0.5f);
    const btVector3 start = holding.position();
    holding.run(5);
    CHECK((holding.position() - start).length() < 0.01);
  }
  {
    const btScalar slope = limit + degrees(3);
    SlopeScene sliding(slope, spec);
    auto downhillSpeed = [&] { return sliding.car.chassis->getLinearVelocity().dot(sliding.downhill); };
    for (int i = 0; i < int(5 / kStep) && downhillSpeed() < 0.6f; ++i) sliding.run(kStep);
    const btScalar startSpeed = downhillSpeed();
    REQUIRE(startSpeed >= 0.6f);
    sliding.run(2);
    const btScalar endSpeed = downhillSpeed();
    const double expected = kGravity * (std::sin(slope) - lockedSlideShare(spec) * std::cos(slope));
    INFO("acceleration " << (endSpeed - startSpeed) / 2 << " m/s^2, expected " << expected << ", from " << startSpeed);
    CHECK((endSpeed - startSpeed) / 2 == within(expected, 0.05));
  }
  {
    // Steeper than atan(mu) itself: slides whatever the handbrake does.
    SlopeScene steep(std::atan(btScalar(1)) + degrees(2), spec);
    steep.run(2);
    CHECK(steep.car.chassis->getLinearVelocity().dot(steep.downhill) > 1.0);
  }
}

TEST_CASE("pushed sideways between solves the parked car holds below its grip and slides above it") {
  // A push the solve cannot foresee - Bullet's own contacts when another car shoves this one -
  // changes the chassis' velocity between two solves (here an impulse before each step). Coulomb's
  // law holds the car while the push is below the tires' grip: with the rear wheels handbraked
  // (0.85 mu, seed 001) and the weight shared evenly, 0.925 mu m g. The car then settles
  // (roll, tire deflection) and stops; above mu m g it slides and accelerates at no less than
  // F / m - mu g. Held: less than 1 mm over the 2 s after settling, that is 0.5 mm/s, half the
  // speed a car is allowed at rest on flat ground (the speed-RMS test below). The stick anchors
  // once followed only what each solve predicted: at 0.3 m g the car crept 25 mm/s (50 mm in
  // those 2 s) for as long as the push lasted.
  CarSpec spec;  // mu = 1, the weight even front and rear, the car facing +z: x is sideways
  struct Case {
    btScalar pushPerWeight;  // F / (m g)
    bool holds;
  };
  for (const Case& c : {Case{0.3f, true}, Case{0.6f, true}, Case{0.85f, true}, Case{1.2f, false}}) {
    CAPTURE(c.pushPerWeight);
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
    car.vehicle->setHandbrake(true);
    for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
    const btVector3 pushImpulse(c.pushPerWeight * spec.mass * kGravity * kStep, 0, 0);  // N s a step
    auto push = [&](btScalar seconds) {
      for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) {
        car.chassis->applyCentralImpulse(pushImpulse);
        world.step(kStep);
      }
      return car.chassis->getCenterOfMassPosition().x();  // m
    };
    const btScalar start = car.chassis->getCenterOfMassPosition().x();
    const btScalar settled = push(1);  // roll and deflection
    const btScalar end = push(2);
    INFO("settled at " << (settled - start) * 1000 << " mm, then moved " << (end - settled) * 1000
                       << " mm in 2 s");
    if (c.holds) {
      CHECK(std::fabs(end - settled) < 0.001);
    } else {
      // x = a t^2 / 2 from rest, a >= F / m - mu g: sliding tires give at most mu m g.
      const double leastAcceleration = (c.pushPerWeight - 1) * kGravity;
      CHECK(end - start >= 0.5 * leastAcceleration * 3 * 3);
    }
  }
}

TEST_CASE("parked on a slope, jolts into the ground do not let the car slip") {
  // The stick anchors carry the hold's preload: the carcass springs stretched by the slope's
  // pull. A jolt the solve could not foresee along the ground, faster than stickSpeed, breaks
  // the contact loose and the anchors start afresh; a jolt into the ground (a crate landing on
  // the roof) moves nothing along it and must leave them, or each such jolt lets the car slip by
  // the springs' stretch. Held means what it means on the slope above: < 1 cm.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  SlopeScene scene(degrees(20), spec);  // below atan(0.85 mu) = 40 deg: it holds
  scene.run(1);
  const btVector3 start = scene.position();
  const btVector3 intoGround = -scene.car.chassis->getWorldTransform().getBasis().getColumn(1);
  for (int jolt = 0; jolt < 10; ++jolt) {
    scene.car.chassis->applyCentralImpulse(intoGround * (0.6f * spec.mass));  // 0.6 m/s
    scene.run(0.5f);
  }
  const double moved = (scene.position() - start).length();
  INFO("moved " << moved * 1000 << " mm after ten jolts into the slope");
  CHECK(moved < 0.01);
}

TEST_CASE("at rest on flat ground the chassis speed RMS over 5 s is below 1 mm/s") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  spec.centerOfMassForward = 0.2f;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  // Speed two ways: from the distance the chassis moves each step, and as the vehicle reports it.
  double movedSquares = 0, reportedSquares = 0;
  const int steps = int(5 / kStep);
  for (int i = 0; i < steps; ++i) {
    const btVector3 before = car.chassis->getCenterOfMassPosition();
    world.step(kStep);
    movedSquares += ((car.chassis->getCenterOfMassPosition() - before) / kStep).length2();
    reportedSquares += car.vehicle->linearVelocity().length2();
  }
  const double movedRms = std::sqrt(movedSquares / steps);
  const double reportedRms = std::sqrt(reportedSquares / steps);
  INFO("speed RMS " << movedRms * 1000 << " mm/s moved, " << reportedRms * 1000 << " mm/s reported");
  CHECK(movedRms < 0.001);
  CHECK(reportedRms < 0.001);
}

TEST_CASE("on a moving platform slip is relative to the platform: a parked car rides along") {
  TestWorld world;
  const btVector3 platformVelocity(2, 0, 0);  // m/s, sideways to the car
  btRigidBody* platform = world.addBox(0, btVector3(20, 0.5f, 20),
                                       btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)),
                                       1, true);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  car.vehicle->setHandbrake(true);
  btTransform platformTransform = platform->getWorldTransform();
  for (int i = 0; i < int(3 / kStep); ++i) {
    platformTransform.setOrigin(platformTransform.getOrigin() + platformVelocity * kStep);
    platform->getMotionState()->setWorldTransform(platformTransform);
    world.step(kStep);
  }
  CHECK(platform->getLinearVelocity().x() == within(2, 1e-3));
  const btVector3 carVelocity = car.chassis->getLinearVelocity();
  CHECK(carVelocity.x() == within(2, 0.01));
  CHECK(std::fabs(carVelocity.z()) < 0.01);
  CHECK(car.vehicle->wheelState(0).inContact);
}

namespace {

// A platform the game moves by its transform, and the velocity it gives the platform for the
// coming step from Bullet's pre-tick callback (README, "Known limitations": moving platforms).
struct PlatformVelocity {
  btRigidBody* platform = nullptr;
  btVector3 linear{0, 0, 0};   // m/s
  btVector3 angular{0, 0, 0};  // rad/s
  static void preTick(btDynamicsWorld* world, btScalar) {
    auto* given = static_cast<PlatformVelocity*>(world->getWorldUserInfo());
    given->platform->setLinearVelocity(given->linear);
    given->platform->setAngularVelocity(given->angular);
  }
};

// The reference car parked (footbrake and handbrake) on a kinematic deck `halfSize` m square,
// `carX` m from its centre; with `givenVelocity`, the deck takes `given`'s velocity each step.
struct ParkedOnPlatform {
  TestWorld world;
  btRigidBody* platform;
  TestCar car;
  PlatformVelocity given;
  ParkedOnPlatform(btScalar halfSize, btScalar carX, bool givenVelocity) {
    platform = world.addBox(0, btVector3(halfSize, 0.5f, halfSize),
                            btTransform(btQuaternion::getIdentity(), btVector3(0, -0.5f, 0)), 1, true);
    CarSpec spec;
    car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(carX, restHeight(spec), 0)));
    DriverInput park;
    park.handbrake = true;
    park.brake = 1;
    car.vehicle->setInput(park);
    given.platform = platform;
    if (givenVelocity) world.world().setInternalTickCallback(&PlatformVelocity::preTick, &given, true);
  }
  void settle() {
    for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
  }
};

}  // namespace

TEST_CASE("a platform speeding up: a braked car lags a t dt on Bullet's velocity, and rides along given the coming step's") {
  // Bullet gives a kinematic body, as its velocity, the move of its last step, and moves the
  // chassis with the velocity the car's last step left before the car's action runs: while the
  // platform gains a dt a step, the car follows a step behind and falls back a dt^2 a step, a T dt
  // over T seconds (41.7 mm for 2.5 m/s^2 over 2 s at 1/120 s), a drift no static friction sees.
  // Given the velocity of its coming step, the car stays where it stood on the platform.
  // Budgets: 10% on a t dt, for the tires' carcass springs, which deflect a few millimetres while
  // they hold 0.25 g; 1 mm with the given velocity, measured a second after the deck stops
  // speeding up, when the springs carry no force and have relaxed.
  const btScalar acceleration = 2.5;  // m/s^2, sideways to the car
  const btScalar seconds = 2;         // of acceleration, then 1 s at the speed reached
  for (const bool givenVelocity : {false, true}) {
    CAPTURE(givenVelocity);
    ParkedOnPlatform scene(20, 0, givenVelocity);
    btRigidBody* platform = scene.platform;
    TestCar& car = scene.car;
    scene.settle();
    btTransform deck = platform->getWorldTransform();
    auto offset = [&] { return car.chassis->getCenterOfMassPosition().x() - deck.getOrigin().x(); };
    const btScalar start = offset();
    btScalar speed = 0;  // m/s
    const int accelerating = int(std::lround(seconds / kStep));
    for (int i = 0; i < accelerating + int(1 / kStep); ++i) {
      if (i < accelerating) speed += acceleration * kStep;
      deck.setOrigin(deck.getOrigin() + btVector3(speed * kStep, 0, 0));
      platform->getMotionState()->setWorldTransform(deck);
      scene.given.linear.setValue(i + 1 < accelerating ? speed + acceleration * kStep : speed, 0, 0);
      scene.world.step(kStep);
    }
    const double drift = start - offset();  // m the car fell back on the platform
    if (givenVelocity) {
      CHECK(std::fabs(drift) < 0.001);
    } else {
      CHECK(drift == within(acceleration * seconds * kStep, 0.1));  // a t dt
    }
  }
}

TEST_CASE("a slowly turning platform: Bullet reads it as still, and given its velocity it turns a parked car with it") {
  // A turntable at 0.05 rad/s: 4.2e-4 rad a step at 1/120 s, which Bullet's velocity from the
  // transforms (a quaternion's angle, 2 acos w, with w within a float's rounding of 1) reads as
  // 0 in single precision: the car stands while the deck turns 28.6 deg under it in 10 s. Given
  // the deck's velocity in the pre-tick callback, the car keeps its place and heading on the
  // deck. Budget: 2 mm and 2 mrad, the carcass springs' hold under the deck's centripetal pull
  // (0.0025 m/s^2 at 1 m) and the one step the car follows the deck late (README).
  for (const bool givenVelocity : {false, true}) {
#ifdef BT_USE_DOUBLE_PRECISION
    if (!givenVelocity) continue;  // in double precision Bullet reads the turn
#endif
    CAPTURE(givenVelocity);
    ParkedOnPlatform scene(10, 1, givenVelocity);
    btRigidBody* platform = scene.platform;
    TestCar& car = scene.car;
    scene.settle();
    const btScalar rate = 0.05f;  // rad/s about the up axis
    scene.given.angular.setValue(0, rate, 0);
    btTransform deck = platform->getWorldTransform();
    const btTransform startOnDeck = deck.inverse() * car.chassis->getWorldTransform();
    const btMatrix3x3 startInWorld = car.chassis->getWorldTransform().getBasis();
    btScalar angle = 0;
    for (int i = 0; i < int(10 / kStep); ++i) {
      angle += rate * kStep;
      deck.setRotation(btQuaternion(btVector3(0, 1, 0), angle));
      platform->getMotionState()->setWorldTransform(deck);
      scene.world.step(kStep);
    }
    if (givenVelocity) {
      const btTransform onDeck = deck.inverse() * car.chassis->getWorldTransform();
      CHECK((onDeck.getOrigin() - startOnDeck.getOrigin()).length() < 0.002);
      const btScalar turned = (startOnDeck.getBasis().transpose() * onDeck.getBasis()).getRow(2).dot(btVector3(1, 0, 0));
      CHECK(std::fabs(turned) < 0.002);  // rad: sin of the car's turn on the deck
    } else {
      CHECK(platform->getAngularVelocity().length() == 0);
      const btScalar turned = (startInWorld.transpose() * car.chassis->getWorldTransform().getBasis()).getRow(2).dot(btVector3(1, 0, 0));
      CHECK(std::fabs(turned) < 0.002);  // rad: the car did not turn in the world
    }
  }
}

TEST_CASE("a car parked on a dynamic box: the box carries the car's weight") {
  TestWorld world;
  btRigidBody* ground = world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  const btScalar boxMass = 500;
  btRigidBody* box = world.addBox(boxMass, btVector3(2, 0.25f, 3),
                                  btTransform(btQuaternion::getIdentity(), btVector3(0, 0.25f, 0)), 1);
  box->setActivationState(DISABLE_DEACTIVATION);
  CarSpec spec;
  TestCar car = addCar(world, spec,
                       btTransform(btQuaternion::getIdentity(), btVector3(0, 0.5f + restHeight(spec), 0)));
  car.vehicle->setHandbrake(true);
  for (int i = 0; i < int(2 / kStep); ++i) world.step(kStep);
  const btVector3 boxStart = box->getCenterOfMassPosition();
  for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
  // The ground's contact impulses on the box over one step, divided by the step: the weight of
  // box and car together.
  double groundImpulse = 0;
  btDispatcher* dispatcher = world.world().getDispatcher();
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    const bool boxOnGround = (manifold->getBody0() == box && manifold->getBody1() == ground) ||
                             (manifold->getBody0() == ground && manifold->getBody1() == box);
    if (!boxOnGround) continue;
    for (int p = 0; p < manifold->getNumContacts(); ++p)
      groundImpulse += manifold->getContactPoint(p).getAppliedImpulse();
  }
  const double carried = groundImpulse / kStep;
  const double expected = (boxMass + spec.mass) * kGravity;
  INFO("ground carries " << carried << " N, expected " << expected << " N");
  CHECK(carried == within(expected, 0.02));
  CHECK(car.vehicle->wheelState(0).groundObject == box);
  CHECK((box->getCenterOfMassPosition() - boxStart).length() < 0.001);
}
