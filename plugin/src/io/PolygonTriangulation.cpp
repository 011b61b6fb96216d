#include "io/PolygonTriangulation.h"

#include <cmath>

namespace raycar {
namespace {

// The most corners a face is ear-clipped with (triangulatePolygon).
constexpr int kMostEarClippedCorners = 512;

struct Point2 {
  double u, v;
};

// Twice the signed area of the triangle a b c (> 0: counter-clockwise).
double doubleArea(const Point2& a, const Point2& b, const Point2& c) {
  return (b.u - a.u) * (c.v - a.v) - (b.v - a.v) * (c.u - a.u);
}

void fan(int count, std::vector<std::array<int, 3>>& triangles) {
  for (int i = 1; i + 1 < count; ++i) triangles.push_back({0, i, i + 1});
}

// tinyobjloader's rule for a quad: the diagonal 0-2 when it is the shorter, else 1-3, computed
// in single precision as it computes it, so that a model of quads loads as it always has.
void quad(const std::vector<btVector3>& corners, std::vector<std::array<int, 3>>& triangles) {
  auto squared = [&](int a, int b) {
    const float x = float(corners[size_t(b)].x()) - float(corners[size_t(a)].x());
    const float y = float(corners[size_t(b)].y()) - float(corners[size_t(a)].y());
    const float z = float(corners[size_t(b)].z()) - float(corners[size_t(a)].z());
    return x * x + y * y + z * z;
  };
  if (squared(0, 2) < squared(1, 3)) {
    triangles.push_back({0, 1, 2});
    triangles.push_back({0, 2, 3});
  } else {
    triangles.push_back({0, 1, 3});
    triangles.push_back({1, 2, 3});
  }
}

}  // namespace

void triangulatePolygon(const std::vector<btVector3>& corners, std::vector<std::array<int, 3>>& triangles) {
  const int count = int(corners.size());
  if (count < 3) return;
  if (count == 3) {
    triangles.push_back({0, 1, 2});
    return;
  }
  // Newell's normal: the face's plane even when some corners are collinear or it is not flat.
  double nx = 0, ny = 0, nz = 0, extent = 0;
  for (int i = 0; i < count; ++i) {
    const btVector3& a = corners[size_t(i)];
    const btVector3& b = corners[size_t((i + 1) % count)];
    nx += (double(a.y()) - double(b.y())) * (double(a.z()) + double(b.z()));
    ny += (double(a.z()) - double(b.z())) * (double(a.x()) + double(b.x()));
    nz += (double(a.x()) - double(b.x())) * (double(a.y()) + double(b.y()));
    extent = std::fmax(extent, double((b - a).length()));
  }
  const double length = std::sqrt(nx * nx + ny * ny + nz * nz);
  // Twice the face's area is `length`: a face with none is cut as a fan (its triangles are as
  // degenerate as it is).
  if (!(length > 1e-12 * extent * extent)) {
    fan(count, triangles);
    return;
  }
  nx /= length, ny /= length, nz /= length;
  // Two axes in the plane, with u x v along the normal, so the outline runs counter-clockwise.
  double ux, uy, uz;
  if (std::fabs(nx) < 0.9) ux = 0, uy = -nz, uz = ny;  // (1, 0, 0) x n
  else ux = nz, uy = 0, uz = -nx;                      // (0, 1, 0) x n
  const double uLength = std::sqrt(ux * ux + uy * uy + uz * uz);
  ux /= uLength, uy /= uLength, uz /= uLength;
  const double vx = ny * uz - nz * uy, vy = nz * ux - nx * uz, vz = nx * uy - ny * ux;
  std::vector<Point2> points(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const btVector3& p = corners[size_t(i)];
    points[size_t(i)] = {ux * p.x() + uy * p.y() + uz * p.z(), vx * p.x() + vy * p.y() + vz * p.z()};
  }
  // Below this, twice a triangle's area is none (rounding in the projection).
  const double tinyArea = 1e-9 * extent * extent;

  // A convex face (every turn left or straight, once round): a quad as tinyobjloader cut it.
  bool convex = true;
  double turning = 0;
  for (int i = 0; i < count && convex; ++i) {
    const Point2& a = points[size_t((i + count - 1) % count)];
    const Point2& b = points[size_t(i)];
    const Point2& c = points[size_t((i + 1) % count)];
    const double turn = doubleArea(a, b, c);
    convex = turn >= -tinyArea;
    turning += std::atan2(turn, (b.u - a.u) * (c.u - b.u) + (b.v - a.v) * (c.v - b.v));
  }
  constexpr double kFullTurn = 6.283185307179586;  // rad
  convex = convex && turning < kFullTurn + 0.5;  // not a star wound twice round
  if (convex && count == 4) {
    quad(corners, triangles);
    return;
  }
  // Ear clipping takes up to count^3 steps: a face of more corners than a modeller draws (a file
  // made by a program, or a fuzzer's) is cut as a fan. Its triangles overlap where the face is
  // concave, but their signed areas still add up to the face's, so a part's volume integrals stay
  // exact; only its drawing shows the overlap.
  if (count > kMostEarClippedCorners) {
    fan(count, triangles);
    return;
  }

  // Ear clipping: a corner whose turn is strictly left and whose ear (it and its two neighbours)
  // holds no other corner, on its edges included, is cut off; the first such corner from the
  // start each time, so a convex face becomes a fan from its first corner.
  std::vector<int> remaining(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) remaining[size_t(i)] = i;
  while (remaining.size() > 3) {
    const size_t size = remaining.size();
    bool clipped = false;
    for (size_t k = 0; k < size && !clipped; ++k) {
      const int previous = remaining[(k + size - 1) % size];
      const int corner = remaining[k];
      const int next = remaining[(k + 1) % size];
      const Point2& a = points[size_t(previous)];
      const Point2& b = points[size_t(corner)];
      const Point2& c = points[size_t(next)];
      if (!(doubleArea(a, b, c) > tinyArea)) continue;  // reflex, or on a straight run
      bool empty = true;
      for (size_t j = 0; j < size && empty; ++j) {
        const int other = remaining[j];
        if (other == previous || other == corner || other == next) continue;
        const Point2& p = points[size_t(other)];
        // A corner at the same place as one of the ear's (a face touching itself) does not block.
        if ((p.u == a.u && p.v == a.v) || (p.u == b.u && p.v == b.v) || (p.u == c.u && p.v == c.v)) continue;
        empty = !(doubleArea(a, b, p) >= -tinyArea && doubleArea(b, c, p) >= -tinyArea &&
                  doubleArea(c, a, p) >= -tinyArea);
      }
      if (!empty) continue;
      triangles.push_back({previous, corner, next});
      remaining.erase(remaining.begin() + std::ptrdiff_t(k));
      clipped = true;
    }
    if (!clipped) {
      // No ear: the outline crosses itself. The rest as a fan, for the checks to name.
      for (size_t i = 1; i + 1 < remaining.size(); ++i)
        triangles.push_back({remaining[0], remaining[i], remaining[i + 1]});
      return;
    }
  }
  triangles.push_back({remaining[0], remaining[1], remaining[2]});
}

}  // namespace raycar
