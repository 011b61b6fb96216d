#include "raycar/vehicle/Gearbox.h"

#include <cmath>

namespace raycar {

std::vector<SettingsProblem> validateGearbox(const GearboxSettings& gearbox, btScalar maxRpm) {
  std::vector<SettingsProblem> problems;
  // Every rule but the last two is about the ratios.
  auto require = [&](bool ok, const std::string& text, const char* field = "gearbox.gears",
                     std::vector<std::string> compared = {}) {
    if (!ok) problems.push_back({"gearbox", field, text, FieldScope::Vehicle, -1, std::move(compared)});
  };
  const std::vector<btScalar>& gears = gearbox.gears;
  require(gears.size() <= size_t(kMaxGears),
          "gears has " + std::to_string(gears.size()) + " ratios; at most 8 (reverse, neutral, 6 forward)");
  require(gears.size() >= 3, "gears needs reverse, neutral and at least one forward ratio");
  if (!gears.empty())
    require(gears[0] < 0 && std::isfinite(gears[0]), "gears: the first ratio (reverse) must be negative and finite");
  if (gears.size() > 1) require(gears[1] == 0, "gears: the second ratio (neutral) must be 0");
  for (size_t i = 2; i < gears.size(); ++i)
    require(gears[i] > 0 && std::isfinite(gears[i]),
            "gears: forward ratio " + std::to_string(i - 1) + " must be > 0");
  // The script's range for every ratio (gears), so code and scripts accept the same lists.
  for (size_t i = 0; i < gears.size(); ++i)
    require(!(std::fabs(gears[i]) > 100), "gears: ratio " + std::to_string(i + 1) + " must lie in [-100, 100]");
  require(gearbox.shiftDownRpm < gearbox.shiftUpRpm,
          "gearbox.shiftDownRpm (engine_shiftdownRPM) must be below gearbox.shiftUpRpm (engine_shiftupRPM)",
          "gearbox.shiftDownRpm", {"gearbox.shiftUpRpm"});
  require(gearbox.shiftUpRpm <= maxRpm,
          "gearbox.shiftUpRpm (engine_shiftupRPM) must not exceed engine.maxRpm (engine_maxRPM)",
          "gearbox.shiftUpRpm", {"engine.maxRpm"});
  return problems;
}

}  // namespace raycar
