#pragma once
// The arc tangent the tire reads its slip angles with.
//
// The slip-curve tire's law turns tan(alpha) into alpha for every friction row it is asked about,
// in every sweep of the contact solve: about twenty times a car and step, where libm's atanf was
// 3.4% of a car's instructions (about 60 instructions a call, with its range tests and its call).
// A single-precision build reads it from one polynomial instead, within 2e-7 rad of the exact
// value (a float's own spacing at pi/4 is 6e-8 rad); a double-precision build keeps std::atan, whose
// accuracy its users chose that precision for.

#include <LinearMath/btScalar.h>

#include <cmath>

namespace raycar {

// atan(x) (rad). NaN gives NaN, +-infinity +-pi/2.
inline btScalar arcTangent(btScalar x) {
#ifdef BT_USE_DOUBLE_PRECISION
  return std::atan(x);
#else
  // atan(x) = pi/2 - atan(1/x) takes |x| > 1 into [0, 1], where atan(t) = t P(t^2) with P the
  // degree-7 Chebyshev fit of atan(sqrt(u)) / sqrt(u) on u in [0, 1] (mpmath.chebyfit): its
  // own error is 1.1e-7 rad, and evaluated in floats the result stays within 1.8e-7 rad (the
  // most just above 1, where pi/2 - atan(1/x) adds the rounding of pi/2 and of the difference).
  const float magnitude = std::fabs(x);
  const bool inverted = magnitude > 1;
  const float t = inverted ? 1 / magnitude : magnitude;
  const float u = t * t;
  float p = -0.00455979211255908f;
  p = p * u + 0.023780519142746925f;
  p = p * u - 0.05882975459098816f;
  p = p * u + 0.09868865460157394f;
  p = p * u - 0.14003290235996246f;
  p = p * u + 0.19966961443424225f;
  p = p * u - 0.3333181142807007f;
  p = p * u + 0.9999998807907104f;
  const float angle = inverted ? SIMD_HALF_PI - p * t : p * t;
  return std::copysign(angle, x);
#endif
}

}  // namespace raycar
