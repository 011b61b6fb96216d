#pragma once
// A wheel's ground query with a shape (WheelSettings::groundQuery Sphere or Cylinder): the shape
// is swept along the suspension axis from above the suspension top down to full extension, and
// the first place where it touches ground gives the contact point, the ground's normal and the
// suspension length.
//
// Two routes, one answer:
// - Cached (WheelQuerySettings::cache, the default), for btBvhTriangleMeshShape ground: the
//   wheel keeps the mesh triangles around its sweep (MeshRayCache, as a ray wheel does, with
//   kShapeCacheScale times the room) and places the shape against each in closed form
//   (TriangleSweep.h). No GJK, no iteration: a cylinder wheel costs 1.4 to 1.6 times a ray
//   wheel this way, where Bullet's casts cost fifteen times (tests/bench/BENCHMARKS.md).
// - Bullet's convex casts (btCollisionWorld::objectQuerySingle against each nearby object,
//   convexSweepTest through the world) for everything else (boxes, compounds, heightfields,
//   other cars) and for meshes when the cache is off or overfull. Bullet's cylinder has rounded
//   edges (its collision margin) and its GJK casts place a contact to about 1e-3 m, so a
//   triangle Bullet reports is placed again by the same closed form as the cached route, and
//   any other hit exactly against the plane Bullet reports (the shape's extent along its
//   normal). Bullet is asked for every hit up to Parts::slack behind the best, so that a triangle
//   whose exact touch comes first is not lost behind a rounding.
// What both routes handle:
// - Seams: the triangles of a seam give the same touch from either side; coplanar triangles
//   give one normal and no bump. At a crease (a kerb's top edge) the touch is the edge's, with
//   the normal from the edge to the wheel's centre: a kerb edge pushes the wheel up and back,
//   and a wheel of radius R starts to climb a kerb of height h sqrt(2 R h - h^2) before it.
// - A contact whose normal leans more than WheelSettings::maxSlope from the chassis' up axis (a
//   wall beside the wheel, a kerb's vertical face) is not ground; the next one counts.
// - The cast starts one shape radius above the suspension top. Ground the shape would touch
//   only before that start (it overlaps the shape there, or lies above it) does not count, as a
//   ray ignores ground above its start. Bullet's casts report unreliable hits from inside an
//   object: such an object is cast again from the shape's whole size farther back, and its
//   touch counts only from the cast's start on.
// - The vehicle's own chassis and objects without contact response are ignored (the nearby
//   objects are gathered with the ray's filter).

#include <BulletCollision/CollisionShapes/btConvexShape.h>

#include <cmath>
#include <memory>

#include "ground/GroundQuery.h"
#include "ground/TriangleSweep.h"

namespace raycar {

class ShapeHitCallback;

class ShapeCastQuery final : public GroundQuery {
 public:
  // Its caches' storage, cacheBytes(settings) of it, comes from `memory`.
  ShapeCastQuery(const WheelSettings& wheel, const WheelQuerySettings& settings, CacheMemory& memory);
  static size_t cacheBytes(const WheelQuerySettings& settings) {
    return MeshCacheSet::storageBytes(kShapeCacheScale * settings.maxCachedTriangles, true);
  }
  ShapeCastQuery(ShapeCastQuery&&) = default;
  ShapeCastQuery& operator=(ShapeCastQuery&&) = default;

  bool usesNearbyGround() const override { return true; }
  bool castNearby(const NearbyGround& nearby, const GroundSweep& sweep, bool offMainThread,
                  WheelRayHit& hit) override;
  WheelRayHit castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                          const btCollisionObject* chassis) const override;
  void clear() override;
  int cachedTriangleCount() const override { return caches_.triangleCount(); }

  // A shape's cache holds this many times WheelQuerySettings::maxCachedTriangles per mesh: its
  // region is a shape's width across where a ray's is a line (on the bench terrain a shape
  // wheel holds 15.5 triangles, a ray wheel 8.6).
  static constexpr int kShapeCacheScale = 2;

  // The shape's geometry, for the casts and for drawing.
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
  const Geometry& geometry() const { return parts_->geometry; }

 private:
  // This step's cast: the swept shape (world) and its orientation for Bullet's casts.
  struct Cast {
    SweptShape shape;
    btMatrix3x3 basis;
  };
  Cast castFor(const GroundSweep& sweep) const;
  // Bullet's cast of the shape against one object, started `back` (m) before the cast's start
  // and run Parts::slack past its end (a touch at the end may be one Bullet's rounding puts beyond).
  btTransform bulletEnd(const Cast& cast) const;  // where Bullet's casts end: Parts::slack past the end
  void castBullet(const btCollisionObject& object, const Cast& cast, btScalar back,
                  btCollisionWorld::ConvexResultCallback& callback) const;
  void castRestarts(const Cast& cast, ShapeHitCallback& callback) const;
  // The hit as the wheel keeps it, from the callback's closest ground.
  WheelRayHit hitFrom(const ShapeHitCallback& callback) const;

  // The shape, built once (the step allocates nothing). Held apart from the query because a
  // wheel keeps its query in a slot as large as the largest kind (GroundQuerySlot): inline, the
  // shape's fields made every ray wheel 48 bytes larger too.
  struct Parts {
    Geometry geometry;
    std::unique_ptr<btConvexShape> convex;
    btScalar slack = 0;  // m: how far behind the exact touch Bullet's rounded shape may place it
  };
  std::unique_ptr<const Parts> parts_;
  bool cache_;          // WheelQuerySettings::cache
  btScalar margin_;     // m, WheelQuerySettings::margin
  MeshCacheSet caches_;
};

}  // namespace raycar
