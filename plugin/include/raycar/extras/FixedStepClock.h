#pragma once
// The timing model of seed 002: fixed simulation steps, interpolated rendering.
//
// Each frame adds its duration to an accumulator; the simulation takes as many fixed steps as the
// accumulator holds, and the remainder, as a fraction of a step (alpha in [0, 1)), says how far
// the drawing lies between the state before the last step and the state after it:
//   draw = lerp(previous, current, alpha)          positions, steer angles
//   draw = lerpAngle(previous, current, alpha)     yaw (the short way round)
// The accumulator is clamped to maxStepsPerFrame steps (5 in seed 002), so a slow frame (a debugger
// stop, a window drag) slows the simulation down instead of making every later frame slower
// still (the "spiral of death").
//
// Dependency-free on purpose (a game's render loop includes it alone): tests/test_fixed_step_clock.cpp
// checks it in every build; the viewer draws with it.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace raycar {

inline double lerp(double from, double to, double alpha) { return from + (to - from) * alpha; }

// From one angle (rad) to another the short way round: the result differs from `from` by at most
// pi times alpha, whichever multiples of 2 pi the two carry.
inline double lerpAngle(double from, double to, double alpha) {
  const double difference = std::remainder(to - from, 2 * 3.14159265358979323846);
  return from + difference * alpha;
}

class FixedStepClock {
 public:
  // stepSeconds finite and > 0, maxStepsPerFrame >= 1, or std::invalid_argument naming the
  // argument: a step of 0 took maxStepsPerFrame steps of nothing every frame and drew at NaN.
  explicit FixedStepClock(double stepSeconds, int maxStepsPerFrame = 5)
      : stepSeconds_(stepSeconds), maxStepsPerFrame_(maxStepsPerFrame) {
    if (!(stepSeconds > 0) || !std::isfinite(stepSeconds)) {
      char given[32];
      std::snprintf(given, sizeof(given), "%g", stepSeconds);  // -1e-09, not to_string's -0.000000
      throw std::invalid_argument(std::string("FixedStepClock: stepSeconds must be a finite number of seconds above 0, not ") +
                                  given);
    }
    if (maxStepsPerFrame < 1)
      throw std::invalid_argument("FixedStepClock: maxStepsPerFrame must be at least 1, not " +
                                  std::to_string(maxStepsPerFrame));
  }

  // Adds one frame's duration (s; negative or NaN counts as 0) and returns how many fixed steps
  // the simulation takes now (0 .. maxStepsPerFrame).
  int advance(double frameSeconds) {
    if (frameSeconds > 0) accumulatorSeconds_ += frameSeconds;
    accumulatorSeconds_ = std::min(accumulatorSeconds_, maxStepsPerFrame_ * stepSeconds_);
    int steps = 0;
    // A frame exactly one step long gives exactly one step: the tolerance absorbs rounding.
    while (steps < maxStepsPerFrame_ && accumulatorSeconds_ >= stepSeconds_ * (1 - kTolerance)) {
      accumulatorSeconds_ = std::max(0.0, accumulatorSeconds_ - stepSeconds_);
      ++steps;
    }
    return steps;
  }

  // Where the drawing lies between the last two simulated states, [0, 1).
  double alpha() const { return std::min(accumulatorSeconds_ / stepSeconds_, 1.0 - kTolerance); }
  double stepSeconds() const { return stepSeconds_; }
  double accumulatorSeconds() const { return accumulatorSeconds_; }
  int maxStepsPerFrame() const { return maxStepsPerFrame_; }

 private:
  static constexpr double kTolerance = 1e-9;
  double stepSeconds_;
  int maxStepsPerFrame_;
  double accumulatorSeconds_ = 0;
};

}  // namespace raycar
