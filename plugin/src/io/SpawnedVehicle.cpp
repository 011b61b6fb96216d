// SpawnedVehicle and placeModel (raycar/io/VehicleLoader.h): a loaded vehicle put into a world —
// its chassis body from the collision hulls and mass properties, its RaycastVehicle (or a place
// in a VehicleGroup), and the suspension parts' poses for drawing.
#include <LinearMath/btConvexHullComputer.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/VectorText.h"
#include "raycar/Error.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/parallel/VehicleGroup.h"

namespace raycar {
namespace {

// The collision margin Bullet gives a convex shape (m), and the least a collision hull here keeps:
// GJK and EPA, which Bullet places convex shapes with, need some margin to work with.
constexpr btScalar kBulletMargin = btScalar(0.04);
constexpr btScalar kLeastMargin = btScalar(0.005);

// A convex hull of `points` moved in by `shrink` (each face along its normal, at most half the
// hull's inner radius); its shrink (<= 0: flat or degenerate, nothing to shrink) and vertices.
btScalar shrunkHull(const std::vector<btVector3>& points, btScalar shrink, btAlignedObjectArray<btVector3>& vertices) {
  std::vector<double> coordinates;
  coordinates.reserve(points.size() * 3);
  for (const btVector3& p : points)
    for (int axis = 0; axis < 3; ++axis) coordinates.push_back(double(p[axis]));
  btConvexHullComputer hull;
  const btScalar shrunk = hull.compute(coordinates.data(), int(3 * sizeof(double)), int(points.size()), shrink,
                                       shrink > 0 ? btScalar(0.5) : btScalar(0));
  vertices = hull.vertices;
  return vertices.size() >= 4 ? shrunk : btScalar(-1);
}

std::unique_ptr<btConvexHullShape> hullShape(const btAlignedObjectArray<btVector3>& points, btScalar margin) {
  auto shape = std::make_unique<btConvexHullShape>();
  for (int i = 0; i < points.size(); ++i) shape->addPoint(points[i], false);
  shape->setMargin(margin);
  shape->recalcLocalAabb();
  return shape;
}

// How far `shape` falls short of the part at its corners: along each corner's direction from
// the part's centre, the corner's reach less the shape's (margin included).
btScalar worstShortfall(const btConvexHullShape& shape, const btAlignedObjectArray<btVector3>& corners) {
  btVector3 centre(0, 0, 0);
  for (int i = 0; i < corners.size(); ++i) centre += corners[i];
  centre /= btScalar(corners.size());
  btScalar worst = 0;
  for (int i = 0; i < corners.size(); ++i) {
    btVector3 direction = corners[i] - centre;
    if (!(direction.length2() > btScalar(1e-12))) continue;
    direction.normalize();
    worst = std::max(worst, (corners[i] - shape.localGetSupportingVertex(direction)).dot(direction));
  }
  return worst;
}

// A collision part's convex hull whose surface is the part's own. Bullet collides a convex shape
// as its points' hull grown by the shape's collision margin (0.04 m) on every side, so a hull of
// the part's points alone stood 4 cm proud of the modelled body: a car modelled with 4 cm of
// ground clearance rested part of its weight on its floor and crept. The hull is therefore shrunk
// by the margin first (each face moved in along its normal), and the margin puts the faces back
// where they were modelled. Edges and corners come out rounded: a box's corner by its margin's
// radius, 0.73 of the margin short along its diagonal, but a corner of angle a falls s / sin(a/2)
// - s short for a shrink s (a 20 deg wedge's tip 0.19 m with s = 4 cm). So the shrink is held to
// what leaves no corner more than the 4 cm margin short; a part that would need less than 5 mm of
// margin for that (a spike, a sheet thinner than a centimetre, a flat proxy) keeps its points
// with a 5 mm margin instead, and stands that much proud of its model.
std::unique_ptr<btConvexHullShape> collisionHull(const MeshPart& part) {
  btAlignedObjectArray<btVector3> corners;  // the part's own hull: its points that can collide
  if (shrunkHull(part.vertices, 0, corners) < 0) {
    corners.clear();
    for (const btVector3& v : part.vertices) corners.push_back(v);
    return hullShape(corners, kLeastMargin);  // flat or degenerate
  }
  btScalar shrink = kBulletMargin;
  btAlignedObjectArray<btVector3> shrunkCorners;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const btScalar shrunk = shrunkHull(part.vertices, shrink, shrunkCorners);
    if (!(shrunk >= kLeastMargin)) break;
    std::unique_ptr<btConvexHullShape> shape = hullShape(shrunkCorners, shrunk);
    const btScalar worst = worstShortfall(*shape, corners);
    if (worst <= kBulletMargin) return shape;
    // Corners fall short in proportion to the shrink: ask for what brings the worst to 90% of the
    // margin (the proportion is only nearly exact: the shrink is held within the inner radius).
    shrink = shrunk * btScalar(0.9) * kBulletMargin / worst;
  }
  return hullShape(corners, kLeastMargin);
}

// A pose must be a rigid motion: what placeModel refuses in its axes and position, refused here
// too for a transform the game built itself. A NaN origin had put a NaN body into the world, and
// a scaled or zero rotation a car that never met its wheels' ground.
void checkPose(const btTransform& modelToWorld) {
  const btVector3& origin = modelToWorld.getOrigin();
  if (!std::isfinite(origin.x()) || !std::isfinite(origin.y()) || !std::isfinite(origin.z()))
    throw InputError("SpawnedVehicle", "modelToWorld's origin " + vectorText(origin) + " is not finite");
  const btMatrix3x3& basis = modelToWorld.getBasis();
  constexpr btScalar kRotationSlack = btScalar(1e-3);  // as placeModel's axes
  const btMatrix3x3 product = basis * basis.transpose();
  for (int row = 0; row < 3; ++row)
    for (int column = 0; column < 3; ++column) {
      const btScalar identity = row == column ? 1 : 0;
      if (!(std::fabs(product[row][column] - identity) <= kRotationSlack))
        throw InputError("SpawnedVehicle", "modelToWorld's basis is not a rotation (its rows " +
                                               vectorText(basis[0]) + ", " + vectorText(basis[1]) + ", " +
                                               vectorText(basis[2]) + " are not unit and perpendicular)");
    }
  if (!(basis.determinant() > 0))
    throw InputError("SpawnedVehicle", "modelToWorld's basis is a reflection, not a rotation");
}

// The chassis' collision shape: one convex hull per collision part, in `hulls`, as children of
// `shape` (the chassis frame is the parts' own).
void buildChassisShape(const LoadedVehicle& loaded, btCompoundShape& shape,
                       std::vector<std::unique_ptr<btConvexHullShape>>& hulls) {
  for (const MeshPart& part : loaded.collisionHulls) {
    hulls.push_back(collisionHull(part));
    shape.addChildShape(btTransform::getIdentity(), hulls.back().get());
  }
}
}  // namespace

