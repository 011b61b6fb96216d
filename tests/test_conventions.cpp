// Axis conventions, determinism, time-step convergence, rendering transforms, debug drawing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {

struct Sample {
  btVector3 position;
  btQuaternion orientation;
  btVector3 velocity;
};

// 6 s of driving: settle, accelerate while steering left, then brake. Inputs depend on time only,
// so runs at different steps see the same driver.
std::vector<Sample> drive(const CarSpec& spec, const btVector3& gravity, const btVector3& up,
                          btScalar dt, int sampleEvery = 1) {
  TestWorld world(gravity);
  world.addStaticPlane(up, btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), up * restHeight(spec)));
  RaycastVehicle& vehicle = *car.vehicle;
  std::vector<Sample> samples;
  const int steps = int(std::lround(6 / dt));
  for (int i = 0; i < steps; ++i) {
    const btScalar time = btScalar(i) * dt;
    const bool accelerating = time > 1 && time < 4;
    for (int wheel = 2; wheel < 4; ++wheel) vehicle.setDriveTorque(wheel, accelerating ? 500 : 0);
    for (int wheel = 0; wheel < 2; ++wheel) {
      vehicle.setSteerAngle(wheel, time > 2 ? 0.25f : 0);
      vehicle.setBrakeTorque(wheel, time > 4.5f ? 800 : 0);
    }
    world.step(dt);
    if ((i + 1) % sampleEvery == 0) {
      const btTransform& transform = car.chassis->getWorldTransform();
      samples.push_back({transform.getOrigin(), transform.getRotation(), car.chassis->getLinearVelocity()});
    }
  }
  return samples;
}

CarSpec zUpSpec() {
  CarSpec spec;
  spec.axes.up = btVector3(0, 0, 1);
  spec.axes.forward = btVector3(0, 1, 0);
  return spec;
}

}  // namespace

TEST_CASE("a Y-up and a Z-up world give the same trajectory up to the rotation between them") {
  // Y-up car: (right, up, forward) = (-x, y, z). Z-up car: (x, z, y). The rotation taking the
  // first onto the second maps x -> -x, y -> z, z -> y.
  const btMatrix3x3 rotation(-1, 0, 0, 0, 0, 1, 0, 1, 0);
  const std::vector<Sample> yUp = drive(CarSpec{}, btVector3(0, -9.81f, 0), btVector3(0, 1, 0), 1.0f / 120);
  const std::vector<Sample> zUp = drive(zUpSpec(), btVector3(0, 0, -9.81f), btVector3(0, 0, 1), 1.0f / 120);
  REQUIRE(yUp.size() == zUp.size());
  double largest = 0;
  for (size_t i = 0; i < yUp.size(); ++i)
    largest = std::max<double>(largest, (rotation * yUp[i].position - zUp[i].position).length());
  const double travelled = (yUp.back().position - yUp.front().position).length();
  INFO("largest difference " << largest * 1000 << " mm over " << travelled << " m");
  CHECK(travelled > 10);
  // Only float rounding differs between the two (about 5 um here); 0.1 mm over > 10 m.
  CHECK(largest < 1e-4);
}

TEST_CASE("two runs with the same inputs are bitwise identical") {
  const std::vector<Sample> first = drive(CarSpec{}, btVector3(0, -9.81f, 0), btVector3(0, 1, 0), 1.0f / 120);
  const std::vector<Sample> second = drive(CarSpec{}, btVector3(0, -9.81f, 0), btVector3(0, 1, 0), 1.0f / 120);
  REQUIRE(first.size() == second.size());
  size_t differing = 0;
  for (size_t i = 0; i < first.size(); ++i)
    differing += std::memcmp(&first[i], &second[i], sizeof(Sample)) != 0;
  CHECK(differing == 0);
}

