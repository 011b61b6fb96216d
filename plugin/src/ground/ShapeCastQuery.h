#pragma once
// A wheel's ground query with a shape (WheelSettings::groundQuery Sphere or Cylinder): the shape
// is swept along the suspension axis with Bullet's convex casts (btCollisionWorld::
// objectQuerySingle against each nearby object, convexSweepTest through the world), from above
// the suspension top down to full extension, and the first place where it touches ground gives
// the contact point, the ground's normal and the suspension length.
//
// What Bullet's casts answer, and what this query makes of it:
// - Bullet's cylinder has rounded edges (its collision margin) and its GJK-based casts place a
//   contact to about 1e-3 m and 1e-3 in the normal. The query refines every hit against the
//   plane it reports: the shape's exact extent along that plane's normal (a sphere's radius; a
//   cylinder's R sqrt(1 - (a.n)^2) + w/2 |a.n| for axle a) gives the exact distance at which it
//   touches. On a triangle mesh the hit triangle's own face normal replaces the cast's whenever
//   the touching point lies inside that triangle, so a wheel on a flat or tilted face gets the
//   face's normal and length exactly. At a triangle's edge (a kerb's, a trench's) the touch is
//   solved exactly: a smooth shape meets a line where its centre (a cylinder's axis, when the
//   edge runs along the axle) comes within its radius of the line, with the normal from the
//   line to the centre, so a kerb edge pushes the wheel up and back and a wheel starts to climb
//   a kerb of height h sqrt(2 R h - h^2) before its edge (Bullet's rounded cylinder rose 28 to
//   51 mm early). An edge met at an angle by a cylinder (a rim corner) keeps the cast's normal,
//   made square to the edge. Other shapes' hits (boxes, compounds) are refined against the
//   plane Bullet reports.
// - Several triangles of one seam report nearly the same distance: the refined distances
//   decide, so coplanar triangles give one normal and no bump.
// - A contact whose normal leans more than WheelSettings::maxSlope from the chassis' up axis (a
//   wall beside the wheel, a kerb's vertical face) is not ground; the cast goes on to the next.
// - A cast that starts overlapping reports unreliable hits: the cast starts one shape radius
//   above the suspension top, so a wheel must be sunk past full compression by more than that
//   before it starts inside ground. Against a wall pressed into the wheel's side Bullet reports
//   no hit at all (the cast runs along the wall); a hit at the very start keeps Bullet's normal
//   for the slope test and the shape's lowest point as its contact.
// - The vehicle's own chassis and objects without contact response are ignored, as the ray
//   ignores them.

#include <BulletCollision/CollisionShapes/btConvexShape.h>

#include <cmath>
#include <memory>

#include "ground/GroundQuery.h"

namespace raycar {

class ShapeCastQuery final : public GroundQuery {
 public:
  explicit ShapeCastQuery(const WheelSettings& wheel);
  ShapeCastQuery(ShapeCastQuery&&) = default;
  ShapeCastQuery& operator=(ShapeCastQuery&&) = default;

  bool usesNearbyGround() const override { return true; }
  bool castNearby(const NearbyGround& nearby, const GroundSweep& sweep, bool offMainThread,
                  WheelRayHit& hit) override;
  WheelRayHit castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                          const btCollisionObject* chassis) const override;

  // The shape's geometry, for the callback and for drawing.
  struct Geometry {
    bool cylinder = false;
    btScalar radius = 0;     // m: the sphere's, or the cylinder's (the wheel's)
    btScalar halfWidth = 0;  // m, cylinder
    btScalar offset = 0;     // m: shape centre below the wheel centre (sphere smaller than wheel)
    btScalar travel = 0;     // m: len_max
    // m: the cast starts one shape radius above the suspension top (the file's top says why)
    btScalar lift() const { return radius; }
    btScalar castLength() const { return lift() + travel; }  // m
    btScalar boundingRadius() const { return std::sqrt(radius * radius + halfWidth * halfWidth); }
    btScalar cosMaxSlope = 0;
  };
  const Geometry& geometry() const { return geometry_; }

 private:
  // Where the cast runs this step: the shape's centre and orientation from `start` to `end`.
  struct Cast {
    btTransform start, end;
    btVector3 down, axle;
  };
  Cast castFor(const GroundSweep& sweep) const;
  // The hit as the wheel keeps it, from the callback's closest ground: `distance` (m) along the
  // cast from its start.
  WheelRayHit hitFrom(bool found, btScalar distance, const btVector3& point,
                      const btVector3& normal, const btCollisionObject* object) const;

  Geometry geometry_;
  std::unique_ptr<btConvexShape> shape_;  // built once; the step allocates nothing
};

}  // namespace raycar
