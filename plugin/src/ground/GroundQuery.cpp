#include "ground/GroundQuerySlot.h"

#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include "ground/BroadphaseRay.h"
#include "Prefetch.h"

namespace raycar {
namespace {

// Objects near one car: the ground, a few boxes, a neighbour; more and the car casts full rays.
constexpr int kNearbyCapacity = 32;
// Vehicles gathered together by one thread (NearbyGroundBatch): a run of a group's cars, which
// lie one after another in the group's order.
constexpr int kNearbyBatchSize = 32;
// The box around the rays is grown by this much (m), so that rounding in Bullet's ray-volume test
// cannot accept a leaf the gather left out.
constexpr btScalar kBroadphaseSlack = 0.01f;

// Which query a wheel asks for: its shape's cast, or a ray, cached or not.
enum class QueryKind { WorldRay, CachedRay, ShapeCast };
QueryKind queryKind(const WheelSettings& wheel, const WheelQuerySettings& settings) {
  if (wheel.groundQuery != GroundQueryKind::Ray) return QueryKind::ShapeCast;
  return settings.cache ? QueryKind::CachedRay : QueryKind::WorldRay;
}

std::variant<WorldRayQuery, CachedRayQuery, ShapeCastQuery> queryFor(
    const WheelSettings& wheel, const WheelQuerySettings& settings, CacheMemory& memory) {
  switch (queryKind(wheel, settings)) {
    case QueryKind::ShapeCast: return ShapeCastQuery(wheel, settings, memory);
    case QueryKind::CachedRay: return CachedRayQuery(settings, memory);
    case QueryKind::WorldRay: break;
  }
  return WorldRayQuery();
}

}  // namespace

bool queryIsThreadSafe(const btCollisionShape& shape, int depth) {
  if (shape.isConvex()) return true;
  switch (shape.getShapeType()) {
    case TRIANGLE_MESH_SHAPE_PROXYTYPE:
    case SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE:
    case TERRAIN_SHAPE_PROXYTYPE:
    case STATIC_PLANE_PROXYTYPE:
      return true;
    case COMPOUND_SHAPE_PROXYTYPE: {
      if (depth > 2) return false;
      const auto& compound = static_cast<const btCompoundShape&>(shape);
      for (int i = 0; i < compound.getNumChildShapes(); ++i)
        if (!queryIsThreadSafe(*compound.getChildShape(i), depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

NearbyGround::NearbyGround() : nearby_(kNearbyCapacity) {}

bool NearbyGround::gather(const btCollisionWorld& world, const btCollisionObject& chassis,
                          const btVector3& boxMin, const btVector3& boxMax,
                          NearbyBatchSlot batched) {
  chassis_ = &chassis;
  bool answered = false;
  if (batched.batch != nullptr &&
      batched.batch->answer(batched.slot, chassis, boxMin, boxMax, nearby_, answered))
    return answered;
  const btVector3 slack(kBroadphaseSlack, kBroadphaseSlack, kBroadphaseSlack);
  const WheelRayCallback filter(boxMin, boxMax, &chassis);  // its filter only
  return nearby_.gather(world, boxMin - slack, boxMax + slack, filter);
}

NearbyGround& NearbyGround::forThisThread() {
  thread_local NearbyGround nearby;
  return nearby;
}

NearbyGroundBatch::NearbyGroundBatch() : batch_(kNearbyBatchSize, kNearbyCapacity) {}

NearbyGroundBatch& NearbyGroundBatch::forThisThread() {
  thread_local NearbyGroundBatch batch;
  return batch;
}

int NearbyGroundBatch::add(const btCollisionObject& chassis, const btVector3& boxMin,
                           const btVector3& boxMax) {
  const btVector3 slack(kBroadphaseSlack, kBroadphaseSlack, kBroadphaseSlack);
  return batch_.add(boxMin - slack, boxMax + slack, &chassis);
}

void NearbyGroundBatch::gather(const btCollisionWorld& world) {
  // The filter as NearbyGround::gather's, less its own chassis, which the batch leaves out per box.
  const WheelRayCallback filter(btVector3(0, 0, 0), btVector3(0, 0, 0), nullptr);
  batch_.gather(world, filter);
}

bool NearbyGroundBatch::answer(int slot, const btCollisionObject& chassis, const btVector3& boxMin,
                               const btVector3& boxMax, NearbyObjects& nearby,
                               bool& answered) const {
  // The walk's own box, grown as gather() grows it: what the walk's answer depends on.
  const btVector3 slack(kBroadphaseSlack, kBroadphaseSlack, kBroadphaseSlack);
  if (!batch_.holds(slot, boxMin - slack, boxMax + slack, &chassis)) return false;
  const NearbyObject* first = nullptr;
  size_t count = 0;
  answered = batch_.objects(slot, first, count);
  if (answered) nearby.assign(first, count);
  return true;
}

WheelRayHit GroundQuery::castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                                     const btCollisionObject* chassis) const {
  return castWheelRay(world, sweep.from, sweep.to, chassis);
}

GroundQuerySlot::GroundQuerySlot(const WheelSettings& wheel, const WheelQuerySettings& settings,
                                 CacheMemory& memory)
    : query_(queryFor(wheel, settings, memory)) {}

size_t GroundQuerySlot::cacheBytes(const WheelSettings& wheel, const WheelQuerySettings& settings) {
  switch (queryKind(wheel, settings)) {
    case QueryKind::ShapeCast: return ShapeCastQuery::cacheBytes(settings);
    case QueryKind::CachedRay: return CachedRayQuery::cacheBytes(settings);
    case QueryKind::WorldRay: break;
  }
  return 0;
}

CachedRayQuery::CachedRayQuery(const WheelQuerySettings& settings, CacheMemory& memory)
    : margin_(settings.margin), caches_(settings.maxCachedTriangles, false, memory) {
  caches_.describe(prefetchBlocks_);
}

bool CachedRayQuery::castNearby(const NearbyGround& nearby, const GroundSweep& sweep,
                                bool offMainThread, WheelRayHit& hit) {
  const bool answered =
      castAmongNearby(nearby, sweep.from, sweep.to, sweep.displacement, offMainThread, hit);
  caches_.describe(prefetchBlocks_);
  return answered;
}

bool CachedRayQuery::castAmongNearby(const NearbyGround& nearby, const btVector3& from,
                                     const btVector3& to, const btVector3& displacement,
                                     bool offMainThread, WheelRayHit& hit) {
  const BroadphaseRay ray(from, to);
  btTransform fromTransform = btTransform::getIdentity(), toTransform = btTransform::getIdentity();
  fromTransform.setOrigin(from);
  toTransform.setOrigin(to);
  bool found = false, tie = false;
  btScalar bestFraction = 1;
  btVector3 bestPoint(0, 0, 0), bestNormal(0, 0, 0);
  const btCollisionObject* bestObject = nullptr;
  int bestPart = -1, bestTriangle = -1;
  for (const NearbyObject& candidate : nearby.objects()) {
    if (!ray.crosses(*candidate.leaf)) continue;
    const btCollisionObject& object = *candidate.object;
    // rayTestSingle does not see a soft body (a btSoftRigidDynamicsWorld's own rayTest does):
    // such a ray is left to the world's rayTest.
    if (object.getInternalType() == btCollisionObject::CO_SOFT_BODY) return false;
    WheelRayCallback result(from, to, nearby.chassis());
    MeshRayCache* cache =
        MeshRayCache::canCache(object) ? caches_.cacheFor(nearby.objects(), object) : nullptr;
    const bool cached =
        cache != nullptr &&
        cache->cast(object, from, to, displacement, margin_, caches_.recentTriangles(), result);
    if (!cached) {
      if (offMainThread && !queryIsThreadSafe(*object.getCollisionShape())) return false;
      btCollisionWorld::rayTestSingle(fromTransform, toTransform,
                                      const_cast<btCollisionObject*>(&object),
                                      object.getCollisionShape(), object.getWorldTransform(),
                                      result);
    }
    if (!result.hasHit()) continue;
    if (found && result.m_closestHitFraction == bestFraction) {
      tie = true;
      continue;
    }
    if (found && result.m_closestHitFraction > bestFraction) continue;
    found = true;
    tie = false;
    bestFraction = result.m_closestHitFraction;
    bestPoint = result.m_hitPointWorld;
    bestNormal = result.m_hitNormalWorld;
    bestObject = result.m_collisionObject;
    bestPart = result.hitPart;
    bestTriangle = result.hitTriangle;
  }
  if (tie) return false;
  hit = found ? wheelRayHit(from, to, bestFraction, bestPoint, bestNormal, bestObject,
                                bestPart, bestTriangle)
              : WheelRayHit{};
  return true;
}

void CachedRayQuery::clear() {
  caches_.clear();
  caches_.describe(prefetchBlocks_);
}

}  // namespace raycar
