#include "HillTerrain.h"

#include <cmath>

namespace raycar::bench {

btScalar HillTerrain::height(btScalar x, btScalar z) {
  // Long swells of 1.2 m and short ripples of 0.25 m: slopes stay below about 12 degrees.
  const btScalar swell = 1.2f * std::sin(SIMD_2_PI * x / 80) * std::cos(SIMD_2_PI * z / 64);
  const btScalar ripple = 0.25f * std::sin(SIMD_2_PI * (x + 2 * z) / 17);
  return swell + ripple;
}

HillTerrain::HillTerrain(btScalar sizeMetres, btScalar cellMetres) : size_(sizeMetres) {
  const int cells = int(std::lround(sizeMetres / cellMetres));
  const int side = cells + 1;
  const btScalar origin = -sizeMetres / 2;
  vertices_.reserve(size_t(side) * side * 3);
  for (int row = 0; row < side; ++row) {
    for (int column = 0; column < side; ++column) {
      const btScalar x = origin + column * cellMetres;
      const btScalar z = origin + row * cellMetres;
      vertices_.push_back(x);
      vertices_.push_back(height(x, z));
      vertices_.push_back(z);
    }
  }
  indices_.reserve(size_t(cells) * cells * 6);
  for (int row = 0; row < cells; ++row) {
    for (int column = 0; column < cells; ++column) {
      const int a = row * side + column, b = a + 1, c = a + side, d = c + 1;
      // Counter-clockwise seen from above (+Y), so the face normals point up.
      indices_.insert(indices_.end(), {a, c, b, b, c, d});
    }
  }
  mesh_ = std::make_unique<btTriangleIndexVertexArray>(
      triangleCount(), indices_.data(), int(3 * sizeof(int)), side * side, vertices_.data(),
      int(3 * sizeof(btScalar)));
  shape_ = std::make_unique<btBvhTriangleMeshShape>(mesh_.get(), true);
}

}  // namespace raycar::bench
