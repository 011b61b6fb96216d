#include "raycar/tire/SurfaceTable.h"

#include <cmath>
#include <string>

#include "raycar/Error.h"

namespace raycar {

namespace {
// How errors name a pair: "surface 2 on material 5".
std::string pairName(int surfaceId, int material) {
  return "surface " + std::to_string(surfaceId) + " on material " + std::to_string(material);
}
}  // namespace

void SurfaceTable::setFriction(int surfaceId, int material, btScalar friction) {
  if (!(friction >= 0 && friction <= 10))
    throw InputError(pairName(surfaceId, material), "friction must lie in [0, 10]");
  pairs_[pairKey(surfaceId, material)].friction = friction;
}

const SurfaceTable::PairProperties* SurfaceTable::pair(int surfaceId, int material) const {
  const auto found = pairs_.find(pairKey(surfaceId, material));
  return found == pairs_.end() ? nullptr : &found->second;
}

btScalar SurfaceTable::friction(int surfaceId, int material) const {
  const PairProperties* named = pair(surfaceId, material);
  return named != nullptr ? named->friction : btScalar(-1);
}

void SurfaceTable::setRollingResistance(int surfaceId, int material, btScalar coefficient) {
  if (!(coefficient >= 0 && coefficient <= 1))
    throw InputError(pairName(surfaceId, material), "rolling resistance must lie in [0, 1]");
  pairs_[pairKey(surfaceId, material)].rollingResistance = coefficient;
}

btScalar SurfaceTable::rollingResistance(int surfaceId, int material) const {
  const PairProperties* named = pair(surfaceId, material);
  return named != nullptr ? named->rollingResistance : btScalar(0);
}

void SurfaceTable::setMaterial(const btCollisionObject& object, int material) {
  ObjectMaterials& materials = objects_[&object];
  materials.material = material;
  materials.triangleMaterials.clear();
}

void SurfaceTable::setTriangleMaterials(const btCollisionObject& object, std::vector<int> materials,
                                        int part) {
  if (part < 0) throw InputError("triangle materials", "mesh part must be >= 0");
  ObjectMaterials& entry = objects_[&object];
  if (entry.triangleMaterials.size() <= size_t(part)) entry.triangleMaterials.resize(size_t(part) + 1);
  entry.triangleMaterials[size_t(part)] = std::move(materials);
}

void SurfaceTable::removeObject(const btCollisionObject& object) { objects_.erase(&object); }

int SurfaceTable::material(const btCollisionObject* object, int part, int triangle) const {
  const auto found = objects_.find(object);
  if (found == objects_.end()) return 0;
  const ObjectMaterials& entry = found->second;
  if (part >= 0 && size_t(part) < entry.triangleMaterials.size() && triangle >= 0) {
    const std::vector<int>& triangles = entry.triangleMaterials[size_t(part)];
    if (size_t(triangle) < triangles.size()) return triangles[size_t(triangle)];
  }
  return entry.material;
}

}  // namespace raycar
