// Keys set from outside their file (raycar/io/KeyOverride.h: raycar-sim --set, a sweep's runs):
// an override is the file edited by hand, key for key, and meets the file's own checks, with
// errors that name the override.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "Scene.h"
#include "raycar/Error.h"
#include "raycar/io/KeyOverride.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/io/VehicleScript.h"
#include "raycar/vehicle/SettingsFields.h"

using namespace raycar;

namespace {

const std::string kCoupe = std::string(RAYCAR_DATA_DIR) + "/vehicles/coupe.vehicle.toml";

std::vector<KeyOverride> overrides(const std::vector<std::string>& texts) {
  std::vector<KeyOverride> parsed;
  for (const std::string& text : texts) parsed.push_back(parseKeyOverride(text));
  return parsed;
}

// The names of the settings numbers (vehicle, every wheel, every tire record) that differ.
std::vector<std::string> differingFields(VehicleScript a, VehicleScript b) {
  std::vector<std::string> differing;
  REQUIRE(a.wheels.size() == b.wheels.size());
  REQUIRE(a.tires.size() == b.tires.size());
  for (const SettingsField& field : settingsFields()) {
    auto compare = [&](const FieldOwners& first, const FieldOwners& second, const std::string& where) {
      if (field.bind(first).get() != field.bind(second).get()) differing.push_back(where + field.name);
    };
    if (field.scope == FieldScope::Vehicle) compare({&a.settings}, {&b.settings}, "");
    if (field.scope == FieldScope::Wheel)
      for (size_t i = 0; i < a.wheels.size(); ++i)
        compare({nullptr, &a.wheels[i].wheel}, {nullptr, &b.wheels[i].wheel}, "wheel " + std::to_string(i + 1) + " ");
    if (field.scope == FieldScope::Tire)
      for (size_t i = 0; i < a.tires.size(); ++i)
        compare({nullptr, nullptr, &a.tires[i].tire}, {nullptr, nullptr, &b.tires[i].tire},
                "tire " + std::to_string(i + 1) + " ");
  }
  return differing;
}

}  // namespace

