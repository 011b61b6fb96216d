#pragma once
// A wheel's ground query (DESIGN.md step 2): each step, the closest ground along the wheel's
// sweep from its suspension top down over len_max + radius. Each wheel holds its own query,
// chosen from its settings, inside its Wheel object (GroundQuerySlot: the implementations are
// few and known, and a query reached through a pointer of its own cost a thousand-car fleet a
// memory round trip per wheel and step); the vehicle gathers the objects near it once per step
// for all of them (NearbyGround). Implementations:
// - WorldRayQuery: btCollisionWorld::rayTest every step (WheelQuerySettings::cache off);
// - CachedRayQuery: the same hit, bitwise, from the wheel's cached mesh triangles and the nearby
//   objects' own ray tests (see below), on any thread;
// - ShapeCastQuery: a sphere or cylinder swept instead of a ray (WheelSettings::groundQuery),
//   cached on mesh ground as the ray is (ShapeCastQuery.h).
// A query answers in two tiers: castNearby from the gathered objects (any thread; false when it
// cannot answer), then castInWorld through the world (main thread), for the wheels left over.
//
// How rayTest picks its hit, which CachedRayQuery reproduces: the broadphase visits every object
// whose leaf volume the ray crosses, in its trees' order; each object's exact test keeps a hit
// only when it is strictly closer than the best so far. So the answer is the closest object hit,
// and among objects that hit at exactly the same fraction, the one the broadphase visits first.
// CachedRayQuery
//   1. keeps the gathered objects whose leaf the ray crosses (BroadphaseRay, Bullet's own test),
//   2. asks each for its closest hit on its own: static or moving btBvhTriangleMeshShape ground
//      from the wheel's MeshRayCache, everything else (boxes, compounds, planes, heightfields,
//      other cars) through Bullet's btCollisionWorld::rayTestSingle, exactly as rayTest does,
//   3. keeps the closest. Each object's hit does not depend on the others (a later object only
//      counts when strictly closer), so this is rayTest's answer, unless two objects hit at the
//      very same fraction: then the broadphase order decides, and the wheel asks rayTest itself.

#include <vector>

#include "ground/MeshRayCache.h"
#include "ground/NearbyObjects.h"
#include "ground/WheelRaycast.h"
#include "Prefetch.h"
#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

class NearbyGroundBatch;
// A vehicle's place in the NearbyGroundBatch that gathered its nearby objects (none: null).
struct NearbyBatchSlot {
  const NearbyGroundBatch* batch = nullptr;
  int slot = -1;
};

// The objects near one vehicle this step, which its wheels' nearby casts choose from.
class NearbyGround {
 public:
  NearbyGround();
  // Gathered anew for every vehicle and read only within its ground queries, so one list per
  // thread serves every vehicle the thread steps (it allocates once, the first time).
  static NearbyGround& forThisThread();
  // Gathers the objects whose broadphase leaves overlap [boxMin, boxMax], a box around all the
  // vehicle's wheel sweeps. False when only the world's queries can answer this step (a
  // broadphase other than btDbvtBroadphase, or a crowd of objects around the car).
  // With a batch that gathered this very box for this chassis, its answer is taken instead of
  // walking (the same objects in the same order).
  bool gather(const btCollisionWorld& world, const btCollisionObject& chassis,
              const btVector3& boxMin, const btVector3& boxMax, NearbyBatchSlot batched = {});
  const std::vector<NearbyObject>& objects() const { return nearby_.objects(); }
  const btCollisionObject* chassis() const { return chassis_; }

 private:
  NearbyObjects nearby_;
  const btCollisionObject* chassis_ = nullptr;
};

// The objects near each of a run of vehicles, gathered in one walk of the broadphase
// (NearbyObjectsBatch) by the thread that steps them (VehicleGroup), before their steps begin.
class NearbyGroundBatch {
 public:
  NearbyGroundBatch();
  static NearbyGroundBatch& forThisThread();  // allocates once, the first time
  void clear() { batch_.clear(); }
  bool full() const { return batch_.full(); }
  // Adds a vehicle's box around its wheels' sweeps, as its NearbyGround::gather will be given
  // it; returns its slot.
  int add(const btCollisionObject& chassis, const btVector3& boxMin, const btVector3& boxMax);
  void gather(const btCollisionWorld& world);
  // True when `slot` was gathered for this chassis and exactly this box: then `answered` is
  // what NearbyGround::gather would return, and `nearby` holds its objects.
  bool answer(int slot, const btCollisionObject& chassis, const btVector3& boxMin,
              const btVector3& boxMax, NearbyObjects& nearby, bool& answered) const;

