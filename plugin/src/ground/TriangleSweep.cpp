#include "ground/TriangleSweep.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace raycar {
namespace {

// sin(5 deg): a plane leaning this far across a cylinder wheel has its touching point at the rim.
constexpr btScalar kRimLean = btScalar(0.0872);
// Barycentric slack for "the touching point lies inside the triangle" (a point on a shared
// edge belongs to both triangles; either gives the same plane when they are coplanar).
constexpr btScalar kInsideSlack = btScalar(1e-6);
// |axle x edge|^2 below this (3e-4 rad) counts as an edge along the axle: the contact is then a
// line, placed at the middle of the overlap. The tilt it ignores moves the touch by at most
// w/2 * 3e-4 (4e-5 m on a 25 cm wheel); single precision resolves no finer angle here.
constexpr btScalar kParallelEdge = btScalar(1e-7);

// Whether `point` (on the triangle's plane) lies inside the triangle: each of its barycentric
// coordinates, the signed area it spans with an edge over the triangle's, is >= -kInsideSlack.
bool insideTriangle(const btVector3 (&v)[3], const btVector3& twiceArea, const btVector3& point) {
  const btScalar scale = twiceArea.length2();
  for (int edge = 0; edge < 3; ++edge) {
    const btVector3& a = v[edge];
    const btVector3& b = v[(edge + 1) % 3];
    if ((b - a).cross(point - a).dot(twiceArea) < -kInsideSlack * scale) return false;
  }
  return true;
}

// The candidate touches of the boundary; the least distance wins.
class BoundaryTouch {
 public:
  void offer(btScalar distance, const btVector3& point, const btVector3& normal) {
    if (!std::isfinite(distance) || (found_ && !(distance < best_.distance))) return;
    const btScalar length2 = normal.length2();
    if (!(length2 > SIMD_EPSILON)) return;
    found_ = true;
    best_.distance = distance;
    best_.point = point;
    best_.normal = normal / std::sqrt(length2);
  }
  bool found() const { return found_; }
  const TriangleTouch& best() const { return best_; }

