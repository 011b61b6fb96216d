#pragma once
// A vector as error messages print it: "(x, y, z)", each component as std::to_string writes it.

#include <LinearMath/btVector3.h>

#include <string>

namespace raycar {

inline std::string vectorText(const btVector3& v) {
  return "(" + std::to_string(v.x()) + ", " + std::to_string(v.y()) + ", " + std::to_string(v.z()) + ")";
}

}  // namespace raycar
