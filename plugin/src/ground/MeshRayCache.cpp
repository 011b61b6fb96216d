#include "ground/MeshRayCache.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <BulletCollision/CollisionShapes/btOptimizedBvh.h>
#include <BulletCollision/NarrowPhaseCollision/btRaycastCallback.h>
#include <LinearMath/btAabbUtil2.h>

#include "Inline.h"
#include "MinMax.h"

namespace raycar {
namespace {

// Leaves are gathered from a box this much (m) larger than the one rays are answered in, so that
// rounding in Bullet's ray-box tests cannot accept a leaf the gather missed (rounding is ~1e-5 m
// at 500 m from the origin).
constexpr btScalar kGatherSlack = 0.01f;
// A region too dense for the capacity is gathered again with half the margin and lookahead,
// and finally around the ray alone.
constexpr int kRefreshAttempts = 4;

// Bullet's BVH accessors are non-const; everything here only reads.
btBvhTriangleMeshShape& meshShape(const btCollisionObject& object) {
  return *static_cast<btBvhTriangleMeshShape*>(
      const_cast<btCollisionShape*>(object.getCollisionShape()));
}

// The ray's nearest crossing of the triangles it is shown, with the arithmetic of Bullet's
// btTriangleRaycastCallback::processTriangle, operation for operation, so that the answer is
// bitwise rayTest's (test_wheel_query.cpp): the triangle's plane is crossed between the ray's
// ends, nearer than the nearest crossing so far, at a point inside all three edges (within a
// tolerance of 1e-4 |n|^2 outside, n the unnormalised normal); the normal faces the ray's start
// unless `flags` keep it unflipped. Bullet's callback is a virtual call a triangle, its hit
// reported through a second: in line (testInLine), the bench's 204 instructions a triangle fall
// to 146 (1.4% of a car's step). The same operations round the same only where neither
// compiler fused a multiply and an add into one rounding, or kept more precision than a float's,
// which this file's compiler cannot know of the library's; so the in-line test is used only
// where it agrees bit for bit with the library's compiled one (inLineTestAgrees), and
// otherwise the library's is called (testWithLibrary).
class TriangleHits {
 public:
  TriangleHits(const btVector3& from, const btVector3& to, unsigned int flags, btScalar nearest)
      : from_(from), to_(to), flags_(flags), hitFraction(nearest) {}
  // Hits the wheel's callback would pass over (WheelRayCallback::stands), judged on the normal it
  // would be given: the mesh's basis times the triangle's, as btCollisionWorld's bridge makes it.
  void passOverWalls(const WheelRayCallback& callback, const btMatrix3x3& meshBasis) {
    callback_ = &callback;
    meshBasis_ = &meshBasis;
  }

  void testWithLibrary(const btVector3 (&corner)[3], int part, int index) {
    struct Library final : btTriangleRaycastCallback {
      explicit Library(TriangleHits& hits)
          : btTriangleRaycastCallback(hits.from_, hits.to_, hits.flags_), hits(hits) {
        m_hitFraction = hits.hitFraction;
      }
      btScalar reportHit(const btVector3& normal, btScalar fraction, int part, int index) override {
        if (!hits.stands(normal)) return hits.hitFraction;
        hits.record(normal, fraction, part, index);
        return fraction;
      }
      TriangleHits& hits;
    } library(*this);
    btVector3 corners[3] = {corner[0], corner[1], corner[2]};
    library.processTriangle(corners, part, index);
  }

