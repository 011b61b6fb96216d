#include "ground/NearbyObjects.h"

#if defined(__SSE__) && !defined(BT_USE_DOUBLE_PRECISION)
#include <xmmintrin.h>
#endif

namespace raycar {
namespace {
// Depth-first walk: the stack holds at most the tree depth plus one. btDbvtBroadphase keeps its
// trees balanced incrementally; 128 is far beyond what a world of a million objects needs.
constexpr int kStackSize = 128;

// Bullet's Intersect(volume, box) as GCC builds it (each axis: volume min <= box max and volume
// max >= box min, false for a NaN), decided by one branch instead of one per comparison: which
// of a walk's nodes overlap follows no pattern a predictor learns, and the six branches had cost
// the walk twice its instructions' share of a car's time.
inline bool overlaps(const btDbvtVolume& volume, const btDbvtVolume& box) {
#if defined(__SSE__) && !defined(BT_USE_DOUBLE_PRECISION)
  const __m128 below = _mm_cmple_ps(_mm_loadu_ps(&volume.Mins().x()), _mm_loadu_ps(&box.Maxs().x()));
  const __m128 above = _mm_cmple_ps(_mm_loadu_ps(&box.Mins().x()), _mm_loadu_ps(&volume.Maxs().x()));
  return (_mm_movemask_ps(_mm_and_ps(below, above)) & 7) == 7;  // x, y, z; not the fourth lane
#else
  return Intersect(volume, box);
#endif
}
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
    if (tree.m_root == nullptr || !overlaps(tree.m_root->volume, box)) continue;
    // The stack holds nodes that overlap the box. Both children of a node are tested together,
    // so that their volumes' memory round trips overlap; the second child is visited first, as
    // a walk that pushed both and tested each on its way out visits them.
    int depth = 0;
    stack[depth++] = tree.m_root;
    while (depth > 0) {
      const btDbvtNode* node = stack[--depth];
      if (node->isinternal()) {
        const btDbvtNode* first = node->childs[0];
        const btDbvtNode* second = node->childs[1];
        const bool firstOverlaps = overlaps(first->volume, box);
        const bool secondOverlaps = overlaps(second->volume, box);
        if (depth + 2 > kStackSize) return false;
        // Pushed without a branch: each is written, and kept by moving the top past it.
        stack[depth] = first;
        depth += int(firstOverlaps);
        stack[depth] = second;
        depth += int(secondOverlaps);
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
