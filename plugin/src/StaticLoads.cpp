#include "raycar/StaticLoads.h"

#include <cmath>
#include <string>

#include "raycar/Error.h"

namespace raycar {
namespace {

using Matrix3 = double[3][3];

// Eigen decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: matrix becomes
// diagonal (the eigenvalues), vectors holds the eigenvectors as columns.
void jacobiEigen(Matrix3 matrix, Matrix3 vectors) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) vectors[i][j] = i == j ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double offDiagonal = 0;
    for (int p = 0; p < 3; ++p)
      for (int q = p + 1; q < 3; ++q) offDiagonal += matrix[p][q] * matrix[p][q];
    if (offDiagonal < 1e-30) return;
    for (int p = 0; p < 3; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (std::fabs(matrix[p][q]) < 1e-300) continue;
        const double theta = (matrix[q][q] - matrix[p][p]) / (2 * matrix[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1);
        const double s = t * c;
        for (int k = 0; k < 3; ++k) {  // matrix = J^T matrix J
          const double kp = matrix[k][p], kq = matrix[k][q];
          matrix[k][p] = c * kp - s * kq;
          matrix[k][q] = s * kp + c * kq;
        }
        for (int k = 0; k < 3; ++k) {
          const double pk = matrix[p][k], qk = matrix[q][k];
          matrix[p][k] = c * pk - s * qk;
          matrix[q][k] = s * pk + c * qk;
        }
        for (int k = 0; k < 3; ++k) {
          const double kp = vectors[k][p], kq = vectors[k][q];
          vectors[k][p] = c * kp - s * kq;
          vectors[k][q] = s * kp + c * kq;
        }
      }
    }
  }
}

}  // namespace

std::vector<btScalar> staticWheelLoads(const std::vector<SupportPoint>& points, btScalar weight) {
  const size_t count = points.size();
  if (count == 0) throw SettingsError({"static loads: the vehicle has no wheels"});
  // Rows of A: (1, x_i, y_i) per wheel as columns; normal matrix M = A A^T.
  Matrix3 normal = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (const SupportPoint& point : points) {
    const double row[3] = {1.0, point.forward, point.right};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) normal[i][j] += row[i] * row[j];
  }
  Matrix3 vectors;
  jacobiEigen(normal, vectors);
  double largest = 0;
  for (int i = 0; i < 3; ++i) largest = std::fmax(largest, std::fabs(normal[i][i]));
  // multipliers = M^+ b with b = (W, 0, 0)
  double multipliers[3] = {0, 0, 0};
  for (int e = 0; e < 3; ++e) {
    const double eigenvalue = normal[e][e];
    if (eigenvalue <= 1e-9 * largest) continue;  // direction A cannot express: dropped
    const double projection = vectors[0][e] * double(weight) / eigenvalue;
    for (int i = 0; i < 3; ++i) multipliers[i] += vectors[i][e] * projection;
  }
  std::vector<btScalar> loads(count);
  double totalLoad = 0, forwardMoment = 0, rightMoment = 0;
  for (size_t i = 0; i < count; ++i) {
    const double load = multipliers[0] + multipliers[1] * points[i].forward +
                        multipliers[2] * points[i].right;
    loads[i] = btScalar(load);
    totalLoad += load;
    forwardMoment += load * points[i].forward;
    rightMoment += load * points[i].right;
  }
  const double tolerance = 1e-6 * double(weight);
  if (std::fabs(totalLoad - weight) > tolerance ||
      std::fabs(forwardMoment) > tolerance * 10 || std::fabs(rightMoment) > tolerance * 10) {
    throw SettingsError({"static loads: the wheels cannot balance the weight (the centre of mass "
                         "is not above the line or point the wheels stand on)"});
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < count; ++i) {
    if (loads[i] < 0) {
      problems.push_back("static loads: wheel " + std::to_string(i + 1) + " would need " +
                         std::to_string(loads[i]) +
                         " N (negative): the centre of mass lies outside the wheels' support");
    }
  }
  if (!problems.empty()) throw SettingsError(problems);
  return loads;
}

}  // namespace raycar
