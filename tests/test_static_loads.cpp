// Static wheel loads: force and moment balance, minimum norm.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "raycar/Error.h"
#include "raycar/vehicle/StaticLoads.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

TEST_CASE("four wheels around the centre of mass carry a quarter of the weight each") {
  const std::vector<SupportPoint> points = {{1.3f, -0.8f}, {1.3f, 0.8f}, {-1.3f, -0.8f}, {-1.3f, 0.8f}};
  const std::vector<btScalar> loads = staticWheelLoads(points, 12000);
  for (btScalar load : loads) CHECK(load == within(3000, 1e-5));
}

TEST_CASE("a centre of mass ahead of mid-wheelbase loads the front axle by the lever rule") {
  // Axles at +1.3 and -1.3 m, centre of mass 0.4 m ahead of mid-wheelbase: the front axle
  // carries W (1.3 + 0.4) / 2.6, split evenly left and right (the minimum-norm choice).
  const btScalar a = 1.3f - 0.4f, b = 1.3f + 0.4f;
  const std::vector<SupportPoint> points = {{a, -0.8f}, {a, 0.8f}, {-b, -0.8f}, {-b, 0.8f}};
  const std::vector<btScalar> loads = staticWheelLoads(points, 10000);
  const double front = 10000.0 * b / 2.6 / 2, rear = 10000.0 * a / 2.6 / 2;
  CHECK(loads[0] == within(front, 1e-5));
  CHECK(loads[1] == within(front, 1e-5));
  CHECK(loads[2] == within(rear, 1e-5));
  CHECK(loads[3] == within(rear, 1e-5));
}

TEST_CASE("three wheels are statically determinate: the unique balancing loads") {
  // Tricycle: one front wheel at (2, 0), rear wheels at (-1, +-0.7). Moment about the rear axle:
  // N_front * 3 = W * 1, so N_front = W / 3 and each rear wheel W / 3.
  const std::vector<SupportPoint> points = {{2, 0}, {-1, -0.7f}, {-1, 0.7f}};
  const std::vector<btScalar> loads = staticWheelLoads(points, 9000);
  for (btScalar load : loads) CHECK(load == within(3000, 1e-5));
}

TEST_CASE("six wheels with two rear axles: balance holds and the split is the most even one") {
  const std::vector<SupportPoint> points = {{2.5f, -1}, {2.5f, 1}, {-1, -1}, {-1, 1}, {-2.4f, -1}, {-2.4f, 1}};
  const btScalar weight = 180000;
  const std::vector<btScalar> loads = staticWheelLoads(points, weight);
  double total = 0, pitch = 0, roll = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    total += loads[i];
    pitch += loads[i] * points[i].forward;
    roll += loads[i] * points[i].right;
  }
  CHECK(total == within(weight, 1e-5));
  CHECK(std::fabs(pitch) < 1e-3 * weight);  // N m: float rounding of 180 kN times metres
  CHECK(std::fabs(roll) < 1e-3 * weight);
  // Minimum norm: loads are affine in position, so left and right of one axle are equal.
  CHECK(loads[2] == within(loads[3], 1e-5));
}

TEST_CASE("two wheels in line (a motorcycle) balance when the centre of mass is above the line") {
  const std::vector<SupportPoint> points = {{0.8f, 0}, {-0.6f, 0}};
  const std::vector<btScalar> loads = staticWheelLoads(points, 2000);
  CHECK(loads[0] == within(2000 * 0.6 / 1.4, 1e-5));
  CHECK(loads[1] == within(2000 * 0.8 / 1.4, 1e-5));
}

TEST_CASE("a centre of mass outside the wheels' support is an error naming the wheel") {
  const std::vector<SupportPoint> points = {{3, -0.8f}, {3, 0.8f}, {1, -0.8f}, {1, 0.8f}};
  try {
    staticWheelLoads(points, 10000);
    FAIL("expected a SettingsError");
  } catch (const SettingsError& error) {
    CHECK(std::string(error.what()).find("wheel 1 would need") != std::string::npos);
  }
}

TEST_CASE("a motorcycle whose centre of mass is beside its wheel line cannot balance") {
  const std::vector<SupportPoint> points = {{0.8f, 0.3f}, {-0.6f, 0.3f}};
  CHECK_THROWS_AS(staticWheelLoads(points, 2000), SettingsError);
}

TEST_CASE("a trailer on one axle cannot balance alone: the error says what to give instead") {
  // Its centre of mass 0.5 m ahead of the axle: only the hitch would hold it.
  const std::vector<SupportPoint> points = {{-0.5f, -0.8f}, {-0.5f, 0.8f}};
  try {
    staticWheelLoads(points, 5886);
    FAIL("expected a SettingsError");
  } catch (const SettingsError& error) {
    const std::string text = error.what();
    CAPTURE(text);
    CHECK(text.find("cannot balance the weight") != std::string::npos);
    CHECK(text.find("a trailer on one axle, by its hitch) gives each wheel's stiffness, damping and "
                    "tire referenceLoad") != std::string::npos);
  }
}
