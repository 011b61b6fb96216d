#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Builds a vehicle from an OBJ model and a vehicle script (seed 001's loader, OBJ for CGF), and
// spawns it into a Bullet world.
//
// Model naming (objects `o`, or groups `g`; names are exact, trailing spaces ignored):
//   hull1, hull2, ...        parts, read until the first missing number
//   hullproxyN               low-poly collision stand-in for hullN
//   wheel1 / wheel_1, ...    wheels (a cylinder: radius and width from the geometry)
//   wheelN_upper, wheelN_lower  helpers: len_initial = |up . (upper - lower)|, pivot = lower
//                            moved up by len_initial (the upper helper need not be above)
//   susp1 / sus_1, ...       visual suspension parts, stretched between two end helpers
//   suspN_hull, suspN_wheelM, suspN_suspK   the ends, each on the part it names
//   eye_pos                  the chase camera's pivot
// Helpers are positioned by the centroid of their vertices: an `o` object with one `p` point.
//
// Physics from the parts (seed 001): flags 0 and 1 are physical, 2 visual only; after the first
// part with a hullproxy, parts without one do not collide; the collision shape is a compound of
// the convex hulls of the colliding parts (their proxies where given), each shrunk by Bullet's
// collision margin so that it collides at the modelled surface. Parts with mass must be
// closed meshes (their proxies where given); the chassis' mass, centre and inertia come from
// their volume integrals, and the chassis body's frame is the principal-axes frame at the centre
// of mass. Wheels on one axle that are almost mirror images are snapped to exact mirror images.

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <LinearMath/btDefaultMotionState.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "raycar/Error.h"
#include "raycar/extras/ChaseCamera.h"
#include "raycar/io/ObjModel.h"
#include "raycar/vehicle/RaycastVehicle.h"
#include "raycar/parallel/VehicleGroup.h"
#include "raycar/io/VehicleScript.h"

namespace raycar {

struct MeshPart {
  std::string name;
  std::vector<btVector3> vertices;            // m, in the frame the owner says
  std::vector<std::array<int, 3>> triangles;
};

// A suspension part kept between two moving ends (visual only).
struct SuspensionPart {
  enum class Anchor { Hull, Wheel, Suspension };
  struct End {
    Anchor anchor = Anchor::Hull;
    int index = 0;            // wheel or suspension index (0-based)
    btVector3 point{0, 0, 0};  // chassis frame at rest
  };
  MeshPart mesh;   // chassis frame at rest
  End ends[2];
};

struct LoadedVehicle {
  std::string scriptPath;
  std::string modelPath;
  VehicleSettings settings;      // with the wheels built from the model
  ChassisParams chassis;
  ChaseCameraSettings camera;
  btScalar mass = 0;             // kg
  btVector3 principalInertia{0, 0, 0};  // kg m^2 about the chassis frame's axes
  btTransform modelFromChassis = btTransform::getIdentity();  // chassis frame in model space
  ChassisAxes modelAxes;         // the script's [model] up and forward, in model space
  std::vector<MeshPart> collisionHulls;  // point clouds, chassis frame
  std::vector<MeshPart> visualParts;     // visible hull parts, chassis frame
  std::vector<MeshPart> wheelMeshes;     // per wheel, relative to its centre, chassis axes
  std::vector<SuspensionPart> suspensions;
  bool hasEye = false;
  btVector3 eyePosition{0, 0, 0};        // chassis frame
  // The model's objects the vehicle is not built from (no part, wheel, helper or suspension
  // name: a decoration named otherwise, a stray mesh), in the file's order. A part shown
  // without physics is a hullN with flags 2 and mass 0.
  std::vector<std::string> ignoredObjects;
  // Settings that load and drive, but not as a vehicle of this mass and size should (defaults
  // made for a 1.2-1.7 t car on a 12 t bus, say), each a sentence placed at the script's key or
  // record ("FILE:LINE: object: ..."): a tire whose reference load leaves it little of its
  // friction at the wheel's static load, wheels whose spin inertia outweighs a good part of the
  // car, brakes that cannot reach half a g. Loads and decelerations at 9.81 m/s^2. raycar-sim
  // and raycar-viewer print them; nothing acts on them.
  std::vector<std::string> warnings;
  // Where the script set each spring rate that, at 9.81 m/s^2, cannot carry its wheel within its
  // travel (one of the warnings): building the car refuses them, and the error names these places.
  std::vector<ErrorLocation> springRatePlaces;
};

// Reads the script, then its [model] obj. Throws raycar::Error naming file, line and object.
// `overrides` set script keys as if the file had them (KeyOverride.h: raycar-sim --set, a sweep).
LoadedVehicle loadVehicle(const std::string& scriptPath, const std::vector<KeyOverride>& overrides = {});
// The same from parsed inputs (tests, fuzzers).
LoadedVehicle buildVehicle(const VehicleScript& script, const ObjModel& model);

// Where to put a loaded model so that it stands on `worldUp` facing `worldForward` (unit,
// perpendicular) at `position`: the rotation that takes the script's [model] up and forward axes
// onto them. A Blender export (Y up, -Z forward), a CryEngine model (Z up, +Y forward) and any
// other pair of axes land the same way; pass the result to SpawnedVehicle. Axes that are not unit
// (within 1e-3) or not perpendicular, or a position that is not finite, throw InputError.
btTransform placeModel(const LoadedVehicle& vehicle, const btVector3& worldUp,
                       const btVector3& worldForward, const btVector3& position);

// The collision objects the chassis of `vehicle` would overlap if spawned at `modelToWorld`
// (placeModel's result), by Bullet's contactTest of its collision hulls: none is a free spot.
// Cars spawned into one another (an occupied parking space, a respawn onto traffic) rest on each
// other's wheels and bodies and creep while they touch (README, "Cars on cars"); a spawn sunk
// into the ground lists the ground. Objects without a contact response (triggers) are not
// listed, nor `ignore` (a car's own chassis, when a game checks where to move it). The wheels are
// not tested: they find the ground by their queries. A pose that is not a rigid motion throws
// InputError, as SpawnedVehicle does.
std::vector<const btCollisionObject*> overlapsAtSpawn(btCollisionWorld& world, const LoadedVehicle& vehicle,
                                                      const btTransform& modelToWorld,
                                                      const btCollisionObject* ignore = nullptr);

// A vehicle living in a world. Destroying it removes it and leaves the world as it was.
class SpawnedVehicle {
 public:
  // The vehicle is its own action in `world`, or, with a `group`, one of the group's vehicles
  // (the group is then the world's action, added by the caller). A group destroyed first takes
  // the vehicle with it: vehicle() then dangles, suspensionPoses() throws InputError, and
  // destroying this object only removes the chassis from the world (destroy the group and its
  // cars on one thread).
  // `modelToWorld` must be a rigid motion (placeModel makes one): a finite origin and a basis
  // that is a rotation, within 1e-3; else InputError, before anything is added to the world.
  // This one keeps a copy of `vehicle` of its own, its settings included.
  SpawnedVehicle(btDiscreteDynamicsWorld& world, const LoadedVehicle& vehicle,
                 const btTransform& modelToWorld, VehicleGroup* group = nullptr);
  // Cars of one model share it: the loaded meshes and hulls, and the vehicle's settings
  // (RaycastVehicle::sharedSettings() points into `model`). Many spawns of one model then keep
  // one copy of both instead of one each.
  SpawnedVehicle(btDiscreteDynamicsWorld& world, std::shared_ptr<const LoadedVehicle> model,
                 const btTransform& modelToWorld, VehicleGroup* group = nullptr);
  ~SpawnedVehicle();
  SpawnedVehicle(const SpawnedVehicle&) = delete;
  SpawnedVehicle& operator=(const SpawnedVehicle&) = delete;