  RAYCAR_ALWAYS_INLINE void testInLine(const btVector3 (&corner)[3], int part, int index) {
    btVector3 normal = (corner[1] - corner[0]).cross(corner[2] - corner[0]);
    const btScalar planeOffset = corner[0].dot(normal);
    btScalar fromAbove = normal.dot(from_);
    fromAbove -= planeOffset;
    btScalar toAbove = normal.dot(to_);
    toAbove -= planeOffset;
    if (fromAbove * toAbove >= btScalar(0)) return;  // both ends on one side
    const bool fromBehind = fromAbove <= btScalar(0);
    if ((flags_ & btTriangleRaycastCallback::kF_FilterBackfaces) != 0 && fromBehind) return;
    const btScalar fraction = fromAbove / (fromAbove - toAbove);
    if (!(fraction < hitFraction)) return;
    btScalar edgeTolerance = normal.length2();
    edgeTolerance *= btScalar(-0.0001);
    btVector3 point;
    point.setInterpolate3(from_, to_, fraction);
    const btVector3 toCorner0 = corner[0] - point;
    const btVector3 toCorner1 = corner[1] - point;
    // (Written as "not inside" so that a NaN misses, as in Bullet's.)
    if (!(toCorner0.cross(toCorner1).dot(normal) >= edgeTolerance)) return;
    const btVector3 toCorner2 = corner[2] - point;
    if (!(toCorner1.cross(toCorner2).dot(normal) >= edgeTolerance)) return;
    if (!(toCorner2.cross(toCorner0).dot(normal) >= edgeTolerance)) return;
    normal.normalize();
    const bool flip = (flags_ & btTriangleRaycastCallback::kF_KeepUnflippedNormal) == 0 && fromBehind;
    if (flip) normal = -normal;
    if (!stands(normal)) return;
    record(normal, fraction, part, index);
  }

 private:
  bool stands(const btVector3& meshNormal) const {
    return callback_ == nullptr || callback_->stands(*meshBasis_ * meshNormal);
  }
  void record(const btVector3& normal, btScalar fraction, int part, int index) {
    hit = true;
    hitNormal = normal;
    hitFraction = fraction;
    hitPart = part;
    hitIndex = index;
  }
  const btVector3 from_, to_;
  const unsigned int flags_;
  const WheelRayCallback* callback_ = nullptr;
  const btMatrix3x3* meshBasis_ = nullptr;

