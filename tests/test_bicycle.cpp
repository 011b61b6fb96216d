// Seed 002's kinematic bicycle: its equations, its explicit step and its clamps.
#include <doctest/doctest.h>

#include <cmath>

#include "Tolerance.h"
#include "raycar/extras/KinematicBicycle.h"

using namespace raycar;
using namespace raycar::test;

TEST_CASE("one step is seed 002's explicit update, position before speed") {
  KinematicBicycleSettings settings;
  settings.wheelbase = 2.75f;
  KinematicBicycle bicycle(settings, {1, 2, 0.3f, 2.0f, 0});
  bicycle.step(0.5f, 0.2f, 0.01f);
  const KinematicBicycleState& s = bicycle.state();
  CHECK(s.x == within(1 + 2.0 * std::cos(0.3) * 0.01, 1e-6));
  CHECK(s.y == within(2 + 2.0 * std::sin(0.3) * 0.01, 1e-6));
  CHECK(s.speed == within(2.0 + 0.5 * 0.01, 1e-6));
  CHECK(s.heading == within(0.3 + 2.0 * std::tan(0.2) / 2.75 * 0.01, 1e-6));
}

TEST_CASE("the clamps: a <= 1 m/s^2, delta <= 45 deg, v <= 2.78 m/s, psi' <= pi/2") {
  KinematicBicycle bicycle(KinematicBicycleSettings{});
  bicycle.step(5, 2, 0.01f);  // asks for 5 m/s^2 and 115 deg
  CHECK(bicycle.state().speed == within(0.01, 1e-5));
  CHECK(bicycle.state().steer == within(0.785, 1e-6));
  for (int i = 0; i < 1000; ++i) bicycle.step(1, 0, 0.01f);
  CHECK(bicycle.state().speed == within(2.78, 1e-6));
  // Heading rate clamp: 2.78 tan(45 deg) / 0.5 m = 5.6 rad/s would exceed pi/2.
  KinematicBicycleSettings shortCar;
  shortCar.wheelbase = 0.5f;
  KinematicBicycle sharp(shortCar, {0, 0, 0, 2.78f, 0});
  sharp.step(0, 0.785f, 0.01f);
  CHECK(sharp.state().heading == within(SIMD_HALF_PI * 0.01, 1e-5));
}

TEST_CASE("constant speed and steer trace a circle of radius L / tan(delta)") {
  KinematicBicycleSettings settings;
  KinematicBicycle bicycle(settings, {0, 0, 0, 2.0f, 0});
  const btScalar steer = 0.4f;
  double minX = 1e9, maxX = -1e9;
  for (int i = 0; i < 4000; ++i) {
    bicycle.step(0, steer, 0.005f);
    minX = std::min<double>(minX, bicycle.state().x);
    maxX = std::max<double>(maxX, bicycle.state().x);
  }
  // Explicit Euler on a circle spirals out slowly: within 1% after about two laps at 5 ms.
  CHECK((maxX - minX) / 2 == within(2.75 / std::tan(0.4), 0.01));
}
