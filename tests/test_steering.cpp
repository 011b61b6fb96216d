// Steering (seed 001's rates and limits, seed 004's Ackermann) and pedal shaping.
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {
constexpr double kDegree = 3.14159265358979 / 180;
}  // namespace

TEST_CASE("steer_speed: full input reaches max_steer at steer_speed, then holds") {
  SteeringSettings steering;
  steering.maxSteer = 30;
  steering.steerSpeed = 60;  // deg/s: 0.5 s to full lock
  btScalar angle = 0;
  for (int i = 0; i < 30; ++i) angle = updateSteerAngle(steering, angle, 1, 0, kStep);  // 0.25 s
  CHECK(angle == within(15 * kDegree, 1e-4));
  for (int i = 0; i < 60; ++i) angle = updateSteerAngle(steering, angle, 1, 0, kStep);
  CHECK(angle == within(30 * kDegree, 1e-5));
  // Half input: half the lock.
  for (int i = 0; i < 60; ++i) angle = updateSteerAngle(steering, angle, 0.5f, 0, kStep);
  CHECK(angle == within(15 * kDegree, 1e-4));
}

TEST_CASE("steer_relaxation: no input returns to centre at v0 + kv x speed") {
  SteeringSettings steering;
  steering.maxSteer = 30;
  steering.steerRelaxationV0 = 40;  // deg/s
  steering.steerRelaxationKv = 2;   // deg/s per m/s
  btScalar angle = btScalar(30 * kDegree);
  for (int i = 0; i < 30; ++i) angle = updateSteerAngle(steering, angle, 0, 10, kStep);  // 0.25 s at 10 m/s
  CHECK(angle == within((30 - 0.25 * (40 + 2 * 10)) * kDegree, 1e-4));
  for (int i = 0; i < 120; ++i) angle = updateSteerAngle(steering, angle, 0, 10, kStep);
  CHECK(angle == 0);  // and stops at the centre
}

TEST_CASE("max_steer_v0 + max_steer_kv x speed supersedes max_steer") {
  SteeringSettings steering;
  steering.maxSteer = 30;
  steering.maxSteerV0 = 35;
  steering.maxSteerKv = -1;  // deg per m/s
  CHECK(maxSteerAngle(steering, 0) == within(35 * kDegree, 1e-6));
  CHECK(maxSteerAngle(steering, 15) == within(20 * kDegree, 1e-6));
  btScalar angle = 0;
  for (int i = 0; i < 240; ++i) angle = updateSteerAngle(steering, angle, 1, 15, kStep);
  CHECK(angle == within(20 * kDegree, 1e-5));
}

TEST_CASE("steer_speed_valScale slows steering toward full lock, steer_speed_min bounds it") {
  // d angle / dt = s (1 + (k - 1) x^2), x = angle / max. With k = 0.5 the time to full lock is
  // (max / s) int_0^1 dx / (1 - x^2 / 2) = (max / s) sqrt(2) atanh(1 / sqrt(2)) = 1.2465 max / s.
  SteeringSettings steering;
  steering.maxSteer = 30;
  steering.steerSpeed = 60;
  steering.steerSpeedValScale = 0.5f;
  btScalar angle = 0;
  int steps = 0;
  while (angle < btScalar(30 * kDegree) * 0.999f && steps < 10000) {
    angle = updateSteerAngle(steering, angle, 1, 0, btScalar(1.0 / 2400));
    ++steps;
  }
  CHECK(steps / 2400.0 == within(1.2465 * 30 / 60, 0.01));
  // k = -1 would stop at x = 1 / sqrt(2); steer_speed_min = 20 deg/s carries it on to full lock.
  steering.steerSpeedValScale = -1;
  steering.steerSpeedMin = 20;
  angle = 0;
  for (int i = 0; i < 240; ++i) angle = updateSteerAngle(steering, angle, 1, 0, kStep);
  CHECK(angle == within(30 * kDegree, 1e-5));
}

