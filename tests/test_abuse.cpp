// The abuse table: every number and integer key of the vehicle script (the table is generated
// from the script's own key table, so a new key cannot be forgotten) set to each value a careless
// or hostile file can hold - NaN, +-infinity, 0, -0, subnormal 1e-40, 1e-38, 1e38 and the range's
// two ends - in the bundled sedan's script. Each is either rejected with an error naming the
// script file, or it builds a car that runs 2 s on flat ground with every state finite and stays
// on the ground (its height within 2 m of the start, slower than 30 m/s after 2 s at half
// throttle). A hull part shifted down by zoffset = -1 m sits in the ground and the car rests on it,
// wheels up: on the ground, as seed 001's zoffset (a shift of the part) says it would.

#include <doctest/doctest.h>
#include <toml++/toml.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "TestWorld.h"
#include "raycar/Error.h"
#include "raycar/io/ObjModel.h"
#include "raycar/vehicle/SettingsFields.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/io/VehicleScript.h"

using namespace raycar;
using namespace raycar::test;

namespace {

const std::string kSedan = std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml";

bool isRecordSection(const std::string& section) {
  return section == "hull" || section == "wheel" || section == "tire" || section == "differential";
}

// The sedan's script with `section.name` set to `value` (in the first record of a [[record]]
// section, which is made when the script has none).
std::string scriptWith(const toml::table& sedan, const ScriptKeyInfo& key, double value) {
  toml::table document = sedan;
  toml::node_view<toml::node> node;
  toml::table* target = nullptr;
  if (isRecordSection(key.section)) {
    if (!document[key.section].is_array()) document.insert_or_assign(key.section, toml::array{toml::table{}});
    toml::array& records = *document[key.section].as_array();
    if (records.empty()) records.push_back(toml::table{});
    target = records.get(0)->as_table();
  } else {
    if (!document[key.section].is_table()) document.insert_or_assign(key.section, toml::table{});
    target = document[key.section].as_table();
  }
  // Drop a key of another case spelling (keys are case-insensitive), then set ours.
  std::vector<std::string> same;
  for (const auto& [existing, unused] : *target) {
    std::string a(existing.str()), b = key.name;
    for (char& c : a) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (char& c : b) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (a == b) same.push_back(std::string(existing.str()));
  }
  for (const std::string& name : same) target->erase(name);
  switch (key.type) {
    case ScriptValueType::Integer:
      if (std::isfinite(value) && std::fabs(value) < 9e15 && value == std::floor(value))
        target->insert_or_assign(key.name, int64_t(value));
      else
        target->insert_or_assign(key.name, value);  // not an integer: must be rejected
      break;
    case ScriptValueType::Number:
      target->insert_or_assign(key.name, value);
      break;
    case ScriptValueType::NumberList:
    case ScriptValueType::IntegerList:
      target->insert_or_assign(key.name, toml::array{value, value, value});
      break;
    case ScriptValueType::Vector3:
      target->insert_or_assign(key.name, toml::array{value, value, value});
      break;
    case ScriptValueType::PointList:
      target->insert_or_assign(key.name, toml::array{toml::array{0.0, 0.0}, toml::array{value, value}});
      break;
    default:
      break;
  }
  std::ostringstream text;
  text << document;
  return text.str();
}

// What 2 s at half throttle and a little steering did to a loaded car on flat ground.
struct Outcome {
  std::string error;  // the spawn's error; empty when the car drove
  bool finite = true;
  bool touching = false;  // a wheel on the ground at the end
  double rose = 0;        // m the centre of mass rose from where it started
  double speed = 0;       // m/s at the end
};

Outcome driveTwoSeconds(const LoadedVehicle& loaded) {
  Outcome outcome;
  TestWorld world(btVector3(0, 0, -9.81f));
  world.addStaticPlane(btVector3(0, 0, 1), btVector3(0, 0, 0), 1);
  try {
    SpawnedVehicle car(world.world(), loaded, btTransform(btQuaternion::getIdentity(), btVector3(0, 0, 0.05f)));
    car.chassis().setActivationState(DISABLE_DEACTIVATION);
    const btVector3 start = car.chassis().getCenterOfMassPosition();
    DriverInput input;
    input.pedal = 0.5f;
    input.steer = 0.3f;
    for (int i = 0; i < 240; ++i) {
      car.vehicle().setInput(input);
      world.step(1.0f / 120);
      const btVector3 p = car.chassis().getCenterOfMassPosition();
      outcome.finite = outcome.finite && std::isfinite(p.length()) &&
                       std::isfinite(car.chassis().getLinearVelocity().length());
    }
    for (int i = 0; i < car.vehicle().wheelCount(); ++i)
      outcome.touching = outcome.touching || car.vehicle().wheelState(i).inContact;
    outcome.rose = car.chassis().getCenterOfMassPosition().z() - start.z();
    outcome.speed = car.vehicle().linearVelocity().length();
  } catch (const Error& error) {
    outcome.error = error.what();
  }
  return outcome;
}

void checkOnTheGround(const Outcome& outcome) {
  INFO("rose " << outcome.rose << " m, " << outcome.speed << " m/s, a wheel touching " << outcome.touching);
  CHECK(outcome.finite);
  CHECK(std::fabs(outcome.rose) < 2);  // on the ground: no launch, no fall through it
  CHECK(outcome.speed < 30);           // 2 s at half throttle: no car reaches 30 m/s
}

}  // namespace