 private:
  bool found_ = false;
  TriangleTouch best_;
};

// The first distance at which `point` enters the swept shape, and the shape's centre (axis
// point) nearest to it then; false when the sweep passes it by. A cylinder's point must lie
// between its rims (`alongAxle` is its coordinate along the axle from the centre).
bool pointEntry(const SweptShape& shape, const btVector3& point, btScalar& distance,
                btVector3& centre) {
  btVector3 radial = point - shape.start;
  btVector3 direction = shape.down;
  if (shape.cylinder) {
    const btScalar alongAxle = shape.axle.dot(radial);
    if (std::fabs(alongAxle) > shape.halfWidth) return false;
    radial -= shape.axle * alongAxle;
    direction -= shape.axle * shape.axle.dot(direction);
  }
  // |radial - direction t| = R, the smaller root.
  const btScalar dd = direction.length2();
  const btScalar b = radial.dot(direction);
  const btScalar discriminant = b * b - dd * (radial.length2() - shape.radius * shape.radius);
  if (!(dd > SIMD_EPSILON) || discriminant < 0) return false;
  distance = (b - std::sqrt(discriminant)) / dd;
  centre = shape.start + shape.down * distance;
  if (shape.cylinder) centre += shape.axle * shape.axle.dot(point - centre);
  return true;
}

// A sphere, or a cylinder whose axle runs along the edge: the centre line comes within R of the
// edge's line (a quadratic in the distance).
void lineTangentRound(const SweptShape& shape, const btVector3& a, const btVector3& edge,
                      btScalar edgeLength, BoundaryTouch& touches) {
  const btVector3 u = (shape.start - a) - edge * edge.dot(shape.start - a);
  const btVector3 v = shape.down - edge * edge.dot(shape.down);
  const btScalar vv = v.length2(), uv = u.dot(v);
  const btScalar discriminant = uv * uv - vv * (u.length2() - shape.radius * shape.radius);
  if (!(vv > SIMD_EPSILON) || discriminant < 0) return;  // along the sweep, or passed by
  const btScalar distance = (-uv - std::sqrt(discriminant)) / vv;
  const btVector3 centre = shape.start + shape.down * distance;
  const btScalar along = edge.dot(centre - a);
  btScalar first = along, last = along;  // the contact's extent along the edge
  if (shape.cylinder) {
    first = std::max(along - shape.halfWidth, btScalar(0));
    last = std::min(along + shape.halfWidth, edgeLength);
    if (first > last) return;
  } else if (along < 0 || along > edgeLength) {
    return;
  }
  const btVector3 point = a + edge * ((first + last) / 2);
  touches.offer(distance, point, (centre - a) - edge * edge.dot(centre - a));
}

// A cylinder whose axle crosses the edge's direction: the axis comes within R of the edge's line
// where their signed distance, linear in the sweep distance, reaches R.
void lineTangentSide(const SweptShape& shape, const btVector3& a, const btVector3& edge,
                     btScalar edgeLength, const btVector3& across, btScalar across2,
                     BoundaryTouch& touches) {
  const btVector3 unit = across / std::sqrt(across2);
  const btScalar rate = shape.down.dot(unit);
  if (rate == 0) return;  // the distance between the lines does not change
  const btScalar initial = (shape.start - a).dot(unit);
  const btScalar distance = ((rate > 0 ? -shape.radius : shape.radius) - initial) / rate;
  const btVector3 centre = shape.start + shape.down * distance;
  // The lines' nearest points: axis centre + axle s, edge a + edge e.
  const btVector3 w = centre - a;
  const btScalar axleDotEdge = shape.axle.dot(edge);
  const btScalar s = (axleDotEdge * edge.dot(w) - shape.axle.dot(w)) / across2;
  const btScalar e = edge.dot(w) + axleDotEdge * s;
  if (std::fabs(s) > shape.halfWidth || e < 0 || e > edgeLength) return;
  const btVector3 point = a + edge * e;
  touches.offer(distance, point, centre + shape.axle * s - point);
}

// A cylinder's rim meets the edge where the edge crosses the rim's plane.
void rimCrossings(const SweptShape& shape, const btVector3& a, const btVector3& edge,
                  btScalar edgeLength, BoundaryTouch& touches) {
  const btScalar axleDotEdge = shape.axle.dot(edge);
  if (axleDotEdge == 0) return;
  for (const btScalar side : {btScalar(-1), btScalar(1)}) {
    const btScalar e = (side * shape.halfWidth - shape.axle.dot(a - shape.start)) / axleDotEdge;
    if (e < 0 || e > edgeLength) continue;
    const btVector3 point = a + edge * e;
    // The point lies on the rim's plane; as the sweep runs square to the axle it stays there.
    SweptShape rim = shape;
    rim.halfWidth = std::fabs(shape.axle.dot(point - shape.start));
    btScalar distance;
    btVector3 centre;
    if (!pointEntry(rim, point, distance, centre)) continue;
    // Square to the rim's tangent and to the edge; a rim tangent to the edge has the radial one.
    const btVector3 radial = centre - point;
    btVector3 normal = edge.cross(shape.axle.cross(radial));
    if (normal.length2() < SIMD_EPSILON * radial.length2()) normal = radial;
    if (normal.dot(radial) < 0) normal = -normal;
    touches.offer(distance, point, normal);
  }
}

// Where the triangle's corners lie relative to the sweep, for the cheap rejections: the sweep
// runs square to the axle and to the shape's third axis, so a triangle (an edge) wholly beyond
// the shape along either is never touched; nor is a corner (an edge, the triangle) deeper along
// the sweep than R below the shape's centre at the sweep's end.
class TriangleBand {
 public:
  TriangleBand(const SweptShape& shape, const btVector3 (&triangle)[3])
      : axleReach_(shape.cylinder ? shape.halfWidth : shape.radius),
        thirdReach_(shape.radius),
        deepest_(shape.endDistance + shape.radius) {
    const btVector3 third = shape.axle.cross(shape.down);
    for (int corner = 0; corner < 3; ++corner) {
      const btVector3 offset = triangle[corner] - shape.start;
      alongAxle_[corner] = shape.axle.dot(offset);
      alongThird_[corner] = third.dot(offset);
      depth_[corner] = shape.down.dot(offset);
    }
  }
  bool missed() const {
    return beyondSide(alongAxle_, axleReach_, {0, 1, 2}) ||
           beyondSide(alongThird_, thirdReach_, {0, 1, 2}) ||
           std::min({depth_[0], depth_[1], depth_[2]}) > deepest_;
  }
  bool edgeMissed(int a, int b) const {
    return beyondSide(alongAxle_, axleReach_, {a, b}) ||
           beyondSide(alongThird_, thirdReach_, {a, b}) || std::min(depth_[a], depth_[b]) > deepest_;
  }
  bool reachable(int corner) const {
    return std::fabs(alongAxle_[corner]) <= axleReach_ &&
           std::fabs(alongThird_[corner]) <= thirdReach_ && depth_[corner] <= deepest_;
  }

 private:
  // Whether the corners all lie beyond +reach, or all beyond -reach.
  static bool beyondSide(const btScalar* along, btScalar reach, std::initializer_list<int> corners) {
    bool above = true, below = true;
    for (const int corner : corners) {
      above = above && along[corner] > reach;
      below = below && along[corner] < -reach;
    }
    return above || below;
  }
  btScalar axleReach_, thirdReach_, deepest_;
  btScalar alongAxle_[3], alongThird_[3], depth_[3];
};

}  // namespace

