#include "raycar/vehicle/VehicleSettings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "raycar/vehicle/SettingsFields.h"
#include "raycar/vehicle/Suspension.h"

#include "Finite.h"
#include "io/StateArchive.h"
#include "vehicle/VehicleLayout.h"

namespace raycar {
namespace {

void validateWheel(const WheelSettings& wheel, const std::string& name,
                   std::vector<SettingsProblem>& problems) {
  checkFields(FieldScope::Wheel, ConstFieldOwners{nullptr, &wheel}, name, problems);
  if (wheel.stiffness == 0 && !(wheel.suspensionRestLength < wheel.suspensionMaxLength)) {
    problems.push_back({name, "suspensionMaxLength",
                        "automatic stiffness needs suspensionRestLength (len_initial, " +
                            std::to_string(wheel.suspensionRestLength) + " m) < suspensionMaxLength (len_max, " +
                            std::to_string(wheel.suspensionMaxLength) + " m)",
                        FieldScope::Wheel});
  } else if (!(wheel.suspensionRestLength <= wheel.suspensionMaxLength)) {
    // With a given rate too: the wheel at rest would hang below its full droop. A model made in
    // decimetres gave helpers 2.0 m apart against len_max 0.29, and the car sat 1.8 m low.
    problems.push_back({name, "suspensionMaxLength",
                        "suspensionRestLength (len_initial, " + std::to_string(wheel.suspensionRestLength) +
                            " m) is longer than suspensionMaxLength (len_max, " +
                            std::to_string(wheel.suspensionMaxLength) +
                            " m): at rest the wheel would hang below its full droop",
                        FieldScope::Wheel});
  }
  const int queryKind = int(wheel.groundQuery);
  if (queryKind < int(GroundQueryKind::Ray) || queryKind > int(GroundQueryKind::Cylinder))
    problems.push_back({name, "groundQuery", "groundQuery must be Ray, Sphere or Cylinder (is " +
                                                 std::to_string(queryKind) + ")",
                        FieldScope::Wheel});
  if (wheel.queryRadius > 0 && !(wheel.queryRadius <= wheel.radius))  // 0: the wheel's
    problems.push_back({name, "queryRadius", "queryRadius (query_radius) must be <= radius",
                        FieldScope::Wheel, -1, {"radius"}});
  if (!(wheel.maxFriction >= wheel.minFriction))
    problems.push_back({name, "maxFriction", "maxFriction (max_friction) must be >= minFriction (min_friction)",
                        FieldScope::Wheel, -1, {"minFriction"}});
  for (auto& problem : validateTire(wheel.tire, name + " tire")) problems.push_back(problem);
}

void validateDifferentials(const VehicleSettings& settings, std::vector<SettingsProblem>& problems) {
  btScalar shareSum = 0;
  bool anyShare = false, anyDefaultShare = false;
  for (size_t d = 0; d < settings.differentials.size(); ++d) {
    const DifferentialSettings& differential = settings.differentials[d];
    const std::string name = "differential " + std::to_string(d + 1) + " (axle " +
                             std::to_string(differential.axle) + ")";
    int driving = 0;
    for (const WheelSettings& wheel : settings.wheels)
      driving += wheel.axle == differential.axle && wheel.driving;
    const int index = int(d);
    if (driving == 0)
      problems.push_back({name, "axle", "the axle has no driving wheels", FieldScope::Differential, index});
    for (size_t e = 0; e < d; ++e)
      if (settings.differentials[e].axle == differential.axle)
        problems.push_back({name, "axle", "axle already has differential " + std::to_string(e + 1),
                            FieldScope::Differential, index});
    const size_t first = problems.size();
    checkFields(FieldScope::Differential, ConstFieldOwners{nullptr, nullptr, nullptr, &differential},
                name, problems);
    for (size_t p = first; p < problems.size(); ++p) problems[p].index = index;
    if (differential.torqueShare >= 0) {
      anyShare = true;
      shareSum += differential.torqueShare;
    } else {
      anyDefaultShare = true;
    }
  }
  if (anyShare && anyDefaultShare)
    problems.push_back({"differentials", "torqueShare", "give every differential a torque share, or none",
                        FieldScope::Differential});
  if (anyShare && std::fabs(shareSum - 1) > 1e-3f)
    problems.push_back({"differentials", "torqueShare",
                        "their torqueShare values add up to " + std::to_string(shareSum) + ", not 1",
                        FieldScope::Differential});
  if (!settings.differentials.empty()) {
    for (size_t i = 0; i < settings.wheels.size(); ++i) {
      const WheelSettings& wheel = settings.wheels[i];
      if (!wheel.driving) continue;
      bool covered = false;
      for (const DifferentialSettings& differential : settings.differentials)
        covered = covered || differential.axle == wheel.axle;
      if (!covered)
        problems.push_back({"wheel " + std::to_string(i + 1), "driving",
                            "drives, but axle " + std::to_string(wheel.axle) + " has no differential",
                            FieldScope::Wheel, int(i)});
    }
  }
}

}  // namespace

std::vector<SettingsProblem> checkVehicleSettings(const VehicleSettings& settings) {
  std::vector<SettingsProblem> problems;
  const ChassisAxes& axes = settings.axes;
  if (!isFinite(axes.up) || std::fabs(axes.up.length() - 1) > 1e-4f)
    problems.push_back({"axes", "axes.up", "up must be a unit vector"});
  if (!isFinite(axes.forward) || std::fabs(axes.forward.length() - 1) > 1e-4f)
    problems.push_back({"axes", "axes.forward", "forward must be a unit vector"});
  if (std::fabs(axes.up.dot(axes.forward)) > 1e-4f)
    problems.push_back({"axes", "axes.forward", "up and forward must be perpendicular"});
  if (settings.wheels.empty()) problems.push_back({"vehicle", "wheels", "needs at least one wheel"});
  for (size_t i = 0; i < settings.wheels.size(); ++i) {
    const size_t first = problems.size();
    validateWheel(settings.wheels[i], "wheel " + std::to_string(i + 1), problems);
    for (size_t p = first; p < problems.size(); ++p) problems[p].index = int(i);  // its tire's too
  }
  // An axle is a row of wheels across the car: anti-roll couples them (and the loader snaps
  // them). Wheels sharing an axle number but standing apart along the car are a mistake, most
  // often every wheel left at axle 0. Those that stand side by side give one anti-roll bar.
  auto number = [](btScalar value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", double(value));
    return std::string(text);
  };
  for (size_t i = 0; i < settings.wheels.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const WheelSettings& a = settings.wheels[i];
      const WheelSettings& b = settings.wheels[j];
      if (a.axle != b.axle) continue;
      const btScalar apart = std::fabs((a.attachmentPoint - b.attachmentPoint).dot(axes.forward));
      if (apart > std::max(a.radius, b.radius)) {
        problems.push_back({"wheel " + std::to_string(i + 1), "axle",
                            "shares axle " + std::to_string(a.axle) + " with wheel " + std::to_string(j + 1) +
                                " but its attachmentPoint stands " + std::to_string(apart) +
                                " m from it along the chassis forward axis (give each axle its own "
                                "number)",
                            FieldScope::Wheel, int(i)});
        break;
      }
      const btScalar barA = wheelStabilizer(a, settings.stabilizer), barB = wheelStabilizer(b, settings.stabilizer);
      if (barA != barB) {
        problems.push_back({"wheel " + std::to_string(i + 1), "stabilizer",
                            "anti-roll " + number(barA) + " differs from wheel " + std::to_string(j + 1) +
                                "'s " + number(barB) + " on axle " + std::to_string(a.axle) +
                                ": one bar joins an axle's wheels (give them the same stabilizer)",
                            FieldScope::Wheel, int(i)});
        break;
      }
    }
  }
  // Every number against its row of the field table; then the rules between fields, per module.
  checkFields(FieldScope::Vehicle, ConstFieldOwners{&settings}, "", problems);
  for (auto& problem : validateEngine(settings.engine)) problems.push_back(problem);
  for (auto& problem : validateGearbox(settings.gearbox, settings.engine.maxRpm)) problems.push_back(problem);
  validateDifferentials(settings, problems);
  return problems;
}

std::vector<std::string> validateVehicleSettings(const VehicleSettings& settings) {
  std::vector<std::string> texts;
  for (const SettingsProblem& problem : checkVehicleSettings(settings)) texts.push_back(problem.text());
  return texts;
}

std::uint32_t layoutFingerprint(const VehicleSettings& settings) {
  // Only what a state's meaning depends on (VehicleLayout.h); numbers a game tunes (springs,
  // tires, radii, ride height, ratios, masses) stay out. FNV-1a over the words' bytes, as the
  // state's payload is hashed (stateChecksum).
  std::uint32_t hash = 2166136261u;
  visitLayoutWords(settings, [&hash](std::int32_t word) {
    std::uint8_t bytes[sizeof(word)];
    std::memcpy(bytes, &word, sizeof(word));
    for (const std::uint8_t byte : bytes) hash = (hash ^ byte) * 16777619u;
  });
  return hash;
}

}  // namespace raycar
