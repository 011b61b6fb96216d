#include "ground/WheelQuery.h"

#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include "ground/BroadphaseRay.h"
#include "parallel/Prefetch.h"

namespace raycar {
namespace {

// A wheel can stand where two mesh objects meet (terrain tiles); more meshes at once are tested
// through Bullet without a cache.
constexpr int kCachesPerWheel = 2;
// Objects near one car: the ground, a few boxes, a neighbour; more and the car casts full rays.
constexpr int kNearbyCapacity = 32;
// The box around the rays is grown by this much (m), so that rounding in Bullet's ray-volume test
// cannot accept a leaf the gather left out.
constexpr btScalar kBroadphaseSlack = 0.01f;

// Shapes whose btCollisionWorld::rayTestSingle only reads shared data, so several threads may
// run it at once: convex shapes, the mesh and terrain shapes, planes, and compounds of these.
bool rayTestIsThreadSafe(const btCollisionShape& shape, int depth = 0) {
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
        if (!rayTestIsThreadSafe(*compound.getChildShape(i), depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

WheelQuery::WheelQuery(int wheelCount, const WheelQuerySettings& settings)
    : settings_(settings),
      nearby_(kNearbyCapacity),
      leaves_(size_t(wheelCount) * kCachesPerWheel * size_t(settings.maxCachedTriangles)),
      triangles_(leaves_.size()),
      caches_(size_t(wheelCount) * kCachesPerWheel) {
  const size_t capacity = size_t(settings.maxCachedTriangles);
  for (size_t i = 0; i < caches_.size(); ++i)
    caches_[i].attach(&leaves_[i * capacity], &triangles_[i * capacity], int(capacity));
}

bool WheelQuery::begin(const btCollisionWorld& world, const btCollisionObject& chassis,
                       const btVector3& boxMin, const btVector3& boxMax) {
  chassis_ = &chassis;
  const btVector3 slack(kBroadphaseSlack, kBroadphaseSlack, kBroadphaseSlack);
  const WheelRayCallback filter(boxMin, boxMax, &chassis);  // its filter only
  return nearby_.gather(world, boxMin - slack, boxMax + slack, filter);
}

MeshRayCache* WheelQuery::cacheFor(int wheel, const btCollisionObject& object) {
  MeshRayCache* caches = &caches_[size_t(wheel) * kCachesPerWheel];
  for (int i = 0; i < kCachesPerWheel; ++i)
    if (caches[i].holds(object)) return &caches[i];
  for (int i = 0; i < kCachesPerWheel; ++i)
    if (caches[i].empty()) return &caches[i];
  // Reuse a cache whose mesh is no longer near the car.
  for (int i = 0; i < kCachesPerWheel; ++i) {
    bool near = false;
    for (const NearbyObject& nearby : nearby_.objects()) near = near || caches[i].holds(*nearby.object);
    if (!near) return &caches[i];
  }
  return nullptr;
}

bool WheelQuery::cast(int wheel, const btVector3& from, const btVector3& to,
                      const btVector3& displacement, bool offMainThread, WheelRayHit& hit) {
  const BroadphaseRay ray(from, to);
  btTransform fromTransform = btTransform::getIdentity(), toTransform = btTransform::getIdentity();
  fromTransform.setOrigin(from);
  toTransform.setOrigin(to);
  bool found = false, tie = false;
  btScalar bestFraction = 1;
  btVector3 bestPoint(0, 0, 0), bestNormal(0, 0, 0);
  const btCollisionObject* bestObject = nullptr;
  for (const NearbyObject& nearby : nearby_.objects()) {
    if (!ray.crosses(*nearby.leaf)) continue;
    const btCollisionObject& object = *nearby.object;
    // rayTestSingle does not see a soft body (a btSoftRigidDynamicsWorld's own rayTest does):
    // such a ray is left to the world's rayTest.
    if (object.getInternalType() == btCollisionObject::CO_SOFT_BODY) return false;
    WheelRayCallback result(from, to, chassis_);
    MeshRayCache* cache = MeshRayCache::canCache(object) ? cacheFor(wheel, object) : nullptr;
    const bool cached =
        cache != nullptr && cache->cast(object, from, to, displacement, settings_.margin, result);
    if (!cached) {
      if (offMainThread && !rayTestIsThreadSafe(*object.getCollisionShape())) return false;
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
  }
  if (tie) return false;
  hit = found ? wheelRayHit(from, to, bestFraction, bestPoint, bestNormal, bestObject)
              : WheelRayHit{};
  return true;
}

void WheelQuery::prefetchArrays() const {
  prefetchArray(caches_);
  prefetchArray(nearby_.objects());
}

void WheelQuery::prefetchCaches() const {
  const size_t capacity = size_t(settings_.maxCachedTriangles);
  for (size_t i = 0; i < caches_.size(); ++i) {
    if (!caches_[i].empty()) {
      prefetchBytes(&leaves_[i * capacity], size_t(caches_[i].triangleCount()) * sizeof(CachedLeaf));
      prefetchBytes(&triangles_[i * capacity],
                    size_t(caches_[i].triangleCount()) * sizeof(CachedTriangle));
    }
  }
}

void WheelQuery::clear() {
  for (MeshRayCache& cache : caches_) cache.clear();
}

int WheelQuery::cachedTriangleCount() const {
  int count = 0;
  for (const MeshRayCache& cache : caches_)
    if (!cache.empty()) count += cache.triangleCount();
  return count;
}

}  // namespace raycar
