#include "raycar/vehicle/StaticLoads.h"

#include <cmath>
#include <string>
#include <utility>

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
    support.push_back({wheel.attachmentPoint.dot(forward), wheel.attachmentPoint.dot(right), wheel.stiffness,
                       wheel.suspensionMaxLength + wheel.radius - wheel.attachmentPoint.dot(settings.axes.up),
                       wheel.suspensionMaxLength});
  return support;
}

bool needsStaticLoads(const VehicleSettings& settings) {
  for (const WheelSettings& wheel : settings.wheels)
    if (wheel.stiffness == 0 || wheel.damping <= 0 ||
        (wheel.tire.loadSensitivity > 0 && wheel.tire.referenceLoad == 0))
      return true;
  return false;
}

namespace {
// A contact's lever about the centre of mass, across the ground's normal (m). With the ground
// plane in the chassis' frame (compression = reach + p0 + p1 x + p2 y), the contact lies
// D = -(p0 + p1 x + p2 y) below the centre of mass along the chassis' down, and the ground's
// normal, (-p1, -p2, 1) in the chassis' (forward, right, up), leans back by p1 and left by p2
// (a nose pressed down, p1 > 0, puts the weight's line ahead of the point below the centre of
// mass): the lever is the contact's offset across that normal, x - D p1, y - D p2 (small tilts).
struct Lever {
  double forward, right;
};
Lever leverOf(const SupportPoint& point, const double plane[3]) {
  const double depth = -(plane[0] + plane[1] * point.forward + plane[2] * point.right);
  return {point.forward - depth * plane[1], point.right - depth * plane[2]};
}

// The springs' plane again with the loads balanced about their levers, from the level solution:
// fixed-point rounds of the 3 x 3 system sum k_i (reach_i + p . r_i) l_i = (W, 0, 0),
// l_i = (1, lever_i), each by elimination with partial pivoting, until the plane stops moving.
// Each round shrinks the error by about W D / sum k x^2 (the weight's tipping moment per radian
// against the springs' righting one): a few rounds for a low car, dozens for a tall one on soft
// springs (a jeep with its centre of mass 0.85 m up on 40 / 20 kN/m). At 1 or more the chassis
// would tip over on its springs and the rounds do not settle. False then, or for a singular
// system, with `plane` as it came.
bool levelOnLevers(const std::vector<SupportPoint>& points, btScalar weight, double plane[3]) {
  constexpr int kMaxRounds = 200;
  double level[3] = {plane[0], plane[1], plane[2]};
  auto giveUp = [&] {
    for (int i = 0; i < 3; ++i) plane[i] = level[i];
    return false;
  };
  for (int round = 0; round < kMaxRounds; ++round) {
    double system[3][4] = {{0, 0, 0, double(weight)}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    for (const SupportPoint& point : points) {
      const Lever lever = leverOf(point, plane);
      const double left[3] = {1.0, lever.forward, lever.right};
      const double row[3] = {1.0, point.forward, point.right};
      for (int a = 0; a < 3; ++a) {
        system[a][3] -= double(point.stiffness) * double(point.reach) * left[a];
        for (int b = 0; b < 3; ++b) system[a][b] += double(point.stiffness) * left[a] * row[b];
      }
    }
    for (int column = 0; column < 3; ++column) {
      int pivot = column;
      for (int r = column + 1; r < 3; ++r)
        if (std::fabs(system[r][column]) > std::fabs(system[pivot][column])) pivot = r;
      if (!(std::fabs(system[pivot][column]) > 0)) return giveUp();
      for (int c = 0; c < 4; ++c) std::swap(system[column][c], system[pivot][c]);
      for (int r = column + 1; r < 3; ++r) {
        const double factor = system[r][column] / system[column][column];
        for (int c = column; c < 4; ++c) system[r][c] -= factor * system[column][c];
      }
    }
    double solved[3];
    for (int r = 2; r >= 0; --r) {
      double sum = system[r][3];
      for (int c = r + 1; c < 3; ++c) sum -= system[r][c] * solved[c];
      solved[r] = sum / system[r][r];
    }
    double moved = 0, size = 0;
    for (int i = 0; i < 3; ++i) {
      if (!std::isfinite(solved[i])) return giveUp();
      moved = std::fmax(moved, std::fabs(solved[i] - plane[i]));
      size = std::fmax(size, std::fabs(solved[i]));
      plane[i] = solved[i];
    }
    if (moved <= 1e-13 * (1 + size)) return true;
  }
  return giveUp();
}
}  // namespace

std::vector<btScalar> staticWheelLoads(const std::vector<SupportPoint>& points, btScalar weight) {
  const size_t count = points.size();
  if (count == 0) throw SettingsError({"static loads: the vehicle has no wheels"});
  // Both splits are N_i = w_i (e_i + p . r_i) with r_i = (1, x_i, y_i): the even one with w_i = 1
  // and e_i = 0 (N = A^T p), the springs' with w_i = k_i and e_i = reach_i (p: the ground plane
  // in the chassis' frame, a compression linear in position). Balance, sum N_i r_i = (W, 0, 0),
  // gives M p = b with M = sum w_i r_i r_i^T and b = (W, 0, 0) - sum w_i e_i r_i; M is symmetric,
  // solved through its eigenvalues so that wheels on one line (a motorcycle) drop the direction
  // they cannot express. Returns whether M has full rank.
  double plane[3];
  auto solvePlane = [&](bool springs) {
    Matrix3d normal = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    double wanted[3] = {double(weight), 0, 0};
    for (const SupportPoint& point : points) {
      const double row[3] = {1.0, point.forward, point.right};
      const double rate = springs ? double(point.stiffness) : 1.0;
      const double reach = springs ? double(point.reach) : 0.0;
      for (int i = 0; i < 3; ++i) {
        wanted[i] -= rate * reach * row[i];
        for (int j = 0; j < 3; ++j) normal[i][j] += rate * row[i] * row[j];
      }
    }
    Matrix3d vectors;
    symmetricEigen(normal, vectors);
    double largest = 0;
    for (int i = 0; i < 3; ++i) largest = std::fmax(largest, std::fabs(normal[i][i]));
    bool fullRank = true;
    for (int i = 0; i < 3; ++i) plane[i] = 0;
    for (int e = 0; e < 3; ++e) {
      const double eigenvalue = normal[e][e];
      if (eigenvalue <= 1e-9 * largest) {  // a direction A cannot express: dropped
        fullRank = false;
        continue;
      }
      const double projection =
          (vectors[0][e] * wanted[0] + vectors[1][e] * wanted[1] + vectors[2][e] * wanted[2]) / eigenvalue;
      for (int i = 0; i < 3; ++i) plane[i] += vectors[i][e] * projection;
    }
    return fullRank;
  };
  bool springsGiven = true;
  for (const SupportPoint& point : points) springsGiven = springsGiven && point.stiffness > 0;
  bool levers = false;
  if (springsGiven) {
    // Springs of different rates tilt the chassis, and a tilted chassis' weight acts through a
    // point on the ground moved from below its centre of mass by its height x the tilt: the
    // loads balance about the contacts' levers, not their positions (test_static_loads.cpp: a
    // 3-axle truck's tag axle 0.8% lighter than the level balance says).
    // A chassis that would tip over on its springs (the rounds do not settle) keeps the level
    // balance.
    levers = solvePlane(true) && levelOnLevers(points, weight, plane);
    // The springs decide only while every wheel's compression stays within its travel: springs
    // too soft for the car rest it on its bump stops (which the vehicle refuses, naming the
    // wheel), one that would hang off the ground carries nothing. Then the even split stands.
    for (const SupportPoint& point : points) {
      const double compression = point.reach + plane[0] + plane[1] * point.forward + plane[2] * point.right;
      springsGiven = springsGiven && compression >= 0 && compression <= point.travel;
    }
  }
  if (!springsGiven) {
    solvePlane(false);
    levers = false;
  }
  std::vector<btScalar> loads(count);
  double totalLoad = 0, forwardMoment = 0, rightMoment = 0;
  for (size_t i = 0; i < count; ++i) {
    const double rate = springsGiven ? double(points[i].stiffness) : 1.0;
    const double reach = springsGiven ? double(points[i].reach) : 0.0;
    const double load =
        rate * (reach + plane[0] + plane[1] * points[i].forward + plane[2] * points[i].right);
    const Lever lever = levers ? leverOf(points[i], plane) : Lever{points[i].forward, points[i].right};
    loads[i] = btScalar(load);
    totalLoad += load;
    forwardMoment += load * lever.forward;
    rightMoment += load * lever.right;
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
