// Slip lag (TireSettings::slipLag): a rolling tire's side force builds over its relaxation length.
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {

constexpr btScalar kSigma = 1;  // m

VehicleSettings laggingCar(bool lag) {
  VehicleSettings settings = makeCarSettings(CarSpec{});
  for (WheelSettings& wheel : settings.wheels) {
    wheel.tire.slipLag = lag;
    wheel.tire.relaxationLength = kSigma;
  }
  return settings;
}

// The front-left wheel's side force after its steer steps to 1 deg at t = 0, the car rolling at
// `speed` with its chassis held to its straight line (no yaw rate, no side speed), so the wheel's
// slip angle steps with the steer and stays there. One sample per step of `step` s.
std::vector<double> stepResponse(bool lag, btScalar speed, btScalar step) {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  const VehicleSettings settings = laggingCar(lag);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 0)),
                       &settings);
  for (int i = 0; i < int(0.5f / step); ++i) world.step(step);
  car.chassis->setLinearVelocity(car.vehicle->worldForward() * speed);
  for (int i = 0; i < int(0.2f / step); ++i) world.step(step);  // rolling steadily
  car.vehicle->setSteerAngle(0, btScalar(1 * SIMD_RADS_PER_DEG));
  std::vector<double> force;
  for (int i = 0; i < int(0.5f / step); ++i) {
    // Held to its line: no side speed, no yaw (the vehicle's solve sets the chassis' velocities
    // itself, past Bullet's linear and angular factors).
    btVector3 velocity = car.chassis->getLinearVelocity();
    velocity.setX(0);
    velocity.setZ(speed);
    car.chassis->setLinearVelocity(velocity);
    car.chassis->setAngularVelocity(btVector3(0, 0, 0));
    world.step(step);
    force.push_back(car.vehicle->wheelState(0).lateralForce);
  }
  return force;
}

}  // namespace

TEST_CASE("slip lag: a step in slip angle brings the side force up as 1 - exp(-x / sigma') over the distance rolled") {
  // At 20 m/s and sigma 1 m, stepped at 1/600 s. The lag relaxes at V' = |Vx| + eps (the slip
  // angle's own speed, 20.5 m/s), so over distance x the force rises as 1 - exp(-x V' / (V sigma)):
  // 63.2% at x = V sigma / V' = 0.976 m. Budget: a step's travel (3.3 cm: the force is sampled
  // once a step) plus the implicit step's lag ((1 + h)^-1 per step against exp(-h), h = 0.034,
  // about h / 2 of sigma). Without the lag the force is at its steady value in the first step.
  const btScalar speed = 20, step = btScalar(1.0 / 600);
  const std::vector<double> lagged = stepResponse(true, speed, step);
  const std::vector<double> instant = stepResponse(false, speed, step);
  const double steady = lagged.back();
  REQUIRE(std::fabs(steady) > 100);
  CHECK(steady == within(instant.back(), 0.01));  // the lag leaves the steady force alone
  // Without the lag the first step already has 98.5% of it (the wheel's spin settles in that step).
  CHECK(instant.front() == within(instant.back(), 0.02));
  size_t crossing = 0;
  while (crossing < lagged.size() && std::fabs(lagged[crossing]) < (1 - std::exp(-1.0)) * std::fabs(steady))
    ++crossing;
  const double distance = (crossing + 1) * step * speed;  // the sample after `crossing` steps
  const double expected = kSigma * speed / (speed + 0.5);
  CAPTURE(distance);
  CHECK(std::fabs(distance - expected) < speed * step + 0.5 * 0.034 * kSigma);
  // Monotone rise: a first-order lag does not overshoot.
  for (size_t i = 1; i < lagged.size(); ++i) CHECK(std::fabs(lagged[i]) >= std::fabs(lagged[i - 1]) - 1e-3);
}

TEST_CASE("slip lag at standstill: a car parked across a 10 degree slope holds, without ringing") {
  // No brakes: only the tires' side grip holds the car across the slope. Below the stick speed
  // the rows are static friction (the carcass spring), with or without the lag: the car moves
  // under 1 cm in 10 s and its speed RMS stays under 1 mm/s (test_holding.cpp's figures).
  const btQuaternion tilt(btVector3(0, 0, 1), btScalar(10 * SIMD_RADS_PER_DEG));  // about forward
  const btVector3 normal = quatRotate(tilt, btVector3(0, 1, 0));
  for (const bool lag : {true, false}) {
    CAPTURE(lag);
    TestWorld world;
    world.addStaticPlane(normal, btVector3(0, 0, 0), 1);
    const VehicleSettings settings = laggingCar(lag);
    TestCar car = addCar(world, CarSpec{}, btTransform(tilt, normal * restHeight(CarSpec{})), &settings);
    for (int i = 0; i < int(1 / kStep); ++i) world.step(kStep);
    const btVector3 start = car.chassis->getCenterOfMassPosition();
    // Speed from the distance the chassis moves each step (Bullet's velocity after a step holds
    // the step's gravity, which the vehicle's next solve takes out).
    double squares = 0;
    const int steps = int(10 / kStep);
    for (int i = 0; i < steps; ++i) {
      const btVector3 before = car.chassis->getCenterOfMassPosition();
      world.step(kStep);
      squares += ((car.chassis->getCenterOfMassPosition() - before) / kStep).length2();
    }
    const double moved = (car.chassis->getCenterOfMassPosition() - start).length();
    CAPTURE(moved);
    CHECK(moved < 0.01);
    CHECK(std::sqrt(squares / steps) < 0.001);
  }
}
