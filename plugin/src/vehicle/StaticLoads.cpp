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
double depthOf(const SupportPoint& point, const double plane[3]) {
  return -(plane[0] + plane[1] * point.forward + plane[2] * point.right);
}
}  // namespace

std::vector<btScalar> staticWheelLoads(const std::vector<SupportPoint>& points, btScalar weight) {
  const size_t count = points.size();
  if (count == 0) throw SettingsError({"static loads: the vehicle has no wheels"});
  // The springs decide with every wheel's rate given; while their compressions stay within
  // travel (below), else the even split.
  bool springsGiven = true;
  for (const SupportPoint& point : points) springsGiven = springsGiven && point.stiffness > 0;
  // Both splits are N_i = w_i (e_i + p . r_i) with r_i = (1, x_i, y_i): the even one with w_i = 1
  // and e_i = 0 (N = A^T p), the springs' with w_i = k_i and e_i = reach_i (p: the ground plane
  // in the chassis' frame, a compression linear in position). Balance, sum N_i r_i = (W, 0, 0),
  // gives M p = b with M = sum w_i r_i r_i^T and b = (W, 0, 0) - sum w_i e_i r_i; M is symmetric,
  // solved through its eigenvalues so that wheels on one line (a motorcycle) drop the direction
  // they cannot express.
  auto rate = [&](const SupportPoint& point) { return springsGiven ? double(point.stiffness) : 1.0; };
  auto reach = [&](const SupportPoint& point) { return springsGiven ? double(point.reach) : 0.0; };
  auto loadAt = [&](const SupportPoint& point, const double plane[3]) {
    return rate(point) * (reach(point) + plane[0] + plane[1] * point.forward + plane[2] * point.right);
  };
  Matrix3d normal, vectors;
  double wanted[3];
  bool fullRank = true;
  auto decompose = [&] {
    for (auto& row : normal)
      for (double& value : row) value = 0;
    wanted[0] = double(weight);
    wanted[1] = wanted[2] = 0;
    for (const SupportPoint& point : points) {
      const double row[3] = {1.0, point.forward, point.right};
      for (int i = 0; i < 3; ++i) {
        wanted[i] -= rate(point) * reach(point) * row[i];
        for (int j = 0; j < 3; ++j) normal[i][j] += rate(point) * row[i] * row[j];
      }
    }
    symmetricEigen(normal, vectors);
    double largest = 0;
    for (int i = 0; i < 3; ++i) largest = std::fmax(largest, std::fabs(normal[i][i]));
    fullRank = true;
    for (int e = 0; e < 3; ++e)
      if (normal[e][e] <= 1e-9 * largest) {  // a direction A cannot express: dropped below
        normal[e][e] = 0;
        fullRank = false;
      }
  };
  // plane = M^+ (b + extra)
  auto solve = [&](const double extra[3], double plane[3]) {
    for (int i = 0; i < 3; ++i) plane[i] = 0;
    for (int e = 0; e < 3; ++e) {
      if (normal[e][e] == 0) continue;
      double projection = 0;
      for (int i = 0; i < 3; ++i) projection += vectors[i][e] * (wanted[i] + extra[i]);
      projection /= normal[e][e];
      for (int i = 0; i < 3; ++i) plane[i] += vectors[i][e] * projection;
    }
  };
  const double none[3] = {0, 0, 0};
  double plane[3];
  decompose();
  solve(none, plane);
  bool levers = false;
  if (springsGiven) {
    // Springs of different rates tilt the chassis, and a tilted chassis' weight acts through a
    // point on the ground moved from below its centre of mass by its height x the tilt: the
    // loads balance about the contacts' levers, not their positions (test_static_loads.cpp: a
    // 3-axle truck's tag axle 0.8% lighter than the level balance says). With lever_i = r_i -
    // D_i (0, p1, p2), the balance about the levers is the level one with sum N_i D_i (0, p1, p2)
    // added to b: rounds of the same solve, from the level plane, until the plane stops moving.
    // Each round shrinks the error by about W D / sum k x^2 (the weight's tipping moment per
    // radian against the springs' righting one): a few rounds for a low car, dozens for a tall
    // one on soft springs (a jeep with its centre of mass 0.85 m up on 40 / 20 kN/m). At 1 or
    // more the chassis would tip over on its springs and the rounds do not settle: it keeps the
    // level balance, as does a system that is not of full rank.
    double tilted[3] = {plane[0], plane[1], plane[2]};
    constexpr int kMaxRounds = 200;
    for (int round = 0; fullRank && round < kMaxRounds && !levers; ++round) {
      double weightLine = 0;  // sum N_i D_i (N m)
      for (const SupportPoint& point : points) weightLine += loadAt(point, tilted) * depthOf(point, tilted);
      const double extra[3] = {0, weightLine * tilted[1], weightLine * tilted[2]};
      double next[3];
      solve(extra, next);
      double moved = 0, size = 0;
      for (int i = 0; i < 3; ++i) {
        moved = std::fmax(moved, std::fabs(next[i] - tilted[i]));
        size = std::fmax(size, std::fabs(next[i]));
        tilted[i] = next[i];
      }
      if (!std::isfinite(moved)) break;
      levers = moved <= 1e-13 * (1 + size);
    }
    if (levers)
      for (int i = 0; i < 3; ++i) plane[i] = tilted[i];
    // The springs decide only while every wheel's compression stays within its travel: springs
    // too soft for the car rest it on its bump stops (which the vehicle refuses, naming the
    // wheel), one that would hang off the ground carries nothing. Then the even split stands.
    for (const SupportPoint& point : points) {
      const double compression = loadAt(point, plane) / double(point.stiffness);
      springsGiven = springsGiven && compression >= 0 && compression <= point.travel;
    }
    if (!springsGiven) {
      levers = false;
      decompose();
      solve(none, plane);
    }
  }
  std::vector<btScalar> loads(count);
  double totalLoad = 0, forwardMoment = 0, rightMoment = 0;
  for (size_t i = 0; i < count; ++i) {
    const double load = loadAt(points[i], plane);
    const double depth = levers ? depthOf(points[i], plane) : 0.0;  // levers: the tilt's shift
    loads[i] = btScalar(load);
    totalLoad += load;
    forwardMoment += load * (points[i].forward - depth * plane[1]);
    rightMoment += load * (points[i].right - depth * plane[2]);
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
