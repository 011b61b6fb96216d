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
// A pair may also add rolling resistance (setRollingResistance): soft ground (gravel, sand,
// grass) drags a rolling tire far more than asphalt whatever its grip, which is what slows a car
// coasting through a gravel trap. It adds C_rr N to the tire's own (AeroSettings::
// rollingResistance), as a torque C_rr N R against the wheel's spin that never reverses it.
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
  // Rolling resistance coefficient C_rr (dimensionless, [0, 1]) the pair adds to the tire's:
  // gravel about 0.02 to 0.04, sand 0.1 to 0.3 (asphalt's own, about 0.01, is the tire's).
  // Throws InputError for a value outside that range or not finite.
  void setRollingResistance(int surfaceId, int material, btScalar coefficient);
  // What the pair adds: 0 when the table does not name it.
  btScalar rollingResistance(int surfaceId, int material) const;

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
  struct PairProperties {
    btScalar friction = -1;          // < 0: not named (the contact's own)
    btScalar rollingResistance = 0;  // C_rr added to the tire's
  };
  const PairProperties* pair(int surfaceId, int material) const;  // null: not named
  std::unordered_map<std::uint64_t, PairProperties> pairs_;
  std::unordered_map<const btCollisionObject*, ObjectMaterials> objects_;
};

}  // namespace raycar
