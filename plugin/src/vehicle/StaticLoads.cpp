#include "raycar/vehicle/StaticLoads.h"

#include <cmath>
#include <string>

#include "io/SymmetricEigen.h"
#include "raycar/Error.h"
#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

std::vector<SupportPoint> supportPoints(const VehicleSettings& settings) {
  const btVector3 forward = settings.axes.forward;
  const btVector3 right = settings.axes.right();
  std::vector<SupportPoint> support;
  support.reserve(settings.wheels.size());
  for (const WheelSettings& wheel : settings.wheels)
    support.push_back({wheel.attachmentPoint.dot(forward), wheel.attachmentPoint.dot(right)});
  return support;
}

bool needsStaticLoads(const VehicleSettings& settings) {
  for (const WheelSettings& wheel : settings.wheels)
    if (wheel.stiffness == 0 || wheel.damping <= 0 ||
        (wheel.tire.loadSensitivity > 0 && wheel.tire.referenceLoad == 0))
      return true;
  return false;
}

std::vector<btScalar> staticWheelLoads(const std::vector<SupportPoint>& points, btScalar weight) {
  const size_t count = points.size();
  if (count == 0) throw SettingsError({"static loads: the vehicle has no wheels"});
  // Rows of A: (1, x_i, y_i) per wheel as columns; normal matrix M = A A^T.
  Matrix3d normal = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (const SupportPoint& point : points) {
    const double row[3] = {1.0, point.forward, point.right};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) normal[i][j] += row[i] * row[j];
  }
  Matrix3d vectors;
  symmetricEigen(normal, vectors);
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
                         "is not above the line or point the wheels stand on), and the automatic "
                         "spring rates, dampings and tire reference loads are drawn from them; a "
                         "vehicle that stands only when held (a trailer on one axle, by its hitch) "
                         "gives each wheel's stiffness, damping and tire referenceLoad"});
  }
  std::vector<std::string> problems;
  for (size_t i = 0; i < count; ++i) {
    if (loads[i] < 0) {
      problems.push_back("static loads: wheel " + std::to_string(i + 1) + " would need " +
                         std::to_string(loads[i]) +
                         " N (negative): the centre of mass lies outside the wheels' support (their "
                         "attachmentPoint)");
    }
  }
  if (!problems.empty()) throw SettingsError(problems);
  return loads;
}

}  // namespace raycar
