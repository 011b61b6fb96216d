#pragma once
// The HUD of seed 004 as Dear ImGui windows, for the vehicle the keyboard drives:
// - per wheel, bars of N (relative to its static load), |s|, |alpha| and utilisation;
// - each axle's longitudinal mu_x(s) and lateral mu_y(alpha) curves (FrictionCurve from the
//   wheel's TireSettings) with every wheel's current operating point marked;
// - engine rpm, gear, clutch, speed, and the driver's inputs.
// It only reads the vehicle's state.

#include <string>
#include <vector>

#include "GamepadDriver.h"
#include "raycar/vehicle/RaycastVehicle.h"

namespace raycar::viewer {

struct HudContext {
  std::string sceneName;
  double simulatedSeconds = 0;
  const char* viewName = "";
  bool keyboardDriving = false;
  bool controllerDriving = false;
  const ControllerReading* controller = nullptr;  // the gamepad or wheel, raw and shaped
  size_t vehicleCount = 1;
};

class Hud {
 public:
  // Reads the wheel layout and tire curves (after every spawn and respawn).
  void attach(const RaycastVehicle& vehicle);
  void draw(const RaycastVehicle& vehicle, const HudContext& context, int widthPixels, int heightPixels) const;

 private:
  struct AxleCurves {
    int axle = 0;
    std::vector<int> wheels;
    bool slipCurves = true;  // false: the linear tire (seed 000) or a game's own model
    FrictionCurve longitudinal;
    FrictionCurve lateral;
  };
  void drawDriverPanel(const RaycastVehicle& vehicle, const HudContext& context) const;
  void drawWheelPanel(const RaycastVehicle& vehicle) const;
  void drawCurvePanel(const RaycastVehicle& vehicle) const;

  std::vector<AxleCurves> axles_;
  std::vector<std::string> wheelNames_;  // "1 FL", ...
  std::vector<bool> leftWheels_;
};

}  // namespace raycar::viewer
