#pragma once
// Exact wheel rays against one btBvhTriangleMeshShape object from a small cached set of its
// triangles.
//
// A wheel moves a few centimetres per step, so walking the mesh's BVH from the root for every
// ray (what btCollisionWorld::rayTest does) repeats the same work. This cache keeps, in mesh
// space, a box around the wheel's ray (grown by a margin and by where the chassis' velocity will
// carry the ray) and the BVH leaves overlapping it. While a ray stays inside the box it is
// answered from those leaves; when it leaves, the box and leaves are gathered again.
//
// Why the answer is bitwise the one rayTest gives (btCollisionWorld::rayTestSingleInternal with
// btBvhTriangleMeshShape::performRaycast):
// - The ray is taken into mesh space with the same expression (transform.inverse() * point).
// - Bullet's ray walk (btQuantizedBvh::walkStacklessQuantizedTreeAgainstRay) hands a leaf's
//   triangle on when the ray's quantised box overlaps the leaf's quantised box and btRayAabb2
//   accepts the leaf's unquantised box; every leaf that passes both tests overlaps the cached box
//   (a margin of kGatherSlack covers rounding), and the same two tests run here on each cached
//   leaf. Ancestors need no test: they contain their leaves, and both tests are monotone.
// - The triangle test is btTriangleRaycastCallback::processTriangle's arithmetic, operation for
//   operation (in line where that agrees bit for bit with Bullet's own compiled function, which
//   is checked once; else that function: TriangleHits in MeshRayCache.cpp), fed the vertices
//   exactly as the walk reads them (index and vertex types, mesh scaling).
// - Triangles come in the BVH's node order, as in the walk, and the test keeps a hit only when
//   it is strictly closer, so ties go to the same triangle.
// - The result goes through the same ClosestRayResultCallback::addSingleResult, with the normal
//   rotated into the world as btCollisionWorld's bridge callback does it.
// The tests reproduce rayTest's hits bit for bit on random rays and on whole drives.
//
// Limitations: meshes with a non-quantised BVH or byte indices, and meshes whose vertices are
// changed in place after the cache has read them (call RaycastVehicle::clearWheelQueryCache()).

#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>

#include <LinearMath/btAabbUtil2.h>

#include <cstdint>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "Prefetch.h"
#include "ground/NearbyObjects.h"
#include "ground/WheelRaycast.h"

namespace raycar {

// One triangle's vertices (mesh space, scaled by the interface's scaling) into out[9], exactly as
// btBvhTriangleMeshShape::performRaycast reads them. False for a part or index out of range and
// for index or vertex types that walk does not read (byte indices). With out null, only whether
// it can be read: the triangle's indices and vertices are not touched.
bool readMeshTriangle(const btStridingMeshInterface& mesh, int part, int index, btScalar* out);

// A cached BVH leaf's box, scanned for every ray, apart from its triangle, read only for the one
// or two leaves a ray passes: a scan then touches a cache line or two per wheel.
struct CachedLeaf {
  unsigned short quantizedMin[3];
  unsigned short quantizedMax[3];
};
// The test Bullet's walk makes of each leaf before anything else: does a query's quantised box
// overlap the leaf's (testQuantizedAabbAgainstQuantizedAabb), all six comparisons at once and
// without a branch. Which cached leaves a wheel's ray passes changes from wheel to wheel and car
// to car, so Bullet's form, one branch per leaf on the answer, was mispredicted about three times
// a ray (callgrind's branch model); cast() gathers the answers for 32 leaves into a mask first and
// then visits only the leaves set in it, in order.
class QuantizedBoxTest {
 public:
  QuantizedBoxTest(const unsigned short queryMin[3], const unsigned short queryMax[3]) {
#if defined(__SSE2__)
    // A leaf's lanes are (min x, y, z, max x, y, z, -, -). Unsigned saturating subtraction is 0
    // exactly when the first operand is at most the second: lanes 0-2 test leaf min <= query max,
    // lanes 3-5 query min <= leaf max; the constants make lanes 6 and 7 always pass.
    leafMinCeiling_ = _mm_setr_epi16(short(queryMax[0]), short(queryMax[1]), short(queryMax[2]), -1, -1,
                                     -1, -1, -1);
    leafMaxFloor_ = _mm_setr_epi16(0, 0, 0, short(queryMin[0]), short(queryMin[1]), short(queryMin[2]), 0, 0);
#else
    for (int axis = 0; axis < 3; ++axis) {
      queryMin_[axis] = queryMin[axis];
      queryMax_[axis] = queryMax[axis];
    }
#endif
  }
  bool overlaps(const CachedLeaf& leaf) const {
#if defined(__SSE2__)
    __m128i lanes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(leaf.quantizedMin));  // min, max x
    lanes = _mm_insert_epi16(lanes, leaf.quantizedMax[1], 4);
    lanes = _mm_insert_epi16(lanes, leaf.quantizedMax[2], 5);
    const __m128i excess =
        _mm_or_si128(_mm_subs_epu16(lanes, leafMinCeiling_), _mm_subs_epu16(leafMaxFloor_, lanes));
    return _mm_movemask_epi8(_mm_cmpeq_epi16(excess, _mm_setzero_si128())) == 0xFFFF;
#else
    return testQuantizedAabbAgainstQuantizedAabb(queryMin_, queryMax_, leaf.quantizedMin,
                                                 leaf.quantizedMax) != 0;
#endif
  }
  // Bit k set when leaves[first + k] overlaps, for k < min(32, count - first).
  std::uint32_t overlapMask(const CachedLeaf* leaves, int first, int count) const {
    const int end = count - first < 32 ? count : first + 32;
    std::uint32_t mask = 0;
    for (int i = first; i < end; ++i) mask |= std::uint32_t(overlaps(leaves[i])) << (i - first);
    return mask;
  }

