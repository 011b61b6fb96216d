#pragma once
// Per-axis minimum and maximum of two vectors, as selects rather than branches.
//
// btVector3::setMin and setMax branch on each axis (btSetMin: if (b < a) a = b). Around a car's
// wheels which way those comparisons go follows the car's heading and tilt, so with many cars
// the processor's branch predictor guesses them no better than a coin: the box around the wheel
// rays alone cost 8.6 of the 158 branches a car's step mispredicts (callgrind's branch model,
// bench at 100 cars). Written as a select the compiler emits minss / maxss. x, y and z are
// setMin's and setMax's bit for bit, NaN included: (b < a) ? b : a keeps a when either is NaN, as
// btSetMin's branch does. The fourth float, which Bullet's scalar build also takes the min or
// max of, is left as it is: no box here is read beyond z.

#include <LinearMath/btVector3.h>

namespace raycar {

inline btScalar minOf(btScalar a, btScalar b) { return b < a ? b : a; }
inline btScalar maxOf(btScalar a, btScalar b) { return a < b ? b : a; }

// Written out axis by axis: GCC 12 at -O2 left a loop over the axes rolled, one more branch each.
inline void setMinPerAxis(btVector3& a, const btVector3& b) {
  a[0] = minOf(a[0], b[0]);
  a[1] = minOf(a[1], b[1]);
  a[2] = minOf(a[2], b[2]);
}

inline void setMaxPerAxis(btVector3& a, const btVector3& b) {
  a[0] = maxOf(a[0], b[0]);
  a[1] = maxOf(a[1], b[1]);
  a[2] = maxOf(a[2], b[2]);
}

}  // namespace raycar
