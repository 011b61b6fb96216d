#pragma once
// Gamepads and steering wheels: how a device's raw axes and buttons become a DriverInput. Pure
// functions with no GLFW in them, so the mapping and shaping are tested without a device
// (tests/test_controller_mapping.cpp); GamepadDriver.h reads the device.
//
// data/controllers.toml holds the mappings, one [[controller]] record each, the first that fits a
// device wins:
//   name               shown in the HUD
//   match              a part of the device's name (any case); "" fits every device
//   layout             "gamepad": GLFW's standard gamepad layout (indices GLFW_GAMEPAD_AXIS_*,
//                      GLFW_GAMEPAD_BUTTON_*; only devices GLFW knows as gamepads);
//                      "joystick": the device's raw axes and buttons
//   steer, throttle, brake = { axis, rest, full, dead_zone, exponent }
//   handbrake_button, shift_up_button, shift_down_button   (-1: none)
//   brake_reverses     true: the brake is the pedal's 'back' (brakes while rolling forward, then
//                      engages reverse, as the keyboard's down arrow); false: the footbrake only
// Errors name the file, the line and the key; nothing falls back to a default silently.

#include <string>
#include <vector>

#include "raycar/vehicle/DriverInput.h"

namespace raycar::viewer {

// One axis from its raw value (GLFW: [-1, 1]) to a shaped one.
struct AxisShaping {
  int axis = -1;          // the device's axis index, [0, 15]; -1: not mapped (reads 0)
  float rest = 0;         // raw value untouched: 0 for a stick or wheel, -1 for a trigger, often
                          // +1 for a pedal that reads -1 when pressed
  float full = 1;         // raw value fully pressed, or fully to the left for steering (steer > 0
                          // steers left); full on the other side of rest inverts the axis
  float deadZone = 0.05f;  // [0, 0.9] of the travel from rest that reads 0 (worn sticks and pedals)
  float exponent = 1;     // [0.2, 5]: output = travel^exponent past the dead zone; > 1 finer near rest
};

// The travel from rest toward full, shaped: 0 inside the dead zone, rising from 0 at its edge to
// 1 at full as ((travel - dead zone) / (1 - dead zone))^exponent, clamped to [0, 1]. Centred axes
// (steering) read both ways from rest and give [-1, 1], the far side mirrored. A NaN, an infinite
// raw value or an unmapped axis gives 0.
float shapeAxis(const AxisShaping& shaping, float raw, bool centred);

struct ControllerMapping {
  int line = 0;                // the record's line in its file
  std::string name;
  std::string match;
  bool gamepadLayout = true;
  AxisShaping steer, throttle, brake;
  int handbrakeButton = -1;    // [0, 31]; -1 none
  int shiftUpButton = -1;
  int shiftDownButton = -1;
  bool brakeReverses = true;
};

// A device's state as GLFW reports it.
struct RawControllerState {
  std::vector<float> axes;             // [-1, 1]
  std::vector<unsigned char> buttons;  // GLFW_PRESS (1) or GLFW_RELEASE (0)
};

// The shaped controls, for the HUD beside the raw values.
struct ShapedControls {
  float steer = 0;     // [-1, 1], > 0 left
  float throttle = 0;  // [0, 1]
  float brake = 0;     // [0, 1]
  bool handbrake = false, shiftUp = false, shiftDown = false;
  bool active() const { return steer != 0 || throttle != 0 || brake != 0 || handbrake || shiftUp || shiftDown; }
};

// The raw value of a mapped axis; its rest when unmapped or when the device lacks it (so it
// shapes to 0). And a button's state.
float rawAxis(const RawControllerState& state, const AxisShaping& shaping);
bool buttonDown(const RawControllerState& state, int button);

ShapedControls shapeControls(const ControllerMapping& mapping, const RawControllerState& state);
// pedal = throttle - brake when the brake reverses (the keyboard's forward - back), else pedal =
// throttle and brake = the footbrake; steer, handbrake and the shift buttons as they are.
DriverInput inputFromControls(const ControllerMapping& mapping, const ShapedControls& controls);

std::vector<ControllerMapping> parseControllerMappings(const std::string& text, const std::string& path);
std::vector<ControllerMapping> loadControllerMappings(const std::string& path);

// The first mapping that fits a device of that name: its match is a part of the name (any case),
// and a gamepad-layout mapping needs a device GLFW knows as a gamepad. nullptr when none fits.
const ControllerMapping* chooseMapping(const std::vector<ControllerMapping>& mappings, const std::string& deviceName,
                                       bool isGamepad);

}  // namespace raycar::viewer
