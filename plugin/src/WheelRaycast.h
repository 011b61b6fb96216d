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

// Closest hit along from -> to that is not `ignored` (the vehicle's own chassis) and not an
// object without contact response (triggers do not carry wheels).
WheelRayHit castWheelRay(btCollisionWorld& world, const btVector3& from, const btVector3& to,
                         const btCollisionObject* ignored);

}  // namespace raycar
