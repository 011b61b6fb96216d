#pragma once
// The one world ray per wheel (DESIGN.md step 2).

#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>

namespace raycar {

struct WheelRayHit {
  bool hit = false;
  btScalar distance = 0;         // m from the ray's start
  btVector3 point{0, 0, 0};      // world
  btVector3 normal{0, 0, 0};     // world, unit
  const btCollisionObject* object = nullptr;
};

// Bullet's closest-hit ray callback with the wheel's filter: not `ignored` (the vehicle's own
// chassis) and not an object without contact response (triggers do not carry wheels).
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

// The hit as the wheel keeps it, from what a ClosestRayResultCallback holds after a hit.
WheelRayHit wheelRayHit(const btVector3& from, const btVector3& to, btScalar hitFraction,
                        const btVector3& hitPoint, const btVector3& hitNormal,
                        const btCollisionObject* object);

// Closest hit along from -> to through btCollisionWorld::rayTest, with WheelRayCallback's filter.
WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored);

}  // namespace raycar