TEST_CASE("results converge at first order as the step shrinks: 1/60, 1/120, 1/240 s") {
  // Against a 1/480 s reference, a first-order method's error is proportional to h - h_ref:
  // 7 : 3 : 1 for 1/60, 1/120, 1/240 s. The ratios are checked to within about 30%.
  const btVector3 gravity(0, -9.81f, 0), up(0, 1, 0);
  const btVector3 reference = drive(CarSpec{}, gravity, up, 1.0f / 480).back().position;
  double error[3];
  const int rates[3] = {60, 120, 240};
  for (int i = 0; i < 3; ++i) {
    const btVector3 end = drive(CarSpec{}, gravity, up, 1.0f / btScalar(rates[i])).back().position;
    error[i] = (end - reference).length();
  }
  INFO("errors " << error[0] * 1000 << ", " << error[1] * 1000 << ", " << error[2] * 1000
                 << " mm after ~17 m");
  CHECK(error[0] < 0.25);
  CHECK(error[0] / error[1] == within(7.0 / 3, 0.3));
  CHECK(error[1] / error[2] == within(3.0, 0.3));
}

TEST_CASE("wheel transforms follow suspension travel, steering and rolling") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  RaycastVehicle& vehicle = *car.vehicle;
  for (int i = 0; i < 120; ++i) world.step(1.0f / 120);
  // At rest the wheel centre is one radius above the ground, below its attachment point.
  const btTransform wheel = vehicle.wheelWorldTransform(0);
  CHECK(wheel.getOrigin().y() == within(spec.radius, 0.01));
  // Steering left turns the wheel's forward axis towards +x (left in a Y-up, Z-forward car).
  vehicle.setSteerAngle(0, 0.3f);
  const btVector3 wheelForward = vehicle.wheelWorldTransform(0).getBasis() * btVector3(0, 0, 1);
  CHECK(wheelForward.x() == within(std::sin(0.3), 1e-4));
  vehicle.setSteerAngle(0, 0);
  // Rolling forward at v: the rotation advances by v t / R and the top of the wheel moves forward.
  car.chassis->setLinearVelocity(btVector3(0, 0, 5));
  for (int i = 0; i < 60; ++i) world.step(1.0f / 120);
  const btScalar before = vehicle.wheelState(0).rotationAngle;
  const btTransform wheelBefore = vehicle.wheelWorldTransform(0);
  world.step(1.0f / 120);
  const btScalar advance = std::remainder(vehicle.wheelState(0).rotationAngle - before, SIMD_2_PI);
  CHECK(advance == within(vehicle.forwardSpeed() / 120 / spec.radius, 0.02));
  const btVector3 topBefore = wheelBefore.getBasis() * btVector3(0, spec.radius, 0);
  const btVector3 topAfter = vehicle.wheelWorldTransform(0).getBasis() * btVector3(0, spec.radius, 0);
  CHECK(topAfter.z() > topBefore.z());
}

namespace {
class CountingDrawer final : public btIDebugDraw {
 public:
  int normals = 0, longitudinals = 0, laterals = 0, others = 0;
  void drawLine(const btVector3& from, const btVector3& to, const btVector3& colour) override {
    CHECK(std::isfinite((to - from).length()));
    if (colour == btVector3(1, 0, 0)) ++normals;
    else if (colour == btVector3(0, 0, 1)) ++longitudinals;
    else if (colour == btVector3(0, 1, 0)) ++laterals;
    else ++others;
  }
  void drawContactPoint(const btVector3&, const btVector3&, btScalar, int, const btVector3&) override {}
  void reportErrorWarning(const char*) override {}
  void draw3dText(const btVector3&, const char*) override {}
  void setDebugMode(int) override {}
  int getDebugMode() const override { return DBG_DrawWireframe; }
};
}  // namespace

TEST_CASE("debugDraw: per wheel on the ground one N (red), Fx (blue) and Fy (green) vector") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  world.step(1.0f / 120);
  CountingDrawer drawer;
  car.vehicle->debugDraw(&drawer);
  CHECK(drawer.normals == 4);
  CHECK(drawer.longitudinals == 4);
  CHECK(drawer.laterals == 4);
  CHECK(drawer.others >= 4 * 3);  // suspension, rim, spoke
  // Airborne: rims and suspension only.
  car.chassis->setCenterOfMassTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 50, 0)));
  world.step(1.0f / 120);
  CountingDrawer airborne;
  car.vehicle->debugDraw(&airborne);
  CHECK(airborne.normals + airborne.longitudinals + airborne.laterals == 0);
  CHECK(airborne.others >= 4 * 3);
  car.vehicle->debugDraw(nullptr);  // no drawer: nothing happens
}
