#include "raycar/io/MassProperties.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "io/SymmetricEigen.h"

namespace raycar {
namespace {

struct Vector3d {
  double x, y, z;
};
Vector3d toDouble(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
Vector3d cross(const Vector3d& a, const Vector3d& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double dot(const Vector3d& a, const Vector3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

}  // namespace

std::string closedMeshProblem(const std::vector<btVector3>& vertices,
                              const std::vector<std::array<int, 3>>& triangles,
                              const std::vector<int>& triangleLines) {
  if (triangles.size() < 4) return "has " + std::to_string(triangles.size()) +
                                    " triangles; a closed surface needs at least 4";
  // Directed edge counts: on a closed, consistently wound surface every edge a->b appears once
  // and b->a once.
  std::map<std::pair<int, int>, int> directed;
  for (size_t t = 0; t < triangles.size(); ++t) {
    const std::array<int, 3>& tri = triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) {
      const int line = t < triangleLines.size() ? triangleLines[t] : 0;
      return "has a degenerate triangle (number " + std::to_string(t + 1) +
             (line > 0 ? ", of the face at line " + std::to_string(line) : std::string()) +
             ", a corner twice)";
    }
    for (int e = 0; e < 3; ++e) ++directed[{tri[e], tri[(e + 1) % 3]}];
  }
  // An edge by its ends' coordinates (what a modeller can find: the numbers count this part's
  // own vertices, not the file's) and those numbers.
  auto edgeText = [&](const std::pair<int, int>& edge) {
    char text[160];
    const btVector3& a = vertices[size_t(edge.first)];
    const btVector3& b = vertices[size_t(edge.second)];
    std::snprintf(text, sizeof text, "the edge from (%.4g, %.4g, %.4g) to (%.4g, %.4g, %.4g) (the part's vertices %d and %d)",
                  double(a.x()), double(a.y()), double(a.z()), double(b.x()), double(b.y()), double(b.z()),
                  edge.first + 1, edge.second + 1);
    return std::string(text);
  };
  for (const auto& [edge, count] : directed) {
    if (count > 1)
      return "has an edge shared by more than two triangles or wound inconsistently: " + edgeText(edge);
    if (directed.find({edge.second, edge.first}) == directed.end())
      return "is not closed: " + edgeText(edge) + " borders only one triangle";
  }
  return "";
}

MassProperties solidMassProperties(const std::vector<btVector3>& vertices,
                                   const std::vector<std::array<int, 3>>& triangles, btScalar mass) {
  double volume = 0;
  Vector3d moment{0, 0, 0};  // sum of V_i centroid_i
  double second[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};  // integral of r r^T dV
  for (const std::array<int, 3>& tri : triangles) {
    const Vector3d a = toDouble(vertices[tri[0]]), b = toDouble(vertices[tri[1]]),
                   c = toDouble(vertices[tri[2]]);
    const double determinant = dot(a, cross(b, c));
    volume += determinant / 6;
    const Vector3d sum{a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z};
    moment.x += determinant / 24 * sum.x;
    moment.y += determinant / 24 * sum.y;
    moment.z += determinant / 24 * sum.z;
    const double p[4][3] = {{a.x, a.y, a.z}, {b.x, b.y, b.z}, {c.x, c.y, c.z}, {sum.x, sum.y, sum.z}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        second[i][j] += determinant / 120 *
                        (p[0][i] * p[0][j] + p[1][i] * p[1][j] + p[2][i] * p[2][j] + p[3][i] * p[3][j]);
  }
  // Inward winding gives the same numbers with the opposite sign.
  const double sign = volume < 0 ? -1 : 1;
  volume *= sign;
  MassProperties result;
  result.mass = mass;
  result.volume = btScalar(volume);
  if (!(volume > 0)) return result;
  const double density = double(mass) / volume;
  const double centre[3] = {sign * moment.x / volume, sign * moment.y / volume, sign * moment.z / volume};
  result.centerOfMass = btVector3(btScalar(centre[0]), btScalar(centre[1]), btScalar(centre[2]));
  double central[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      central[i][j] = sign * density * second[i][j] - double(mass) * centre[i] * centre[j];
  const double trace = central[0][0] + central[1][1] + central[2][2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      result.inertia[i][j] = btScalar((i == j ? trace : 0) - central[i][j]);
  return result;
}

MassProperties combineMassProperties(const std::vector<MassProperties>& parts) {
  MassProperties total;
  btVector3 moment(0, 0, 0);
  for (const MassProperties& part : parts) {
    total.mass += part.mass;
    total.volume += part.volume;
    moment += part.centerOfMass * part.mass;
  }
  if (!(total.mass > 0)) return total;
  total.centerOfMass = moment / total.mass;
  for (const MassProperties& part : parts) {
    // Parallel axes: I + m (|d|^2 E - d d^T), d from the total centre to the part's.
    const btVector3 d = part.centerOfMass - total.centerOfMass;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        total.inertia[i][j] += part.inertia[i][j] + part.mass * ((i == j ? d.length2() : 0) - d[i] * d[j]);
  }
  return total;
}

PrincipalAxes principalAxes(const btMatrix3x3& inertia) {
  Matrix3d matrix, vectors;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) matrix[i][j] = inertia[i][j];
  symmetricEigen(matrix, vectors);
  PrincipalAxes axes;
  axes.moments = btVector3(btScalar(matrix[0][0]), btScalar(matrix[1][1]), btScalar(matrix[2][2]));
  btVector3 column[3];
  for (int c = 0; c < 3; ++c)
    column[c] = btVector3(btScalar(vectors[0][c]), btScalar(vectors[1][c]), btScalar(vectors[2][c]));
  // Keep each axis as close to the model's own as possible (deterministic signs), right-handed.
  for (int c = 0; c < 3; ++c)
    if (column[c][c] < 0) column[c] = -column[c];
  if (column[0].cross(column[1]).dot(column[2]) < 0) column[2] = -column[2];
  axes.rotation = btMatrix3x3(column[0].x(), column[1].x(), column[2].x(), column[0].y(), column[1].y(),
                              column[2].y(), column[0].z(), column[1].z(), column[2].z());
  return axes;
}

}  // namespace raycar
