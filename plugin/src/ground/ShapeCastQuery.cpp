#include "ground/ShapeCastQuery.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/BroadphaseCollision/btDbvt.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConcaveShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>
#include <LinearMath/btAabbUtil2.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "MinMax.h"
#include "ground/MeshRayCache.h"
#include "ground/TriangleSweep.h"

namespace raycar {
namespace {

constexpr btScalar kDegree = btScalar(SIMD_PI / 180);
// m: hits whose cast distances lie this close to the best one are still reported by Bullet, so
// that the refined distances of a seam's triangles can be compared.
constexpr btScalar kSeamSlack = btScalar(1e-3);
// cos(1 deg): a box's face this well aligned with Bullet's reported normal is the one hit.
constexpr btScalar kSameFace = btScalar(0.99985);
// The triangle a mesh hit names, in world space; false when the object is not a triangle mesh
// (or one whose indices the BVH walk does not read). The vertices are read as the cached route
// reads them (readMeshTriangle), so both routes place a triangle alike.
bool hitTriangle(const btCollisionObject& object, const btCollisionWorld::LocalShapeInfo* info,
                 btVector3 (&vertices)[3]) {
  if (info == nullptr) return false;
  const btCollisionShape* shape = object.getCollisionShape();
  btVector3 scaling(1, 1, 1);
  if (shape->getShapeType() == SCALED_TRIANGLE_MESH_SHAPE_PROXYTYPE) {
    const auto* scaled = static_cast<const btScaledBvhTriangleMeshShape*>(shape);
    scaling = scaled->getLocalScaling();
    shape = scaled->getChildShape();
  }
  if (shape->getShapeType() != TRIANGLE_MESH_SHAPE_PROXYTYPE) return false;
  const auto* mesh = static_cast<const btTriangleMeshShape*>(shape);
  btScalar v[9];
  if (!readMeshTriangle(*mesh->getMeshInterface(), info->m_shapePart, info->m_triangleIndex, v))
    return false;
  for (int corner = 0; corner < 3; ++corner)
    vertices[corner] =
        object.getWorldTransform() * (btVector3(v[3 * corner], v[3 * corner + 1], v[3 * corner + 2]) * scaling);
  return true;
}

// A box's faces as twelve triangles (world), the box as Bullet's contacts see it: `half` its
// half extents with its margin, at `transform`. Two per face, split along a diagonal; only the
// box's first contact counts (ShapeHitCallback::sweepBox), where a face's two halves give one
// touch and one normal (TriangleSweep.h), so the split adds no contact of its own.
constexpr int kBoxTriangles = 12;
void boxTriangles(const btVector3& half, const btTransform& transform,
                  btVector3 (&triangles)[kBoxTriangles][3]) {
  int next = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (const btScalar side : {btScalar(-1), btScalar(1)}) {
      btVector3 corners[4];
      for (int k = 0; k < 4; ++k) {
        btVector3 local(0, 0, 0);
        local[axis] = side * half[axis];
        local[u] = (k == 1 || k == 2 ? 1 : -1) * half[u];  // around the face: (-,-) (+,-) (+,+) (-,+)
        local[v] = (k >= 2 ? 1 : -1) * half[v];
        corners[k] = transform * local;
      }
      triangles[next][0] = corners[0];
      triangles[next][1] = corners[1];
      triangles[next][2] = corners[2];
      ++next;
      triangles[next][0] = corners[0];
      triangles[next][1] = corners[2];
      triangles[next][2] = corners[3];
      ++next;
    }
  }
}

}  // namespace

// The closest ground the shape touches: from the cached triangles (offer) and from Bullet's
// convex casts (addSingleResult), each hit placed exactly (file's top), steep ones rejected.
class ShapeHitCallback final : public btCollisionWorld::ConvexResultCallback {
 public:
  ShapeHitCallback(const SweptShape& shape, btScalar cosMaxSlope, btScalar slack,
                   const btCollisionObject* ignored)
      : shape_(shape), cosMaxSlope_(cosMaxSlope), slack_(slack), ignored_(ignored) {}

