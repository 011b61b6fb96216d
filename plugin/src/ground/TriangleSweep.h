#pragma once
// Where a wheel's sphere or cylinder, swept along the suspension axis, first touches one triangle:
// the distance along the sweep, the touching point and the ground's normal there, solved in
// closed form (no iteration, no tolerance). Both routes of a shape query use it: the cached
// route for every cached triangle near the wheel, and Bullet's convex cast for the triangles it
// reports, so the two give the same contact.
//
// The shape touches the triangle first either inside its face or on its boundary:
// - Face: a convex shape meets a plane first at its support point along the plane's normal
//   (extent R for a sphere, R sqrt(1 - (a.n)^2) + w/2 |a.n| for a cylinder of axle a); when that
//   point lies inside the triangle, that is the touch.
// - Boundary: the first time any point q of an edge enters the moving shape is convex along the
//   edge (the set of (q, t) with q inside the shape at t is convex), so its minimum is at a
//   stationary point or at the end of an interval: the edge's line tangent to the sphere or the
//   cylinder's round side (a sphere's centre, a cylinder's axis coming within R of the line), an
//   edge's end (a vertex entering the shape), or, for a cylinder, where the edge crosses the
//   plane of a rim (the rim's circle meeting the edge). The least of these is the touch.
// The normal is the ground's as the shape sees it: the face's normal, the direction from the
// edge or vertex to the shape's centre (axis), or, on a rim, square to both the rim and the edge.

#include <LinearMath/btVector3.h>

namespace raycar {

// The swept shape (world).
struct SweptShape {
  bool cylinder = false;
  btScalar radius = 0;     // m
  btScalar halfWidth = 0;  // m, along the axle (cylinder)
  btVector3 start{0, 0, 0};  // the shape's centre at distance 0
  btVector3 down{0, 0, 0};   // unit: the sweep's direction (the suspension axis)
  btVector3 axle{0, 0, 0};   // unit, square to `down` (cylinder)
  // m: touches before this distance (the shape already inside the triangle at it, or the
  // triangle above the shape) and after `endDistance` do not count.
  btScalar beginDistance = 0;
  btScalar endDistance = 0;
};

// Where the shape touches a plane of unit normal `normal` (out of the ground) first: its extent
// along -normal from its centre, and the touching point's offset from the centre. A cylinder
// leaning onto its rim moves its touching point from the tread's middle to the rim gradually
// (reaching it at 5 deg of lean), as a tire's patch does; the extent stays the rigid shape's.
struct ShapeSupport {
  btScalar extent = 0;         // m
  btVector3 offset{0, 0, 0};   // m, world
};
ShapeSupport supportAlong(const SweptShape& shape, const btVector3& normal);

struct TriangleTouch {
  btScalar distance = 0;       // m along the sweep from `start`
  btVector3 point{0, 0, 0};    // world
  btVector3 normal{0, 0, 0};   // unit, out of the ground toward the shape
};

// The first touch of `shape` with the triangle (world vertices) within [beginDistance,
// endDistance]; false when there is none. Bit k of `internalEdges` set: the edge from vertex k to
// vertex k + 1 is shared with a neighbour in the same plane; a touch on it gets the face's normal
// (it is no edge of the ground), not the one from the edge to the shape's centre.
bool sweepTriangle(const SweptShape& shape, const btVector3 (&triangle)[3], TriangleTouch& touch,
                   unsigned char internalEdges = 0);

// sweepTriangle in two halves, for a caller with many triangles: the face touches of all first
// (cheap), whose closest then bounds the sweep's end for the boundary touches of the rest, and
// prunes most of them.
enum class FaceTouch {
  Touch,     // `touch` is the triangle's first touch, inside the face and the range
  Boundary,  // the first touch, if any, lies on an edge or a corner: ask sweepTriangleBoundary
  Miss,      // no touch within the range
};
FaceTouch sweepTriangleFace(const SweptShape& shape, const btVector3 (&triangle)[3],
                            TriangleTouch& touch);
bool sweepTriangleBoundary(const SweptShape& shape, const btVector3 (&triangle)[3],
                           TriangleTouch& touch, unsigned char internalEdges = 0);

}  // namespace raycar