  RaycastVehicle& vehicle() { return *vehicle_; }
  btRigidBody& chassis() { return *chassis_; }
  const LoadedVehicle& loaded() const { return *loaded_; }
  const std::shared_ptr<const LoadedVehicle>& sharedModel() const { return loaded_; }
  // Where a point of the model is now (for rendering the visual parts).
  btTransform chassisTransform() const { return chassis_->getWorldTransform(); }
  // World placement of each suspension part (visual only), in order: a rigid transform and the
  // stretch along the part's rest axis (from end 0 to end 1). applySuspensionPose maps a rest
  // point of the part (chassis frame) to the world.
  struct SuspensionPose {
    btVector3 restStart{0, 0, 0};    // end 0 at rest, chassis frame
    btVector3 restAxis{0, 0, 1};     // unit, end 0 -> end 1 at rest
    btTransform transform = btTransform::getIdentity();  // rest chassis frame -> world
    btScalar stretch = 1;
    btVector3 apply(const btVector3& restPoint) const;
  };
  const std::vector<SuspensionPose>& suspensionPoses();

 private:
  btVector3 anchorPoint(const SuspensionPart::End& end, const std::vector<SuspensionPose>& done) const;

  btDiscreteDynamicsWorld& world_;
  std::shared_ptr<const LoadedVehicle> loaded_;  // never null
  std::unique_ptr<btCompoundShape> shape_;
  std::vector<std::unique_ptr<btConvexHullShape>> hulls_;
  std::unique_ptr<btDefaultMotionState> motionState_;
  std::unique_ptr<btRigidBody> chassis_;
  VehicleGroup* group_ = nullptr;              // the group that owns vehicle_, or null
  std::weak_ptr<const void> groupLifetime_;    // group_->lifetime()
  std::unique_ptr<RaycastVehicle> ownVehicle_;  // without a group
  RaycastVehicle* vehicle_ = nullptr;
  std::vector<SuspensionPose> poses_;
};

}  // namespace raycar