 public:
  bool hit = false;
  btVector3 hitNormal{0, 0, 0};
  btScalar hitFraction;  // the nearest crossing so far, of the ray from `from` to `to`
  int hitPart = 0;
  int hitIndex = 0;
};

// Whether testInLine answers as the library's compiled test does, bit for bit, on this build:
// 256 rays through triangles of random shape and size (a fixed sequence), each asked both ways,
// under each flag the test reads (none, back faces filtered, normal kept unflipped), every other
// one through a point within 2e-4 (barycentric) of an edge, either side, where the edge
// tolerance (-1e-4) decides; decided once.
bool inLineTestAgrees() {
  static const bool agrees = [] {
    std::uint32_t seed = 0x9e3779b9u;
    auto coordinate = [&seed] {  // m, in [-10, 10)
      seed = seed * 1664525u + 1013904223u;
      return btScalar(seed >> 8) * btScalar(20.0 / 16777216.0) - 10;
    };
    auto bits = [](btScalar value) {
      std::uint32_t word = 0;
      std::memcpy(&word, &value, sizeof(word));
      return word;
    };
    for (int trial = 0; trial < 256; ++trial) {
      btVector3 corner[3];
      for (btVector3& c : corner) c.setValue(coordinate(), coordinate(), coordinate());
      const btVector3 from(coordinate(), coordinate(), coordinate());
      // Through a point inside the triangle, or at its first edge, on to twice as far.
      btScalar weight[3] = {coordinate() + 10, coordinate() + 10, 0};  // in [0, 20)
      weight[2] = trial % 4 < 2 ? coordinate() * btScalar(2e-5) * (weight[0] + weight[1])
                                : coordinate() + 10;
      const btScalar total = weight[0] + weight[1] + weight[2];
      const btVector3 through =
          (corner[0] * weight[0] + corner[1] * weight[1] + corner[2] * weight[2]) / total;
      const btVector3 to = from + (through - from) * 2;
      const unsigned int flagChoices[3] = {0u, unsigned(btTriangleRaycastCallback::kF_FilterBackfaces),
                                           unsigned(btTriangleRaycastCallback::kF_KeepUnflippedNormal)};
      const unsigned int flags = flagChoices[trial % 3];
      TriangleHits inLine(from, to, flags, 1), library(from, to, flags, 1);
      inLine.testInLine(corner, 0, trial);
      library.testWithLibrary(corner, 0, trial);
      if (inLine.hit != library.hit || bits(inLine.hitFraction) != bits(library.hitFraction)) return false;
      for (int axis = 0; axis < 3; ++axis)
        if (bits(inLine.hitNormal[axis]) != bits(library.hitNormal[axis])) return false;
    }
    return true;
  }();
  return agrees;
}

}  // namespace

bool readMeshTriangle(const btStridingMeshInterface& mesh, int part, int index, btScalar* out) {
  if (part < 0 || part >= mesh.getNumSubParts()) return false;
  const unsigned char* vertexBase = nullptr;
  const unsigned char* indexBase = nullptr;
  int vertexCount = 0, vertexStride = 0, indexStride = 0, faceCount = 0;
  PHY_ScalarType vertexType = PHY_FLOAT, indexType = PHY_INTEGER;
  mesh.getLockedReadOnlyVertexIndexBase(&vertexBase, vertexCount, vertexType, vertexStride,
                                        &indexBase, indexStride, faceCount, indexType, part);
  const bool readable = (indexType == PHY_INTEGER || indexType == PHY_SHORT) &&
                        (vertexType == PHY_FLOAT || vertexType == PHY_DOUBLE) && index >= 0 &&
                        index < faceCount;
  if (readable && out != nullptr) {
    const auto* indices = reinterpret_cast<const unsigned int*>(indexBase + index * indexStride);
    const btVector3& scaling = mesh.getScaling();
    for (int corner = 0; corner < 3; ++corner) {
      const int vertex = indexType == PHY_SHORT
                             ? reinterpret_cast<const unsigned short*>(indices)[corner]
                             : int(indices[corner]);
      const unsigned char* base = vertexBase + vertex * vertexStride;
      for (int axis = 0; axis < 3; ++axis) {
        out[3 * corner + axis] =
            vertexType == PHY_FLOAT
                ? reinterpret_cast<const float*>(base)[axis] * scaling[axis]
                : btScalar(reinterpret_cast<const double*>(base)[axis]) * scaling[axis];
      }
    }
  }
  mesh.unLockReadOnlyVertexBase(part);
  return readable;
}

bool MeshRayCache::triangleTestInLine() { return inLineTestAgrees(); }

bool MeshRayCache::canCache(const btCollisionObject& object) {
  if (object.getCollisionShape()->getShapeType() != TRIANGLE_MESH_SHAPE_PROXYTYPE) return false;
  btOptimizedBvh* bvh = meshShape(object).getOptimizedBvh();
  return bvh != nullptr && bvh->isQuantized() && object.getBroadphaseHandle() != nullptr;
}

bool MeshRayCache::matchesKey(const btCollisionObject& object,
                              const btBvhTriangleMeshShape& shape) const {
  return object_ == &object && shape_ == &shape &&
         bvh_ == const_cast<btBvhTriangleMeshShape&>(shape).getOptimizedBvh() &&
         proxyId_ == object.getBroadphaseHandle()->m_uniqueId &&
         scaling_ == shape.getMeshInterface()->getScaling();
}

bool MeshRayCache::cast(const btCollisionObject& object, const btVector3& from,
                        const btVector3& to, const btVector3& displacement, btScalar margin,
                        RecentTriangles& recent, WheelRayCallback& result) {
  btBvhTriangleMeshShape& shape = meshShape(object);
  // As btCollisionWorld::rayTestSingleInternal takes the ray into mesh space.
  const btTransform& transform = object.getWorldTransform();
  const btTransform worldToMesh = transform.inverse();
  const btVector3 fromLocal = worldToMesh * from;
  const btVector3 toLocal = worldToMesh * to;
  btVector3 rayMin = fromLocal, rayMax = fromLocal;
  setMinPerAxis(rayMin, toLocal);
  setMaxPerAxis(rayMax, toLocal);
  if (!cover(object, rayMin, rayMax, worldToMesh.getBasis() * displacement, margin)) return false;
  // The remembered triangles stay valid while the mesh is the same one, across refreshes that
  // only move the box (a mesh changed in place is cleared by the game, clearWheelQueryCache).
  if (meshChanged_) {
    recent.forget(index_);
    meshChanged_ = false;
  }

  // The ray's constants as btQuantizedBvh::walkStacklessQuantizedTreeAgainstRay computes them.
  const btQuantizedBvh& bvh = *shape.getOptimizedBvh();
  unsigned short rayQuantizedMin[3], rayQuantizedMax[3];
  bvh.quantizeWithClamp(rayQuantizedMin, rayMin, 0);
  bvh.quantizeWithClamp(rayQuantizedMax, rayMax, 1);
  btVector3 direction = toLocal - fromLocal;
  direction.normalize();
  const btScalar lambdaMax = direction.dot(toLocal - fromLocal);
  for (int axis = 0; axis < 3; ++axis)
    direction[axis] = direction[axis] == btScalar(0.0) ? btScalar(BT_LARGE_FLOAT)
                                                       : btScalar(1.0) / direction[axis];
  const unsigned int sign[3] = {direction[0] < 0.0, direction[1] < 0.0, direction[2] < 0.0};

  TriangleHits hits(fromLocal, toLocal, result.m_flags, result.m_closestHitFraction);
  hits.passOverWalls(result, transform.getBasis());
  const CachedLeaf* leaves = this->leaves();
  const CachedTriangle* triangles = this->triangles();
  const CachedVertices* keptVertices = vertices();
  const QuantizedBoxTest rayBox(rayQuantizedMin, rayQuantizedMax);
  // The leaves' walk, once for each triangle test (so that the test's choice is no branch a
  // triangle and the in-line test stays in line).
  auto walk = [&](auto testTriangle) {
    for (int first = 0; first < count_; first += 32) {
      for (std::uint32_t passing = rayBox.overlapMask(leaves, first, count_); passing != 0;
           passing &= passing - 1) {
        const int i = first + lowestSetBit(passing);
        const CachedLeaf& leaf = leaves[i];
        const btVector3 bounds[2] = {bvh.unQuantize(leaf.quantizedMin), bvh.unQuantize(leaf.quantizedMax)};
        btScalar entry = 1.0;
        if (!btRayAabb2(fromLocal, direction, sign, bounds, entry, 0.0f, lambdaMax)) continue;
        const CachedTriangle& triangle = triangles[i];
        const btScalar* v = keptVertices != nullptr ? keptVertices[i].vertices
                                                 : recent.vertices(index_, triangle, *shape.getMeshInterface());
        const btVector3 vertices[3] = {btVector3(v[0], v[1], v[2]), btVector3(v[3], v[4], v[5]),
                                       btVector3(v[6], v[7], v[8])};
        testTriangle(vertices, triangle.part(), triangle.index());
      }
    }
  };
  if (inLineTestAgrees())
    walk([&hits](const btVector3(&corner)[3], int part, int index) { hits.testInLine(corner, part, index); });
  else
    walk([&hits](const btVector3(&corner)[3], int part, int index) { hits.testWithLibrary(corner, part, index); });
  if (hits.hit) {
    btCollisionWorld::LocalShapeInfo shapeInfo;
    shapeInfo.m_shapePart = hits.hitPart;
    shapeInfo.m_triangleIndex = hits.hitIndex;
    btCollisionWorld::LocalRayResult rayResult(&object, &shapeInfo,
                                               transform.getBasis() * hits.hitNormal,
                                               hits.hitFraction);
    result.addSingleResult(rayResult, true);
  }
  return true;
}

bool MeshRayCache::cover(const btCollisionObject& object, const btVector3& boxMin,
                         const btVector3& boxMax, const btVector3& displacement, btScalar margin) {
  const btBvhTriangleMeshShape& shape = meshShape(object);
  const bool inside = boxMin.x() >= boxMin_.x() && boxMin.y() >= boxMin_.y() &&
                      boxMin.z() >= boxMin_.z() && boxMax.x() <= boxMax_.x() &&
                      boxMax.y() <= boxMax_.y() && boxMax.z() <= boxMax_.z();
  if (inside && matchesKey(object, shape)) return true;
  if (refresh(object, shape, boxMin, boxMax, displacement, margin)) return true;
  clear();
  return false;
}

bool MeshRayCache::refresh(const btCollisionObject& object, const btBvhTriangleMeshShape& shape,
                           const btVector3& wantedMin, const btVector3& wantedMax,
                           const btVector3& displacement, btScalar margin) {
  btVector3 ahead = displacement;
  for (int attempt = 0; attempt < kRefreshAttempts; ++attempt) {
    if (attempt == kRefreshAttempts - 1) {
      ahead.setZero();
      margin = 0;
    }
    btVector3 boxMin = wantedMin, boxMax = wantedMax;
    setMinPerAxis(boxMin, wantedMin + ahead);
    setMaxPerAxis(boxMax, wantedMax + ahead);
    boxMin -= btVector3(margin, margin, margin);
    boxMax += btVector3(margin, margin, margin);
    const btVector3 slack(kGatherSlack, kGatherSlack, kGatherSlack);
    if (gather(shape, boxMin - slack, boxMax + slack)) {
      if (keepsVertices_) findInternalEdges();
      meshChanged_ = meshChanged_ || !matchesKey(object, shape);
      object_ = &object;
      shape_ = &shape;
      bvh_ = const_cast<btBvhTriangleMeshShape&>(shape).getOptimizedBvh();
      proxyId_ = object.getBroadphaseHandle()->m_uniqueId;
      scaling_ = shape.getMeshInterface()->getScaling();
      boxMin_ = boxMin;
      boxMax_ = boxMax;
      return true;
    }
    ahead *= btScalar(0.5);
    margin *= btScalar(0.5);
  }
  return false;
}

bool MeshRayCache::gather(const btBvhTriangleMeshShape& shape, const btVector3& boxMin,
                          const btVector3& boxMax) {
  btOptimizedBvh& bvh = *const_cast<btBvhTriangleMeshShape&>(shape).getOptimizedBvh();
  unsigned short queryMin[3], queryMax[3];
  bvh.quantizeWithClamp(queryMin, boxMin, 0);
  bvh.quantizeWithClamp(queryMax, boxMax, 1);
  const btStridingMeshInterface& mesh = *shape.getMeshInterface();
  const btQuantizedBvhNode* nodes = &bvh.getQuantizedNodeArray()[0];
  // The walk of btQuantizedBvh::walkStacklessQuantizedTree: nodes in array order, a subtree
  // skipped by its escape index; the root's escape index is the node count.
  const int end = nodes[0].isLeafNode() ? 1 : nodes[0].getEscapeIndex();
  count_ = 0;
  for (int i = 0; i < end;) {
    const btQuantizedBvhNode& node = nodes[i];
    const bool overlap = testQuantizedAabbAgainstQuantizedAabb(
        queryMin, queryMax, node.m_quantizedAabbMin, node.m_quantizedAabbMax);
    if (!node.isLeafNode()) {
      if (overlap) {
        // Entering a subtree: its left child follows it in the array, its right child lies
        // past the left one's subtree, and the walk reads it (to test or to skip it) only
        // once it is done with all of that. Asked for now, it arrives while the walk is down
        // the left side. Without this each level's right child is a memory round trip after
        // the last: a thousand cars' refreshes waited ~2.6 us each on the mesh's tree.
        const btQuantizedBvhNode& left = nodes[i + 1];
        const int right = i + 1 + (left.isLeafNode() ? 1 : left.getEscapeIndex());
        if (right < end) prefetchLine(reinterpret_cast<const char*>(&nodes[right]));
      }
      i += overlap ? 1 : node.getEscapeIndex();
      continue;
    }
    ++i;
    if (!overlap) continue;
    if (count_ == capacity_) return false;
    CachedTriangle& triangle = triangleArray()[count_];
    triangle.packedId = node.m_escapeIndexOrTriangleIndex;
    // Checked now even when not kept: a triangle the mesh cannot give (byte indices, an index
    // out of range) sends the wheel to Bullet before any ray relies on the cache. The check
    // reads only the part's description, not the triangle's indices and vertices: a ray cache
    // reads those for the one or two triangles a ray passes, and reading all of a refresh's
    // triangles here was half of the time refreshing took among a thousand cars.
    btScalar* vertices = keepsVertices_ ? vertexArray()[count_].vertices : nullptr;
    if (!readMeshTriangle(mesh, triangle.part(), triangle.index(), vertices)) return false;
    CachedLeaf& leaf = leafArray()[count_];
    for (int axis = 0; axis < 3; ++axis) {
      leaf.quantizedMin[axis] = node.m_quantizedAabbMin[axis];
      leaf.quantizedMax[axis] = node.m_quantizedAabbMax[axis];
    }
    ++count_;
  }
  return true;
}

void findInternalEdges(const CachedVertices* kept, int count, int capacity, InternalEdges* internal) {
  // Two triangles share an edge when they have its two corners (the mesh's own numbers, so
  // exactly equal); they lie in one plane when their normals agree within kSamePlane and their
  // third corners lie on opposite sides of the edge (not folded back onto each other). The edges
  // meet in a hash table keyed by their corners (either order), so a refresh of 32 triangles
  // pairs 96 edges in about 7 k instructions, where comparing all pairs took 140 k. The table is
  // each thread's, sized for `capacity` (a cache's, from the settings), so it is allocated when
  // a thread first meets that capacity, not as the ground gets denser.
  constexpr btScalar kSamePlane = btScalar(1e-6);  // 1 - cos: 0.08 deg
  struct EdgeTable {
    std::vector<std::int32_t> slots;  // an edge, triangle x 3 + edge, or -1
    std::vector<std::uint32_t> hashes;
    std::vector<btVector3> normals;   // unit, per triangle
  };
  thread_local EdgeTable table;
  size_t room = 64;  // slots kept: a power of two, at least twice the edges `capacity` triangles have
  while (room < 6 * size_t(std::max(capacity, count))) room *= 2;
  if (table.slots.size() < room) {
    table.slots.resize(room);
    table.hashes.resize(room);
  }
  size_t tableSize = 64;  // slots used now: at least twice these triangles' edges
  while (tableSize < 6 * size_t(count)) tableSize *= 2;
  if (table.normals.size() < size_t(std::max(capacity, count))) table.normals.resize(size_t(std::max(capacity, count)));
  std::fill(table.slots.begin(), table.slots.begin() + std::ptrdiff_t(tableSize), -1);
  const size_t mask = tableSize - 1;
  for (int i = 0; i < count; ++i) internal[i] = 0;
  auto corner = [&](int triangle, int k) {
    const btScalar* v = kept[triangle].vertices + 3 * (k % 3);
    return btVector3(v[0], v[1], v[2]);
  };
  auto cornerHash = [&](int triangle, int k) {
    const btScalar* v = kept[triangle].vertices + 3 * (k % 3);
    std::uint32_t bits[3];
    for (int axis = 0; axis < 3; ++axis) {
      const float value = float(v[axis]) + 0.0f;  // +0: -0 and 0 hash alike
      std::memcpy(&bits[axis], &value, sizeof(float));
    }
    return bits[0] * 73856093u ^ bits[1] * 19349663u ^ bits[2] * 83492791u;
  };
  btVector3* normals = table.normals.data();
  for (int i = 0; i < count; ++i) {
    const btVector3 n = (corner(i, 1) - corner(i, 0)).cross(corner(i, 2) - corner(i, 0));
    const btScalar length = n.length();
    normals[i] = length > SIMD_EPSILON ? n / length : btVector3(0, 0, 0);
  }
  std::int32_t* slots = table.slots.data();
  std::uint32_t* slotHashes = table.hashes.data();
  for (int i = 0; i < count; ++i) {
    if (normals[i].isZero()) continue;
    for (int edge = 0; edge < 3; ++edge) {
      const std::uint32_t hash = cornerHash(i, edge) + cornerHash(i, edge + 1);  // either order
      const btVector3 a = corner(i, edge), b = corner(i, edge + 1);
      size_t slot = hash & mask;
      for (; slots[slot] >= 0; slot = (slot + 1) & mask) {
        if (slotHashes[slot] != hash) continue;
        const int j = slots[slot] / 3, other = slots[slot] % 3;
        const btVector3 c = corner(j, other), d = corner(j, other + 1);
        if (!((c == a && d == b) || (c == b && d == a))) continue;
        const btVector3 along = b - a;
        const bool samePlane = 1 - std::fabs(normals[i].dot(normals[j])) < kSamePlane;
        const bool opposite = along.cross(corner(i, edge + 2) - a).dot(along.cross(corner(j, other + 2) - a)) < 0;
        if (samePlane && opposite) {
          internal[i] |= InternalEdges(1 << edge);
          internal[j] |= InternalEdges(1 << other);
        }
      }
      slots[slot] = 3 * i + edge;
      slotHashes[slot] = hash;
    }
  }
}

void MeshRayCache::findInternalEdges() { raycar::findInternalEdges(vertexArray(), count_, capacity_, edgeArray()); }

unsigned char* CacheMemory::take(size_t bytes) {
  const size_t piece = roundedUp(bytes);
  if (piece > remaining()) throw std::logic_error("CacheMemory: the vehicle sized its cache memory too small");
  unsigned char* begin = next_;
  next_ += piece;
  return begin;
}

MeshCacheSet::MeshCacheSet(int capacity, bool keepVertices, CacheMemory& memory) {
  const size_t bytes = MeshRayCache::storageBytes(capacity, keepVertices);
  for (int i = 0; i < kMeshes; ++i) caches_[i].attach(memory.take(bytes), capacity, keepVertices, i);
}

const btScalar* RecentTriangles::vertices(int owner, const CachedTriangle& triangle,
                                          const btStridingMeshInterface& mesh) {
  for (int slot = 0; slot < kSlots; ++slot)
    if (ids_[slot] == triangle && owners_[slot] == owner) return vertices_[slot].vertices;
  const int slot = oldest_;
  oldest_ = static_cast<unsigned char>((oldest_ + 1) % kSlots);
  ids_[slot] = triangle;
  owners_[slot] = static_cast<unsigned char>(owner);
  readMeshTriangle(mesh, triangle.part(), triangle.index(), vertices_[slot].vertices);  // gather checked it
  return vertices_[slot].vertices;
}

void RecentTriangles::forget(int owner) {
  for (int slot = 0; slot < kSlots; ++slot)
    if (owners_[slot] == owner) ids_[slot] = CachedTriangle{};
}

void RecentTriangles::forgetAll() {
  for (CachedTriangle& id : ids_) id = CachedTriangle{};
}

MeshRayCache* MeshCacheSet::cacheFor(const std::vector<NearbyObject>& nearby,
                                     const btCollisionObject& object) {
  for (MeshRayCache& cache : caches_)
    if (cache.holds(object)) return &cache;
  for (MeshRayCache& cache : caches_)
    if (cache.empty()) return &cache;
  for (MeshRayCache& cache : caches_) {
    bool near = false;
    for (const NearbyObject& other : nearby) near = near || cache.holds(*other.object);
    if (!near) return &cache;
  }
  return nullptr;
}

void MeshCacheSet::clear() {
  for (MeshRayCache& cache : caches_) cache.clear();
  recent_.forgetAll();
}

int MeshCacheSet::triangleCount() const {
  int count = 0;
  for (const MeshRayCache& cache : caches_)
    if (!cache.empty()) count += cache.triangleCount();
  return count;
}

void MeshCacheSet::describe(PrefetchBlocks& blocks) const {
  for (size_t i = 0; i < size_t(kMeshes); ++i) {
    const MeshRayCache& cache = caches_[i];
    const size_t count = cache.empty() ? 0 : size_t(cache.triangleCount());
    blocks.begin[2 * i] = cache.leaves();
    blocks.bytes[2 * i] = std::uint32_t(count * sizeof(CachedLeaf));
    // The triangles a ray reads are the mesh's own, found only as it passes their leaf.
    const bool kept = cache.vertices() != nullptr;
    blocks.begin[2 * i + 1] = kept ? static_cast<const void*>(cache.vertices()) : cache.triangles();
    blocks.bytes[2 * i + 1] =
        std::uint32_t(count * (kept ? sizeof(CachedVertices) : sizeof(CachedTriangle)));
  }
}

}  // namespace raycar
