#pragma once
// Whether every component of a vector is a finite number: the check that keeps NaN and infinity
// out of the settings and out of the Bullet world.

#include <LinearMath/btVector3.h>

#include <cmath>

namespace raycar {

inline bool isFinite(const btVector3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

}  // namespace raycar
