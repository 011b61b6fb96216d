// Tire temperature (TireThermalSettings): sliding heats the tire, air cools it, its grip follows
// its temperature.
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"
#include "raycar/Error.h"
#include "raycar/tire/TireTemperature.h"

using namespace raycar;
using namespace raycar::test;

TEST_CASE("a tire's node: a constant power settles at T_ambient + P / h with time constant C / h") {
  // 2 kW at 15 m/s: h = 20 + 8 x 15 = 140 W/K, so 14.3 C above ambient, reached as
  // 1 - exp(-t h / C) (the implicit step at 1/120 s against exp: within 0.1%).
  TireThermalSettings thermal;
  thermal.enabled = true;
  const double h = 20 + 8 * 15.0, rise = 2000 / h, tau = 4000 / h;
  btScalar temperature = thermal.ambientTemperature;
  for (int i = 0; i < int(std::lround(tau / kStep)); ++i)
    temperature = stepTireTemperature(thermal, temperature, 2000, 15, kStep);
  CHECK(temperature - 20 == within(rise * (1 - std::exp(-1.0)), 0.001));
  for (int i = 0; i < int(20 * tau / kStep); ++i)
    temperature = stepTireTemperature(thermal, temperature, 2000, 15, kStep);
  // Single precision: the step stops changing T once its change is under half a unit in T's last
  // place, (P - h dT) dt / C < 2e-6 C, i.e. within 0.01 C of the rise (7e-4 of it).
  CHECK(temperature - 20 == within(rise, 1e-3));
}

TEST_CASE("the grip factor: 1 at the optimum, 1 - loss a window away and beyond") {
  TireThermalSettings thermal;
  thermal.enabled = true;
  struct Row {
    double temperature, factor;
  };
  const Row rows[] = {{90, 1}, {60, 1 - 0.15 * 0.25}, {120, 1 - 0.15 * 0.25}, {30, 0.85}, {150, 0.85},
                      {-20, 0.85}, {400, 0.85}};
  for (const Row& row : rows) {
    CAPTURE(row.temperature);
    CHECK(temperatureGripFactor(thermal, btScalar(row.temperature)) == within(row.factor, 1e-6));
  }
  thermal.enabled = false;
  CHECK(temperatureGripFactor(thermal, 20) == 1);
}

TEST_CASE("energy balance: a locked slide's kinetic energy ends up as heat in the tires") {
  // The reference car (no drag, no rolling resistance) slides from 15 m/s to a stop on four
  // handbraked wheels, its tires uncooled: sum C dT = 1/2 m v^2. Budget 2%: the dampers' share
  // as the body pitches into the slide and settles.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  VehicleSettings settings = makeCarSettings(spec);
  for (WheelSettings& wheel : settings.wheels) {
    wheel.tire.thermal.enabled = true;
    wheel.tire.thermal.cooling = 0;
    wheel.tire.thermal.coolingPerSpeed = 0;
  }
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)),
                       &settings);
  for (int i = 0; i < 120; ++i) world.step(kStep);
  car.chassis->setLinearVelocity(car.vehicle->worldForward() * 15);
  car.vehicle->setHandbrake(true);
  for (int i = 0; i < 3000 && car.vehicle->forwardSpeed() > 0.001f; ++i) world.step(kStep);
  for (int i = 0; i < 120; ++i) world.step(kStep);
  double heat = 0;
  for (int wheel = 0; wheel < 4; ++wheel)
    heat += 4000 * (car.vehicle->wheelState(wheel).tireTemperature - 20.0);
  CAPTURE(heat);
  CHECK(heat == within(0.5 * 1200 * 15 * 15, 0.02));
}

TEST_CASE("a warm-up lap raises the tires' temperature and with it their grip") {
  // The reference car on a circle at 14 m/s, its tires starting at an ambient 20 C (grip factor
  // 0.85, the whole loss: 20 C is more than a window below the optimum): 30 s of cornering
  // slip warm them, the outer ones past 30 C, and each tire's friction is g(T) of its
  // temperature (no load sensitivity: the friction is the surface's times g).
  VehicleSettings settings = makeCarSettings(CarSpec{});
  for (WheelSettings& wheel : settings.wheels) wheel.tire.thermal.enabled = true;
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 0)),
                       &settings);
  for (int i = 0; i < 120; ++i) world.step(kStep);
  const btScalar coldFriction = car.vehicle->wheelState(1).friction;
  CHECK(coldFriction == within(0.85, 1e-5));
  DriverInput input;
  input.steer = 0.5f;
  car.chassis->setLinearVelocity(car.vehicle->worldForward() * 14);
  for (int i = 0; i < int(30 / kStep); ++i) {
    car.vehicle->setInput(input);
    car.chassis->setLinearVelocity(car.chassis->getLinearVelocity().normalized() * 14);  // held at 14 m/s
    world.step(kStep);
  }
  for (int wheel = 0; wheel < 4; ++wheel) {
    CAPTURE(wheel);
    const WheelState& state = car.vehicle->wheelState(wheel);
    CAPTURE(state.tireTemperature);
    CHECK(state.tireTemperature > 25);
    // The outer tires (right: 1, 3), loaded and slipping most, warm past 30 C and grip more.
    if (wheel % 2 == 1) CHECK(state.friction > coldFriction + 0.01);
    CHECK(state.friction == within(temperatureGripFactor(settings.wheels[size_t(wheel)].tire.thermal, state.tireTemperature), 1e-3));
  }
  CHECK_THROWS_AS(car.vehicle->setTireTemperature(0, NAN), InputError);
  car.vehicle->setTireTemperature(0, 90);
  CHECK(car.vehicle->wheelState(0).tireTemperature == 90);
}
