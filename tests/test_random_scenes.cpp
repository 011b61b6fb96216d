// Randomised scenes: mutated bundled vehicle scripts on mutated scenes, through raycar-sim's scene
// runner. A fixed seed, so a failure is reproducible; 400 runs of 2 s, bounded for CI. Each run is
// either rejected with an Error (a mutation out of range) or runs with finite telemetry, no car
// below the ground or 100 m above it, none faster than 150 m/s.

#include <doctest/doctest.h>
#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Scene.h"
#include "SceneRunner.h"
#include "raycar/Error.h"
#include "raycar/io/VehicleScript.h"

using namespace raycar;
using namespace raycar::sim;

namespace {

const std::string kVehicles = std::string(RAYCAR_DATA_DIR) + "/vehicles/";

// A value for `key`: mostly inside its range (uniform, or log-uniform over a wide one), sometimes
// one of the extremes a careless file holds.
double randomValue(const ScriptKeyInfo& key, std::mt19937& random) {
  std::uniform_real_distribution<double> unit(0, 1);
  const double roll = unit(random);
  if (roll < 0.15) {
    const double extremes[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                               -1e38, 1e-40, 0, -1};
    return extremes[std::uniform_int_distribution<int>(0, 5)(random)];
  }
  const double low = std::isfinite(key.minimum) ? key.minimum : -1e6;
  const double high = std::isfinite(key.maximum) ? key.maximum : 1e6;
  if (low > 0 && high / low > 1e3) return low * std::pow(high / low, unit(random));
  const double value = low + (high - low) * unit(random);
  return key.type == ScriptValueType::Integer ? std::round(value) : value;
}

}  // namespace

TEST_CASE("randomised scenes: mutated scripts and scenes run finite and grounded, or are rejected") {
  std::mt19937 random(20261123);
  std::vector<ScriptKeyInfo> keys;
  for (const ScriptKeyInfo& key : scriptKeyReference())
    if ((key.type == ScriptValueType::Number || key.type == ScriptValueType::Integer) &&
        key.section != "hull" && key.section != "differential")
      keys.push_back(key);
  const std::vector<std::string> vehicles = {"jeep", "sedan", "coupe", "truck", "parking_car"};
  const std::string directory = std::string(RAYCAR_BINARY_DIR) + "/random-scenes";
  std::filesystem::create_directories(directory);
  int rejected = 0, ran = 0;
  for (int run = 0; run < 400; ++run) {
    const std::string vehicle = vehicles[size_t(run) % vehicles.size()];
    toml::table script = toml::parse_file(kVehicles + vehicle + ".vehicle.toml");
    script.insert_or_assign("model", toml::table{{"obj", kVehicles + vehicle + ".obj"},
                                                 {"up", "+z"}, {"forward", "+y"}});
    std::ostringstream changes;
    const int count = std::uniform_int_distribution<int>(1, 3)(random);
    for (int c = 0; c < count; ++c) {
      const ScriptKeyInfo& key = keys[std::uniform_int_distribution<size_t>(0, keys.size() - 1)(random)];
      const double value = randomValue(key, random);
      changes << key.section << "." << key.name << " = " << value << "; ";
      toml::table* section = nullptr;
      if (key.section == "wheel" || key.section == "tire") {
        toml::array* records = script[key.section].as_array();
        if (records == nullptr || records->empty()) continue;
        section = records->get(std::uniform_int_distribution<size_t>(0, records->size() - 1)(random))->as_table();
      } else {
        if (!script[key.section].is_table()) script.insert_or_assign(key.section, toml::table{});
        section = script[key.section].as_table();
      }
      if (key.type == ScriptValueType::Integer && std::isfinite(value) && std::fabs(value) < 1e15)
        section->insert_or_assign(key.name, int64_t(value));
      else
        section->insert_or_assign(key.name, value);
    }
    const std::string scriptPath = directory + "/" + std::to_string(run) + ".vehicle.toml";
    std::ofstream(scriptPath) << script;
    // The scene: a ground, a step, a driver with random events.
    const char* grounds[] = {"type = \"plane\"", "type = \"incline\"\nslope_deg = 12",
                             "type = \"heightfield\"\nsize = 64\ncell = 2\namplitude = 1"};
    const double steps[] = {1.0 / 30, 1.0 / 60, 1.0 / 120};
    std::ostringstream scene;
    scene << "[scene]\nname = \"random\"\nstep = " << steps[run % 3] << "\nduration = 2\n[ground]\n"
          << grounds[std::uniform_int_distribution<int>(0, 2)(random)] << "\nfriction = "
          << std::uniform_real_distribution<double>(0.2, 1.5)(random) << "\n[[vehicle]]\nscript = \""
          << scriptPath << "\"\nposition = [0, 0, 0.1]\ndriver = \"timeline\"\nevents = [";
    std::uniform_real_distribution<double> input(-1, 1);
    for (int e = 0; e < 4; ++e)
      scene << (e ? ", " : "") << "[" << 0.5 * e << ", " << input(random) << ", " << std::fabs(input(random)) * 0.5
            << ", " << input(random) << ", " << (input(random) > 0.8 ? 1 : 0) << "]";
    scene << "]\n";
    INFO("run " << run << ", " << vehicle << ": " << changes.str());
    try {
      const Scene parsed = parseScene(scene.str(), directory + "/scene.toml");
      SceneRunner runner(parsed);
      while (!runner.finished()) runner.step();
      for (const TelemetryRow& row : runner.telemetry()) {
        REQUIRE(std::isfinite(row.position.length()));
        REQUIRE(std::isfinite(row.velocity.length()));
        for (const WheelState& wheel : row.wheels)
          REQUIRE(std::isfinite(wheel.longitudinalForce + wheel.lateralForce + wheel.angularSpeed));
        CHECK(row.position.z() > -5);   // not through the ground
        CHECK(row.position.z() < 100);  // not flown away
        CHECK(row.velocity.length() < 150);
      }
      ++ran;
    } catch (const Error& error) {
      ++rejected;
    }
  }
  MESSAGE("randomised scenes: " << ran << " ran, " << rejected << " rejected");
  CHECK(ran > 100);
}
