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
#include "raycar/ObjModel.h"
#include "raycar/VehicleLoader.h"
#include "raycar/VehicleScript.h"

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
      TestWorld world(btVector3(0, 0, -9.81f));
      world.addStaticPlane(btVector3(0, 0, 1), btVector3(0, 0, 0), 1);
      try {
        SpawnedVehicle car(world.world(), loaded, btTransform(btQuaternion::getIdentity(), btVector3(0, 0, 0.05f)));
        car.chassis().setActivationState(DISABLE_DEACTIVATION);
        const btVector3 start = car.chassis().getCenterOfMassPosition();
        DriverInput input;
        input.pedal = 0.5f;
        input.steer = 0.3f;
        bool finite = true;
        for (int i = 0; i < 240; ++i) {
          car.vehicle().setInput(input);
          world.step(1.0f / 120);
          const btVector3 p = car.chassis().getCenterOfMassPosition();
          finite = finite && std::isfinite(p.length()) && std::isfinite(car.chassis().getLinearVelocity().length());
        }
        bool touching = false;
        for (int i = 0; i < car.vehicle().wheelCount(); ++i) touching = touching || car.vehicle().wheelState(i).inContact;
        const double rose = car.chassis().getCenterOfMassPosition().z() - start.z();
        const double speed = car.vehicle().linearVelocity().length();
        INFO("rose " << rose << " m, " << speed << " m/s, a wheel touching " << touching);
        CHECK(finite);
        CHECK(std::fabs(rose) < 2);  // on the ground: no launch, no fall through it
        CHECK(speed < 30);           // 2 s at half throttle: no car reaches 30 m/s
        ++driven;
      } catch (const Error& error) {
        INFO("error at spawn: " << error.what());
        CHECK(std::string(error.what()).find("sedan.vehicle.toml") != std::string::npos);
        ++rejected;
      }
    }
  }
  MESSAGE("abuse table: " << rejected << " rejected, " << driven << " driven");
  CHECK(rejected + driven > 500);
}
