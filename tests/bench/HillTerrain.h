#pragma once
// The benchmark ground: a square btBvhTriangleMeshShape of gentle hills, two triangles per cell.
// 512 m with 1 m cells is 524,288 triangles.

#include <btBulletDynamicsCommon.h>

#include <memory>
#include <vector>

namespace raycar::bench {

class HillTerrain {
 public:
  HillTerrain(btScalar sizeMetres, btScalar cellMetres);
  HillTerrain(const HillTerrain&) = delete;
  HillTerrain& operator=(const HillTerrain&) = delete;

  // Ground height (m) of the smooth hills at (x, z); the mesh samples it at the cell corners.
  static btScalar height(btScalar x, btScalar z);

  btBvhTriangleMeshShape& shape() { return *shape_; }
  int triangleCount() const { return int(indices_.size() / 3); }
  btScalar size() const { return size_; }

 private:
  btScalar size_;
  std::vector<btScalar> vertices_;  // x, y, z per vertex; Y is up
  std::vector<int> indices_;
  std::unique_ptr<btTriangleIndexVertexArray> mesh_;
  std::unique_ptr<btBvhTriangleMeshShape> shape_;
};

}  // namespace raycar::bench
