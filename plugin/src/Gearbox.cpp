#include "raycar/Gearbox.h"

#include <cmath>

namespace raycar {

std::vector<std::string> validateGearbox(const GearboxSettings& gearbox, btScalar maxRpm) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const std::string& text) {
    if (!ok) problems.push_back("gearbox: " + text);
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
  require(gearbox.finalDrive > 0 && std::isfinite(gearbox.finalDrive), "final drive must be > 0");
  require(gearbox.efficiency > 0 && gearbox.efficiency <= 1, "efficiency must lie in (0, 1]");
  require(gearbox.shiftDownRpm >= 0 && gearbox.shiftDownRpm < gearbox.shiftUpRpm,
          "engine_shiftdownRPM must lie in [0, engine_shiftupRPM)");
  require(gearbox.shiftUpRpm <= maxRpm, "engine_shiftupRPM must not exceed engine_maxRPM");
  require(gearbox.clutchSpeed > 0 && std::isfinite(gearbox.clutchSpeed), "clutch_speed must be > 0 (1/s)");
  require(gearbox.gearDirectionSwitchRpm >= 0, "gear_dir_switch_RPM must be >= 0");
  require(gearbox.shiftDwell >= 0 && std::isfinite(gearbox.shiftDwell), "shift dwell must be >= 0 s");
  return problems;
}

}  // namespace raycar