TEST_CASE("abuse: every number key x {NaN, +-inf, 0, -0, 1e-40, 1e-38, 1e38, the range's ends} is rejected or drives finite") {
  const toml::table sedan = toml::parse_file(kSedan);
  const ObjModel model = loadObjModel(std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.obj");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  int rejected = 0, driven = 0;
  for (const ScriptKeyInfo& key : scriptKeyReference()) {
    if (key.type == ScriptValueType::Text || key.type == ScriptValueType::Boolean) continue;
    std::vector<double> values = {nan, inf, -inf, 0.0, -0.0, 1e-40, 1e-38, 1e38};
    if (std::isfinite(key.minimum)) values.push_back(key.minimum);
    if (std::isfinite(key.maximum)) values.push_back(key.maximum);
    for (double value : values) {
      INFO(key.section << "." << key.name << " = " << value);
      const std::string text = scriptWith(sedan, key, value);
      LoadedVehicle loaded;
      try {
        VehicleScript script = parseVehicleScript(text, kSedan);
        loaded = buildVehicle(script, model);
      } catch (const Error& error) {
        INFO("error: " << error.what());
        CHECK(std::string(error.what()).find("sedan.vehicle.toml") != std::string::npos);
        ++rejected;
        continue;
      }
      Outcome outcome = driveTwoSeconds(loaded);
      if (!outcome.error.empty()) {
        INFO("error at spawn: " << outcome.error);
        CHECK(outcome.error.find("sedan.vehicle.toml") != std::string::npos);
        ++rejected;
        continue;
      }
      checkOnTheGround(outcome);
      ++driven;
    }
  }
  MESSAGE("abuse table: " << rejected << " rejected, " << driven << " driven");
  CHECK(rejected + driven > 500);
}

TEST_CASE("abuse: every settings field x {NaN, +-inf, 0, -0, 1e-40, 1e-38, 1e38, the range's ends} is rejected naming it, or drives finite") {
  // The same walk through the C++ API: the table is the settings' own field table (every number
  // of VehicleSettings, its wheels, tires and differentials), so a new field cannot be forgotten.
  // Wheel and tire fields are set on the first wheel (the others keep the sedan's values, as a
  // script's first record would); differential fields on a differential the sedan's front axle is
  // given. A rejection must name the field.
  LoadedVehicle sedan = loadVehicle(kSedan);
  sedan.settings.differentials = {DifferentialSettings{0}};
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  int rejected = 0, driven = 0;
  for (const SettingsField& field : settingsFields()) {
    std::vector<double> values;
    if (field.integer) {
      // Integers cannot hold NaN or infinity; their hostile values are the int's own ends.
      values = {0.0, -1.0, field.minimum - 1, field.maximum + 1, double(std::numeric_limits<int>::min()),
                double(std::numeric_limits<int>::max())};
    } else {
      values = {nan, inf, -inf, 0.0, -0.0, 1e-40, 1e-38, 1e38, -1e38};
    }
    values.push_back(field.minimum);
    values.push_back(field.maximum);
    for (double value : values) {
      // A value an int cannot hold cannot be written into an int field from C++ at all.
      if (field.integer && (value < double(std::numeric_limits<int>::min()) || value > double(std::numeric_limits<int>::max())))
        continue;
      INFO(std::string(field.name) << " = " << value);
      LoadedVehicle loaded = sedan;
      const FieldOwners owners{&loaded.settings, &loaded.settings.wheels[0], &loaded.settings.wheels[0].tire,
                               &loaded.settings.differentials[0]};
      field.bind(owners).set(value);
      const std::vector<std::string> problems = validateVehicleSettings(loaded.settings);
      const Outcome outcome = driveTwoSeconds(loaded);
      // The spawn validates the settings (and then the statics, with the chassis' mass).
      CHECK((problems.empty() || !outcome.error.empty()));
      if (!outcome.error.empty()) {
        INFO("error: " << outcome.error);
        // A vector's component is named by its vector ("attachmentPoint" for attachmentPoint.y):
        // the rules between wheels speak of the point.
        std::string named = field.name;
        if (named.size() > 2 && named.compare(named.size() - 2, 1, ".") == 0 &&
            std::string("xyz").find(named.back()) != std::string::npos)
          named.resize(named.size() - 2);
        CHECK(outcome.error.find(named) != std::string::npos);
        ++rejected;
        continue;
      }
      checkOnTheGround(outcome);
      ++driven;
    }
  }
  MESSAGE("settings abuse table: " << rejected << " rejected, " << driven << " driven");
  CHECK(rejected + driven > 800);
}

