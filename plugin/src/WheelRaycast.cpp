#include "WheelRaycast.h"

namespace raycar {
namespace {

class WheelRayCallback final : public btCollisionWorld::ClosestRayResultCallback {
 public:
  WheelRayCallback(const btVector3& from, const btVector3& to, const btCollisionObject* ignored)
      : ClosestRayResultCallback(from, to), ignored_(ignored) {}

  bool needsCollision(btBroadphaseProxy* proxy) const override {
    const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    if (object == ignored_) return false;
    if (object->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return false;
    return ClosestRayResultCallback::needsCollision(proxy);
  }

 private:
  const btCollisionObject* ignored_;
};

}  // namespace

WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored) {
  WheelRayCallback callback(from, to, ignored);
  world.rayTest(from, to, callback);
  WheelRayHit hit;
  if (!callback.hasHit()) return hit;
  hit.hit = true;
  hit.distance = callback.m_closestHitFraction * (to - from).length();
  hit.point = callback.m_hitPointWorld;
  hit.normal = callback.m_hitNormalWorld.safeNormalize();
  hit.object = callback.m_collisionObject;
  return hit;
}

}  // namespace raycar