TEST_CASE("an override is read as section, record, key and TOML value") {
  struct Row {
    const char* text;
    const char* section;
    int record;
    const char* key;
    const char* value;
  };
  const Row rows[] = {
      {"params.stabilizer=0.8", "params", 0, "stabilizer", "0.8"},
      {"wheel[3].stiffness = 40000", "wheel", 3, "stiffness", "40000"},   // spaces around '=' are dropped
      {"Params.Max_Steer=30", "params", 0, "Max_Steer", "30"},            // the section is lowered
      {"engine.torque_curve=[[1000, 300], [7000, 380]]", "engine", 0, "torque_curve", "[[1000, 300], [7000, 380]]"},
      {"ground.type=plane", "ground", 0, "type", "plane"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    const KeyOverride parsed = parseKeyOverride(row.text);
    CHECK(parsed.section == row.section);
    CHECK(parsed.record == row.record);
    CHECK(parsed.key == row.key);
    CHECK(parsed.value == row.value);
  }
  // Every other shape is an error that names the text and says what was expected.
  for (const char* bad : {"params.stabilizer", "stabilizer=1", "params.=1", "params.stabilizer=", "wheel[0].stiffness=1",
                          "wheel[x].stiffness=1", "wheel[2.stiffness=1", ".stabilizer=1"}) {
    CAPTURE(bad);
    try {
      parseKeyOverride(bad);
      FAIL("accepted");
    } catch (const Error& error) {
      CHECK(std::string(error.what()).find(std::string("--set ") + bad) == 0);
      CHECK(std::string(error.what()).find("section.key=value") != std::string::npos);
    }
  }
}

TEST_CASE("a script override gives what the same edit of the file gives, and changes nothing else") {
  const std::string text = readTextFile(kCoupe, "vehicle script");
  struct Row {
    const char* override;
    const char* line;         // the file's line it stands for
    const char* editedLine;   // that line edited by hand
    std::vector<std::string> changes;  // the settings numbers that must change
  };
  const Row rows[] = {
      {"params.stabilizer=0.9", "stabilizer = 0.6", "stabilizer = 0.9", {"stabilizer"}},
      // Keys match without regard to case, as the file's own keys do.
      {"PARAMS.MAX_STEER=30", "max_steer = 45", "max_steer = 30", {"steering.maxSteer"}},
      {"gearbox.final_drive=3.7", "final_drive = 4.0", "final_drive = 3.7", {"gearbox.finalDrive"}},
      {"brakes.front_bias=0.55", "front_bias = 0.6", "front_bias = 0.55", {"brakes.frontBias"}},
      // A section the file leaves at its defaults is added, as if written at the end.
      {"assists.abs_target_slip=0.15", "$", "\n[assists]\nabs_target_slip = 0.15\n", {"assists.absTargetSlip"}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.override);
    const std::string edited = std::string(row.line) == "$"
                                   ? text + row.editedLine
                                   : std::regex_replace(text, std::regex(row.line), row.editedLine);
    REQUIRE(edited != text);
    const VehicleScript byHand = parseVehicleScript(edited, kCoupe);
    const VehicleScript overridden = parseVehicleScript(text, kCoupe, overrides({row.override}));
    CHECK(differingFields(byHand, overridden).empty());
    CHECK(differingFields(parseVehicleScript(text, kCoupe), overridden) == row.changes);
  }
  // One record, or every record of a [[section]].
  const VehicleScript third = parseVehicleScript(text, kCoupe, overrides({"wheel[3].stiffness=50000"}));
  CHECK(differingFields(parseVehicleScript(text, kCoupe), third) == std::vector<std::string>{"wheel 3 stiffness"});
  const VehicleScript every = parseVehicleScript(text, kCoupe, overrides({"wheel.stiffness=50000"}));
  for (const WheelRecord& wheel : every.wheels) CHECK(wheel.wheel.stiffness == 50000);
  // A script without [[tire]] has one default tire on every axle: a tire key's override creates
  // that record, as the same line under a [[tire]] written at the file's end would (a trial's
  // --set tire.lateral_d had been refused for want of a record). A numbered record is not made up.
  const std::string parkingPath = std::string(RAYCAR_DATA_DIR) + "/vehicles/parking_car.vehicle.toml";
  const std::string parking = readTextFile(parkingPath, "vehicle script");
  REQUIRE(parseVehicleScript(parking, parkingPath).tires.empty());
  const VehicleScript tireByHand = parseVehicleScript(parking + "\n[[tire]]\nlateral_d = 1.1\n", parkingPath);
  const VehicleScript tireOverridden = parseVehicleScript(parking, parkingPath, overrides({"tire.lateral_d=1.1"}));
  CHECK(differingFields(tireByHand, tireOverridden).empty());
  REQUIRE(tireOverridden.tires.size() == 1);
  CHECK(tireOverridden.tires[0].axles.empty());
  CHECK(tireOverridden.tires[0].tire.lateralCurve.magicFormula.peakD == doctest::Approx(1.1));
  CHECK(parseVehicleScript(parking, parkingPath, overrides({"tire[1].lateral_d=1.1"})).tires.size() == 1);
  CHECK_THROWS_WITH(parseVehicleScript(parking, parkingPath, overrides({"tire[2].lateral_d=1.1"})),
                    doctest::Contains("the file has no [[tire]] records to override"));
  // Later overrides of one key win, as a later line would.
  const VehicleScript twice = parseVehicleScript(text, kCoupe, overrides({"params.stabilizer=0.1", "params.stabilizer=0.3"}));
  CHECK(twice.settings.stabilizer == doctest::Approx(0.3));
}

TEST_CASE("a bad override is the file's error, placed at the override") {
  const std::string text = readTextFile(kCoupe, "vehicle script");
  struct Row {
    const char* override;
    const char* message;  // what the error must say after the place
  };
  const Row rows[] = {
      {"params.stabilizer=abc", "params.stabilizer: expects a number, got a string"},
      {"wheel.stifness=3", "wheel.stifness: unknown key in [[wheel]] (did you mean 'stiffness'?)"},
      {"wheel[2].stiffness=-4", "wheel.stiffness: = -4 is out of range"},
      {"wheel[9].stiffness=1", "the file has 4 [[wheel]] records, not 9"},
      {"params[1].stabilizer=1", "[params] is a table, not [[records]]"},
      {"engine.model=curvy", "engine.model: must be"},
      {"nosuch.key=1", "nosuch: unknown section"},
      {"hull.mass=nan", "hull.mass: is not a finite number"},
      {"brakes.brake_torque=2000", "brakes.brake_torque: unknown key in [brakes] (brake_torque is a key of [params])"},
      {"params.axle=1", "params.axle: unknown key in [params] (axle is a key of [[wheel]])"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.override);
    try {
      parseVehicleScript(text, kCoupe, overrides({row.override}));
      FAIL("accepted");
    } catch (const Error& error) {
      const std::string place = std::string("--set ") + row.override + " (" + kCoupe + "): ";
      CHECK(std::string(error.what()).rfind(place, 0) == 0);
      CHECK(std::string(error.what()).find(row.message) != std::string::npos);
    }
  }
  // A key set in every [[wheel]] record is one mistake: said once, not once per record.
  try {
    parseVehicleScript(text, kCoupe, overrides({"wheel.stifness=3"}));
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(std::string(error.what()) == "--set wheel.stifness=3 (" + kCoupe +
                                           "): wheel.stifness: unknown key in [[wheel]] (did you mean 'stiffness'?)");
  }
  // Keys the loader checks after reading are placed at the override too, never at a line of the
  // file they did not come from: the coupe leaves [model] up at its default (+z).
  try {
    parseVehicleScript(text, kCoupe, overrides({"model.forward=-z"}));
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(std::string(error.what()) == "--set model.forward=-z (" + kCoupe + "): model.forward: the model's up axis "
                                       "(default) and forward axis (--set model.forward=-z (" + kCoupe +
                                       ")) lie along one line; they must be perpendicular");
  }
  try {
    loadVehicle(kCoupe, overrides({"model.obj=nowhere.obj"}));
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).rfind("--set model.obj=nowhere.obj (" + kCoupe + "): model.obj: cannot open the OBJ file ", 0) == 0);
  }
}

TEST_CASE("raycar-sim's overrides go to the scene's own sections or to every vehicle's script") {
  const std::string path = std::string(RAYCAR_DATA_DIR) + "/scenes/crowd.toml";
  const sim::Scene plain = sim::loadScene(path);
  const sim::Scene scene =
      sim::loadScene(path, overrides({"scene.duration=1.5", "vehicle.speed=3.5", "ground.friction=0.8", "params.stabilizer=0.2"}));
  CHECK(scene.duration == 1.5);
  CHECK(scene.friction == doctest::Approx(0.8));
  REQUIRE(scene.vehicles.size() == plain.vehicles.size());
  for (const sim::VehicleEntry& vehicle : scene.vehicles) CHECK(vehicle.speed == 3.5);
  REQUIRE(scene.scriptOverrides.size() == 1);
  CHECK(scene.scriptOverrides[0].text == "params.stabilizer=0.2");
  // A scene key's error names the override and the scene.
  try {
    sim::loadScene(path, overrides({"scene.duration=-1"}));
    FAIL("accepted");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).rfind("--set scene.duration=-1 (" + path + "): scene.duration: must lie in", 0) == 0);
  }
}
