// The closed-form sweep of a wheel's sphere or cylinder against one triangle (ground/
// TriangleSweep.h), checked against a brute-force answer: the first moment any sampled point of
// the triangle lies inside the moving shape.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ground/TriangleSweep.h"

using namespace raycar;

namespace {

constexpr double kRadius = 0.33;     // m
constexpr double kHalfWidth = 0.125;  // m

// The distance along the sweep at which `point` enters the shape (or +inf), worked out in the
// shape's own frame in double precision: x along the axle, y up (against the sweep), z the third
// axis. The shape's centre is at (0, -t, 0) after a sweep of t.
double entryDistance(const SweptShape& shape, const btVector3& point) {
  const btVector3 relative = point - shape.start;
  const btVector3 up = -shape.down;
  const btVector3 third = shape.axle.cross(up);
  const double x = relative.dot(shape.axle), y = relative.dot(up), z = relative.dot(third);
  // Inside: |x| <= w/2 and (y + t)^2 + z^2 <= R^2 (cylinder); x^2 + (y + t)^2 + z^2 <= R^2.
  const double across2 = shape.cylinder ? z * z : x * x + z * z;
  if (shape.cylinder && std::fabs(x) > kHalfWidth) return INFINITY;
  if (across2 > kRadius * kRadius) return INFINITY;
  return -y - std::sqrt(kRadius * kRadius - across2);
}

struct Reference {
  double distance = INFINITY;
  btVector3 point{0, 0, 0};
};

// The least entry distance over a grid of `faceSteps` per side on the face and `edgeSteps` per
// edge (finer: a touch on an edge is a kink the grid must come close to).
Reference sampled(const SweptShape& shape, const btVector3 (&v)[3], int faceSteps, int edgeSteps) {
  Reference best;
  auto consider = [&](const btVector3& point) {
    const double distance = entryDistance(shape, point);
    if (distance < best.distance) {
      best.distance = distance;
      best.point = point;
    }
  };
  for (int i = 0; i <= faceSteps; ++i)
    for (int j = 0; i + j <= faceSteps; ++j) {
      const btScalar a = btScalar(i) / faceSteps, b = btScalar(j) / faceSteps;
      consider(v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b);
    }
  for (int edge = 0; edge < 3; ++edge)
    for (int k = 0; k <= edgeSteps; ++k)
      consider(v[edge].lerp(v[(edge + 1) % 3], btScalar(k) / edgeSteps));
  if (!shape.cylinder) return best;
  // A cylinder leaning onto a face touches it with a rim: the entry distance over the face has a
  // kink there, which a grid on the face meets only to within its spacing. The rims' own points,
  // each sent along the sweep onto the triangle (a ray-triangle intersection), do not.
  const btVector3 up = -shape.down, third = shape.axle.cross(up);
  const btVector3 e1 = v[1] - v[0], e2 = v[2] - v[0];
  for (int side = -1; side <= 1; side += 2) {
    for (int k = 0; k < edgeSteps; ++k) {
      const double angle = 2 * SIMD_PI * k / edgeSteps;
      const btVector3 rimPoint = shape.start + shape.axle * btScalar(side * kHalfWidth) +
                                 (up * btScalar(std::cos(angle)) + third * btScalar(std::sin(angle))) *
                                     btScalar(kRadius);
      // rimPoint + down t = v0 + e1 a + e2 b, Cramer's rule in double.
      const btVector3 p = shape.down.cross(e2);
      const double determinant = double(e1.dot(p));
      if (std::fabs(determinant) < 1e-12) continue;
      const btVector3 offset = rimPoint - v[0];
      const double a = double(offset.dot(p)) / determinant;
      const btVector3 q = offset.cross(e1);
      const double b = double(shape.down.dot(q)) / determinant;
      const double t = double(e2.dot(q)) / determinant;
      if (a < 0 || b < 0 || a + b > 1 || !(t < best.distance)) continue;
      best.distance = t;
      best.point = rimPoint + shape.down * btScalar(t);
    }
  }
  return best;
}

SweptShape shapeWith(bool cylinder, const btVector3& axle) {
  SweptShape shape;
  shape.cylinder = cylinder;
  shape.radius = btScalar(kRadius);
  shape.halfWidth = cylinder ? btScalar(kHalfWidth) : 0;
  shape.start = btVector3(0, 0, 0);
  shape.down = btVector3(0, -1, 0);
  shape.axle = axle;
  shape.beginDistance = -10;
  shape.endDistance = 10;
  return shape;
}

}  // namespace

