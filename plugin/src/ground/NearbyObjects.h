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
  // What a gather found, gathered elsewhere (NearbyObjectsBatch): at most capacity() objects.
  void assign(const NearbyObject* first, size_t count) { objects_.assign(first, first + count); }

 private:
  std::vector<NearbyObject> objects_;
};

// The nearby objects of a run of boxes (a run of vehicles), gathered by one walk of each tree
// for all of them: every node is read once and tested against the boxes whose own walk would
// reach it, instead of being read again by each box's walk. A car's walk is a chain of memory
// round trips, one per level (24 nodes a car among a thousand cars on the bench's terrain,
// whose leaf volume every car's box overlaps); neighbouring cars share most of their paths.
// Each box gets what NearbyObjects::gather would give it: the same objects in the same order
// (the walk is the same depth-first order, the second child first, over the nodes any box
// overlaps; each box's list keeps the nodes it overlaps), and no answer where its own walk
// would have had none (more objects than the capacity).
class NearbyObjectsBatch {
 public:
  // Room for `boxes` boxes of at most `capacity` objects each; allocates only here.
  NearbyObjectsBatch(int boxes, int capacity);

  void clear() {
    boxCount_ = 0;
    gathered_ = false;
  }
  bool full() const { return boxCount_ == maximumBoxes_; }
  // Adds a box whose objects leave out `ignored` (a vehicle's own chassis), before the filter is
  // asked; returns its slot. Not when full().
  int add(const btVector3& boxMin, const btVector3& boxMax, const btCollisionObject* ignored);
  // One walk of each of the broadphase's trees for all the boxes added. `filter` is asked about
  // each leaf once, for every box (it must not depend on the box; `ignored` is per box). False
  // when nothing was gathered: the broadphase is not a btDbvtBroadphase, or its trees are deeper
  // than the walk's stack; each box's own walk (NearbyObjects::gather) then answers for it.
  bool gather(const btCollisionWorld& world, const btCollisionWorld::RayResultCallback& filter);
  // Whether a gather since the last clear() answered `slot` for exactly this box (bit for bit:
  // a NaN never matches) and this `ignored`.
  bool holds(int slot, const btVector3& boxMin, const btVector3& boxMax,
             const btCollisionObject* ignored) const;
  // After a gather that holds `slot`: its objects, or false when more objects than the capacity
  // overlap its box (NearbyObjects::gather would have returned false).
  bool objects(int slot, const NearbyObject*& first, size_t& count) const;

 private:
  struct Pending {
    const btDbvtNode* node;
    int firstBox;  // into boxIndices_: the boxes that overlap the node
    int boxCount;
  };
  int maximumBoxes_;
  int capacity_;
  int boxCount_ = 0;
  bool gathered_ = false;  // the boxes added since clear() were walked
  std::vector<btDbvtVolume> boxes_;
  std::vector<const btCollisionObject*> ignored_;
  std::vector<int> counts_;  // per box: objects found, capacity_ + 1 once more would not fit
  std::vector<NearbyObject> objects_;  // box b's from b x capacity_ on
  // The walk's pending nodes and, for each, the boxes that overlap it: a stack of runs of box
  // indices in the same order as the pending nodes, so a node's run is the last one when it is
  // taken (the nodes pending at once are at most the stack's depth, each with at most all boxes).
  std::vector<Pending> pending_;
  std::vector<int> boxIndices_;
};

}  // namespace raycar