  bool needsCollision(btBroadphaseProxy* proxy) const override {
    const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    if (object == ignored_) return false;
    if (object->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return false;
    return ConvexResultCallback::needsCollision(proxy);
  }

  btScalar addSingleResult(btCollisionWorld::LocalConvexResult& result,
                           bool normalInWorldSpace) override {
    const btCollisionObject& object = *result.m_hitCollisionObject;
    const btCollisionWorld::LocalShapeInfo* info = result.m_localShapeInfo;
    const int part = info != nullptr ? info->m_shapePart : -1;
    const int triangleIndex = info != nullptr ? info->m_triangleIndex : -1;
    btVector3 triangle[3];
    TriangleTouch touch;
    bool accepted = false;
    if (offerExactly(object)) return m_closestHitFraction;  // Bullet's hit unused
    if (hitTriangle(object, info, triangle)) {
      accepted = sweepTriangle(shape_, triangle, touch) && offer(touch, object, part, triangleIndex);
    } else {
      btVector3 normal = normalInWorldSpace
                             ? result.m_hitNormalLocal
                             : object.getWorldTransform().getBasis() * result.m_hitNormalLocal;
      btVector3 pointOnPlane = result.m_hitPointLocal;
      // The exact touch of that plane (none for a plane the cast runs along); one at the cast's
      // start or before it means Bullet answered from inside the object (or within its margin of
      // it): cast again from outside.
      bool placed = false;
      if (normal.length2() > SIMD_EPSILON) {
        normal.normalize();
        facePlane(object, normal, pointOnPlane);
        placed = touchPlane(normal, pointOnPlane, touch);
      }
      const bool overlapping =
          result.m_hitFraction == 0 || (placed && touch.distance < shape_.beginDistance);
      if (overlapping) {
        if (!restarted_ && restartCount_ < kRestarts) restarts_[restartCount_++] = &object;
      } else if (placed) {
        accepted = touch.distance <= shape_.endDistance && offer(touch, object, part, triangleIndex);
      }
    }
    // Bullet reports only hits closer than this: keep a seam's neighbours, and triangles whose
    // exact touch Bullet's rounded shape placed late, in.
    if (accepted)
      m_closestHitFraction =
          std::min(m_closestHitFraction, result.m_hitFraction + slack_ / shape_.endDistance);
    return m_closestHitFraction;
  }

  // Keeps `touch` on `object` (on its mesh triangle `triangle` of part `part`, -1 if none) if it
  // is ground (not steeper than the max slope) and the closest.
  bool offer(const TriangleTouch& touch, const btCollisionObject& object, int part, int triangle) {
    const btScalar upright = -touch.normal.dot(shape_.down);
    if (upright < cosMaxSlope_) return false;  // a wall, a kerb's face
    // Two touches at the very same distance (the triangles of a crease, met on their shared
    // edge): the flatter one, whichever order the triangles come in.
    if (!found_ || touch.distance < best_.distance ||
        (touch.distance == best_.distance && upright > -best_.normal.dot(shape_.down))) {
      found_ = true;
      best_ = touch;
      object_ = &object;
      part_ = part;
      triangle_ = triangle;
    }
    return true;
  }

  // The objects this callback places itself rather than from Bullet's cast (boxes, compounds of
  // them, heightfields); false when `object` is none of them, or is left to Bullet.
  bool offerExactly(const btCollisionObject& object) { return offerBoxes(object) || offerHeightfield(object); }

  // A box, or a compound of boxes (a kerb or a ramp built of them), placed exactly: the shape
  // swept against each box's faces' triangles (boxTriangles), and the box's first contact kept,
  // as a solid's (its triangles met at that distance, the flattest of them); a first contact
  // steeper than the max slope is a wall, and the box gives no ground, as with Bullet's cast.
  // Bullet's GJK cast places a shape on a box's edge only to within its margins, with a normal
  // off by tens of degrees: a cylinder wheel meeting a 15 cm box kerb square on got
  // (0, 0.81, -0.58) on one side and (0, 0.74, -0.68) on the other, and the car turned 19 deg.
  // False when the object is neither, or when the shape, backed off by its whole size as a
  // restart backs it off, still overlaps one of the boxes: then Bullet's cast and its restart
  // decide, as for other objects. An object is placed once a cast, however many of its children
  // Bullet reports.
  bool offerBoxes(const btCollisionObject& object) {
    if (placed(object)) return true;
    if (declined(object)) return false;
    const btCollisionShape& shape = *object.getCollisionShape();
    const btTransform& transform = object.getWorldTransform();
    if (shape.getShapeType() == BOX_SHAPE_PROXYTYPE) {
      const auto& box = static_cast<const btBoxShape&>(shape);
      if (!clearOfBox(box, transform)) return decline(object);
      sweepBox(box, transform, object);
    } else if (shape.getShapeType() == COMPOUND_SHAPE_PROXYTYPE) {
      // The children near the sweep (the backed-off start to the end, grown by the shape's
      // size), through the compound's own tree when it keeps one: each must be a box clear of
      // the backed-off shape before any is swept. Children away from the sweep do not matter,
      // whatever their shape; more near ones than kMaxNearChildren go to Bullet.
      const auto& compound = static_cast<const btCompoundShape&>(shape);
      int near[kMaxNearChildren];
      int nearCount = 0;
      if (!childrenNear(compound, transform, near, nearCount)) return decline(object);
      for (int k = 0; k < nearCount; ++k) {
        const btCollisionShape& child = *compound.getChildShape(near[k]);
        if (child.getShapeType() != BOX_SHAPE_PROXYTYPE ||
            !clearOfBox(static_cast<const btBoxShape&>(child), transform * compound.getChildTransform(near[k])))
          return decline(object);
      }
      for (int k = 0; k < nearCount; ++k)
        sweepBox(static_cast<const btBoxShape&>(*compound.getChildShape(near[k])),
                 transform * compound.getChildTransform(near[k]), object);
    } else {
      return false;
    }
    if (placedCount_ < kPlacedObjects) placed_[placedCount_++] = &object;
    return true;
  }

  // A btHeightfieldTerrainShape, placed as a mesh is: its triangles near the sweep (the shape's
  // own processAllTriangles), each placed exactly (TriangleSweep.h), an edge between two of them
  // in one plane met with the face's normal. Bullet's cast of a cylinder had tilted its contacts
  // on flat heightfield ground by up to 21 deg and lifted them 17 mm, and rolled a car driving
  // straight. False when the object is none, or more triangles than kMaxHeightfieldTriangles lie
  // near the sweep: then Bullet's cast decides.
  bool offerHeightfield(const btCollisionObject& object) {
    if (object.getCollisionShape()->getShapeType() != TERRAIN_SHAPE_PROXYTYPE) return false;
    if (placed(object)) return true;
    if (declined(object)) return false;
    // The triangles the shape can touch from the cast's start on (touches before it do not
    // count): the box from the start to the end, grown by the shape's extent along each of the
    // field's axes (a cylinder of axle a: R sqrt(1 - a_i^2) + w/2 |a_i|).
    const btTransform& transform = object.getWorldTransform();
    const btVector3 axle = transform.getBasis().transpose() * shape_.axle;
    btVector3 extent(shape_.radius, shape_.radius, shape_.radius);
    if (shape_.cylinder)
      for (int axis = 0; axis < 3; ++axis)
        extent[axis] = shape_.radius * std::sqrt(std::max(btScalar(0), 1 - axle[axis] * axle[axis])) +
                       shape_.halfWidth * std::fabs(axle[axis]);
    btVector3 localMin, localMax;
    localSweepBox(transform, 0, extent, localMin, localMax);
    HeightfieldTriangles& near = HeightfieldTriangles::forThisThread();
    near.count = 0;
    near.overflow = false;
    static_cast<const btConcaveShape*>(object.getCollisionShape())->processAllTriangles(&near, localMin, localMax);
    if (near.overflow) return decline(object);
    findInternalEdges(near.vertices.data(), near.count, kMaxHeightfieldTriangles, near.internal.data());
    for (int i = 0; i < near.count; ++i) {
      const btScalar* v = near.vertices[size_t(i)].vertices;
      const btVector3 triangle[3] = {transform * btVector3(v[0], v[1], v[2]), transform * btVector3(v[3], v[4], v[5]),
                                     transform * btVector3(v[6], v[7], v[8])};
      TriangleTouch touch;
      if (sweepTriangle(shape_, triangle, touch, near.internal[size_t(i)]))
        offer(touch, object, near.parts[size_t(i)], near.indices[size_t(i)]);
    }
    if (placedCount_ < kPlacedObjects) placed_[placedCount_++] = &object;
    return true;
  }
  // Objects placed exactly this cast, and those left to Bullet: Bullet reports a compound or a
  // heightfield once for each child or triangle it hits, and each is decided once.
  bool placed(const btCollisionObject& object) const {
    for (int i = 0; i < placedCount_; ++i)
      if (placed_[i] == &object) return true;
    return false;
  }
  bool declined(const btCollisionObject& object) const {
    for (int i = 0; i < declinedCount_; ++i)
      if (declined_[i] == &object) return true;
    return false;
  }
  bool decline(const btCollisionObject& object) {
    if (declinedCount_ < kPlacedObjects) declined_[declinedCount_++] = &object;
    return false;
  }

  // Objects Bullet reported as overlapping at the cast's start, to be cast again from farther
  // back; their hits then count as this cast's.
  static constexpr int kRestarts = 4;
  int restartCount() const { return restartCount_; }
  const btCollisionObject* restart(int i) const { return restarts_[i]; }
  void beginRestarts() {
    restarted_ = true;
    m_closestHitFraction = 1;
  }

  bool found() const { return found_; }
  const TriangleTouch& best() const { return best_; }
  const btCollisionObject* object() const { return object_; }
  int part() const { return part_; }
  int triangle() const { return triangle_; }

 private:
  // A heightfield with more triangles than this near one wheel's sweep goes through Bullet's
  // cast: 5 cm cells under a 0.33 m cylinder are about 200; each thread keeps room for them
  // (46 kB), allocated at its first heightfield.
  static constexpr int kMaxHeightfieldTriangles = 1024;
  // The triangles a heightfield hands over (its local space, scaled), each thread's own, sized
  // once at the thread's first use.
  struct HeightfieldTriangles final : btTriangleCallback {
    std::vector<CachedVertices> vertices = std::vector<CachedVertices>(kMaxHeightfieldTriangles);
    std::vector<int> parts = std::vector<int>(kMaxHeightfieldTriangles);
    std::vector<int> indices = std::vector<int>(kMaxHeightfieldTriangles);
    std::vector<InternalEdges> internal = std::vector<InternalEdges>(kMaxHeightfieldTriangles);
    int count = 0;
    bool overflow = false;
    void processTriangle(btVector3* triangle, int part, int index) override {
      if (count == kMaxHeightfieldTriangles) {
        overflow = true;
        return;
      }
      for (int corner = 0; corner < 3; ++corner)
        for (int axis = 0; axis < 3; ++axis) vertices[size_t(count)].vertices[3 * corner + axis] = triangle[corner][axis];
      parts[size_t(count)] = part;
      indices[size_t(count)] = index;
      ++count;
    }
    static HeightfieldTriangles& forThisThread() {
      thread_local HeightfieldTriangles triangles;
      return triangles;
    }
  };
  // childrenNear by testing every child's box (the compound's space).
  static bool everyChildNear(const btCompoundShape& compound, const btVector3& localMin, const btVector3& localMax,
                             int* near, int& count) {
    count = 0;
    for (int i = 0; i < compound.getNumChildShapes(); ++i) {
      btVector3 childMin, childMax;
      compound.getChildShape(i)->getAabb(compound.getChildTransform(i), childMin, childMax);
      if (!TestAabbAgainstAabb2(localMin, localMax, childMin, childMax)) continue;
      if (count == kMaxNearChildren) return false;
      near[count++] = i;
    }
    return true;
  }
  // A compound with more children than this near one wheel's sweep goes through Bullet's cast.
  static constexpr int kMaxNearChildren = 32;
  // The compound's children whose boxes overlap the sweep's, into near[]; false when more than
  // kMaxNearChildren do. Walks the compound's tree when it has one (its volumes are in the
  // compound's space), without allocating; else every child.
  bool childrenNear(const btCompoundShape& compound, const btTransform& transform, int* near, int& count) const {
    const btScalar reach = boundingRadius();
    btVector3 localMin, localMax;
    localSweepBox(transform, backOff(), btVector3(reach, reach, reach), localMin, localMax);
    count = 0;
    const btDbvt* tree = compound.getDynamicAabbTree();
    if (tree == nullptr || tree->m_root == nullptr) return everyChildNear(compound, localMin, localMax, near, count);
    // Nodes are tested before they are pushed, so the stack holds only overlapping ones; a
    // compound's tree is not rebalanced (children added in a row make a deep one), and a stack
    // that still fills sends the walk to the children one by one.
    const btDbvtVolume volume = btDbvtVolume::FromMM(localMin, localMax);
    constexpr int kStackSize = 128;
    const btDbvtNode* stack[kStackSize];
    int depth = 0;
    if (Intersect(tree->m_root->volume, volume)) stack[depth++] = tree->m_root;
    while (depth > 0) {
      const btDbvtNode* node = stack[--depth];
      if (node->isinternal()) {
        for (const btDbvtNode* child : node->childs) {
          if (!Intersect(child->volume, volume)) continue;
          if (depth == kStackSize) return everyChildNear(compound, localMin, localMax, near, count);
          stack[depth++] = child;
        }
        continue;
      }
      if (count == kMaxNearChildren) return false;
      near[count++] = node->dataAsInt;
    }
    return true;
  }
  // m: a box's triangles met within this of its first contact are met at it (an edge's two
  // triangles, a face's two halves); float rounding of metre-sized distances is about 1e-6 m.
  static constexpr btScalar kSameContact = btScalar(1e-4);
  // Objects placed exactly or left to Bullet this cast (placed_, declined_); beyond this many,
  // an object is decided again when Bullet reports it again (the same answer, more work).
  static constexpr int kPlacedObjects = 8;

  btScalar boundingRadius() const {  // m, of the swept shape
    return std::sqrt(shape_.radius * shape_.radius + shape_.halfWidth * shape_.halfWidth);
  }
  btScalar backOff() const { return 2 * boundingRadius(); }  // m, as castRestarts backs off
  // The box around the sweep in the space of `transform` (an object's), from `back` (m) before
  // the cast's start to its end, grown by `grow` along each of that space's axes.
  void localSweepBox(const btTransform& transform, btScalar back, const btVector3& grow, btVector3& boxMin,
                     btVector3& boxMax) const {
    const btVector3 from = transform.invXform(shape_.start - shape_.down * back);
    const btVector3 to = transform.invXform(shape_.start + shape_.down * shape_.endDistance);
    boxMin = from;
    boxMax = from;
    setMinPerAxis(boxMin, to);
    setMaxPerAxis(boxMax, to);
    boxMin -= grow;
    boxMax += grow;
  }
  // True when the shape backed off by its whole size is clear of the box at `transform`.
  bool clearOfBox(const btBoxShape& box, const btTransform& transform) const {
    const btVector3 half = box.getHalfExtentsWithMargin();
    const btVector3 backedCentre = transform.invXform(shape_.start - shape_.down * backOff());
    btVector3 nearest = backedCentre;  // the box's point nearest the backed-off centre (box space)
    setMaxPerAxis(nearest, -half);
    setMinPerAxis(nearest, half);
    return (backedCentre - nearest).length2() > boundingRadius() * boundingRadius();
  }
  // The box at `transform` swept exactly from the backed-off start; its first contact offered
  // unless it comes before the cast's start (ground above the wheel, or a box the shape is in:
  // it does not count, as after a restart).
  void sweepBox(const btBoxShape& box, const btTransform& transform, const btCollisionObject& object) {
    btVector3 triangles[kBoxTriangles][3];
    boxTriangles(box.getHalfExtentsWithMargin(), transform, triangles);
    SweptShape backed = shape_;
    backed.beginDistance = -backOff();
    TriangleTouch touches[kBoxTriangles];
    bool touched[kBoxTriangles];
    btScalar first = BT_LARGE_FLOAT;  // m: where the swept shape meets the box first
    for (int i = 0; i < kBoxTriangles; ++i) {
      touched[i] = sweepTriangle(backed, triangles[i], touches[i]);
      if (touched[i]) first = std::min(first, touches[i].distance);
    }
    if (!(first >= shape_.beginDistance && first < BT_LARGE_FLOAT)) return;
    for (int i = 0; i < kBoxTriangles; ++i)
      if (touched[i] && touches[i].distance <= first + kSameContact) offer(touches[i], object, -1, -1);
  }

  // Bullet's GJK places a hit on a box to about 1e-4 m and its normal to about 1e-4: a box's
  // face whose normal lies within a degree of Bullet's replaces them, so a wheel on a platform
  // stands where a ray would put it (a box offerBoxes left to Bullet: the shape was in it).
  static void facePlane(const btCollisionObject& object, btVector3& normal, btVector3& point) {
    const btCollisionShape* shape = object.getCollisionShape();
    if (shape->getShapeType() != BOX_SHAPE_PROXYTYPE) return;
    const btTransform& transform = object.getWorldTransform();
    const btVector3 localNormal = transform.getBasis().transpose() * normal;
    const int axis = localNormal.absolute().maxAxis();
    if (!(std::fabs(localNormal[axis]) > kSameFace)) return;  // an edge or a corner
    btVector3 faceNormal(0, 0, 0);
    faceNormal[axis] = localNormal[axis] > 0 ? 1 : -1;
    // The face: the box's outermost extent (its margin included) along that normal.
    normal = transform.getBasis() * faceNormal;
    point = transform * static_cast<const btConvexShape*>(shape)->localGetSupportingVertex(faceNormal);
  }

  // The exact touch of the plane of unit `normal` through `pointOnPlane` (Bullet's report):
  // false when the cast runs along the plane.
  bool touchPlane(btVector3 normal, const btVector3& pointOnPlane, TriangleTouch& touch) const {
    if (normal.dot(shape_.down) > 0) normal = -normal;  // out of the ground, against the cast
    const btScalar approach = normal.dot(shape_.down);  // < 0: the cast closes on it
    if (!(approach < -SIMD_EPSILON)) return false;
    const ShapeSupport support = supportAlong(shape_, normal);
    touch.normal = normal;
    touch.distance = (support.extent - normal.dot(shape_.start - pointOnPlane)) / approach;
    touch.point = shape_.start + shape_.down * touch.distance + support.offset;
    return true;
  }

  const SweptShape& shape_;
  btScalar cosMaxSlope_;
  btScalar slack_;  // m
  const btCollisionObject* ignored_;
  bool found_ = false;
  TriangleTouch best_;
  const btCollisionObject* object_ = nullptr;
  int part_ = -1;
  int triangle_ = -1;
  bool restarted_ = false;
  int restartCount_ = 0;
  const btCollisionObject* placed_[kPlacedObjects] = {};
  int placedCount_ = 0;
  const btCollisionObject* declined_[kPlacedObjects] = {};
  int declinedCount_ = 0;
  const btCollisionObject* restarts_[kRestarts] = {};
};

namespace {

// Triangles whose edges the cached route tests after their faces; beyond this many, it tests
// every triangle again in full (correct, slower).
constexpr int kMaxBoundaryTriangles = 64;

// The cached route: every cached triangle of `object` whose leaf box overlaps the swept shape's
// box, placed exactly (sweepTriangle). False when the cache cannot hold the region.
bool castCached(MeshRayCache& cache, const btCollisionObject& object, const SweptShape& shape,
                btScalar boundingRadius, const btVector3& displacement, btScalar margin,
                ShapeHitCallback& callback) {
  // The sweep runs in the mesh's own space (the triangles as cached, no transform each); the
  // touches come back to the world. Distances along the sweep are the same in both.
  const btTransform& transform = object.getWorldTransform();
  const btTransform worldToMesh = transform.inverse();
  SweptShape local = shape;
  local.start = worldToMesh * shape.start;
  local.down = worldToMesh.getBasis() * shape.down;
  local.axle = worldToMesh.getBasis() * shape.axle;
  const btVector3 endLocal = local.start + local.down * local.endDistance;
  const btVector3 reach(boundingRadius, boundingRadius, boundingRadius);
  btVector3 boxMin = local.start, boxMax = local.start;
  setMinPerAxis(boxMin, endLocal);
  setMaxPerAxis(boxMax, endLocal);
  boxMin -= reach;
  boxMax += reach;
  if (!cache.cover(object, boxMin, boxMax, worldToMesh.getBasis() * displacement, margin))
    return false;
  unsigned short quantizedMin[3], quantizedMax[3];
  cache.bvh().quantizeWithClamp(quantizedMin, boxMin, 0);
  cache.bvh().quantizeWithClamp(quantizedMax, boxMax, 1);
  const CachedLeaf* leaves = cache.leaves();
  const CachedTriangle* triangles = cache.triangles();
  const CachedVertices* cachedVertices = cache.vertices();  // kept: a shape's caches keep them
  const InternalEdges* internalEdges = cache.internalEdges();
  const QuantizedBoxTest sweepBox(quantizedMin, quantizedMax);
  auto overlaps = [&](int i) { return sweepBox.overlaps(leaves[i]); };
  auto meshTriangle = [&](int i, btVector3 (&vertices)[3]) {
    const btScalar* v = cachedVertices[i].vertices;
    vertices[0].setValue(v[0], v[1], v[2]);
    vertices[1].setValue(v[3], v[4], v[5]);
    vertices[2].setValue(v[6], v[7], v[8]);
  };
  // Keeps a touch (mesh space) and bounds the sweep's end by the closest so far.
  auto offer = [&](int i, const TriangleTouch& touch) {
    const TriangleTouch world{touch.distance, transform * touch.point,
                              transform.getBasis() * touch.normal};
    if (callback.offer(world, object, triangles[i].part(), triangles[i].index()))
      local.endDistance = std::min(local.endDistance, callback.best().distance);
  };
  // Two passes: the face touches of every triangle, then the edge and corner touches of those
  // whose face did not decide, with the sweep's end bounded by the closest touch so far (on
  // smooth ground, the one under the wheel): that bound prunes most of them.
  int boundary[kMaxBoundaryTriangles];
  int boundaryCount = 0;
  bool overflow = false;
  for (int i = 0; i < cache.triangleCount(); ++i) {
    if (!overlaps(i)) continue;
    btVector3 vertices[3];
    meshTriangle(i, vertices);
    TriangleTouch touch;
    const FaceTouch face = sweepTriangleFace(local, vertices, touch);
    if (face == FaceTouch::Touch) {
      offer(i, touch);
    } else if (face == FaceTouch::Boundary) {
      if (boundaryCount < kMaxBoundaryTriangles)
        boundary[boundaryCount++] = i;
      else
        overflow = true;
    }
  }
  for (int k = 0; k < boundaryCount; ++k) {
    btVector3 vertices[3];
    meshTriangle(boundary[k], vertices);
    TriangleTouch touch;
    if (sweepTriangleBoundary(local, vertices, touch, internalEdges[boundary[k]])) offer(boundary[k], touch);
  }
  // More triangles than the list holds: the rest the slow way, every one in full.
  for (int i = 0; overflow && i < cache.triangleCount(); ++i) {
    btVector3 vertices[3];
    meshTriangle(i, vertices);
    TriangleTouch touch;
    if (overlaps(i) && sweepTriangle(local, vertices, touch, internalEdges[i])) offer(i, touch);
  }
  return true;
}

}  // namespace

ShapeCastQuery::ShapeCastQuery(const WheelSettings& wheel, const WheelQuerySettings& settings,
                               CacheMemory& memory)
    : cache_(settings.cache),
      margin_(settings.margin),
      caches_(kShapeCacheScale * settings.maxCachedTriangles, true, memory) {
  auto parts = std::make_unique<Parts>();
  Geometry& shape = parts->geometry;
  shape.cylinder = wheel.groundQuery == GroundQueryKind::Cylinder;
  shape.radius = shape.cylinder || !(wheel.queryRadius > 0) ? wheel.radius : wheel.queryRadius;
  shape.halfWidth = shape.cylinder ? wheel.width / 2 : 0;
  shape.offset = wheel.radius - shape.radius;
  shape.travel = wheel.suspensionMaxLength;
  shape.cosMaxSlope = std::cos(wheel.maxSlope * kDegree);
  if (shape.cylinder)
    parts->convex = std::make_unique<btCylinderShapeX>(btVector3(shape.halfWidth, shape.radius, shape.radius));
  else
    parts->convex = std::make_unique<btSphereShape>(shape.radius);
  // Bullet rounds a cylinder's edges by its collision margin, so a rim touch it reports can lie
  // up to about that much behind the exact one; its sphere is exact.
  parts->slack = kSeamSlack + (shape.cylinder ? 2 * parts->convex->getMargin() : btScalar(0));
  parts_ = std::move(parts);
  reach_ = shape.boundingRadius() + shape.lift();
  caches_.describe(prefetchBlocks_);
}

ShapeCastQuery::Cast ShapeCastQuery::castFor(const GroundSweep& sweep) const {
  Cast cast;
  const btVector3 down = (sweep.to - sweep.from).normalized();
  // Columns: the axle (the cylinder's own x axis), up, and their cross product.
  const btVector3 up = -down;
  const btVector3 third = sweep.axle.cross(up);
  cast.basis.setValue(sweep.axle.x(), up.x(), third.x(),
                      sweep.axle.y(), up.y(), third.y(),
                      sweep.axle.z(), up.z(), third.z());
  const Geometry& shape = parts_->geometry;
  SweptShape& swept = cast.shape;
  swept.cylinder = shape.cylinder;
  swept.radius = shape.radius;
  swept.halfWidth = shape.halfWidth;
  swept.start = sweep.from + down * (shape.offset - shape.lift());
  swept.down = down;
  swept.axle = sweep.axle;
  swept.beginDistance = 0;
  swept.endDistance = shape.castLength();
  return cast;
}

btTransform ShapeCastQuery::bulletEnd(const Cast& cast) const {
  return btTransform(cast.basis, cast.shape.start + cast.shape.down * (cast.shape.endDistance + parts_->slack));
}

void ShapeCastQuery::castBullet(const btCollisionObject& object, const Cast& cast,
                                btScalar back, btCollisionWorld::ConvexResultCallback& callback) const {
  const SweptShape& swept = cast.shape;
  const btTransform start(cast.basis, swept.start - swept.down * back);
  btCollisionWorld::objectQuerySingle(parts_->convex.get(), start, bulletEnd(cast),
                                      const_cast<btCollisionObject*>(&object),
                                      object.getCollisionShape(), object.getWorldTransform(),
                                      callback, 0);
}

void ShapeCastQuery::castRestarts(const Cast& cast, ShapeHitCallback& callback) const {
  // Bullet's casts are unreliable from inside an object; cast again from where the shape is
  // clear of anything it could be overlapping (its whole size farther back); a touch before the
  // cast's own start is then ground above the wheel, as a ray ignores it.
  callback.beginRestarts();
  const btScalar back = 2 * parts_->geometry.boundingRadius();
  for (int i = 0; i < callback.restartCount(); ++i)
    castBullet(*callback.restart(i), cast, back, callback);
}

WheelRayHit ShapeCastQuery::hitFrom(const ShapeHitCallback& callback) const {
  const Geometry& shape = parts_->geometry;
  if (!callback.found()) return WheelRayHit{};
  const TriangleTouch& touch = callback.best();
  WheelRayHit hit;
  hit.hit = true;
  // As a ray would report it: the suspension top to the wheel's bottom, length + radius, where
  // the suspension length is the cast's distance less its lift.
  hit.distance = touch.distance - shape.lift() + shape.offset + shape.radius;
  hit.point = touch.point;
  hit.normal = touch.normal;
  hit.object = callback.object();
  hit.shapePart = callback.part();
  hit.triangleIndex = callback.triangle();
  return hit;
}

bool ShapeCastQuery::castNearby(const NearbyGround& nearby, const GroundSweep& sweep,
                                bool offMainThread, WheelRayHit& hit) {
  const Cast cast = castFor(sweep);
  const SweptShape& swept = cast.shape;
  const btScalar size = parts_->geometry.boundingRadius();
  btVector3 boxMin = swept.start, boxMax = swept.start;
  const btVector3 end = swept.start + swept.down * swept.endDistance;
  setMinPerAxis(boxMin, end);
  setMaxPerAxis(boxMax, end);
  boxMin -= btVector3(size, size, size);
  boxMax += btVector3(size, size, size);
  ShapeHitCallback callback(swept, parts_->geometry.cosMaxSlope, parts_->slack, nearby.chassis());
  bool answered = true;
  for (const NearbyObject& candidate : nearby.objects()) {
    if (!TestAabbAgainstAabb2(boxMin, boxMax, candidate.leaf->volume.Mins(),
                              candidate.leaf->volume.Maxs()))
      continue;
    const btCollisionObject& object = *candidate.object;
    if (object.getInternalType() == btCollisionObject::CO_SOFT_BODY ||
        (offMainThread && !queryIsThreadSafe(*object.getCollisionShape()))) {
      answered = false;
      break;
    }
    if (cache_ && MeshRayCache::canCache(object)) {
      MeshRayCache* cache = caches_.cacheFor(nearby.objects(), object);
      if (cache != nullptr &&
          castCached(*cache, object, swept, size, sweep.displacement, margin_, callback))
        continue;
    }
    if (callback.offerExactly(object)) continue;
    castBullet(object, cast, 0, callback);
  }
  if (answered) {
    castRestarts(cast, callback);
    hit = hitFrom(callback);
  }
  caches_.describe(prefetchBlocks_);
  return answered;
}

WheelRayHit ShapeCastQuery::castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                                        const btCollisionObject* chassis) const {
  const Cast cast = castFor(sweep);
  const SweptShape& swept = cast.shape;
  ShapeHitCallback callback(swept, parts_->geometry.cosMaxSlope, parts_->slack, chassis);
  world.convexSweepTest(parts_->convex.get(), btTransform(cast.basis, swept.start), bulletEnd(cast), callback, 0);
  castRestarts(cast, callback);
  return hitFrom(callback);
}

void ShapeCastQuery::clear() {
  caches_.clear();
  caches_.describe(prefetchBlocks_);
}

}  // namespace raycar