 private:
#if defined(__SSE2__)
  __m128i leafMinCeiling_;
  __m128i leafMaxFloor_;
#else
  unsigned short queryMin_[3];
  unsigned short queryMax_[3];
#endif
};

// The index of the lowest set bit of a non-zero mask.
inline int lowestSetBit(std::uint32_t mask) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctz(mask);
#else
  int bit = 0;
  while ((mask & 1u) == 0) {
    mask >>= 1;
    ++bit;
  }
  return bit;
#endif
}

// Which triangle a cached leaf holds, as the leaf itself packs its part and triangle index
// (btQuantizedBvhNode: 4 bytes, where two ints took 8), unpacked by Bullet's own accessors.
struct CachedTriangle {
  int packedId = -1;  // btQuantizedBvhNode::m_escapeIndexOrTriangleIndex of a leaf
  int part() const { return leafOf(packedId).getPartId(); }
  int index() const { return leafOf(packedId).getTriangleIndex(); }
  bool operator==(const CachedTriangle& other) const { return packedId == other.packedId; }

 private:
  static btQuantizedBvhNode leafOf(int packed) {
    btQuantizedBvhNode node{};  // the box too: only the index is read, but a copy reads all
    node.m_escapeIndexOrTriangleIndex = packed;
    return node;
  }
};
// A cached triangle's vertices (mesh space, scaled), kept only by caches whose every query reads
// most of their triangles (a shape's sweep). A ray reads the one or two triangles whose leaf it
// passes from the mesh, as Bullet's walk does, remembering the last few (RecentTriangles): 36
// bytes a cached triangle less on the heap.
struct CachedVertices {
  btScalar vertices[9];
};
// Which of a kept triangle's edges are internal: shared with a cached neighbour in the same plane
// (a quad's diagonal, a flat road's seams). Bit k is the edge from vertex k to vertex k + 1. A
// sweep that meets such an edge takes the face's normal there (sweepTriangle), not the edge's:
// a wheel pressed against a wall quad, overlapping one half, had met the other half's diagonal
// with a normal close to vertical and stood on the wall. The edge is still met where it is met:
// skipping it lost the ground on a ridge of a twentieth of a degree and found a far edge when
// the shape started inside the neighbour.
using InternalEdges = unsigned char;
// The internal edges of `count` triangles into internal[count]; `capacity` (>= count) sizes the
// calling thread's table, allocated once for the largest capacity it meets.
void findInternalEdges(const CachedVertices* triangles, int count, int capacity, InternalEdges* internal);

// The vertices of the last triangles a wheel's rays passed, read from the mesh, shared by the
// wheel's mesh caches (MeshCacheSet) and tagged with the one that read them. A wheel passes the
// same few triangles for many steps, and reading the mesh's index and vertex arrays is two
// memory round trips a triangle among a thousand cars. A ray passes up to four leaves where
// their boxes meet: two remembered triangles a cache had missed 1.1 times a car's step on the
// bench (callgrind, 100 cars), four shared by both caches 0.3 times, on the same heap as two
// each. A cache forgets its own when its mesh changes (MeshRayCache::cast).
class RecentTriangles {
 public:
  static constexpr int kSlots = 4;
  // `triangle`'s vertices (mesh space, scaled) for cache `owner` of the set: remembered, or read
  // from `mesh` into the slot written longest ago.
  const btScalar* vertices(int owner, const CachedTriangle& triangle, const btStridingMeshInterface& mesh);
  void forget(int owner);
  void forgetAll();

