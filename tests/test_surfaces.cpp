// Surfaces (SurfaceTable.h): the friction of a tire surface on a ground material, read where each
// wheel touches the ground, per object and per mesh triangle, through every kind of ground query.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "TestWorld.h"
#include "Tolerance.h"
#include "raycar/Error.h"
#include "raycar/tire/SurfaceTable.h"

using namespace raycar;
using namespace raycar::test;

namespace {

constexpr int kAsphalt = 0;
constexpr int kIce = 1;
constexpr btScalar kIceFriction = 0.2f;
constexpr btScalar kMeshSize = 200;  // m
constexpr btScalar kMeshCell = 2;    // m

// The reference car on a flat 200 m mesh whose triangles at x > 0 (under the car's left wheels:
// the car faces +z, its right is -x) are ice, in a table that names ice only. Settled 1 s.
struct SplitScene {
  TestWorld world;
  TestCar car;
  btRigidBody* ground = nullptr;
  std::shared_ptr<SurfaceTable> table = std::make_shared<SurfaceTable>();

  explicit SplitScene(const VehicleSettings& settings, bool withTable = true) {
    ground = world.addGridMesh(kMeshSize, kMeshCell, btTransform::getIdentity(), 1,
                               [](btScalar, btScalar) { return btScalar(0); });
    const int cells = int(std::lround(kMeshSize / kMeshCell));
    std::vector<int> materials(size_t(2 * cells * cells));
    for (int row = 0; row < cells; ++row)
      for (int column = 0; column < cells; ++column) {
        const btScalar centreX = -kMeshSize / 2 + (column + btScalar(0.5)) * kMeshCell;
        materials[size_t(2 * (row * cells + column))] = centreX > 0 ? kIce : kAsphalt;
        materials[size_t(2 * (row * cells + column) + 1)] = centreX > 0 ? kIce : kAsphalt;
      }
    table->setTriangleMaterials(*ground, materials);
    table->setFriction(0, kIce, kIceFriction);
    car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 1)),
                 &settings);
    if (withTable) car.vehicle->setSurfaceTable(table);
    run(1);
  }
  void run(btScalar seconds) {
    for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) world.step(kStep);
  }
};

}  // namespace

