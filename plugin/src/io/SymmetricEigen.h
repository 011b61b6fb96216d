#pragma once
// Eigen decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations (internal helper for
// static loads and mass properties). Double precision: it runs once per vehicle, not per step.

namespace raycar {

using Matrix3d = double[3][3];

// `matrix` becomes diagonal (the eigenvalues on its diagonal); `vectors` receives the
// eigenvectors as columns.
void symmetricEigen(Matrix3d matrix, Matrix3d vectors);

}  // namespace raycar
