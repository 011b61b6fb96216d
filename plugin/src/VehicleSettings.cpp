#include "raycar/VehicleSettings.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {

bool isFinite(const btVector3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

void validateWheel(const WheelSettings& wheel, const std::string& name,
                   std::vector<std::string>& problems) {
  auto require = [&](bool ok, const std::string& text) {
    if (!ok) problems.push_back(name + ": " + text);
  };
  require(isFinite(wheel.attachmentPoint), "attachment point is not finite");
  require(wheel.radius > 0 && std::isfinite(wheel.radius), "radius must be > 0 m");
  require(wheel.width > 0 && std::isfinite(wheel.width), "width must be > 0 m");
  require(wheel.suspensionMaxLength > 0 && std::isfinite(wheel.suspensionMaxLength),
          "len_max must be > 0 m");
  require(std::isfinite(wheel.stiffness) && wheel.stiffness >= 0,
          "stiffness must be >= 0 N/m (0: automatic)");
  require(std::isfinite(wheel.damping), "damping must be finite (<= 0: fraction of critical)");
  if (wheel.stiffness == 0) {
    require(wheel.suspensionRestLength >= 0 &&
                wheel.suspensionRestLength < wheel.suspensionMaxLength,
            "automatic stiffness needs 0 <= len_initial < len_max (len_initial " +
                std::to_string(wheel.suspensionRestLength) + " m, len_max " +
                std::to_string(wheel.suspensionMaxLength) + " m)");
  }
  require(wheel.spinInertia > 0 && std::isfinite(wheel.spinInertia),
          "spin inertia must be > 0 kg m^2");
  require(wheel.axle >= 0, "axle must be >= 0");
  require(wheel.minFriction >= 0 && std::isfinite(wheel.minFriction), "min_friction must be >= 0");
  require(wheel.maxFriction >= wheel.minFriction && std::isfinite(wheel.maxFriction),
          "max_friction must be >= min_friction");
  for (auto& text : validateTire(wheel.tire, name + " tire")) problems.push_back(text);
}

void validateDifferentials(const VehicleSettings& settings, std::vector<std::string>& problems) {
  btScalar shareSum = 0;
  bool anyShare = false, anyDefaultShare = false;
  for (size_t d = 0; d < settings.differentials.size(); ++d) {
    const DifferentialSettings& differential = settings.differentials[d];
    const std::string name = "differential " + std::to_string(d + 1) + " (axle " +
                             std::to_string(differential.axle) + ")";
    int driving = 0;
    for (const WheelSettings& wheel : settings.wheels)
      driving += wheel.axle == differential.axle && wheel.driving;
    if (driving == 0) problems.push_back(name + ": the axle has no driving wheels");
    for (size_t e = 0; e < d; ++e)
      if (settings.differentials[e].axle == differential.axle)
        problems.push_back(name + ": axle already has differential " + std::to_string(e + 1));
    if (!std::isfinite(differential.torqueShare)) {
      problems.push_back(name + ": torque share must be finite ([0, 1], or < 0 for by wheel count)");
    } else if (differential.torqueShare >= 0) {
      anyShare = true;
      shareSum += differential.torqueShare;
      if (differential.torqueShare > 1) problems.push_back(name + ": torque share must lie in [0, 1]");
    } else {
      anyDefaultShare = true;
    }
    if (!(differential.preloadTorque >= 0) || !(differential.lockingCoefficient >= 0) ||
        !std::isfinite(differential.preloadTorque) || !std::isfinite(differential.lockingCoefficient))
      problems.push_back(name + ": preload and locking coefficient must be finite and >= 0");
  }
  if (anyShare && anyDefaultShare)
    problems.push_back("differentials: give every differential a torque share, or none");
  if (anyShare && std::fabs(shareSum - 1) > 1e-3f)
    problems.push_back("differentials: torque shares add up to " + std::to_string(shareSum) + ", not 1");
  if (!settings.differentials.empty()) {
    for (size_t i = 0; i < settings.wheels.size(); ++i) {
      const WheelSettings& wheel = settings.wheels[i];
      if (!wheel.driving) continue;
      bool covered = false;
      for (const DifferentialSettings& differential : settings.differentials)
        covered = covered || differential.axle == wheel.axle;
      if (!covered)
        problems.push_back("wheel " + std::to_string(i + 1) + ": drives, but axle " +
                           std::to_string(wheel.axle) + " has no differential");
    }
  }
}

}  // namespace

