#include "ground/ShapeCastQuery.h"

#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btScaledBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStridingMeshInterface.h>
#include <BulletCollision/CollisionShapes/btTriangleMeshShape.h>
#include <LinearMath/btAabbUtil2.h>

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {

constexpr btScalar kDegree = btScalar(SIMD_PI / 180);
// m: hits whose cast distances lie this close to the best one are still reported by Bullet, so
// that the refined distances of a seam's triangles can be compared.
constexpr btScalar kSeamSlack = btScalar(1e-3);
// Barycentric slack for "the touching point lies inside the triangle" (a point on a shared
// edge belongs to both triangles; either gives the same plane when they are coplanar).
constexpr btScalar kInsideSlack = btScalar(1e-6);

// sin(5 deg): a plane leaning this far across a cylinder wheel has its touching point at the rim.
constexpr btScalar kRimLean = btScalar(0.0872);

// Where the shape touches the plane of normal `normal` (unit, pointing out of the ground toward
// the wheel) first: its extent along -normal from its centre, and the touching point's offset.
struct Support {
  btScalar extent = 0;    // m
  btVector3 offset{0, 0, 0};  // from the shape's centre to its touching point
};

Support supportAlong(const ShapeCastQuery::Geometry& shape, const btVector3& axle,
                     const btVector3& normal) {
  Support support;
  if (!shape.cylinder) {
    support.extent = shape.radius;
    support.offset = -normal * shape.radius;
    return support;
  }
  // The cylinder's rim: R along the normal's part across the axle, w/2 along the axle.
  const btScalar along = axle.dot(normal);
  btVector3 across = normal - axle * along;
  const btScalar acrossLength = across.length();
  support.extent = shape.radius * acrossLength + shape.halfWidth * std::fabs(along);
  if (acrossLength > SIMD_EPSILON) across /= acrossLength;
  // The touching point: on a plane square to the wheel, the middle of the tread; leaning across
  // it, the rim on the low side. A rigid cylinder would jump there at the first hundredth of a
  // degree of lean (and the contact force with it); a tire's patch moves there gradually, which
  // this follows, reaching the rim at kRimLean. The extent above stays the rigid cylinder's.
  const btScalar towardRim = std::clamp(along / kRimLean, btScalar(-1), btScalar(1));
  support.offset = -across * shape.radius - axle * (shape.halfWidth * towardRim);
  return support;
}

// The triangle a mesh hit names, in world space; false when the object is not a triangle mesh.
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
  const btStridingMeshInterface* interface = mesh->getMeshInterface();
  if (info->m_shapePart < 0 || info->m_shapePart >= interface->getNumSubParts()) return false;
  const unsigned char* vertexBase = nullptr;
  const unsigned char* indexBase = nullptr;
  int vertexCount = 0, stride = 0, indexStride = 0, faceCount = 0;
  PHY_ScalarType vertexType, indexType;
  interface->getLockedReadOnlyVertexIndexBase(&vertexBase, vertexCount, vertexType, stride,
                                              &indexBase, indexStride, faceCount, indexType,
                                              info->m_shapePart);
  bool valid = info->m_triangleIndex >= 0 && info->m_triangleIndex < faceCount;
  const unsigned char* face = indexBase + size_t(info->m_triangleIndex) * size_t(indexStride);
  const btVector3 meshScaling = interface->getScaling() * scaling;
  for (int corner = 0; valid && corner < 3; ++corner) {
    int index = 0;
    switch (indexType) {
      case PHY_INTEGER: index = reinterpret_cast<const int*>(face)[corner]; break;
      case PHY_SHORT: index = reinterpret_cast<const unsigned short*>(face)[corner]; break;
      case PHY_UCHAR: index = face[corner]; break;
      default: valid = false; continue;
    }
    if (index < 0 || index >= vertexCount) {
      valid = false;
      continue;
    }
    const unsigned char* vertex = vertexBase + size_t(index) * size_t(stride);
    btVector3 local;
    if (vertexType == PHY_FLOAT) {
      const float* v = reinterpret_cast<const float*>(vertex);
      local.setValue(btScalar(v[0]), btScalar(v[1]), btScalar(v[2]));
    } else if (vertexType == PHY_DOUBLE) {
      const double* v = reinterpret_cast<const double*>(vertex);
      local.setValue(btScalar(v[0]), btScalar(v[1]), btScalar(v[2]));
    } else {
      valid = false;
      continue;
    }
    vertices[corner] = object.getWorldTransform() * (local * meshScaling);
  }
  interface->unLockReadOnlyVertexBase(info->m_shapePart);
  return valid;
}

