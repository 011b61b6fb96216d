#include "ground/WheelRaycast.h"

namespace raycar {

WheelRayHit wheelRayHit(const btVector3& from, const btVector3& to, btScalar hitFraction,
                        const btVector3& hitPoint, const btVector3& hitNormal,
                        const btCollisionObject* object, int part, int triangle) {
  WheelRayHit hit;
  hit.hit = true;
  hit.distance = hitFraction * (to - from).length();
  hit.point = hitPoint;
  btVector3 normal = hitNormal;
  hit.normal = normal.safeNormalize();
  hit.object = object;
  hit.shapePart = part;
  hit.triangleIndex = triangle;
  return hit;
}

WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored) {
  WheelRayCallback callback(from, to, ignored);
  world.rayTest(from, to, callback);
  if (!callback.hasHit()) return WheelRayHit{};
  return wheelRayHit(from, to, callback.m_closestHitFraction, callback.m_hitPointWorld,
                     callback.m_hitNormalWorld, callback.m_collisionObject, callback.hitPart,
                     callback.hitTriangle);
}

}  // namespace raycar
