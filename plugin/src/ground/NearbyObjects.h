#pragma once
// The objects one vehicle's wheel rays could meet in this step: those whose btDbvtBroadphase
// leaf volumes overlap a box around all of its rays, read from the broadphase's two trees.
//
// Asking the broadphase every step is what makes a cached wheel query see a box dropped under a
// wheel, a car driving under another's wheel, or a platform sliding in: anything a full rayTest
// would visit has a leaf volume crossing a ray, hence overlapping this box. The walk only reads
// the trees (no allocation, safe from several threads while nothing changes the broadphase).

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>

#include <vector>

namespace raycar {

struct NearbyObject {
  const btCollisionObject* object = nullptr;
  const btDbvtNode* leaf = nullptr;  // its broadphase volume
};

class NearbyObjects {
 public:
  explicit NearbyObjects(int capacity) { objects_.reserve(size_t(capacity)); }

  // Collects the objects `filter` accepts whose leaves overlap [boxMin, boxMax]. False when the
  // world's broadphase is not a btDbvtBroadphase, its trees are deeper than the walk's stack, or
  // more objects overlap than the capacity: the caller then casts full rays this step.
  bool gather(const btCollisionWorld& world, const btVector3& boxMin, const btVector3& boxMax,
              const btCollisionWorld::RayResultCallback& filter);

  const std::vector<NearbyObject>& objects() const { return objects_; }  // empty before gather
  size_t capacity() const { return objects_.capacity(); }

 private:
  std::vector<NearbyObject> objects_;
};

}  // namespace raycar
