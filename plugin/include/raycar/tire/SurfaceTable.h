#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Surfaces: which ground material each collision object (or each triangle of a mesh) is made of,
// and the friction of each tire surface on each material (seed 001: a wheel's surface_id "will
// be used to set tire friction value").
//
// A wheel's tire surface is WheelSettings::surfaceId (`[[wheel]] surface_id`). A ground
// material is a small integer the game chooses (0 asphalt, 1 grass, ...): set per object with
// setMaterial, or per triangle of a btBvhTriangleMeshShape / btTriangleMesh with
// setTriangleMaterials (a track modelled as one mesh whose grass and asphalt are separate
// objects in the modeller, as raycar-sim's `[surfaces]` section does). An object the table does
// not know is material 0.
//
// The friction of a pair replaces the contact's (tire + ground) / 2 (ContactFriction.h); the
// wheel's min/max clamp, the game's grip scale, load sensitivity and the sliding rules still
// apply on top. A pair the table does not name keeps (tire + ground) / 2, so a table that names
// only ice changes nothing else.
//
// Vehicles read a table through a shared pointer while they step, possibly on worker threads:
// change it only between steps.

#include <LinearMath/btScalar.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

class btCollisionObject;

namespace raycar {

class SurfaceTable {
 public:
  // Friction coefficient (dimensionless, [0, 10]) of tire surface `surfaceId` on ground
  // `material`. Throws InputError for a value outside that range or not finite.
  void setFriction(int surfaceId, int material, btScalar friction);
  // The pair's friction, or a negative number when the table does not name the pair.
  btScalar friction(int surfaceId, int material) const;

  // The material of all of `object` (replaces any per-triangle materials it had).
  void setMaterial(const btCollisionObject& object, int material);
  // One material per triangle of mesh part `part` of `object`, indexed as Bullet numbers the
  // part's triangles (btTriangleMesh: in the order addTriangle added them). A triangle past the
  // list's end is the object's material (setMaterial, else 0).
  void setTriangleMaterials(const btCollisionObject& object, std::vector<int> materials,
                            int part = 0);
  // Forgets `object` (call it before the object is destroyed if its address may be reused).
  void removeObject(const btCollisionObject& object);

  // The material where a wheel touches `object`, at mesh triangle `triangle` of part `part`
  // (both -1 where the ground is not a mesh); 0 for an object the table does not know.
  int material(const btCollisionObject* object, int part, int triangle) const;

 private:
  struct ObjectMaterials {
    int material = 0;
    std::vector<std::vector<int>> triangleMaterials;  // [part][triangle]
  };
  static std::uint64_t pairKey(int surfaceId, int material) {
    return (std::uint64_t(std::uint32_t(surfaceId)) << 32) | std::uint32_t(material);
  }
  std::unordered_map<std::uint64_t, btScalar> friction_;
  std::unordered_map<const btCollisionObject*, ObjectMaterials> objects_;
};

}  // namespace raycar