 private:
  CachedTriangle ids_[kSlots];  // -1: empty
  unsigned char owners_[kSlots] = {};
  unsigned char oldest_ = 0;  // the slot the next read goes to
  CachedVertices vertices_[kSlots];
};

class MeshRayCache {
 public:
  // The meshes this cache answers for: btBvhTriangleMeshShape with a quantised BVH.
  static bool canCache(const btCollisionObject& object);
  // Whether the rays' triangle test runs in line on this build: only where it answers bit for
  // bit as Bullet's compiled btTriangleRaycastCallback::processTriangle (checked once, on 256
  // random rays and triangles); else that function is called.
  static bool triangleTestInLine();

  // Storage for up to `capacity` leaves, owned by the vehicle (CacheMemory): `storage` holds
  // their boxes, then their triangles, then, with `keepVertices`, their vertices; without, the
  // vertices are read from the mesh when a ray needs them.
  // `index`: this cache's place in its set, which tags the set's RecentTriangles.
  void attach(unsigned char* storage, int capacity, bool keepVertices, int index) {
    storage_ = storage;
    capacity_ = capacity;
    keepsVertices_ = keepVertices;
    index_ = static_cast<unsigned char>(index);
    clear();
  }
  // Bytes of storage `capacity` leaves take.
  static size_t storageBytes(int capacity, bool keepVertices) {
    return size_t(capacity) * (sizeof(CachedLeaf) + sizeof(CachedTriangle) +
                               (keepVertices ? sizeof(CachedVertices) + sizeof(InternalEdges) : 0));
  }
  void clear() { object_ = nullptr; }
  bool holds(const btCollisionObject& object) const { return object_ == &object; }
  bool empty() const { return object_ == nullptr; }
  int triangleCount() const { return count_; }

  // The closest hit of from -> to (world) on `object` into `result` (a fresh callback), or false
  // when the region is too dense for the capacity even without margin: then nothing is cached
  // and the caller asks Bullet. `displacement` (world, m) is where the ray is expected to move
  // before the next refresh; `margin` (m) pads the cached box. Unless this cache keeps its
  // vertices, the triangles the ray passes are read through `recent` (its set's).
  bool cast(const btCollisionObject& object, const btVector3& from, const btVector3& to,
            const btVector3& displacement, btScalar margin, RecentTriangles& recent,
            WheelRayCallback& result);

  // Makes the cache hold every triangle of `object` whose BVH leaf overlaps [boxMin, boxMax]
  // (mesh space), gathering again, around the box grown by `margin` and `displacement` (mesh
  // space), when the box is not inside the cached one. False as for cast.
  bool cover(const btCollisionObject& object, const btVector3& boxMin, const btVector3& boxMax,
             const btVector3& displacement, btScalar margin);
  // The cached leaves' boxes, triangles and (when kept) vertices, `triangleCount()` of each, and
  // the mesh's BVH (for its quantisation), valid after a successful cover.
  const CachedLeaf* leaves() const { return leafArray(); }
  const CachedTriangle* triangles() const { return triangleArray(); }
  const CachedVertices* vertices() const { return vertexArray(); }  // null unless kept
  const InternalEdges* internalEdges() const { return edgeArray(); }  // null unless kept
  const btQuantizedBvh& bvh() const { return *bvh_; }

 private:
  bool matchesKey(const btCollisionObject& object, const btBvhTriangleMeshShape& shape) const;
  bool refresh(const btCollisionObject& object, const btBvhTriangleMeshShape& shape,
               const btVector3& wantedMin, const btVector3& wantedMax,
               const btVector3& displacement, btScalar margin);
  bool gather(const btBvhTriangleMeshShape& shape, const btVector3& boxMin, const btVector3& boxMax);
  void findInternalEdges();  // of the kept triangles, after a gather

