#pragma once
// The tuning panel: a few of vehicle 1's parameters, edited live. A change (on releasing a
// slider) yields the vehicle loaded from its script with the edits applied, which the viewer
// respawns at the current pose; "Reload script" reads the script and its model from disk again
// and resets the edits to the script's values.

#include <optional>
#include <string>
#include <utility>

#include "raycar/io/VehicleLoader.h"

namespace raycar::viewer {

struct TuningValues {
  float maxSteerDegrees = 30;    // max_steer (deg)
  float stabilizer = 0;          // fraction of stiffness
  float brakeTorque = 2500;      // brake_torque (N m per wheel)
  float brakeFrontBias = 0.6f;   // [0, 1]
  float tireFrictionScale = 1;   // x every tire's friction
  float engineScale = 1;         // x engine power (sine model) or torque curve
  bool abs = false;
  bool tractionControl = false;
};

class TuningPanel {
 public:
  explicit TuningPanel(LoadedVehicle script);
  // Draws the panel; returns the vehicle to respawn when the user changed something.
  std::optional<LoadedVehicle> draw(int widthPixels);
  // The last respawn or reload failed (shown in red until the next success).
  void setError(const std::string& message) { error_ = message; }
  void clearError() { error_.clear(); }
  // True once after "Reload script" succeeded (the model's geometry may have changed).
  bool takeReloaded() { return std::exchange(reloaded_, false); }

  const TuningValues& values() const { return values_; }
  // The script's vehicle with `values` applied.
  static LoadedVehicle apply(const LoadedVehicle& script, const TuningValues& values);
  static TuningValues valuesOf(const LoadedVehicle& script);

 private:
  LoadedVehicle script_;
  TuningValues values_;
  std::string error_;
  bool reloaded_ = false;
};

}  // namespace raycar::viewer
