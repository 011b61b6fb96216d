#include "io/SymmetricEigen.h"

#include <cmath>

namespace raycar {

void symmetricEigen(Matrix3d matrix, Matrix3d vectors) {
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

}  // namespace raycar