  // The storage's arrays, capacity_ entries each, one after the other (attach): boxes,
  // triangles, and when kept vertices and internal edges.
  CachedLeaf* leafArray() const { return reinterpret_cast<CachedLeaf*>(storage_); }
  CachedTriangle* triangleArray() const {
    return reinterpret_cast<CachedTriangle*>(storage_ + size_t(capacity_) * sizeof(CachedLeaf));
  }
  CachedVertices* vertexArray() const {
    return keepsVertices_ ? reinterpret_cast<CachedVertices*>(
                                storage_ + size_t(capacity_) * (sizeof(CachedLeaf) + sizeof(CachedTriangle)))
                          : nullptr;
  }
  InternalEdges* edgeArray() const {
    return keepsVertices_ ? reinterpret_cast<InternalEdges*>(
                                storage_ + size_t(capacity_) * (sizeof(CachedLeaf) + sizeof(CachedTriangle) +
                                                                sizeof(CachedVertices)))
                          : nullptr;
  }

  // The leaves' boxes, triangles and (keepsVertices_) vertices, capacity_ of each (attach).
  unsigned char* storage_ = nullptr;
  bool keepsVertices_ = false;
  unsigned char index_ = 0;  // in its set (attach)
  bool meshChanged_ = false;  // refreshed onto another mesh since cast last read triangles
  int capacity_ = 0;
  int count_ = 0;
  // What the triangles belong to: a rebuilt BVH, a new shape, a new scaling or an object removed
  // and added again (new broadphase id) all refresh the cache. (proxyId_ beside the counts: no
  // padding before the pointers.)
  int proxyId_ = -1;
  const btCollisionObject* object_ = nullptr;
  const btCollisionShape* shape_ = nullptr;
  const btOptimizedBvh* bvh_ = nullptr;
  btVector3 scaling_{1, 1, 1};
  // Mesh space: rays whose box lies inside are answered from the triangles.
  btVector3 boxMin_{0, 0, 0};
  btVector3 boxMax_{0, 0, 0};
};

// Memory the caches of a vehicle's wheels are cut from, one piece after another: the vehicle
// allocates it once, together with its wheels (WheelArray), and owns it.
class CacheMemory {
 public:
  static constexpr size_t kAlignment = 16;  // bytes: every piece starts at a multiple of this
  static size_t roundedUp(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }
  CacheMemory(unsigned char* begin, size_t bytes) : next_(begin), end_(begin + bytes) {}
  // The next `bytes` (rounded up to kAlignment). Throws std::logic_error when the memory is
  // shorter: the vehicle sizes it for all of its wheels' pieces.
  unsigned char* take(size_t bytes);
  size_t remaining() const { return size_t(end_ - next_); }  // bytes

 private:
  unsigned char* next_ = nullptr;
  unsigned char* end_ = nullptr;
};

// One wheel's caches: a wheel can stand where two mesh objects meet (terrain tiles); more meshes
// at once are tested through Bullet without a cache. The storage is the vehicle's (CacheMemory).
class MeshCacheSet {
 public:
  static constexpr int kMeshes = 2;
  static constexpr int kPrefetchBlocks = 2 * kMeshes;  // each cache's leaves and triangles
  // The memory the next cast reads: where each block begins, and its bytes.
  struct PrefetchBlocks {
    const void* begin[kPrefetchBlocks] = {};
    std::uint32_t bytes[kPrefetchBlocks] = {};
  };

  // `capacity` triangles per mesh; `keepVertices`: the caches hold the triangles' vertices too
  // (CachedVertices says when that pays). Their storage, storageBytes() of it, comes from `memory`.
  MeshCacheSet(int capacity, bool keepVertices, CacheMemory& memory);
  static size_t storageBytes(int capacity, bool keepVertices) {
    return size_t(kMeshes) * CacheMemory::roundedUp(MeshRayCache::storageBytes(capacity, keepVertices));
  }
  // The storage is the vehicle's: a moved set refers to the same, and a copy would share it.
  MeshCacheSet(MeshCacheSet&&) = default;
  MeshCacheSet& operator=(MeshCacheSet&&) = default;
  MeshCacheSet(const MeshCacheSet&) = delete;
  MeshCacheSet& operator=(const MeshCacheSet&) = delete;

  // The cache for `object` (canCache): the one holding it, else an empty one, else one whose mesh
  // is no longer among `nearby`; null when every cache holds a nearby mesh.
  MeshRayCache* cacheFor(const std::vector<NearbyObject>& nearby, const btCollisionObject& object);
  RecentTriangles& recentTriangles() { return recent_; }
  void clear();
  int triangleCount() const;
  // The memory the next cast reads (after the caches changed).
  void describe(PrefetchBlocks& blocks) const;

 private:
  MeshRayCache caches_[kMeshes];
  RecentTriangles recent_;
};

}  // namespace raycar
