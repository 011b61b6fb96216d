#pragma once
// What Bullet's broadphase does with one world ray, repeated outside btCollisionWorld::rayTest so
// that a cached query visits exactly the objects a full rayTest would.
//
// btCollisionWorld::rayTest hands the ray to btDbvtBroadphase::rayTest, which walks both of its
// trees and passes an object on to the exact per-object test (btCollisionWorld::rayTestSingle)
// when the ray crosses the object's tree leaf volume (btRayAabb2 with btSingleRayCallback's
// normalised inverse direction and lambda_max). A leaf volume can be larger than the object's
// AABB (btDbvtBroadphase fattens moving proxies) and lags a moving body by a step, so it is the
// leaf volume, not the AABB, that decides. A leaf a ray crosses has every ancestor crossed too
// (ancestors contain it, and the slab test is monotone), so testing the leaf alone is exact.

#include <BulletCollision/BroadphaseCollision/btDbvt.h>
#include <LinearMath/btVector3.h>

namespace raycar {

class BroadphaseRay {
 public:
  // The same arithmetic as btSingleRayCallback's constructor.
  BroadphaseRay(const btVector3& from, const btVector3& to) : from_(from) {
    btVector3 direction = to - from;
    direction.normalize();
    for (int axis = 0; axis < 3; ++axis) {
      directionInverse_[axis] =
          direction[axis] == btScalar(0.0) ? btScalar(BT_LARGE_FLOAT) : btScalar(1.0) / direction[axis];
      signs_[axis] = directionInverse_[axis] < 0.0;
    }
    lambdaMax_ = direction.dot(to - from);
  }

  // Whether btDbvt::rayTestInternal passes this leaf to the object test (box-cast extents zero).
  bool crosses(const btDbvtNode& leaf) const {
    const btVector3 bounds[2] = {leaf.volume.Mins(), leaf.volume.Maxs()};
    btScalar entry = 1.f;
    return btRayAabb2(from_, directionInverse_, signs_, bounds, entry, 0.f, lambdaMax_);
  }

 private:
  btVector3 from_;
  btVector3 directionInverse_;
  unsigned int signs_[3];
  btScalar lambdaMax_;
};

}  // namespace raycar
