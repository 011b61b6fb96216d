#include "ground/NearbyObjects.h"

namespace raycar {
namespace {
// Depth-first walk: the stack holds at most the tree depth plus one. btDbvtBroadphase keeps its
// trees balanced incrementally; 128 is far beyond what a world of a million objects needs.
constexpr int kStackSize = 128;
}  // namespace

bool NearbyObjects::gather(const btCollisionWorld& world, const btVector3& boxMin,
                           const btVector3& boxMax,
                           const btCollisionWorld::RayResultCallback& filter) {
  objects_.clear();
  // getBroadphase() is non-const in Bullet; the walk below only reads.
  auto* broadphase = dynamic_cast<const btDbvtBroadphase*>(
      const_cast<btCollisionWorld&>(world).getBroadphase());
  if (broadphase == nullptr) return false;
  const btDbvtVolume box = btDbvtVolume::FromMM(boxMin, boxMax);
  const btDbvtNode* stack[kStackSize];
  for (const btDbvt& tree : broadphase->m_sets) {
    if (tree.m_root == nullptr) continue;
    int depth = 0;
    stack[depth++] = tree.m_root;
    while (depth > 0) {
      const btDbvtNode* node = stack[--depth];
      if (!Intersect(node->volume, box)) continue;
      if (node->isinternal()) {
        if (depth + 2 > kStackSize) return false;
        stack[depth++] = node->childs[0];
        stack[depth++] = node->childs[1];
        continue;
      }
      auto* proxy = static_cast<btBroadphaseProxy*>(node->data);
      if (!filter.needsCollision(proxy)) continue;
      if (objects_.size() == objects_.capacity()) return false;
      objects_.push_back({static_cast<const btCollisionObject*>(proxy->m_clientObject), node});
    }
  }
  return true;
}

}  // namespace raycar
