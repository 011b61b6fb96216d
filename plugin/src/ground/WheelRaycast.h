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
  // The mesh triangle hit (Bullet's part and triangle index), for per-triangle ground materials
  // (SurfaceTable); -1 where the ground is not a triangle mesh or height field.
  int shapePart = -1;
  int triangleIndex = -1;
};

// Bullet's closest-hit ray callback with the wheel's filter: not `ignored` (the vehicle's own
// chassis) and not an object without contact response (triggers do not carry wheels).
class WheelRayCallback final : public btCollisionWorld::ClosestRayResultCallback {
 public:
  WheelRayCallback(const btVector3& from, const btVector3& to, const btCollisionObject* ignored)
      : ClosestRayResultCallback(from, to), ignored_(ignored), back_(from - to),
        leastLeanSquared_(kMaxContactSlopeCosine * kMaxContactSlopeCosine * back_.length2()) {}

  bool needsCollision(btBroadphaseProxy* proxy) const override {
    const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    if (object == ignored_) return false;
    if (object->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return false;
    return ClosestRayResultCallback::needsCollision(proxy);
  }

  // A wheel stands on what its ray meets from above, not on a wall: a hit whose normal (world,
  // unit) leans more than 80 deg from the ray's reverse is passed over, and the ray
  // goes on to what lies beyond it. Taken, the vertical face of a 12 cm kerb met by a rear wheel's
  // ray (tilted forwards as the front climbs) gave a contact normal across the road and a
  // suspension pushing along it through 1 / cos of the ray's 4 degrees: 100 to 360 kN, a car at
  // 11 to 41 km/h stopped at the kerb as if by a wall.
  static constexpr btScalar kMaxContactSlopeCosine = btScalar(0.17364817766693033);  // cos 80 deg
  // (Compared squared against the ray's own length, which every ray has, rather than against a
  // unit vector each ray would normalise.)
  bool stands(const btVector3& worldNormal) const {
    const btScalar along = worldNormal.dot(back_);
    return along > 0 && along * along >= leastLeanSquared_;
  }
  // Bullet's closest hit, and which triangle of a mesh it is on.
  btScalar addSingleResult(btCollisionWorld::LocalRayResult& result, bool normalInWorldSpace) override {
    const btVector3 worldNormal = normalInWorldSpace ? result.m_hitNormalLocal
                                                     : result.m_collisionObject->getWorldTransform().getBasis() *
                                                           result.m_hitNormalLocal;
    if (!stands(worldNormal)) return m_closestHitFraction;
    const btCollisionWorld::LocalShapeInfo* info = result.m_localShapeInfo;
    hitPart = info != nullptr ? info->m_shapePart : -1;
    hitTriangle = info != nullptr ? info->m_triangleIndex : -1;
    return ClosestRayResultCallback::addSingleResult(result, normalInWorldSpace);
  }

  int hitPart = -1;
  int hitTriangle = -1;

 private:
  const btCollisionObject* ignored_;
  btVector3 back_;              // from the ray's end to its start (m)
  btScalar leastLeanSquared_;   // (cos 80 deg x |back_|)^2: a unit normal's least (n . back_)^2
};

// The hit as the wheel keeps it, from what a ClosestRayResultCallback holds after a hit.
WheelRayHit wheelRayHit(const btVector3& from, const btVector3& to, btScalar hitFraction,
                        const btVector3& hitPoint, const btVector3& hitNormal,
                        const btCollisionObject* object, int part, int triangle);

// Closest hit along from -> to through btCollisionWorld::rayTest, with WheelRayCallback's filter.
WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored);

}  // namespace raycar