// Whether `point` (on the triangle's plane) lies inside the triangle: each of its barycentric
// coordinates, the signed area it spans with an edge over the triangle's, is >= -kInsideSlack.
bool insideTriangle(const btVector3 (&v)[3], const btVector3& point) {
  const btVector3 twiceArea = (v[1] - v[0]).cross(v[2] - v[0]);
  const btScalar scale = twiceArea.length2();
  if (!(scale > 0)) return false;
  for (int edge = 0; edge < 3; ++edge) {
    const btVector3& a = v[edge];
    const btVector3& b = v[(edge + 1) % 3];
    if ((b - a).cross(point - a).dot(twiceArea) < -kInsideSlack * scale) return false;
  }
  return true;
}

// Bullet's convex-cast callback with the wheel's filter and the refinement of the file's top.
class ShapeHitCallback final : public btCollisionWorld::ConvexResultCallback {
 public:
  ShapeHitCallback(const ShapeCastQuery::Geometry& shape, const btVector3& start,
                   const btVector3& down, const btVector3& axle, const btCollisionObject* ignored)
      : shape_(shape), start_(start), down_(down), axle_(axle), castLength_(shape.castLength()),
        ignored_(ignored) {}

  bool needsCollision(btBroadphaseProxy* proxy) const override {
    const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    if (object == ignored_) return false;
    if (object->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return false;
    return ConvexResultCallback::needsCollision(proxy);
  }

  btScalar addSingleResult(btCollisionWorld::LocalConvexResult& result,
                           bool normalInWorldSpace) override {
    const btCollisionObject& object = *result.m_hitCollisionObject;
    btVector3 normal = normalInWorldSpace
                           ? result.m_hitNormalLocal
                           : object.getWorldTransform().getBasis() * result.m_hitNormalLocal;
    if (!(normal.length2() > SIMD_EPSILON)) return m_closestHitFraction;
    normal.normalize();
    if (normal.dot(down_) > 0) normal = -normal;  // out of the ground, against the cast
    btVector3 point = result.m_hitPointLocal;     // world for convex casts
    btScalar distance = result.m_hitFraction * castLength_;
    if (result.m_hitFraction > 0) {
      place(object, result.m_localShapeInfo, normal, point, distance);
    } else {
      // Overlapping at the start: Bullet's point is not to be trusted, its normal still sorts a
      // wall (steep) from the ground; the touching point is taken below the shape's centre.
      point = start_ + down_ * shape_.radius;
    }
    // A wall, a kerb's face: not ground; Bullet goes on to the hits behind it.
    if (-normal.dot(down_) < shape_.cosMaxSlope) return m_closestHitFraction;
    if (!found_ || distance < distance_) {
      found_ = true;
      distance_ = distance;
      point_ = point;
      normal_ = normal;
      object_ = &object;
    }
    // Bullet reports only hits closer than this: keep a seam's neighbours in.
    m_closestHitFraction =
        std::min(m_closestHitFraction, result.m_hitFraction + kSeamSlack / castLength_);
    return m_closestHitFraction;
  }

  bool found() const { return found_; }
  btScalar distance() const { return distance_; }  // m along the cast from its start
  const btVector3& point() const { return point_; }
  const btVector3& normal() const { return normal_; }
  const btCollisionObject* object() const { return object_; }

 private:
  // Replaces Bullet's hit (normal, point, cast distance) by the exact touch: on a mesh, against
  // the hit triangle's face when the touching point lies inside it, else against its nearest
  // edge; on any other shape, against the plane Bullet reports.
  void place(const btCollisionObject& object, const btCollisionWorld::LocalShapeInfo* info,
             btVector3& normal, btVector3& point, btScalar& distance) const {
    btVector3 triangle[3];
    btScalar placedDistance = 0;
    btVector3 placedNormal(0, 0, 0), placedPoint(0, 0, 0);
    bool placed = false;
    if (hitTriangle(object, info, triangle)) {
      placedNormal = (triangle[1] - triangle[0]).cross(triangle[2] - triangle[0]);
      if (placedNormal.length2() > SIMD_EPSILON) {
        placedNormal.normalize();
        if (placedNormal.dot(down_) > 0) placedNormal = -placedNormal;
        placed = touch(placedNormal, triangle[0], placedDistance, placedPoint) &&
                 insideTriangle(triangle, placedPoint);
      }
      if (!placed)  // an edge or a corner of the triangle
        placed = touchEdge(triangle, point, normal, placedDistance, placedNormal, placedPoint);
    }
    if (!placed) {
      placedNormal = normal;
      placed = touch(normal, point, placedDistance, placedPoint);
    }
    if (!placed) return;  // the cast runs along the plane: Bullet's answer stands
    normal = placedNormal;
    point = placedPoint;
    distance = std::max(placedDistance, btScalar(0));
  }

  // Where along the cast the shape first touches the plane (normal, pointOnPlane): the cast
  // distance (m) and the touching point. False when the cast runs along the plane.
  bool touch(const btVector3& normal, const btVector3& pointOnPlane, btScalar& distance,
             btVector3& touchingPoint) const {
    const btScalar approach = normal.dot(down_);  // < 0: the cast moves toward the plane
    if (!(approach < -SIMD_EPSILON)) return false;
    const Support support = supportAlong(shape_, axle_, normal);
    distance = (support.extent - normal.dot(start_ - pointOnPlane)) / approach;
    touchingPoint = start_ + down_ * distance + support.offset;
    return true;
  }

  // Where along the cast the shape first touches the triangle edge nearest to Bullet's point
  // `hitPoint`. A smooth shape touches a line with a normal square to it, so for a sphere, and
  // for a cylinder whose axle runs along the edge (a kerb square to the wheel), the touch is
  // where the shape's centre (axis) comes within its radius of the line: exact. For a cylinder
  // meeting an edge at an angle (a rim corner on a kerb taken diagonally) the cast's normal is
  // made square to the edge and the touch refined against its plane.
  bool touchEdge(const btVector3 (&triangle)[3], const btVector3& hitPoint,
                 const btVector3& hitNormal, btScalar& distance, btVector3& normal,
                 btVector3& point) const {
    int nearest = 0;
    btScalar nearestDistance2 = SIMD_INFINITY;
    for (int edge = 0; edge < 3; ++edge) {
      const btVector3& a = triangle[edge];
      const btVector3 along = triangle[(edge + 1) % 3] - a;
      const btScalar length2 = along.length2();
      if (!(length2 > 0)) continue;
      const btScalar s = std::clamp(along.dot(hitPoint - a) / length2, btScalar(0), btScalar(1));
      const btScalar distance2 = (a + along * s - hitPoint).length2();
      if (distance2 < nearestDistance2) {
        nearestDistance2 = distance2;
        nearest = edge;
      }
    }
    const btVector3& a = triangle[nearest];
    btVector3 edge = triangle[(nearest + 1) % 3] - a;
    const btScalar edgeLength = edge.length();
    if (!(edgeLength > SIMD_EPSILON)) return false;
    edge /= edgeLength;
    const bool lineContact = !shape_.cylinder || std::fabs(edge.dot(axle_)) > btScalar(0.9999);
    if (!lineContact) {
      normal = hitNormal - edge * edge.dot(hitNormal);
      if (!(normal.length2() > SIMD_EPSILON)) return false;
      normal.normalize();
      if (normal.dot(down_) > 0) normal = -normal;
      return touch(normal, hitPoint, distance, point);
    }
    // |P (start + down t - a)| = radius, P removing the part along the edge.
    const btVector3 u = (start_ - a) - edge * edge.dot(start_ - a);
    const btVector3 v = down_ - edge * edge.dot(down_);
    const btScalar vv = v.dot(v), uv = u.dot(v), uu = u.dot(u);
    if (!(vv > SIMD_EPSILON)) return false;  // the edge runs along the cast
    const btScalar discriminant = uv * uv - vv * (uu - shape_.radius * shape_.radius);
    if (discriminant < 0) return false;
    distance = (-uv - std::sqrt(discriminant)) / vv;
    const btVector3 centre = start_ + down_ * distance;
    const btScalar along = edge.dot(centre - a);
    if (along < 0 || along > edgeLength) return false;  // past the edge's end: a corner
    point = a + edge * along;
    normal = (centre - point) / shape_.radius;
    return true;
  }

  const ShapeCastQuery::Geometry& shape_;
  btVector3 start_, down_, axle_;
  btScalar castLength_;  // m, shape_.castLength()
  const btCollisionObject* ignored_;
  bool found_ = false;
  btScalar distance_ = 0;
  btVector3 point_{0, 0, 0}, normal_{0, 0, 0};
  const btCollisionObject* object_ = nullptr;
};

}  // namespace