TEST_CASE("each wheel reads its own triangle's material and the table's friction, through every ground query") {
  // Left wheels (0, 2) stand on ice triangles, right wheels (1, 3) on asphalt ones. The ice pair's
  // friction replaces (tire + ground) / 2 exactly (the reference car has no load sensitivity);
  // asphalt, which the table does not name, keeps (1 + 1) / 2.
  struct Case {
    const char* name;
    GroundQueryKind kind;
    bool cache;
  };
  const Case cases[] = {
      {"ray, cached triangles", GroundQueryKind::Ray, true},
      {"ray, Bullet's ray test", GroundQueryKind::Ray, false},
      {"sphere, cached triangles", GroundQueryKind::Sphere, true},
      {"cylinder, cached triangles", GroundQueryKind::Cylinder, true},
      {"cylinder, Bullet's convex sweep", GroundQueryKind::Cylinder, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    VehicleSettings settings = makeCarSettings(CarSpec{});
    for (WheelSettings& wheel : settings.wheels) wheel.groundQuery = c.kind;
    settings.wheelQuery.cache = c.cache;
    SplitScene scene(settings);
    for (int wheel = 0; wheel < 4; ++wheel) {
      CAPTURE(wheel);
      const WheelState& state = scene.car.vehicle->wheelState(wheel);
      const bool left = wheel % 2 == 0;
      REQUIRE(state.inContact);
      CHECK(state.groundMaterial == (left ? kIce : kAsphalt));
      CHECK(state.friction == doctest::Approx(left ? kIceFriction : 1).epsilon(1e-6));
    }
  }
}

TEST_CASE("a table's pair friction sets a locked slide's stopping distance v^2 / (2 g mu), within the wheel's clamp") {
  // Every wheel locked by the handbrake from 15 m/s on ground of one material (setMaterial on a
  // plane): the slide decelerates at mu share g with mu the pair's friction (clamped to the
  // wheel's min/max) and share what the locked tire's curve keeps of its peak (lockedSlideShare),
  // so it stops in v^2 / (2 g mu share). Budget 2%, as the grip scale's slide (test_driving.cpp):
  // the speed lost settling into the slide, the last 0.5 m/s in seed 001's box, the last step.
  struct Case {
    btScalar pairFriction;
    btScalar minFriction;
    btScalar expectedSurface;  // the pair within the clamp
  };
  const Case cases[] = {{0.5f, 0, 0.5f}, {0.3f, 0, 0.3f}, {0.1f, 0.3f, 0.3f}};
  for (const Case& c : cases) {
    CAPTURE(c.pairFriction);
    CAPTURE(c.minFriction);
    CarSpec spec;
    spec.rearHandbrakeOnly = false;
    VehicleSettings settings = makeCarSettings(spec);
    for (WheelSettings& wheel : settings.wheels) wheel.minFriction = c.minFriction;
    TestWorld world;
    btRigidBody* plane = world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    auto table = std::make_shared<SurfaceTable>();
    table->setMaterial(*plane, 7);
    table->setFriction(0, 7, c.pairFriction);
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)),
                         &settings);
    car.vehicle->setSurfaceTable(table);
    CHECK(car.vehicle->surfaceTable().get() == table.get());
    for (int i = 0; i < 120; ++i) world.step(kStep);
    car.chassis->setLinearVelocity(car.vehicle->worldForward() * 15);
    car.vehicle->setHandbrake(true);
    const btVector3 start = car.chassis->getCenterOfMassPosition();
    world.step(kStep);
    const btScalar friction = car.vehicle->wheelState(0).friction;
    CHECK(car.vehicle->wheelState(0).groundMaterial == 7);
    CHECK(friction == doctest::Approx(c.expectedSurface).epsilon(1e-6));
    for (int i = 0; i < 3000 && car.vehicle->forwardSpeed() > 0.001f; ++i) world.step(kStep);
    const double distance = (car.chassis->getCenterOfMassPosition() - start).length();
    CHECK(distance == within(15.0 * 15.0 / (2 * kGravity * friction * lockedSlideShare(spec)), 0.02));
  }
}

TEST_CASE("split-mu braking on a table's ice yaws the car toward the grippy side, as the same grip set by grip scale does") {
  // From 20 m/s, full brake, left wheels on ice (0.2), right on asphalt (1): the right wheels
  // brake harder and turn the nose right. The same friction given by the game's grip scale on a
  // plane (0.2 on the left wheels) is an independent route to the same forces: after 0.75 s
  // (about 25 deg of yaw, every wheel still on its own side of the ice's edge) the headings agree
  // within 1% (budget: the mesh's and the plane's contact points differ by float rounding only;
  // later the spinning car's wheels cross the edge, where the two grounds differ).
  auto brake = [](TestCar& car, TestWorld& world) {
    RaycastVehicle& vehicle = *car.vehicle;
    const btVector3 forward = vehicle.worldForward();
    const btVector3 right = vehicle.worldRight();
    car.chassis->setLinearVelocity(forward * 20);
    DriverInput input;
    input.brake = 1;
    for (int i = 0; i < int(0.75f / kStep); ++i) {
      vehicle.setInput(input);
      world.step(kStep);
    }
    // Heading change toward the right (rad): > 0 when the nose turned right.
    const btVector3 now = vehicle.worldForward();
    return std::atan2(double(now.dot(right)), double(now.dot(forward)));
  };
  const VehicleSettings settings = makeCarSettings(CarSpec{});
  SplitScene split(settings);
  const double tableYaw = brake(split.car, split.world);

  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 1)),
                       &settings);
  car.vehicle->setGripScale(0, kIceFriction);
  car.vehicle->setGripScale(2, kIceFriction);
  for (int i = 0; i < 120; ++i) world.step(kStep);
  const double scaleYaw = brake(car, world);

  CAPTURE(tableYaw);
  CAPTURE(scaleYaw);
  CHECK(tableYaw > 0.1);  // toward the right, the grippy side
  CHECK(tableYaw == within(scaleYaw, 0.01));

  // Without the table the mesh is one friction everywhere: the car brakes straight.
  SplitScene plain(settings, false);
  CHECK(std::fabs(brake(plain.car, plain.world)) < 0.01);
}

