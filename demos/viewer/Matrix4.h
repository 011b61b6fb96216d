#pragma once
// A 4x4 float matrix for the shaders (column-major, as OpenGL reads it) and the few projections
// the viewer needs.

#include <LinearMath/btTransform.h>

#include <array>
#include <cmath>

namespace raycar::viewer {

struct Matrix4 {
  std::array<float, 16> values{};  // column-major: values[column * 4 + row]

  float& at(int row, int column) { return values[size_t(column * 4 + row)]; }
  float at(int row, int column) const { return values[size_t(column * 4 + row)]; }
  const float* data() const { return values.data(); }

  static Matrix4 identity() {
    Matrix4 m;
    for (int i = 0; i < 4; ++i) m.at(i, i) = 1;
    return m;
  }
  // An affine map x -> basis x + origin (the basis need not be a rotation).
  static Matrix4 affine(const btMatrix3x3& basis, const btVector3& origin) {
    Matrix4 m = identity();
    for (int row = 0; row < 3; ++row) {
      for (int column = 0; column < 3; ++column) m.at(row, column) = float(basis[row][column]);
      m.at(row, 3) = float(origin[row]);
    }
    return m;
  }
  static Matrix4 fromTransform(const btTransform& transform) {
    return affine(transform.getBasis(), transform.getOrigin());
  }

  Matrix4 operator*(const Matrix4& other) const {
    Matrix4 product;
    for (int row = 0; row < 4; ++row)
      for (int column = 0; column < 4; ++column) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) sum += at(row, k) * other.at(k, column);
        product.at(row, column) = sum;
      }
    return product;
  }
};

// Right-handed perspective (OpenGL clip space), vertical field of view in radians.
inline Matrix4 perspective(float fieldOfViewY, float aspect, float nearDistance, float farDistance) {
  const float f = 1.0f / std::tan(fieldOfViewY / 2);
  Matrix4 m;
  m.at(0, 0) = f / aspect;
  m.at(1, 1) = f;
  m.at(2, 2) = (farDistance + nearDistance) / (nearDistance - farDistance);
  m.at(2, 3) = 2 * farDistance * nearDistance / (nearDistance - farDistance);
  m.at(3, 2) = -1;
  return m;
}

// The camera at `eye` looking at `target`, `up` roughly up.
inline Matrix4 lookAt(const btVector3& eye, const btVector3& target, const btVector3& up) {
  const btVector3 forward = (target - eye).normalized();
  const btVector3 right = forward.cross(up).normalized();
  const btVector3 cameraUp = right.cross(forward);
  Matrix4 m = Matrix4::identity();
  for (int column = 0; column < 3; ++column) {
    m.at(0, column) = float(right[column]);
    m.at(1, column) = float(cameraUp[column]);
    m.at(2, column) = float(-forward[column]);
  }
  m.at(0, 3) = float(-right.dot(eye));
  m.at(1, 3) = float(-cameraUp.dot(eye));
  m.at(2, 3) = float(forward.dot(eye));
  return m;
}

// Straight down on the ground plane (world Z up) at `pixelsPerMetre`, centred on (centreX,
// centreY), for a viewport of widthPixels x heightPixels; heights map into the depth range.
inline Matrix4 topDownProjection(double centreX, double centreY, double pixelsPerMetre,
                                 int widthPixels, int heightPixels) {
  Matrix4 m = Matrix4::identity();
  const double scaleX = 2 * pixelsPerMetre / widthPixels, scaleY = 2 * pixelsPerMetre / heightPixels;
  m.at(0, 0) = float(scaleX);
  m.at(0, 3) = float(-centreX * scaleX);
  m.at(1, 1) = float(scaleY);
  m.at(1, 3) = float(-centreY * scaleY);
  m.at(2, 2) = -1.0f / 1000;  // heights within +-1 km stay inside the clip volume
  return m;
}

}  // namespace raycar::viewer