std::vector<const btCollisionObject*> overlapsAtSpawn(btCollisionWorld& world, const LoadedVehicle& vehicle,
                                                      const btTransform& modelToWorld,
                                                      const btCollisionObject* ignore) {
  checkPose(modelToWorld);
  btCompoundShape shape;
  std::vector<std::unique_ptr<btConvexHullShape>> hulls;
  buildChassisShape(vehicle, shape, hulls);
  btCollisionObject probe;
  probe.setCollisionShape(&shape);
  probe.setWorldTransform(modelToWorld * vehicle.modelFromChassis);
  // Bullet reports pairs within its contact threshold too; only those that overlap count (a car
  // parked beside this one, a hair apart, leaves the spot free).
  struct Overlaps : btCollisionWorld::ContactResultCallback {
    std::vector<const btCollisionObject*> objects;
    btScalar addSingleResult(btManifoldPoint& point, const btCollisionObjectWrapper* a, int, int,
                             const btCollisionObjectWrapper* b, int, int) override {
      if (point.getDistance() < 0) {
        const btCollisionObject* other = a->getCollisionObject() == chassis ? b->getCollisionObject()
                                                                            : a->getCollisionObject();
        if (other != ignore && other->hasContactResponse() &&
            std::find(objects.begin(), objects.end(), other) == objects.end())
          objects.push_back(other);
      }
      return 0;
    }
    const btCollisionObject* chassis = nullptr;  // the probe
    const btCollisionObject* ignore = nullptr;
  } overlaps;
  overlaps.chassis = &probe;
  overlaps.ignore = ignore;
  world.contactTest(&probe, overlaps);
  return overlaps.objects;
}

SpawnedVehicle::SpawnedVehicle(btDiscreteDynamicsWorld& world, const LoadedVehicle& vehicle,
                               const btTransform& modelToWorld, VehicleGroup* group)
    : SpawnedVehicle(world, std::make_shared<const LoadedVehicle>(vehicle), modelToWorld, group) {}

