#pragma once
// A flat-shaded triangle mesh on the GPU: every triangle gets its own three vertices carrying the
// face normal (position and normal interleaved, attribute locations 0 and 1).

#include <LinearMath/btVector3.h>

#include <array>
#include <vector>

#include "Gl.h"

namespace raycar::viewer {

class GpuMesh {
 public:
  GpuMesh(const std::vector<btVector3>& vertices, const std::vector<std::array<int, 3>>& triangles);
  ~GpuMesh();
  GpuMesh(GpuMesh&& other) noexcept;
  GpuMesh& operator=(GpuMesh&& other) noexcept;
  GpuMesh(const GpuMesh&) = delete;
  GpuMesh& operator=(const GpuMesh&) = delete;

  // The cube [-0.5, 0.5]^3 (force vectors, ghosts, markers).
  static GpuMesh unitCube();

  void draw() const;
  int triangleCount() const { return vertexCount_ / 3; }

 private:
  void release();
  GLuint vertexArray_ = 0;
  GLuint buffer_ = 0;
  GLsizei vertexCount_ = 0;
};

}  // namespace raycar::viewer
