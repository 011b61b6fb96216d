// Gamepads and steering wheels (demos/viewer/ControllerMapping.h): raw axis values to shaped
// controls to a DriverInput, and the mapping file's checks. Pure functions: no device needed.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ControllerMapping.h"
#include "raycar/Error.h"

using namespace raycar;
using namespace raycar::viewer;

namespace {
const std::string kControllers = std::string(RAYCAR_DATA_DIR) + "/controllers.toml";
}

TEST_CASE("an axis is shaped from rest to full: dead zone, response curve, inversion, clamping") {
  struct Row {
    const char* what;
    AxisShaping shaping;
    bool centred;
    float raw;
    float expected;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const AxisShaping trigger{0, -1, 1, 0.1f, 1};  // rests at -1; travel = (raw + 1) / 2
  const AxisShaping curved{0, -1, 1, 0.1f, 2};
  const AxisShaping stick{0, 0, -1, 0.2f, 1};    // steering: full left is -1 (steer > 0 is left)
  const AxisShaping pedal{0, 1, -1, 0, 1};       // a wheel's pedal: +1 released, -1 pressed
  const Row rows[] = {
      {"a trigger at rest reads 0", trigger, false, -1, 0},
      {"inside the dead zone reads 0 (travel 0.1 is its edge)", trigger, false, -0.8f, 0},
      {"halfway from the edge to full reads 0.5", trigger, false, 0.1f, 0.5f},  // travel 0.55
      {"full reads 1", trigger, false, 1, 1},
      {"past full clamps to 1", trigger, false, 1.5f, 1},
      {"below rest clamps to 0", trigger, false, -1.5f, 0},
      {"exponent 2: halfway reads 0.5^2", curved, false, 0.1f, 0.25f},
      {"a stick pushed fully left steers fully left", stick, true, -1, 1},
      {"pushed fully right, fully right", stick, true, 1, -1},
      {"right, halfway past the dead zone: -0.5", stick, true, 0.6f, -0.5f},  // |travel| 0.6
      {"inside the dead zone, either way, 0", stick, true, 0.15f, 0},
      {"a pedal released (+1) reads 0", pedal, false, 1, 0},
      {"a pedal pressed halfway (0) reads 0.5", pedal, false, 0, 0.5f},
      {"a pedal pressed fully (-1) reads 1", pedal, false, -1, 1},
      {"NaN reads 0", trigger, false, nan, 0},
      {"infinity reads 0", stick, true, std::numeric_limits<float>::infinity(), 0},
      {"an unmapped axis reads 0", AxisShaping{-1, -1, 1, 0, 1}, false, 1, 0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    CHECK(shapeAxis(row.shaping, row.raw, row.centred) == doctest::Approx(row.expected).epsilon(1e-6));
  }
}

TEST_CASE("a gamepad's raw state becomes the driver's input through the bundled mapping") {
  const std::vector<ControllerMapping> mappings = loadControllerMappings(kControllers);
  const ControllerMapping* pad = chooseMapping(mappings, "Xbox Controller", true);
  REQUIRE(pad != nullptr);
  CHECK(pad->name == "Gamepad");
  // GLFW's standard layout: axes left x, left y, right x, right y, left trigger, right trigger.
  RawControllerState state;
  state.axes = {-1.0f, 0, 0, 0, -1.0f, 1.0f};  // stick fully left, brake released, throttle full
  state.buttons.assign(15, 0);
  state.buttons[5] = 1;  // right bumper: shift up
  ShapedControls controls = shapeControls(*pad, state);
  CHECK(controls.steer == doctest::Approx(1));
  CHECK(controls.throttle == doctest::Approx(1));
  CHECK(controls.brake == 0);
  CHECK(controls.shiftUp);
  CHECK_FALSE(controls.shiftDown);
  DriverInput input = inputFromControls(*pad, controls);
  CHECK(input.steer == doctest::Approx(1));  // > 0: left
  CHECK(input.pedal == doctest::Approx(1));
  CHECK(input.brake == 0);
  CHECK(input.shiftUp);
  // The brake trigger alone is the pedal's 'back' (brake, then reverse), as the keyboard's down
  // arrow; the handbrake is button A.
  state.axes = {0, 0, 0, 0, 1.0f, -1.0f};
  state.buttons.assign(15, 0);
  state.buttons[0] = 1;
  controls = shapeControls(*pad, state);
  input = inputFromControls(*pad, controls);
  CHECK(input.pedal == doctest::Approx(-1));
  CHECK(input.steer == 0);
  CHECK(input.handbrake);
  // With brake_reverses = false the brake is the footbrake only.
  ControllerMapping footbrake = *pad;
  footbrake.brakeReverses = false;
  input = inputFromControls(footbrake, controls);
  CHECK(input.pedal == 0);
  CHECK(input.brake == doctest::Approx(1));
  // A device with fewer axes than mapped: the missing ones read rest, which shapes to 0.
  state.axes = {0.5f};
  controls = shapeControls(*pad, state);
  CHECK(controls.throttle == 0);
  CHECK(controls.brake == 0);
  CHECK(controls.steer < 0);  // right
}

TEST_CASE("the first mapping that fits a device wins, gamepad layouts need a gamepad") {
  const std::vector<ControllerMapping> mappings = loadControllerMappings(kControllers);
  struct Row {
    const char* device;
    bool isGamepad;
    const char* mapping;  // nullptr: none fits
  };
  const Row rows[] = {
      {"Logitech G29 Driving Force Racing Wheel", false, "Steering wheel"},
      {"Logitech G29 Driving Force Racing Wheel", true, "Steering wheel"},  // the first fits
      {"Xbox Controller", true, "Gamepad"},
      {"Generic USB Joystick", false, nullptr},  // no joystick mapping matches
  };
  for (const Row& row : rows) {
    CAPTURE(row.device);
    const ControllerMapping* chosen = chooseMapping(mappings, row.device, row.isGamepad);
    if (!row.mapping) CHECK(chosen == nullptr);
    else CHECK((chosen && chosen->name == row.mapping));
  }
}

TEST_CASE("a bad mapping file is an error naming the file, the line and the key") {
  struct Row {
    const char* text;
    const char* where;    // file:line: key
    const char* message;  // a part of the message
  };
  const Row rows[] = {
      {"[[controller]]\nname = \"x\"\nstear = { axis = 0 }\n", "pads.toml:3: controller.stear", "unknown key in [[controller]]"},
      {"[[controller]]\nname = \"x\"\nsteer = { axis = 0, dead_zone = 1.5 }\n", "pads.toml:3: controller.steer.dead_zone",
       "must lie in [0, 0.9]"},
      {"[[controller]]\nname = \"x\"\nthrottle = { axis = \"x\" }\n", "pads.toml:3: controller.throttle.axis", "expects a number"},
      {"[[controller]]\nname = \"x\"\nbrake = { axis = 2, rest = 1, full = 1 }\n", "pads.toml:3: controller.brake",
       "full must differ from rest"},
      {"[[controller]]\nname = \"x\"\nhandbrake_button = 2.5\n", "pads.toml:3: controller.handbrake_button", "whole number"},
      {"[[controller]]\nname = \"x\"\nlayout = \"wheel\"\n", "pads.toml:3: controller.layout", "\"gamepad\" or \"joystick\""},
      {"[[controller]]\nmatch = \"pad\"\n", "pads.toml:1: controller", "needs a name"},
      {"[controller]\nname = \"x\"\n", "pads.toml:1: controller", "must be records"},
      {"", "pads.toml: controller", "no [[controller]] records"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    try {
      parseControllerMappings(row.text, "pads.toml");
      FAIL("accepted");
    } catch (const Error& error) {
      const std::string what = error.what();
      CHECK(what.rfind(row.where, 0) == 0);
      CHECK(what.find(row.message) != std::string::npos);
    }
  }
}