SpawnedVehicle::SpawnedVehicle(btDiscreteDynamicsWorld& world, std::shared_ptr<const LoadedVehicle> model,
                               const btTransform& modelToWorld, VehicleGroup* group)
    : world_(world), loaded_(std::move(model)), group_(group) {
  if (loaded_ == nullptr) throw InputError("SpawnedVehicle", "the model is null");
  checkPose(modelToWorld);
  const LoadedVehicle& loaded = *loaded_;
  shape_ = std::make_unique<btCompoundShape>();
  buildChassisShape(loaded, *shape_, hulls_);
  motionState_ = std::make_unique<btDefaultMotionState>(modelToWorld * loaded.modelFromChassis);
  btRigidBody::btRigidBodyConstructionInfo info(loaded.mass, motionState_.get(), shape_.get(),
                                                loaded.principalInertia);
  chassis_ = std::make_unique<btRigidBody>(info);
  // damping_vehicle (1/s) as Bullet's per-second retained fraction; sleep_speed_vehicle.
  chassis_->setDamping(btScalar(1) - std::exp(-loaded.chassis.damping), 0);
  chassis_->setSleepingThresholds(loaded.chassis.sleepSpeed, chassis_->getAngularSleepingThreshold());
  world_.addRigidBody(chassis_.get());
  // The settings live in the model and are shared with it (an aliasing pointer: it keeps the
  // whole model alive).
  std::shared_ptr<const VehicleSettings> settings(loaded_, &loaded.settings);
  try {
    if (group_ != nullptr) {
      vehicle_ = &group_->addSpawnedVehicle(*chassis_, settings);
      groupLifetime_ = group_->lifetime();
    } else {
      ownVehicle_ = std::make_unique<RaycastVehicle>(*chassis_, settings);
      vehicle_ = ownVehicle_.get();
    }
  } catch (const SettingsError& error) {
    world_.removeRigidBody(chassis_.get());
    // The vehicle's own check knows no script; the loader says where the script set the spring
    // rates it foresaw would be refused.
    std::vector<std::string> problems = error.problems();
    std::string places;
    for (size_t i = 0; i < loaded.springRatePlaces.size(); ++i) {
      const ErrorLocation& place = loaded.springRatePlaces[i];
      const std::string text = place.file + (place.line > 0 ? ":" + std::to_string(place.line) : "") + " (" + place.object + ")";
      if (places.find(text) == std::string::npos) places += (places.empty() ? "" : ", ") + text;  // one key, many wheels
    }
    if (!places.empty()) problems.push_back("the spring rates were set at " + places);
    const ErrorLocation where =
        loaded.springRatePlaces.empty() ? ErrorLocation{loaded.scriptPath, 0, ""} : loaded.springRatePlaces.front();
    throw SettingsError(where, problems);  // placed, problems kept
  }
  if (group_ == nullptr) world_.addAction(vehicle_);
}

btTransform placeModel(const LoadedVehicle& vehicle, const btVector3& worldUp,
                       const btVector3& worldForward, const btVector3& position) {
  // Axes that are not unit and perpendicular make no rotation: a zero axis gave a zero basis, and
  // a car put down with it stood on no wheel; axes of length 2 and 3 scaled the car by 6.
  constexpr btScalar kAxisSlack = btScalar(1e-3);
  for (const auto& [axis, name] : {std::pair{worldUp, "worldUp"}, std::pair{worldForward, "worldForward"}})
    if (!(std::fabs(axis.length() - 1) <= kAxisSlack))
      throw InputError("placeModel", std::string(name) + " " + vectorText(axis) + " is not a unit vector");
  if (!(std::fabs(worldUp.dot(worldForward)) <= kAxisSlack))
    throw InputError("placeModel", "worldUp " + vectorText(worldUp) + " and worldForward " +
                                       vectorText(worldForward) + " are not perpendicular");
  if (!std::isfinite(position.x()) || !std::isfinite(position.y()) || !std::isfinite(position.z()))
    throw InputError("placeModel", "position " + vectorText(position) + " is not finite");
  // Columns (forward, up, right) in each space; right-handed in both, so the rotation is the
  // world's columns times the model's transposed. With axis-aligned axes every product is exact.
  const ChassisAxes& model = vehicle.modelAxes;
  const btVector3 modelRight = model.forward.cross(model.up), worldRight = worldForward.cross(worldUp);
  const btMatrix3x3 modelColumns(model.forward.x(), model.up.x(), modelRight.x(),
                                 model.forward.y(), model.up.y(), modelRight.y(),
                                 model.forward.z(), model.up.z(), modelRight.z());
  const btMatrix3x3 worldColumns(worldForward.x(), worldUp.x(), worldRight.x(),
                                 worldForward.y(), worldUp.y(), worldRight.y(),
                                 worldForward.z(), worldUp.z(), worldRight.z());
  return btTransform(worldColumns * modelColumns.transpose(), position);
}

