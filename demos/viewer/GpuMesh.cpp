#include "GpuMesh.h"

#include <utility>

namespace raycar::viewer {

GpuMesh::GpuMesh(const std::vector<btVector3>& vertices, const std::vector<std::array<int, 3>>& triangles) {
  std::vector<float> data;  // x y z nx ny nz per vertex
  data.reserve(triangles.size() * 18);
  for (const auto& triangle : triangles) {
    const btVector3& a = vertices[size_t(triangle[0])];
    const btVector3& b = vertices[size_t(triangle[1])];
    const btVector3& c = vertices[size_t(triangle[2])];
    btVector3 normal = (b - a).cross(c - a);
    if (normal.length2() < btScalar(1e-20)) continue;  // degenerate: nothing to see
    normal.normalize();
    for (const btVector3* corner : {&a, &b, &c}) {
      for (int axis = 0; axis < 3; ++axis) data.push_back(float((*corner)[axis]));
      for (int axis = 0; axis < 3; ++axis) data.push_back(float(normal[axis]));
    }
  }
  vertexCount_ = GLsizei(data.size() / 6);
  glGenVertexArrays(1, &vertexArray_);
  glGenBuffers(1, &buffer_);
  glBindVertexArray(vertexArray_);
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * sizeof(float)), data.data(), GL_STATIC_DRAW);
  const GLsizei stride = 6 * sizeof(float);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<const void*>(3 * sizeof(float)));
  glBindVertexArray(0);
}

GpuMesh GpuMesh::unitCube() {
  std::vector<btVector3> corners;
  for (int i = 0; i < 8; ++i)
    corners.emplace_back(i & 1 ? 0.5f : -0.5f, i & 2 ? 0.5f : -0.5f, i & 4 ? 0.5f : -0.5f);
  // Two triangles per face, wound outward.
  const std::vector<std::array<int, 3>> triangles = {
      {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},  // -z, +z
      {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},  // -y, +y
      {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5},  // -x, +x
  };
  return GpuMesh(corners, triangles);
}

GpuMesh::~GpuMesh() { release(); }

GpuMesh::GpuMesh(GpuMesh&& other) noexcept
    : vertexArray_(std::exchange(other.vertexArray_, 0)),
      buffer_(std::exchange(other.buffer_, 0)),
      vertexCount_(std::exchange(other.vertexCount_, 0)) {}

GpuMesh& GpuMesh::operator=(GpuMesh&& other) noexcept {
  if (this != &other) {
    release();
    vertexArray_ = std::exchange(other.vertexArray_, 0);
    buffer_ = std::exchange(other.buffer_, 0);
    vertexCount_ = std::exchange(other.vertexCount_, 0);
  }
  return *this;
}

void GpuMesh::release() {
  if (buffer_) glDeleteBuffers(1, &buffer_);
  if (vertexArray_) glDeleteVertexArrays(1, &vertexArray_);
  buffer_ = vertexArray_ = 0;
}

void GpuMesh::draw() const {
  if (vertexCount_ == 0) return;
  glBindVertexArray(vertexArray_);
  glDrawArrays(GL_TRIANGLES, 0, vertexCount_);
}

}  // namespace raycar::viewer
