#include "ControllerMapping.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "TableReader.h"
#include "raycar/Error.h"

namespace raycar::viewer {
namespace {

std::string lowerCase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// An axis or button index: -1 (none) or [0, highest].
int readIndex(const sim::TableReader& reader, const toml::node& node, int highest) {
  const double value = reader.number(node, -1, highest);
  if (value != std::floor(value)) reader.fail("expects a whole number");
  return int(value);
}

// { axis, rest, full, dead_zone, exponent }, read within `record` (whose errors name the key).
void readAxis(const std::string& path, const sim::TableReader& record, const std::string& key,
              const toml::node& node, AxisShaping& shaping) {
  const toml::table* table = node.as_table();
  if (!table) record.fail("expects { axis = N, rest = R, full = F, dead_zone = D, exponent = E }");
  sim::TableReader reader(path, "controller." + key, *table);
  reader.on("axis", [&](const toml::node& n) { shaping.axis = readIndex(reader, n, 15); });
  reader.on("rest", [&](const toml::node& n) { shaping.rest = float(reader.number(n, -1, 1)); });
  reader.on("full", [&](const toml::node& n) { shaping.full = float(reader.number(n, -1, 1)); });
  reader.on("dead_zone", [&](const toml::node& n) { shaping.deadZone = float(reader.number(n, 0, 0.9)); });
  reader.on("exponent", [&](const toml::node& n) { shaping.exponent = float(reader.number(n, 0.2, 5)); });
  reader.read();
  // A travel of nothing cannot be scaled to [0, 1].
  if (shaping.axis >= 0 && std::fabs(shaping.full - shaping.rest) < 0.1f)
    record.fail("full must differ from rest by at least 0.1: they are the two ends of the travel");
}

// One [[controller]] record.
ControllerMapping readRecord(const std::string& path, const toml::table& table) {
  ControllerMapping mapping;
  mapping.line = int(table.source().begin.line);
  sim::TableReader reader(path, "controller", table, true);
  reader.on("name", [&](const toml::node& n) { mapping.name = reader.text(n); });
  reader.on("match", [&](const toml::node& n) { mapping.match = reader.text(n); });
  reader.on("layout", [&](const toml::node& n) {
    const std::string layout = reader.text(n);
    if (layout != "gamepad" && layout != "joystick") reader.fail("must be \"gamepad\" or \"joystick\"");
    mapping.gamepadLayout = layout == "gamepad";
  });
  reader.on("steer", [&](const toml::node& n) { readAxis(path, reader, "steer", n, mapping.steer); });
  reader.on("throttle", [&](const toml::node& n) { readAxis(path, reader, "throttle", n, mapping.throttle); });
  reader.on("brake", [&](const toml::node& n) { readAxis(path, reader, "brake", n, mapping.brake); });
  reader.on("handbrake_button", [&](const toml::node& n) { mapping.handbrakeButton = readIndex(reader, n, 31); });
  reader.on("shift_up_button", [&](const toml::node& n) { mapping.shiftUpButton = readIndex(reader, n, 31); });
  reader.on("shift_down_button", [&](const toml::node& n) { mapping.shiftDownButton = readIndex(reader, n, 31); });
  reader.on("brake_reverses", [&](const toml::node& n) { mapping.brakeReverses = reader.boolean(n); });
  reader.read();
  if (mapping.name.empty()) throw Error({path, mapping.line, "controller"}, "a [[controller]] needs a name");
  return mapping;
}

}  // namespace

float shapeAxis(const AxisShaping& shaping, float raw, bool centred) {
  if (shaping.axis < 0 || !std::isfinite(raw)) return 0;
  const float travel = (raw - shaping.rest) / (shaping.full - shaping.rest);  // 1 at full
  const float magnitude = std::min(centred ? std::fabs(travel) : std::max(travel, 0.0f), 1.0f);
  if (magnitude <= shaping.deadZone) return 0;
  const float shaped = std::pow((magnitude - shaping.deadZone) / (1 - shaping.deadZone), shaping.exponent);
  return centred && travel < 0 ? -shaped : shaped;
}

float rawAxis(const RawControllerState& state, const AxisShaping& shaping) {
  const int axis = shaping.axis;
  return axis >= 0 && size_t(axis) < state.axes.size() ? state.axes[size_t(axis)] : shaping.rest;
}

bool buttonDown(const RawControllerState& state, int button) {
  return button >= 0 && size_t(button) < state.buttons.size() && state.buttons[size_t(button)] != 0;
}

ShapedControls shapeControls(const ControllerMapping& mapping, const RawControllerState& state) {
  ShapedControls controls;
  controls.steer = shapeAxis(mapping.steer, rawAxis(state, mapping.steer), true);
  controls.throttle = shapeAxis(mapping.throttle, rawAxis(state, mapping.throttle), false);
  controls.brake = shapeAxis(mapping.brake, rawAxis(state, mapping.brake), false);
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
    for (const toml::node& record : *records) mappings.push_back(readRecord(path, *record.as_table()));
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
