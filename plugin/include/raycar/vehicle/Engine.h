#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// The engine: torque at the crankshaft as a function of engine speed and throttle.
//
// Two models:
// - PowerSine (seed 001, CryEngine): effective power P(n) = engine_power sin(pi n / n_max), zero
//   at standstill and at engine_maxRPM, largest halfway; torque = P(n) / (2 pi n). At n -> 0 the
//   torque tends to 0.5 engine_power / n_max (n in revolutions per second), its largest value,
//   and falls to 0 at n_max. The engine runs no faster than n_max delivers.
// - TorqueCurve (seed 004): tabulated torque against rpm, linearly interpolated, constant beyond
//   its ends and 0 at and above engine_maxRPM.
// Both are multiplied by the shaped throttle, throttle^throttleExponent (1: linear).
// Engine braking (seed 004): with the throttle closed the engine drags the wheels with a torque
// that grows with speed, engineBraking x peak torque x rpm / engine_maxRPM.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

#include "raycar/Error.h"

namespace raycar {

enum class EngineModel { PowerSine, TorqueCurve };

struct TorquePoint {
  btScalar rpm;     // rev/min, >= 0
  btScalar torque;  // N m, >= 0
};

struct EngineSettings {
  EngineModel model = EngineModel::PowerSine;
  btScalar power = 100000;         // engine_power (W): peak power of the PowerSine model
  std::vector<TorquePoint> torqueCurve;  // TorqueCurve model: rpm strictly increasing
  btScalar throttleExponent = 1;   // throttle shaping: torque x throttle^exponent, > 0
  btScalar maxRpm = 5000;          // engine_maxRPM (rev/min): no power at and above it
  btScalar minRpm = 600;           // engine_minRPM: below it without throttle the clutch opens
  btScalar idleRpm = 800;          // engine_idleRPM: the engine's speed when idle
  btScalar startRpm = 1200;        // engine_startRPM: set when a gear is engaged from neutral
  btScalar engineBraking = 0.08;   // [0, 1]: drag at maxRpm as a fraction of peak torque
  // Engine inertia (kg m^2, crankshaft and flywheel). 0 (seed 001's engine): the engine speed
  // follows the wheels through the clutch's blend. > 0: the engine speed is a state,
  // I dw/dt = T_engine - T_clutch, and the clutch slips (Powertrain.h).
  btScalar inertia = 0;
  // The clutch's torque capacity when fully engaged (N m at the crankshaft); 0: twice the
  // engine's peak torque. With engine inertia only.
  btScalar clutchCapacity = 0;
  // With inertia: false (seed 001's stall protection) opens the clutch when a closed throttle
  // lets the wheels drag the engine below minRpm; true lets the engine stall there.
  bool stall = false;
};

// Crankshaft torque (N m) at `rpm` (rev/min) and throttle in [0, 1].
btScalar engineTorque(const EngineSettings& engine, btScalar rpm, btScalar throttle);
// The shaped throttle engineTorque multiplies the curve by: throttle^throttleExponent, throttle
// clamped to [0, 1].
btScalar shapedThrottle(const EngineSettings& engine, btScalar throttle);
// Power (W) at full throttle: torque x 2 pi rpm / 60.
btScalar enginePower(const EngineSettings& engine, btScalar rpm);
// The largest full-throttle torque (N m) over [0, maxRpm].
btScalar peakEngineTorque(const EngineSettings& engine);
// Engine braking torque (N m, >= 0) at `rpm` with the throttle closed.
btScalar engineBrakingTorque(const EngineSettings& engine, btScalar rpm);

// The rules between the engine's fields (idle below max rpm, the torque curve's points); each
// number's own range is in settingsFields() (SettingsFields.h).
std::vector<SettingsProblem> validateEngine(const EngineSettings& engine);

}  // namespace raycar