ShapeCastQuery::ShapeCastQuery(const WheelSettings& wheel) {
  Geometry& shape = geometry_;
  shape.cylinder = wheel.groundQuery == GroundQueryKind::Cylinder;
  shape.radius = shape.cylinder || !(wheel.queryRadius > 0) ? wheel.radius : wheel.queryRadius;
  shape.halfWidth = shape.cylinder ? wheel.width / 2 : 0;
  shape.offset = wheel.radius - shape.radius;
  shape.travel = wheel.suspensionMaxLength;
  shape.cosMaxSlope = std::cos(wheel.maxSlope * kDegree);
  if (shape.cylinder)
    shape_ = std::make_unique<btCylinderShapeX>(btVector3(shape.halfWidth, shape.radius, shape.radius));
  else
    shape_ = std::make_unique<btSphereShape>(shape.radius);
  reach_ = shape.boundingRadius() + shape.lift();
}

ShapeCastQuery::Cast ShapeCastQuery::castFor(const GroundSweep& sweep) const {
  Cast cast;
  cast.down = (sweep.to - sweep.from).normalized();
  cast.axle = sweep.axle;
  // Columns: the axle (the cylinder's own x axis), up, and their cross product.
  const btVector3 up = -cast.down;
  const btVector3 third = cast.axle.cross(up);
  const btMatrix3x3 basis(cast.axle.x(), up.x(), third.x(),
                          cast.axle.y(), up.y(), third.y(),
                          cast.axle.z(), up.z(), third.z());
  const Geometry& shape = geometry_;
  cast.start = btTransform(basis, sweep.from + cast.down * (shape.offset - shape.lift()));
  cast.end = btTransform(basis, sweep.from + cast.down * (shape.offset + shape.travel));
  return cast;
}

