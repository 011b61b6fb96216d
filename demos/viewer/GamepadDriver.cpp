#include "GamepadDriver.h"

#include <fstream>

#include "DataFolders.h"

namespace raycar::viewer {

ControllerReading GamepadDriver::read() const {
  ControllerReading reading;
  for (int joystick = GLFW_JOYSTICK_1; joystick <= GLFW_JOYSTICK_LAST; ++joystick) {
    if (!glfwJoystickPresent(joystick)) continue;
    const bool isGamepad = glfwJoystickIsGamepad(joystick) == GLFW_TRUE;
    const char* joystickName = glfwGetJoystickName(joystick);
    const char* gamepadName = isGamepad ? glfwGetGamepadName(joystick) : nullptr;
    const std::string name = gamepadName ? gamepadName : joystickName ? joystickName : "";
    // A wheel that GLFW also knows as a gamepad is matched by either of its names.
    const ControllerMapping* mapping = chooseMapping(mappings_, joystickName ? joystickName : "", isGamepad);
    if (!mapping) mapping = chooseMapping(mappings_, name, isGamepad);
    if (!mapping) continue;
    RawControllerState state;
    if (mapping->gamepadLayout) {
      GLFWgamepadstate gamepad;
      if (!glfwGetGamepadState(joystick, &gamepad)) continue;
      state.axes.assign(gamepad.axes, gamepad.axes + GLFW_GAMEPAD_AXIS_LAST + 1);
      state.buttons.assign(gamepad.buttons, gamepad.buttons + GLFW_GAMEPAD_BUTTON_LAST + 1);
    } else {
      int axisCount = 0, buttonCount = 0;
      const float* axes = glfwGetJoystickAxes(joystick, &axisCount);
      const unsigned char* buttons = glfwGetJoystickButtons(joystick, &buttonCount);
      if (axes) state.axes.assign(axes, axes + axisCount);
      if (buttons) state.buttons.assign(buttons, buttons + buttonCount);
    }
    reading.connected = true;
    reading.deviceName = name;
    reading.mapping = mapping;
    reading.rawSteer = rawAxis(state, mapping->steer);
    reading.rawThrottle = rawAxis(state, mapping->throttle);
    reading.rawBrake = rawAxis(state, mapping->brake);
    reading.shaped = shapeControls(*mapping, state);
    reading.input = inputFromControls(*mapping, reading.shaped);
    return reading;
  }
  return reading;
}

std::string bundledControllersPath() {
  // The first folder that holds the file; else the installed one's path, which the error names.
  const std::vector<std::string> folders = sim::bundledDataFolders();
  for (const std::string& folder : folders)
    if (std::ifstream(folder + "/controllers.toml").good()) return folder + "/controllers.toml";
  return folders.empty() ? std::string("controllers.toml") : folders.front() + "/controllers.toml";
}

}  // namespace raycar::viewer
