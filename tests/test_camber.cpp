// Camber (WheelSettings::staticCamber, camberGain; TireSettings::camberStiffness): the wheel's
// lean against the ground and the camber thrust C_gamma gamma it rolls with.
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {

constexpr btScalar kCamberStiffness = 1;  // per rad: C_gamma = N / rad

struct Rolling {
  TestWorld world;
  TestCar car;
  Rolling(const VehicleSettings& settings, btScalar speed, btScalar steer, btScalar seconds) {
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 0)),
                 &settings);
    for (int i = 0; i < 60; ++i) world.step(kStep);
    car.chassis->setLinearVelocity(car.vehicle->worldForward() * speed);
    DriverInput input;
    input.steer = steer;
    for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) {
      car.vehicle->setInput(input);
      world.step(kStep);
    }
  }
};

VehicleSettings camberedCar(btScalar staticDegrees, btScalar gain = 0) {
  VehicleSettings settings = makeCarSettings(CarSpec{});
  for (WheelSettings& wheel : settings.wheels) {
    wheel.staticCamber = staticDegrees;
    wheel.camberGain = gain;
    wheel.tire.camberStiffness = kCamberStiffness;
  }
  return settings;
}

}  // namespace

TEST_CASE("a cambered wheel rolling straight makes the camber thrust C_gamma gamma toward its lean") {
  // Every wheel at -2 deg (tops leaning in) rolling straight at 15 m/s: the thrusts cancel in
  // pairs and the car runs straight, each wheel pushing toward the centre line with
  // C_gamma gamma = k N gamma. Budget 1%: the lateral curve's bend at the slip angle's shift
  // (0.14 deg here), and the load the tire's law used (the step's spring estimate) against the
  // load the solve settled (within 0.1% once rolling steadily).
  for (const btScalar degrees : {-2.0f, 1.0f}) {
    CAPTURE(degrees);
    Rolling rolling(camberedCar(degrees), 15, 0, 2);
    const RaycastVehicle& vehicle = *rolling.car.vehicle;
    const btScalar gamma = degrees * SIMD_RADS_PER_DEG;
    for (int wheel = 0; wheel < 4; ++wheel) {
      CAPTURE(wheel);
      const WheelState& state = vehicle.wheelState(wheel);
      CHECK(state.camber == doctest::Approx(gamma).epsilon(1e-3));
      // Lean to the right: a left wheel's outward lean is to its left.
      const double leanRight = wheel % 2 == 0 ? -gamma : gamma;
      CHECK(state.lateralForce == within(kCamberStiffness * state.normalLoad * leanRight, 0.01));
    }
    CHECK(std::fabs(rolling.car.chassis->getCenterOfMassPosition().x()) < 0.01);  // straight
  }
}

TEST_CASE("camber follows body roll and the gain: the outer wheels lean out in a turn") {
  // A steady left turn at 15 m/s rolls the body toward the outside (right). With no static camber
  // and no gain the wheels lean with the body: the outer (right) wheels' camber is +roll and the
  // inner ones' -roll, roll measured from the chassis' up axis against the ground's. A gain adds
  // gain x (compression - rest compression) on top.
  for (const btScalar gain : {0.0f, -20.0f}) {
    CAPTURE(gain);
    Rolling rolling(camberedCar(0, gain), 15, 0.15f, 3);
    const RaycastVehicle& vehicle = *rolling.car.vehicle;
    const btVector3 up = rolling.car.chassis->getWorldTransform().getBasis() * vehicle.settings().axes.up;
    btVector3 groundRight = vehicle.worldRight();
    groundRight.setY(0);
    groundRight.normalize();
    const double roll = std::atan2(double(up.dot(groundRight)), double(up.y()));  // > 0: toward the right
    CAPTURE(roll);
    REQUIRE(roll > 0.005);
    for (int wheel = 0; wheel < 4; ++wheel) {
      CAPTURE(wheel);
      const WheelState& state = vehicle.wheelState(wheel);
      const WheelSettings& wheelSettings = vehicle.wheelSettings(wheel);
      const double rest = wheelSettings.suspensionMaxLength - wheelSettings.suspensionRestLength;
      const double fromGain = gain * (state.suspensionCompression - rest) * SIMD_RADS_PER_DEG;
      const bool outer = wheel % 2 == 1;
      // The steered fronts lean about their own forward axis: cos(steer) of the body's roll.
      const double rollShare = std::cos(state.steerAngle);
      CHECK(state.camber == within((outer ? roll : -roll) * rollShare + fromGain, 0.01));
    }
  }
}
