#include "ground/NearbyObjects.h"

#include <algorithm>

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

NearbyObjectsBatch::NearbyObjectsBatch(int boxes, int capacity)
    : maximumBoxes_(boxes), capacity_(capacity) {
  boxes_.resize(size_t(boxes));
  ignored_.resize(size_t(boxes));
  counts_.resize(size_t(boxes));
  objects_.resize(size_t(boxes) * size_t(capacity));
  pending_.resize(kStackSize);
  // Every pending node's run, and the two children's runs of the node being split.
  boxIndices_.resize(size_t(kStackSize + 2) * size_t(boxes));
}

int NearbyObjectsBatch::add(const btVector3& boxMin, const btVector3& boxMax,
                            const btCollisionObject* ignored) {
  const int slot = boxCount_++;
  boxes_[size_t(slot)] = btDbvtVolume::FromMM(boxMin, boxMax);
  ignored_[size_t(slot)] = ignored;
  return slot;
}

bool NearbyObjectsBatch::gather(const btCollisionWorld& world,
                                const btCollisionWorld::RayResultCallback& filter) {
  auto* broadphase = dynamic_cast<const btDbvtBroadphase*>(
      const_cast<btCollisionWorld&>(world).getBroadphase());
  if (broadphase == nullptr) return false;
  gathered_ = false;
  for (int box = 0; box < boxCount_; ++box) counts_[size_t(box)] = 0;
  int* const indices = boxIndices_.data();
  for (const btDbvt& tree : broadphase->m_sets) {
    if (tree.m_root == nullptr) continue;
    int rootBoxes = 0;
    for (int box = 0; box < boxCount_; ++box) {
      indices[rootBoxes] = box;
      rootBoxes += int(overlaps(tree.m_root->volume, boxes_[size_t(box)]));
    }
    if (rootBoxes == 0) continue;
    int depth = 0;
    pending_[size_t(depth++)] = {tree.m_root, 0, rootBoxes};
    while (depth > 0) {
      const Pending taken = pending_[size_t(--depth)];
      const int* const takenBoxes = indices + taken.firstBox;
      const btDbvtNode* node = taken.node;
      if (node->isinternal()) {
        // The children's runs are written past the taken run, then moved down over it: the
        // taken run is the last one on the stack.
        const btDbvtNode* first = node->childs[0];
        const btDbvtNode* second = node->childs[1];
        int* const firstBoxes = indices + taken.firstBox + taken.boxCount;
        int firstCount = 0;
        for (int k = 0; k < taken.boxCount; ++k) {
          firstBoxes[firstCount] = takenBoxes[k];
          firstCount += int(overlaps(first->volume, boxes_[size_t(takenBoxes[k])]));
        }
        int* const secondBoxes = firstBoxes + firstCount;
        int secondCount = 0;
        for (int k = 0; k < taken.boxCount; ++k) {
          secondBoxes[secondCount] = takenBoxes[k];
          secondCount += int(overlaps(second->volume, boxes_[size_t(takenBoxes[k])]));
        }
        if (depth + 2 > kStackSize) return false;  // as each box's own walk would
        std::copy(firstBoxes, secondBoxes + secondCount, indices + taken.firstBox);
        // Pushed as each box's walk pushes them: the first, then the second, which goes first.
        if (firstCount > 0) pending_[size_t(depth++)] = {first, taken.firstBox, firstCount};
        if (secondCount > 0)
          pending_[size_t(depth++)] = {second, taken.firstBox + firstCount, secondCount};
        continue;
      }
      auto* proxy = static_cast<btBroadphaseProxy*>(node->data);
      if (!filter.needsCollision(proxy)) continue;
      const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
      for (int k = 0; k < taken.boxCount; ++k) {
        const int box = takenBoxes[k];
        if (object == ignored_[size_t(box)]) continue;
        int& count = counts_[size_t(box)];
        if (count < capacity_) objects_[size_t(box) * size_t(capacity_) + size_t(count)] = {object, node};
        count = std::min(count + 1, capacity_ + 1);
      }
    }
  }
  gathered_ = true;
  return true;
}

bool NearbyObjectsBatch::holds(int slot, const btVector3& boxMin, const btVector3& boxMax,
                               const btCollisionObject* ignored) const {
  if (!gathered_ || slot < 0 || slot >= boxCount_ || ignored_[size_t(slot)] != ignored) return false;
  const btDbvtVolume& box = boxes_[size_t(slot)];
  auto same = [](const btVector3& a, const btVector3& b) {
    return a.x() == b.x() && a.y() == b.y() && a.z() == b.z();
  };
  return same(box.Mins(), boxMin) && same(box.Maxs(), boxMax);
}

bool NearbyObjectsBatch::objects(int slot, const NearbyObject*& first, size_t& count) const {
  const int found = counts_[size_t(slot)];
  if (found > capacity_) return false;
  first = objects_.data() + size_t(slot) * size_t(capacity_);
  count = size_t(found);
  return true;
}

}  // namespace raycar