std::vector<std::string> validateVehicleSettings(const VehicleSettings& settings) {
  std::vector<std::string> problems;
  const ChassisAxes& axes = settings.axes;
  if (!isFinite(axes.up) || std::fabs(axes.up.length() - 1) > 1e-4f)
    problems.push_back("axes: up must be a unit vector");
  if (!isFinite(axes.forward) || std::fabs(axes.forward.length() - 1) > 1e-4f)
    problems.push_back("axes: forward must be a unit vector");
  if (std::fabs(axes.up.dot(axes.forward)) > 1e-4f)
    problems.push_back("axes: up and forward must be perpendicular");
  if (settings.wheels.empty()) problems.push_back("vehicle: needs at least one wheel");
  for (size_t i = 0; i < settings.wheels.size(); ++i)
    validateWheel(settings.wheels[i], "wheel " + std::to_string(i + 1), problems);
  // An axle is a row of wheels across the car: anti-roll couples them (and the loader snaps
  // them). Wheels sharing an axle number but standing apart along the car are a mistake, most
  // often every wheel left at axle 0.
  for (size_t i = 0; i < settings.wheels.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const WheelSettings& a = settings.wheels[i];
      const WheelSettings& b = settings.wheels[j];
      if (a.axle != b.axle) continue;
      const btScalar apart = std::fabs((a.attachmentPoint - b.attachmentPoint).dot(axes.forward));
      if (apart > std::max(a.radius, b.radius)) {
        problems.push_back("wheel " + std::to_string(i + 1) + ": shares axle " +
                           std::to_string(a.axle) + " with wheel " + std::to_string(j + 1) +
                           " but stands " + std::to_string(apart) +
                           " m from it along the chassis forward axis (give each axle its own "
                           "number)");
        break;
      }
    }
  }
  if (!(settings.stabilizer >= 0) || !std::isfinite(settings.stabilizer))
    problems.push_back("stabilizer must be >= 0 (a fraction of stiffness)");
  const FrictionRules& friction = settings.friction;
  if (!(friction.slipThreshold >= 0)) problems.push_back("slip_threshold must be >= 0 m/s");
  if (!(friction.dynamicFrictionRatio > 0)) problems.push_back("dyn_friction_ratio must be > 0");
  if (!(friction.handbrakeFrictionScale > 0))
    problems.push_back("handbrake friction scale must be > 0");
  if (!(friction.maxBrakingFriction > 0)) problems.push_back("max_braking_friction must be > 0");
  for (auto& text : validateAero(settings.aero)) problems.push_back(text);
  for (auto& text : validateEngine(settings.engine)) problems.push_back(text);
  for (auto& text : validateGearbox(settings.gearbox, settings.engine.maxRpm)) problems.push_back(text);
  for (auto& text : validateBrakes(settings.brakes, settings.assists)) problems.push_back(text);
  for (auto& text : validateSteering(settings.steering)) problems.push_back(text);
  validateDifferentials(settings, problems);
  const ContactSolverSettings& solver = settings.solver;
  if (solver.iterations < 1 || solver.iterations > 100)
    problems.push_back("solver: iterations must lie in [1, 100]");
  if (!(solver.stickSpeed >= 0)) problems.push_back("solver: stick speed must be >= 0 m/s");
  if (!(solver.tolerance >= 0 && std::isfinite(solver.tolerance)))
    problems.push_back("solver: tolerance must be finite and >= 0 N");
  if (!(solver.bumpStopErrorReduction >= 0 && solver.bumpStopErrorReduction <= 1))
    problems.push_back("solver: bump stop error reduction must lie in [0, 1]");
  const WheelQuerySettings& query = settings.wheelQuery;
  if (!(query.margin >= 0 && std::isfinite(query.margin)))
    problems.push_back("wheel query: margin must be finite and >= 0 m");
  if (!(query.lookahead >= 0 && std::isfinite(query.lookahead)))
    problems.push_back("wheel query: lookahead must be finite and >= 0 s");
  if (query.maxCachedTriangles < 1 || query.maxCachedTriangles > 4096)
    problems.push_back("wheel query: max cached triangles must lie in [1, 4096]");
  return problems;
}

}  // namespace raycar