TEST_CASE("pedal_speed ramps the pedal, max_steering_pedal caps it on sharp turns above pedal_limit_speed") {
  SteeringSettings steering;
  steering.pedalSpeed = 2;  // 1/s
  btScalar pedal = 0;
  for (int i = 0; i < 30; ++i) pedal = rampPedal(steering, pedal, 1, kStep);  // 0.25 s
  CHECK(pedal == within(0.5, 1e-5));
  for (int i = 0; i < 60; ++i) pedal = rampPedal(steering, pedal, 1, kStep);
  CHECK(pedal == 1);
  steering.maxSteeringPedal = 0.4f;
  steering.pedalLimitSpeed = 5;
  CHECK(capPedal(steering, 1, 1, 10) == within(0.4, 1e-6));    // full lock, fast
  CHECK(capPedal(steering, 1, 0.5f, 10) == within(0.7, 1e-6)); // half lock
  CHECK(capPedal(steering, 1, 1, 4) == 1);                     // slow: no cap
  CHECK(capPedal(steering, -1, 1, 10) == within(-0.4, 1e-6));  // both directions
}

TEST_CASE("Ackermann: cot(outer) - cot(inner) = track / wheelbase, off, both wheels take one angle") {
  CarSpec spec;
  for (bool ackermann : {true, false}) {
    VehicleSettings settings = makeCarSettings(spec);
    settings.steering.ackermann = ackermann;
    TestWorld world;
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)), &settings);
    DriverInput input;
    input.steer = 0.8f;  // left
    for (int i = 0; i < 60; ++i) {
      car.vehicle->setInput(input);
      world.step(kStep);
    }
    const double inner = car.vehicle->wheelState(0).steerAngle;  // front left
    const double outer = car.vehicle->wheelState(1).steerAngle;
    INFO("ackermann " << ackermann << ": inner " << inner / kDegree << " deg, outer " << outer / kDegree << " deg");
    if (ackermann) {
      CHECK(inner > outer);
      CHECK(1 / std::tan(outer) - 1 / std::tan(inner) == within(spec.track / spec.wheelbase, 0.02));
    } else {
      CHECK(inner == outer);
      CHECK(inner == within(car.vehicle->steerAngle(), 1e-6));
    }
    CHECK(car.vehicle->wheelState(2).steerAngle == 0);
  }
}

TEST_CASE("wheels ahead of the centre of mass steer unless the settings say otherwise") {
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  for (WheelSettings& wheel : settings.wheels) wheel.steering = SteerMode::Automatic;
  settings.wheels[3].steering = SteerMode::Steered;  // a rear-steer wheel, by choice
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)), &settings);
  CHECK(car.vehicle->isSteered(0));
  CHECK(car.vehicle->isSteered(1));
  CHECK_FALSE(car.vehicle->isSteered(2));
  CHECK(car.vehicle->isSteered(3));
}

TEST_CASE("pedal_speed and max_steering_pedal act on the car's pedal") {
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  settings.steering.pedalSpeed = 4;
  settings.steering.maxSteeringPedal = 0.5f;
  settings.steering.pedalLimitSpeed = 3;
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)), &settings);
  DriverInput input;
  input.pedal = 1;
  for (int i = 0; i < 15; ++i) {
    car.vehicle->setInput(input);
    world.step(kStep);
  }
  CHECK(car.vehicle->pedal() == within(4 * 15 * kStep, 1e-4));  // ramping, slow: no cap
  car.chassis->setLinearVelocity(car.vehicle->worldForward() * 8);
  input.steer = 1;
  for (int i = 0; i < 60; ++i) {
    car.vehicle->setInput(input);
    world.step(kStep);
  }
  // Full lock above 3 m/s: capped at 0.5.
  REQUIRE(car.vehicle->forwardSpeed() > 3);
  CHECK(car.vehicle->pedal() == within(0.5, 1e-4));
}