WheelRayHit ShapeCastQuery::hitFrom(bool found, btScalar distance, const btVector3& point,
                                    const btVector3& normal,
                                    const btCollisionObject* object) const {
  const Geometry& shape = geometry_;
  // The suspension length the touching shape gives; past full extension there is no ground.
  const btScalar length = distance - shape.lift();
  if (!found || length > shape.travel) return WheelRayHit{};
  WheelRayHit hit;
  hit.hit = true;
  // As a ray would report it: the suspension top to the wheel's bottom, length + radius.
  hit.distance = length + shape.offset + shape.radius;
  hit.point = point;
  hit.normal = normal;
  hit.object = object;
  return hit;
}

bool ShapeCastQuery::castNearby(const NearbyGround& nearby, const GroundSweep& sweep,
                                bool offMainThread, WheelRayHit& hit) {
  const Cast cast = castFor(sweep);
  btVector3 boxMin = cast.start.getOrigin(), boxMax = boxMin;
  boxMin.setMin(cast.end.getOrigin());
  boxMax.setMax(cast.end.getOrigin());
  const btScalar size = geometry_.boundingRadius();
  boxMin -= btVector3(size, size, size);
  boxMax += btVector3(size, size, size);
  ShapeHitCallback callback(geometry_, cast.start.getOrigin(), cast.down, cast.axle,
                            nearby.chassis());
  for (const NearbyObject& candidate : nearby.objects()) {
    if (!TestAabbAgainstAabb2(boxMin, boxMax, candidate.leaf->volume.Mins(),
                              candidate.leaf->volume.Maxs()))
      continue;
    const btCollisionObject& object = *candidate.object;
    if (object.getInternalType() == btCollisionObject::CO_SOFT_BODY) return false;
    if (offMainThread && !queryIsThreadSafe(*object.getCollisionShape())) return false;
    btCollisionWorld::objectQuerySingle(shape_.get(), cast.start, cast.end,
                                        const_cast<btCollisionObject*>(&object),
                                        object.getCollisionShape(), object.getWorldTransform(),
                                        callback, 0);
  }
  hit = hitFrom(callback.found(), callback.distance(), callback.point(),
                callback.normal(), callback.object());
  return true;
}

WheelRayHit ShapeCastQuery::castInWorld(btCollisionWorld& world, const GroundSweep& sweep,
                                        const btCollisionObject* chassis) const {
  const Cast cast = castFor(sweep);
  ShapeHitCallback callback(geometry_, cast.start.getOrigin(), cast.down, cast.axle, chassis);
  world.convexSweepTest(shape_.get(), cast.start, cast.end, callback, 0);
  return hitFrom(callback.found(), callback.distance(), callback.point(),
                 callback.normal(), callback.object());
}

}  // namespace raycar
