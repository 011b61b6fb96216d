// The viewer's timing model (seed 002): fixed steps from an accumulator clamped to 5 steps, alpha
// for the interpolation, lerp and lerpAngle. Header-only and dependency-free, so it is tested in
// every build, with or without RAYCAR_BUILD_VIEWER.
#include <doctest/doctest.h>

#include <cmath>

#include "raycar/extras/FixedStepClock.h"

using raycar::FixedStepClock;
using raycar::lerp;
using raycar::lerpAngle;

namespace {
constexpr double kPi = 3.14159265358979323846;
}

TEST_CASE("fixed step clock: a frame one step long takes exactly one step, every time") {
  // The screenshot mode's frame time: 1000 frames must be 1000 steps, alpha 0 each time.
  for (double step : {0.01, 1.0 / 120, 0.008333333, 1.0 / 60}) {
    FixedStepClock clock(step);
    int steps = 0;
    for (int frame = 0; frame < 1000; ++frame) {
      const int taken = clock.advance(step);
      CHECK(taken == 1);
      steps += taken;
      CHECK(clock.alpha() < 1e-6);
    }
    CHECK(steps == 1000);
  }
}

TEST_CASE("fixed step clock: steps and alpha from the accumulated time") {
  struct Row {
    double frameSeconds;
    int steps;     // taken by this frame
    double alpha;  // afterwards
  };
  // Step 0.01 s. Each row is one frame, in order.
  const Row rows[] = {
      {0.004, 0, 0.4},   // not yet a step: draw 40% of the way from the previous state
      {0.004, 0, 0.8},
      {0.004, 1, 0.2},   // 12 ms: one step, 2 ms left
      {0.025, 2, 0.7},   // 27 ms: two steps, 7 ms left
      {0.0, 0, 0.7},     // an empty frame changes nothing
      {-1.0, 0, 0.7},    // nor does a negative one
  };
  FixedStepClock clock(0.01);
  for (const Row& row : rows) {
    CAPTURE(row.frameSeconds);
    CHECK(clock.advance(row.frameSeconds) == row.steps);
    CHECK(clock.alpha() == doctest::Approx(row.alpha).epsilon(1e-9));
  }
}

TEST_CASE("fixed step clock: a long frame is clamped to 5 steps (no spiral of death)") {
  FixedStepClock clock(0.01);
  CHECK(clock.maxStepsPerFrame() == 5);
  CHECK(clock.advance(1.0) == 5);  // a 1 s hitch simulates 50 ms, not 1 s
  CHECK(clock.accumulatorSeconds() < 1e-12);
  CHECK(clock.alpha() < 1e-9);
  CHECK(clock.advance(0.005) == 0);  // and the next frame starts afresh
  CHECK(clock.alpha() == doctest::Approx(0.5));
  FixedStepClock three(0.02, 3);
  CHECK(three.advance(0.5) == 3);
}

TEST_CASE("fixed step clock: a step that is no length of time, or no steps a frame, is refused") {
  // Each would otherwise run: a step of 0 s took 5 steps of nothing a frame and drew at NaN.
  for (const double step : {0.0, -0.01, std::nan(""), HUGE_VAL}) {
    CAPTURE(step);
    CHECK_THROWS_WITH_AS(FixedStepClock{step}, doctest::Contains("FixedStepClock: stepSeconds must be"),
                         std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(FixedStepClock{-1e-9}, doctest::Contains("above 0, not -1e-09"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((FixedStepClock{0.01, 0}), doctest::Contains("FixedStepClock: maxStepsPerFrame must be at least 1"),
                       std::invalid_argument);
  CHECK_NOTHROW((FixedStepClock{1e-6, 1}));
}

TEST_CASE("lerp and lerpAngle") {
  CHECK(lerp(2.0, 4.0, 0.0) == 2.0);
  CHECK(lerp(2.0, 4.0, 0.25) == doctest::Approx(2.5));
  CHECK(lerp(-1.0, 1.0, 0.5) == doctest::Approx(0.0));
  // Angles go the short way round, across +-pi and whatever turns the two carry.
  struct Row {
    double from, to, alpha, expected;
  };
  const Row rows[] = {
      {0.0, 1.0, 0.5, 0.5},                           // plain
      {kPi - 0.1, -kPi + 0.1, 0.5, kPi},              // across +pi: through pi, not through 0
      {-kPi + 0.1, kPi - 0.1, 0.5, -kPi},             // across -pi
      {0.1, 0.3 + 4 * kPi, 0.5, 0.2},                 // two extra turns on `to` are ignored
      {6 * kPi + 0.2, 0.0, 1.0, 6 * kPi},             // lands on `to` modulo 2 pi
  };
  for (const Row& row : rows) {
    CAPTURE(row.from);
    CAPTURE(row.to);
    CHECK(lerpAngle(row.from, row.to, row.alpha) == doctest::Approx(row.expected).epsilon(1e-12));
  }
}
