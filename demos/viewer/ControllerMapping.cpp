#include "ControllerMapping.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "raycar/Error.h"

namespace raycar::viewer {
namespace {

std::string lowerCase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Reads one [[controller]] record; every key has a reader, anything else is an error.
class RecordReader {
 public:
  RecordReader(const std::string& path, ControllerMapping& mapping) : path_(path), mapping_(mapping) {}

  void read(const toml::table& record) {
    for (auto&& [name, node] : record) {
      key_ = std::string(name.str());
      line_ = int(name.source().begin.line);
      if (key_ == "name") mapping_.name = text(node);
      else if (key_ == "match") mapping_.match = text(node);
      else if (key_ == "layout") {
        const std::string layout = text(node);
        if (layout != "gamepad" && layout != "joystick") fail("must be \"gamepad\" or \"joystick\"");
        mapping_.gamepadLayout = layout == "gamepad";
      } else if (key_ == "steer") axis(node, mapping_.steer);
      else if (key_ == "throttle") axis(node, mapping_.throttle);
      else if (key_ == "brake") axis(node, mapping_.brake);
      else if (key_ == "handbrake_button") mapping_.handbrakeButton = button(node);
      else if (key_ == "shift_up_button") mapping_.shiftUpButton = button(node);
      else if (key_ == "shift_down_button") mapping_.shiftDownButton = button(node);
      else if (key_ == "brake_reverses") {
        if (!node.is_boolean()) fail("expects true or false");
        mapping_.brakeReverses = *node.value<bool>();
      } else {
        fail("unknown key in [[controller]]; known: name, match, layout, steer, throttle, brake, "
             "handbrake_button, shift_up_button, shift_down_button, brake_reverses");
      }
    }
    key_.clear();
    line_ = mapping_.line;
    if (mapping_.name.empty()) fail("a [[controller]] needs a name");
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error({path_, line_, key_.empty() ? "controller" : "controller." + key_}, message);
  }
  std::string text(const toml::node& node) const {
    if (!node.is_string()) fail("expects a string");
    return *node.value<std::string>();
  }
  double number(const toml::node& node, double low, double high) const {
    const std::optional<double> value = node.is_number() ? node.value<double>() : std::nullopt;
    if (!value) fail("expects a number");
    if (!std::isfinite(*value) || *value < low || *value > high) {
      std::ostringstream range;
      range << "= " << *value << " must lie in [" << low << ", " << high << "]";
      fail(range.str());
    }
    return *value;
  }
  int index(const toml::node& node, int high) const {
    const double value = number(node, -1, high);
    if (value != std::floor(value)) fail("expects a whole number");
    return int(value);
  }
  int button(const toml::node& node) const { return index(node, 31); }
  void axis(const toml::node& node, AxisShaping& shaping) {
    const toml::table* table = node.as_table();
    if (!table) fail("expects { axis = N, rest = R, full = F, dead_zone = D, exponent = E }");
    const std::string axisKey = key_;
    for (auto&& [name, value] : *table) {
      key_ = axisKey + "." + std::string(name.str());
      if (name.str() == "axis") shaping.axis = index(value, 15);
      else if (name.str() == "rest") shaping.rest = float(number(value, -1, 1));
      else if (name.str() == "full") shaping.full = float(number(value, -1, 1));
      else if (name.str() == "dead_zone") shaping.deadZone = float(number(value, 0, 0.9));
      else if (name.str() == "exponent") shaping.exponent = float(number(value, 0.2, 5));
      else fail("unknown key; known: axis, rest, full, dead_zone, exponent");
    }
    key_ = axisKey;
    // A travel of nothing cannot be scaled to [0, 1].
    if (shaping.axis >= 0 && std::fabs(shaping.full - shaping.rest) < 0.1f)
      fail("full must differ from rest by at least 0.1: they are the two ends of the travel");
  }

