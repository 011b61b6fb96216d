#pragma once
// One vehicle's cached wheel queries (DESIGN.md step 2 with WheelQuerySettings::cache), each
// bitwise the hit btCollisionWorld::rayTest would give.
//
// How rayTest picks its hit: the broadphase visits every object whose leaf volume the ray
// crosses, in its trees' order; each object's exact test keeps a hit only when it is strictly
// closer than the best so far. So the answer is the closest object hit, and among objects that
// hit at exactly the same fraction, the one the broadphase visits first. Per step this class
//   1. gathers the objects whose broadphase leaves overlap a box around all the vehicle's rays
//      (NearbyObjects), which is every object any of its rays could be handed;
// and per wheel
//   2. keeps the objects whose leaf the ray crosses (BroadphaseRay, Bullet's own test),
//   3. asks each for its closest hit on its own: static or moving btBvhTriangleMeshShape ground
//      from the wheel's MeshRayCache, everything else (boxes, compounds, planes, heightfields,
//      other cars) through Bullet's btCollisionWorld::rayTestSingle, exactly as rayTest does,
//   4. keeps the closest. Each object's hit does not depend on the others (a later object only
//      counts when strictly closer), so this is rayTest's answer, unless two objects hit at the
//      very same fraction: then the broadphase order decides, and the wheel asks rayTest itself.

#include <vector>

#include "ground/MeshRayCache.h"
#include "ground/NearbyObjects.h"
#include "ground/WheelRaycast.h"
#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

class WheelQuery {
 public:
  WheelQuery(int wheelCount, const WheelQuerySettings& settings);

  // Step 1 for rays that all lie inside [boxMin, boxMax]. False when only full rayTests can
  // answer this step (a broadphase other than btDbvtBroadphase, or a crowd of objects around the
  // car).
  bool begin(const btCollisionWorld& world, const btCollisionObject& chassis,
             const btVector3& boxMin, const btVector3& boxMax);
  // Steps 2-4 for one wheel. `displacement` (m, world) is where the ray will have moved by the
  // lookahead. False when only btCollisionWorld::rayTest can answer: a tie between objects, or,
  // with `offMainThread`, a shape whose ray test is not known to be safe on several threads.
  bool cast(int wheel, const btVector3& from, const btVector3& to, const btVector3& displacement,
            bool offMainThread, WheelRayHit& hit);
  // Asks the memory system for this object's arrays, then (once those have arrived) for the
  // cached leaves and triangles the wheels hold (see Prefetch.h).
  void prefetchArrays() const;
  void prefetchCaches() const;
  // Forgets every cached triangle (after a mesh's vertices were changed in place).
  void clear();
  // Triangles cached now, over all wheels (for tests and benchmarks).
  int cachedTriangleCount() const;

 private:
  MeshRayCache* cacheFor(int wheel, const btCollisionObject& object);

  WheelQuerySettings settings_;
  const btCollisionObject* chassis_ = nullptr;
  NearbyObjects nearby_;
  std::vector<CachedLeaf> leaves_;         // every cache's storage, allocated once
  std::vector<CachedTriangle> triangles_;
  std::vector<MeshRayCache> caches_;       // kCachesPerWheel per wheel
};

}  // namespace raycar