ShapeSupport supportAlong(const SweptShape& shape, const btVector3& normal) {
  ShapeSupport support;
  if (!shape.cylinder) {
    support.extent = shape.radius;
    support.offset = -normal * shape.radius;
    return support;
  }
  // The cylinder's rim: R along the normal's part across the axle, w/2 along the axle.
  const btScalar along = shape.axle.dot(normal);
  btVector3 across = normal - shape.axle * along;
  const btScalar acrossLength = across.length();
  support.extent = shape.radius * acrossLength + shape.halfWidth * std::fabs(along);
  if (acrossLength > SIMD_EPSILON) across /= acrossLength;
  // On a plane square to the wheel the touching point is the middle of the tread; leaning across
  // it, the rim on the low side. A rigid cylinder would jump there at the first hundredth of a
  // degree of lean (and the contact force with it); a tire's patch moves there gradually.
  const btScalar towardRim = std::clamp(along / kRimLean, btScalar(-1), btScalar(1));
  support.offset = -across * shape.radius - shape.axle * (shape.halfWidth * towardRim);
  return support;
}

FaceTouch sweepTriangleFace(const SweptShape& shape, const btVector3 (&triangle)[3],
                            TriangleTouch& touch) {
  const TriangleBand band(shape, triangle);
  if (band.missed()) return FaceTouch::Miss;
  const btVector3 twiceArea = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]);
  const btScalar area2 = twiceArea.length2();
  if (!(area2 > SIMD_EPSILON * SIMD_EPSILON)) return FaceTouch::Boundary;
  btVector3 normal = twiceArea / std::sqrt(area2);
  if (normal.dot(shape.down) > 0) normal = -normal;  // toward the shape, which comes from above
  const btScalar approach = normal.dot(shape.down);   // < 0: the sweep closes on the plane
  if (!(approach < -SIMD_EPSILON)) return FaceTouch::Boundary;
  const ShapeSupport support = supportAlong(shape, normal);
  touch.distance = (support.extent - normal.dot(shape.start - triangle[0])) / approach;
  // Touching the plane comes first: a triangle whose plane is touched after the end is missed.
  if (touch.distance > shape.endDistance) return FaceTouch::Miss;
  touch.point = shape.start + shape.down * touch.distance + support.offset;
  touch.normal = normal;
  if (!insideTriangle(triangle, twiceArea, touch.point)) return FaceTouch::Boundary;
  return touch.distance >= shape.beginDistance ? FaceTouch::Touch : FaceTouch::Miss;
}

bool sweepTriangleBoundary(const SweptShape& shape, const btVector3 (&triangle)[3],
                           TriangleTouch& touch, unsigned char internalEdges) {
  const TriangleBand band(shape, triangle);
  if (band.missed()) return false;
  BoundaryTouch touches;
  for (int corner = 0; corner < 3; ++corner) {
    const btVector3& a = triangle[corner];
    btScalar distance;
    btVector3 centre;
    if (band.reachable(corner) && pointEntry(shape, a, distance, centre))
      touches.offer(distance, a, centre - a);
    const int next = (corner + 1) % 3;
    if (band.edgeMissed(corner, next)) continue;
    btVector3 edge = triangle[next] - a;
    const btScalar edgeLength = edge.length();
    if (!(edgeLength > SIMD_EPSILON)) continue;
    edge /= edgeLength;
    BoundaryTouch edgeTouches;  // this edge's first touch
    if (!shape.cylinder) {
      lineTangentRound(shape, a, edge, edgeLength, edgeTouches);
    } else {
      const btVector3 across = shape.axle.cross(edge);
      const btScalar across2 = across.length2();
      if (across2 < kParallelEdge) {
        lineTangentRound(shape, a, edge, edgeLength, edgeTouches);
      } else {
        lineTangentSide(shape, a, edge, edgeLength, across, across2, edgeTouches);
        rimCrossings(shape, a, edge, edgeLength, edgeTouches);
      }
    }
    if (!edgeTouches.found()) continue;
    const TriangleTouch& edgeTouch = edgeTouches.best();
    // An internal edge is met where it is met (a ridge too slight to call an edge, a shape
    // already in the neighbour: the distance decides), but with the face's normal: it is no edge
    // of the ground, and its own normal, from the edge to the shape's centre, had stood a wheel
    // pressed against a wall quad on the quad's diagonal.
    btVector3 normal = edgeTouch.normal;
    if (internalEdges >> corner & 1) {
      normal = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]);
      if (normal.dot(shape.down) > 0) normal = -normal;  // toward the shape, which comes from above
    }
    touches.offer(edgeTouch.distance, edgeTouch.point, normal);
  }
  if (!touches.found()) return false;
  touch = touches.best();
  return touch.distance >= shape.beginDistance && touch.distance <= shape.endDistance;
}

bool sweepTriangle(const SweptShape& shape, const btVector3 (&triangle)[3], TriangleTouch& touch,
                   unsigned char internalEdges) {
  switch (sweepTriangleFace(shape, triangle, touch)) {
    case FaceTouch::Touch: return true;
    case FaceTouch::Miss: return false;
    case FaceTouch::Boundary: break;
  }
  return sweepTriangleBoundary(shape, triangle, touch, internalEdges);
}

}  // namespace raycar