SpawnedVehicle::~SpawnedVehicle() {
  if (group_ != nullptr) {
    if (!groupLifetime_.expired()) group_->removeSpawnedVehicle(*vehicle_);  // else gone with the group
  } else {
    world_.removeAction(vehicle_);
  }
  world_.removeRigidBody(chassis_.get());
}

btVector3 SpawnedVehicle::SuspensionPose::apply(const btVector3& restPoint) const {
  btVector3 offset = restPoint - restStart;
  offset += restAxis * (offset.dot(restAxis) * (stretch - 1));
  return transform * offset;
}

btVector3 SpawnedVehicle::anchorPoint(const SuspensionPart::End& end,
                                      const std::vector<SuspensionPose>& done) const {
  const btTransform chassis = chassis_->getWorldTransform();
  switch (end.anchor) {
    case SuspensionPart::Anchor::Hull:
      return chassis * end.point;
    case SuspensionPart::Anchor::Wheel: {
      // On the hub: it travels with the suspension and steers, but does not spin.
      const WheelSettings& settings = vehicle_->wheelSettings(end.index);
      const WheelState& state = vehicle_->wheelState(end.index);
      const btVector3 up = loaded_->settings.axes.up;
      const btVector3 restCentre = settings.attachmentPoint - up * settings.suspensionRestLength;
      const btVector3 centre = settings.attachmentPoint - up * state.suspensionLength;
      const btTransform hub(btQuaternion(up, state.steerAngle), centre);
      return chassis * (hub * (end.point - restCentre));
    }
    case SuspensionPart::Anchor::Suspension:
      return done[end.index].apply(end.point);
  }
  return chassis * end.point;
}

const std::vector<SpawnedVehicle::SuspensionPose>& SpawnedVehicle::suspensionPoses() {
  // The wheels' part of the poses is the vehicle's, gone with a group destroyed first.
  if (group_ != nullptr && groupLifetime_.expired())
    throw InputError(loaded_->modelPath, "suspensionPoses: the vehicle's group was destroyed before it");
  const size_t count = loaded_->suspensions.size();
  poses_.assign(count, SuspensionPose{});
  std::vector<bool> done(count, false);
  const btTransform chassis = chassis_->getWorldTransform();
  // Parts hanging on other parts wait for them (the loader ruled out circles).
  for (size_t round = 0; round < count; ++round) {
    for (size_t k = 0; k < count; ++k) {
      if (done[k]) continue;
      const SuspensionPart& part = loaded_->suspensions[k];
      bool ready = true;
      for (const SuspensionPart::End& end : part.ends)
        ready = ready && (end.anchor != SuspensionPart::Anchor::Suspension || done[end.index]);
      if (!ready) continue;
      const btVector3 start = anchorPoint(part.ends[0], poses_);
      const btVector3 finish = anchorPoint(part.ends[1], poses_);
      SuspensionPose& pose = poses_[k];
      pose.restStart = part.ends[0].point;
      const btVector3 restSpan = part.ends[1].point - part.ends[0].point;
      const btScalar restLength = restSpan.length();
      pose.restAxis = restLength > 0 ? restSpan / restLength : btVector3(0, 0, 1);
      const btVector3 span = finish - start;
      pose.stretch = restLength > 0 ? span.length() / restLength : 1;
      // The chassis' rotation, then the shortest turn from where the rest axis points to the span.
      btVector3 carried = chassis.getBasis() * pose.restAxis;
      btVector3 direction = span.length2() > 0 ? span.normalized() : carried;
      const btQuaternion turn = shortestArcQuatNormalize2(carried, direction);
      pose.transform = btTransform(btMatrix3x3(turn) * chassis.getBasis(), start);
      done[k] = true;
    }
  }
  return poses_;
}

}  // namespace raycar