 private:
  NearbyObjectsBatch batch_;
};

// One wheel's sweep this step (world).
struct GroundSweep {
  btVector3 from{0, 0, 0};          // the suspension top
  btVector3 to{0, 0, 0};            // len_max + radius below it, along the chassis' down axis
  btVector3 displacement{0, 0, 0};  // m: where the sweep will have moved by the lookahead
  btVector3 axle{0, 0, 0};          // unit: the wheel's axle, turned with its steer angle
};

// Shapes whose ray and convex tests (btCollisionWorld::rayTestSingle, objectQuerySingle) only
// read shared data, so several threads may run them at once: convex shapes, the mesh and terrain
// shapes, planes, and compounds of these.
bool queryIsThreadSafe(const btCollisionShape& shape, int depth = 0);

class GroundQuery {
 public:
  virtual ~GroundQuery() = default;
  // Whether castNearby can ever answer (the vehicle gathers NearbyGround only if one can).
  virtual bool usesNearbyGround() const = 0;
  // The closest hit of the sweep among `nearby`, on any thread. False when only castInWorld can
  // answer: a tie between objects, or, with `offMainThread`, a shape whose ray test is not
  // known to be safe on several threads.
  virtual bool castNearby(const NearbyGround& nearby, const GroundSweep& sweep, bool offMainThread,
                          WheelRayHit& hit) = 0;
  // The closest hit through the world itself (main thread only: Bullet's broadphase ray walk
  // shares one stack).
  virtual WheelRayHit castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                                  const btCollisionObject* chassis) const;
  // m: how far the query reaches beyond the segment from -> to (a shape's size), which the
  // vehicle's box of nearby objects must cover.
  btScalar reach() const { return reach_; }
  // Asks the memory system for the cached data the next cast reads (Prefetch.h). Not virtual: a
  // thousand cars ask for it in every step, and an indirect call per wheel cost more than the
  // prefetching saved.
  void prefetchCaches() const {
    for (int i = 0; i < MeshCacheSet::kPrefetchBlocks; ++i)
      prefetchBytes(prefetchBlocks_.begin[i], prefetchBlocks_.bytes[i]);
  }
  // Forgets cached ground (after a mesh's vertices were changed in place).
  virtual void clear() {}
  virtual int cachedTriangleCount() const { return 0; }

 protected:
  GroundQuery() = default;
  // The memory the next cast reads besides the object itself (kept current by the query).
  MeshCacheSet::PrefetchBlocks prefetchBlocks_;
  btScalar reach_ = 0;
};

// btCollisionWorld::rayTest every step.
class WorldRayQuery final : public GroundQuery {
 public:
  bool usesNearbyGround() const override { return false; }
  bool castNearby(const NearbyGround&, const GroundSweep&, bool, WheelRayHit&) override {
    return false;
  }
};

// rayTest's hit from cached mesh triangles and the nearby objects (see the top of this file).
class CachedRayQuery final : public GroundQuery {
 public:
  // Its caches' storage, cacheBytes(settings) of it, comes from `memory`.
  CachedRayQuery(const WheelQuerySettings& settings, CacheMemory& memory);
  static size_t cacheBytes(const WheelQuerySettings& settings) {
    return MeshCacheSet::storageBytes(settings.maxCachedTriangles, false);
  }
  bool usesNearbyGround() const override { return true; }
  bool castNearby(const NearbyGround& nearby, const GroundSweep& sweep, bool offMainThread,
                  WheelRayHit& hit) override;
  void clear() override;
  int cachedTriangleCount() const override { return caches_.triangleCount(); }

 private:
  bool castAmongNearby(const NearbyGround& nearby, const btVector3& from, const btVector3& to,
                       const btVector3& displacement, bool offMainThread, WheelRayHit& hit);

  btScalar margin_;  // m (WheelQuerySettings::margin)
  MeshCacheSet caches_;  // WheelQuerySettings::maxCachedTriangles per mesh
};

}  // namespace raycar