TEST_CASE("a sphere or cylinder swept onto a triangle touches it first where the brute-force search finds the first touch") {
  // 400 random triangles around and below the shape (faces, edges, corners, walls, kerb-like
  // edges along the axle), sphere and cylinder, axle turned at random about the vertical.
  // Budget: the closed form is never later than any sampled point's entry (1e-5 m: single-
  // precision rounding of the inputs, ~1e-6, amplified near grazing entries); the sampling is at
  // most 3e-4 m late: a face's minimum away from the rims is smooth, h^2 / (2 R) = 1e-5 m for
  // h = 2.5 mm; an edge's, or a rim's on a face, may be a kink of slope up to ~5, sampled every
  // 5e-5 m along the edge and 1e-4 m along the rim.
  std::mt19937 random(20261123);
  std::uniform_real_distribution<float> unit(-1, 1);
  int touched = 0, edgeTouches = 0;
  for (int shapeKind = 0; shapeKind < 2; ++shapeKind) {
    for (int trial = 0; trial < 200; ++trial) {
      const float heading = unit(random) * float(SIMD_PI);
      const btVector3 axle(std::cos(heading), 0, std::sin(heading));
      const SweptShape shape = shapeWith(shapeKind == 1, axle);
      btVector3 v[3];
      for (btVector3& vertex : v)
        vertex = btVector3(0.5f * unit(random), -0.6f + 0.5f * unit(random), 0.5f * unit(random));
      if (trial % 4 == 1) {  // an edge along the axle, as a kerb square to the wheel
        v[1] = v[0] + axle * (0.2f + 0.3f * std::fabs(unit(random)));
      }
      if (trial % 4 == 2) {  // a wall: one vertex straight above another
        v[2] = v[1] + btVector3(0, 0.4f, 0);
      }
      CAPTURE(shapeKind);
      CAPTURE(trial);
      TriangleTouch touch;
      const bool found = sweepTriangle(shape, v, touch);
      const Reference reference = sampled(shape, v, 400, 20000);
      REQUIRE(found == std::isfinite(reference.distance));
      if (!found) continue;
      ++touched;
      CAPTURE(touch.distance);
      CAPTURE(reference.distance);
      CHECK(touch.distance <= reference.distance + 1e-5);
      CHECK(reference.distance - touch.distance <= 3e-4);
      CHECK(std::fabs(touch.normal.length() - 1) < 1e-5f);
      CHECK(touch.normal.dot(shape.down) <= 1e-6f);  // out of the ground, against the sweep
      const btVector3 faceNormal = (v[1] - v[0]).cross(v[2] - v[0]).normalized();
      if (std::fabs(std::fabs(faceNormal.dot(touch.normal)) - 1) > 1e-4f) ++edgeTouches;
    }
  }
  MESSAGE(touched << " touches, " << edgeTouches << " on an edge or corner");
  CHECK(touched > 200);
  CHECK(edgeTouches > 50);
}

TEST_CASE("the touch's normal is the ground's: moving the shape along the ground changes the touch as n says") {
  // Where the touch is smooth in the shape's position, shifting the start by e across the sweep
  // changes the touch distance by -e (n . shift) / (n . down). Central differences with e = 1 mm
  // in two horizontal directions; a kink (the two one-sided differences disagreeing) is skipped.
  // Budget: single-precision distances over e, 2 * 1e-6 / 1e-3 = 2e-3 in the slope.
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  const btScalar step = 1e-3f;
  int checked = 0;
  for (int shapeKind = 0; shapeKind < 2; ++shapeKind) {
    for (int trial = 0; trial < 200; ++trial) {
      const float heading = unit(random) * float(SIMD_PI);
      SweptShape shape = shapeWith(shapeKind == 1, btVector3(std::cos(heading), 0, std::sin(heading)));
      btVector3 v[3];
      for (btVector3& vertex : v)
        vertex = btVector3(0.5f * unit(random), -0.6f + 0.5f * unit(random), 0.5f * unit(random));
      TriangleTouch touch;
      if (!sweepTriangle(shape, v, touch)) continue;
      const btVector3& n = touch.normal;
      for (const btVector3 across : {btVector3(1, 0, 0), btVector3(0, 0, 1)}) {
        btScalar distances[3];
        bool all = true;
        for (int k = 0; k < 3; ++k) {
          SweptShape shifted = shape;
          shifted.start += across * (step * btScalar(k - 1));
          TriangleTouch moved;
          all = all && sweepTriangle(shifted, v, moved);
          distances[k] = moved.distance;
        }
        if (!all) continue;
        const btScalar backward = (distances[1] - distances[0]) / step;
        const btScalar forward = (distances[2] - distances[1]) / step;
        if (std::fabs(forward - backward) > 4e-3f) continue;  // a kink
        const btScalar expected = -n.dot(across) / n.dot(shape.down);
        CAPTURE(shapeKind);
        CAPTURE(trial);
        CHECK(std::fabs((forward + backward) / 2 - expected) < 2e-3f);
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("touches before the sweep's begin or after its end do not count") {
  // A flat triangle 0.5 m below the centre: a sphere touches it after 0.5 - R of sweep.
  const btVector3 v[3] = {btVector3(-1, -0.5f, -1), btVector3(1, -0.5f, -1), btVector3(0, -0.5f, 1)};
  const btScalar expected = 0.5f - btScalar(kRadius);
  struct Case {
    btScalar begin, end;
    bool counts;
  };
  for (const Case& range : {Case{0, 1, true}, Case{expected + 0.01f, 1, false},
                            Case{0, expected - 0.01f, false}, Case{-1, expected + 0.01f, true}}) {
    SweptShape shape = shapeWith(false, btVector3(1, 0, 0));
    shape.beginDistance = range.begin;
    shape.endDistance = range.end;
    TriangleTouch touch;
    CAPTURE(range.begin);
    CAPTURE(range.end);
    CHECK(sweepTriangle(shape, v, touch) == range.counts);
    if (range.counts) CHECK(std::fabs(touch.distance - expected) < 1e-6f);
  }
  // The same triangle above the shape: it was passed before any begin after -1 m.
  const btVector3 above[3] = {btVector3(-1, 0.5f, -1), btVector3(1, 0.5f, -1), btVector3(0, 0.5f, 1)};
  SweptShape shape = shapeWith(true, btVector3(1, 0, 0));
  shape.beginDistance = 0;
  TriangleTouch touch;
  CHECK_FALSE(sweepTriangle(shape, above, touch));
}
