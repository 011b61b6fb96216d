#pragma once
// Gamepads and steering wheels through GLFW's joystick and gamepad API: the first connected
// device that one of the mappings (ControllerMapping.h, data/controllers.toml) fits drives
// vehicle 1, its raw state read every frame and shaped into a DriverInput.

#include <string>
#include <vector>

#include "ControllerMapping.h"
#include "Gl.h"

namespace raycar::viewer {

// What the HUD shows of the controller.
struct ControllerReading {
  bool connected = false;
  std::string deviceName;
  const ControllerMapping* mapping = nullptr;
  float rawSteer = 0, rawThrottle = 0, rawBrake = 0;  // as the device reports them
  ShapedControls shaped;
  DriverInput input;
};

class GamepadDriver {
 public:
  explicit GamepadDriver(std::vector<ControllerMapping> mappings) : mappings_(std::move(mappings)) {}
  // Polls the devices (after glfwPollEvents): the first present that a mapping fits.
  ControllerReading read() const;

 private:
  std::vector<ControllerMapping> mappings_;
};

// The controllers file beside the installed data (<prefix>/share/raycar/controllers.toml), else
// this source tree's data/controllers.toml.
std::string bundledControllersPath();

}  // namespace raycar::viewer