  std::string path_;
  ControllerMapping& mapping_;
  std::string key_;
  int line_ = 0;
};

}  // namespace

float shapeAxis(const AxisShaping& shaping, float raw, bool centred) {
  if (shaping.axis < 0 || !std::isfinite(raw)) return 0;
  const float travel = (raw - shaping.rest) / (shaping.full - shaping.rest);  // 1 at full
  const float magnitude = std::min(centred ? std::fabs(travel) : std::max(travel, 0.0f), 1.0f);
  if (magnitude <= shaping.deadZone) return 0;
  const float shaped = std::pow((magnitude - shaping.deadZone) / (1 - shaping.deadZone), shaping.exponent);
  return centred && travel < 0 ? -shaped : shaped;
}

float rawAxis(const RawControllerState& state, int axis) {
  return axis >= 0 && size_t(axis) < state.axes.size() ? state.axes[size_t(axis)] : 0.0f;
}

bool buttonDown(const RawControllerState& state, int button) {
  return button >= 0 && size_t(button) < state.buttons.size() && state.buttons[size_t(button)] != 0;
}

ShapedControls shapeControls(const ControllerMapping& mapping, const RawControllerState& state) {
  // An axis the device does not have reads its rest position, which shapes to 0.
  auto axisValue = [&](const AxisShaping& shaping) {
    return shaping.axis >= 0 && size_t(shaping.axis) < state.axes.size() ? state.axes[size_t(shaping.axis)]
                                                                           : shaping.rest;
  };
  ShapedControls controls;
  controls.steer = shapeAxis(mapping.steer, axisValue(mapping.steer), true);
  controls.throttle = shapeAxis(mapping.throttle, axisValue(mapping.throttle), false);
  controls.brake = shapeAxis(mapping.brake, axisValue(mapping.brake), false);
  controls.handbrake = buttonDown(state, mapping.handbrakeButton);
  controls.shiftUp = buttonDown(state, mapping.shiftUpButton);
  controls.shiftDown = buttonDown(state, mapping.shiftDownButton);
  return controls;
}

DriverInput inputFromControls(const ControllerMapping& mapping, const ShapedControls& controls) {
  DriverInput input;
  input.steer = btScalar(controls.steer);
  if (mapping.brakeReverses) {
    input.pedal = btScalar(controls.throttle - controls.brake);
  } else {
    input.pedal = btScalar(controls.throttle);
    input.brake = btScalar(controls.brake);
  }
  input.handbrake = controls.handbrake;
  input.shiftUp = controls.shiftUp;  // the vehicle shifts on the press, not while held
  input.shiftDown = controls.shiftDown;
  return input;
}

std::vector<ControllerMapping> parseControllerMappings(const std::string& text, const std::string& path) {
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  std::vector<ControllerMapping> mappings;
  for (auto&& [key, node] : document) {
    const int line = int(key.source().begin.line);
    if (key.str() != "controller") throw Error({path, line, std::string(key.str())}, "unknown section; known: [[controller]]");
    const toml::array* records = node.as_array();
    if (!records || !records->is_array_of_tables()) throw Error({path, line, "controller"}, "must be records: [[controller]]");
    for (const toml::node& record : *records) {
      ControllerMapping mapping;
      mapping.line = int(record.source().begin.line);
      RecordReader(path, mapping).read(*record.as_table());
      mappings.push_back(mapping);
    }
  }
  if (mappings.empty()) throw Error({path, 0, "controller"}, "no [[controller]] records");
  return mappings;
}

std::vector<ControllerMapping> loadControllerMappings(const std::string& path) {
  return parseControllerMappings(readTextFile(path, "controller mapping file"), path);
}

const ControllerMapping* chooseMapping(const std::vector<ControllerMapping>& mappings, const std::string& deviceName,
                                       bool isGamepad) {
  const std::string name = lowerCase(deviceName);
  for (const ControllerMapping& mapping : mappings) {
    if (mapping.gamepadLayout && !isGamepad) continue;
    if (name.find(lowerCase(mapping.match)) != std::string::npos) return &mapping;
  }
  return nullptr;
}

}  // namespace raycar::viewer
