#include "ground/WheelRaycast.h"

namespace raycar {

WheelRayHit wheelRayHit(const btVector3& from, const btVector3& to, btScalar hitFraction,
                        const btVector3& hitPoint, const btVector3& hitNormal,
                        const btCollisionObject* object) {
  WheelRayHit hit;
  hit.hit = true;
  hit.distance = hitFraction * (to - from).length();
  hit.point = hitPoint;
  btVector3 normal = hitNormal;
  hit.normal = normal.safeNormalize();
  hit.object = object;
  return hit;
}

WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored) {
  WheelRayCallback callback(from, to, ignored);
  world.rayTest(from, to, callback);
  if (!callback.hasHit()) return WheelRayHit{};
  return wheelRayHit(from, to, callback.m_closestHitFraction, callback.m_hitPointWorld,
                     callback.m_hitNormalWorld, callback.m_collisionObject);
}

}  // namespace raycar