TEST_CASE("a surface table refuses bad friction, reports unnamed pairs, and falls back to an object's material") {
  SurfaceTable table;
  CHECK_THROWS_AS(table.setFriction(0, 1, -0.1f), InputError);
  CHECK_THROWS_AS(table.setFriction(0, 1, NAN), InputError);
  CHECK_THROWS_AS(table.setFriction(0, 1, 11), InputError);
  table.setFriction(-3, 2, 0.7f);
  CHECK(table.friction(-3, 2) == 0.7f);
  CHECK(table.friction(2, -3) < 0);
  btCollisionObject object, unknown;
  CHECK(table.material(&unknown, 0, 5) == 0);
  table.setMaterial(object, 4);
  table.setTriangleMaterials(object, {1, 2, 3}, 1);
  CHECK_THROWS_AS(table.setTriangleMaterials(object, {1}, -1), InputError);
  CHECK(table.material(&object, 1, 2) == 3);
  CHECK(table.material(&object, 1, 3) == 4);   // past the list: the object's
  CHECK(table.material(&object, 0, 0) == 4);   // a part without a list
  CHECK(table.material(&object, -1, -1) == 4); // not a mesh hit
  table.setMaterial(object, 5);                // drops the triangles' list
  CHECK(table.material(&object, 1, 2) == 5);
  table.removeObject(object);
  CHECK(table.material(&object, 1, 2) == 0);
}

TEST_CASE("a table's rolling resistance slows a coasting car at C_rr g m / (m + sum I / R^2), and only on its pair") {
  // A gravel trap: the ground's material adds C_rr to the tire's rolling resistance (the test
  // car's own is 0, and it has no drag), a torque C_rr N R against each wheel's spin. The car
  // and its wheels slow together: C_rr m g over the mass with the wheels' inertia,
  // m + sum I / R^2 (as the drive test's). Budget 2%: the loads' settling and the last step.
  // A pair the table does not name adds nothing: the same car on another material coasts on.
  struct Case {
    int material;
    btScalar rollingResistance;  // C_rr the table gives surface 0 on material 7
    double expected;             // m/s^2
  };
  CarSpec spec;
  const double effectiveMass = spec.mass + 4 * spec.spinInertia / (spec.radius * spec.radius);
  const Case cases[] = {{7, 0.04f, 0.04 * 9.81 * spec.mass / effectiveMass},
                        {7, 0.2f, 0.2 * 9.81 * spec.mass / effectiveMass},
                        {3, 0.2f, 0}};
  for (const Case& c : cases) {
    CAPTURE(c.material);
    CAPTURE(c.rollingResistance);
    TestWorld world;
    btRigidBody* plane = world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    auto table = std::make_shared<SurfaceTable>();
    table->setMaterial(*plane, c.material);
    table->setRollingResistance(0, 7, c.rollingResistance);
    CHECK(table->rollingResistance(0, 7) == c.rollingResistance);
    CHECK(table->friction(0, 7) < 0);  // rolling resistance alone names no friction
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
    car.vehicle->setSurfaceTable(table);
    for (int i = 0; i < 120; ++i) world.step(kStep);
    car.chassis->setLinearVelocity(car.vehicle->worldForward() * 20);
    for (int i = 0; i < 60; ++i) world.step(kStep);  // the wheels roll up to the road
    const double before = car.vehicle->forwardSpeed();
    for (int i = 0; i < 240; ++i) world.step(kStep);
    const double deceleration = (before - car.vehicle->forwardSpeed()) / (240 * kStep);
    CAPTURE(deceleration);
    if (c.expected > 0) CHECK(deceleration == within(c.expected, 0.02));
    else CHECK(std::fabs(deceleration) < 1e-3);
  }
  SurfaceTable table;
  for (const btScalar bad : {btScalar(-0.1), btScalar(1.5), std::numeric_limits<btScalar>::quiet_NaN()})
    CHECK_THROWS_WITH_AS(table.setRollingResistance(2, 5, bad),
                         "surface 2 on material 5: rolling resistance must lie in [0, 1]", InputError);
}
