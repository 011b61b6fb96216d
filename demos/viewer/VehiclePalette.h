#pragma once
// Colours shared by the 3-D and top-down views: vehicle 1 (the one the keyboard drives) is red,
// the others take turns from a palette; force vectors are Fx blue and Fy green (seed 004).

#include <cstddef>

#include "LitMeshShader.h"

namespace raycar::viewer {

inline Color vehicleColor(size_t index) {
  static const Color palette[] = {
      {0.86f, 0.16f, 0.12f, 1},  // vehicle 1
      {0.20f, 0.40f, 0.85f, 1}, {0.90f, 0.75f, 0.15f, 1}, {0.25f, 0.70f, 0.35f, 1},
      {0.85f, 0.85f, 0.88f, 1}, {0.55f, 0.30f, 0.75f, 1}, {0.95f, 0.50f, 0.15f, 1},
  };
  if (index == 0) return palette[0];
  return palette[1 + (index - 1) % (sizeof(palette) / sizeof(palette[0]) - 1)];
}

inline Color darker(const Color& color, float factor) {
  return {color.red * factor, color.green * factor, color.blue * factor, color.alpha};
}

const Color kTireColor{0.13f, 0.13f, 0.14f, 1};
const Color kSuspensionColor{0.62f, 0.62f, 0.60f, 1};
const Color kLongitudinalForceColor{0.15f, 0.35f, 1.0f, 1};  // Fx: blue
const Color kLateralForceColor{0.10f, 0.85f, 0.20f, 1};      // Fy: green
const Color kQueryShapeColor{0.95f, 0.80f, 0.15f, 1};       // a wheel's sphere or cylinder cast
const Color kGhostColor{1.0f, 1.0f, 1.0f, 0.8f};             // seed 002's bicycle
const Color kParkingSpaceColor{1.0f, 0.85f, 0.10f, 1};

// Force vectors are drawn this many metres long for a force equal to the wheel's static load.
constexpr double kForceVectorMetresPerStaticLoad = 1.5;

}  // namespace raycar::viewer
