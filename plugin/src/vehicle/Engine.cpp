#include "raycar/vehicle/Engine.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {
constexpr btScalar kMinimumEngineInertia = btScalar(1e-3);  // kg m^2: see validateEngine

btScalar curveTorque(const std::vector<TorquePoint>& curve, btScalar rpm) {
  if (rpm <= curve.front().rpm) return curve.front().torque;
  if (rpm >= curve.back().rpm) return curve.back().torque;
  const auto upper = std::upper_bound(curve.begin(), curve.end(), rpm,
                                      [](btScalar value, const TorquePoint& p) { return value < p.rpm; });
  const TorquePoint& b = *upper;
  const TorquePoint& a = *(upper - 1);
  return a.torque + (b.torque - a.torque) * (rpm - a.rpm) / (b.rpm - a.rpm);
}

btScalar fullThrottleTorque(const EngineSettings& engine, btScalar rpm) {
  rpm = std::max(rpm, btScalar(0));
  if (rpm >= engine.maxRpm) return 0;
  if (engine.model == EngineModel::TorqueCurve) return curveTorque(engine.torqueCurve, rpm);
  // P(n) / (2 pi n) with n = rpm / 60; the limit at n -> 0 is P pi / n_max / (2 pi).
  const btScalar revolutions = rpm / 60;
  const btScalar maxRevolutions = engine.maxRpm / 60;
  if (revolutions < btScalar(1e-6) * maxRevolutions) return btScalar(0.5) * engine.power / maxRevolutions;
  return engine.power * std::sin(SIMD_PI * revolutions / maxRevolutions) / (SIMD_2_PI * revolutions);
}

}  // namespace

btScalar shapedThrottle(const EngineSettings& engine, btScalar throttle) {
  throttle = std::clamp(throttle, btScalar(0), btScalar(1));
  return engine.throttleExponent == 1 ? throttle : std::pow(throttle, engine.throttleExponent);
}

btScalar engineTorque(const EngineSettings& engine, btScalar rpm, btScalar throttle) {
  if (!(throttle > 0)) return 0;
  return fullThrottleTorque(engine, rpm) * shapedThrottle(engine, throttle);
}

btScalar enginePower(const EngineSettings& engine, btScalar rpm) {
  return fullThrottleTorque(engine, rpm) * SIMD_2_PI * std::max(rpm, btScalar(0)) / 60;
}

btScalar peakEngineTorque(const EngineSettings& engine) {
  if (engine.model == EngineModel::PowerSine) return fullThrottleTorque(engine, 0);
  btScalar peak = 0;
  for (const TorquePoint& point : engine.torqueCurve)
    if (point.rpm < engine.maxRpm) peak = std::max(peak, point.torque);
  return peak;
}

btScalar engineBrakingTorque(const EngineSettings& engine, btScalar rpm) {
  const btScalar fraction = std::clamp(rpm / engine.maxRpm, btScalar(0), btScalar(1));
  return engine.engineBraking * peakEngineTorque(engine) * fraction;
}

std::vector<SettingsProblem> validateEngine(const EngineSettings& engine) {
  std::vector<SettingsProblem> problems;
  auto require = [&](bool ok, const char* field, const std::string& text,
                     std::vector<std::string> compared = {}) {
    if (!ok) problems.push_back({"engine", field, text, FieldScope::Vehicle, -1, std::move(compared)});
  };
  // Each rule names the fields by their C++ and their script names.
  require(engine.idleRpm < engine.maxRpm, "engine.idleRpm",
          "engine.idleRpm (engine_idleRPM) must be below engine.maxRpm (engine_maxRPM)", {"engine.maxRpm"});
  require(engine.minRpm <= engine.idleRpm, "engine.minRpm",
          "engine.minRpm (engine_minRPM) must not exceed engine.idleRpm (engine_idleRPM)", {"engine.idleRpm"});
  require(engine.startRpm >= engine.idleRpm && engine.startRpm < engine.maxRpm, "engine.startRpm",
          "engine.startRpm (engine_startRPM) must lie in [engine.idleRpm (engine_idleRPM), engine.maxRpm "
          "(engine_maxRPM))",
          {"engine.idleRpm", "engine.maxRpm"});
  // An engine lighter than this would cross its whole speed range in one step at its torque.
  require(engine.inertia == 0 || engine.inertia >= kMinimumEngineInertia, "engine.inertia",
          "engine.inertia (inertia) must be 0 (seed 001's engine, no inertia) or at least 1e-3 kg m^2");
  if (engine.model == EngineModel::TorqueCurve) {
    const std::vector<TorquePoint>& curve = engine.torqueCurve;
    // Placed at `model = "curve"` when the file gave no torque_curve at all.
    require(curve.size() >= 2, "engine.torqueCurve",
            "the torque curve (torque_curve) needs at least 2 points for engine.model \"curve\"", {"engine.model"});
    for (size_t i = 0; i < curve.size(); ++i) {
      // The script's range for torque_curve's numbers: [0, 1e6] rev/min and N m.
      require(curve[i].rpm >= 0 && curve[i].torque >= 0 && curve[i].rpm <= 1e6 && curve[i].torque <= 1e6,
              "engine.torqueCurve",
              "torque curve point " + std::to_string(i + 1) + " must be finite and lie in [0, 1e6]");
      if (i > 0)
        require(curve[i].rpm > curve[i - 1].rpm, "engine.torqueCurve",
                "torque curve point " + std::to_string(i + 1) + ": rpm must increase");
    }
  }
  return problems;
}

}  // namespace raycar
