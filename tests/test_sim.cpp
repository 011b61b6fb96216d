// raycar-sim: every bundled scene runs; the parking scene parks and agrees with its bicycle ghost;
// scene summaries match their golden figures; the same scene gives the same telemetry.csv, byte
// for byte; bad scene files give located errors.
#include <doctest/doctest.h>

#include <toml++/toml.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <unistd.h>

#include "Report.h"
#include "Scene.h"
#include "SceneRunner.h"
#include "Tolerance.h"
#include "raycar/Error.h"
#include "raycar/io/KeyOverride.h"
#include "raycar/io/VehicleScript.h"

using namespace raycar;
using namespace raycar::sim;
using namespace raycar::test;

namespace {

// s: a timeline vehicle's first event with the brake on; -1 without one.
double firstBrakeTime(const VehicleEntry& vehicle) {
  for (const TimelineEvent& event : vehicle.events)
    if (event.brake > 0) return event.time;
  return -1;
}

const std::string kScenes = std::string(RAYCAR_DATA_DIR) + "/scenes/";
const std::string kGolden = std::string(RAYCAR_TEST_DATA_DIR) + "/../golden/";

// The crowd runs 2 s in the suite (200 cars); the others run in full.
Scene shortened(const std::string& name) {
  Scene scene = loadScene(kScenes + name + ".toml");
  if (name == "crowd") scene.duration = 2;
  return scene;
}

SceneSummary run(const Scene& scene) {
  SceneRunner runner(scene);
  while (!runner.finished()) runner.step();
  return runner.summary();
}

}  // namespace

TEST_CASE("every bundled scene runs to completion with finite telemetry and matches its golden summary") {
  for (const char* name : {"parking", "drift", "offroad", "haul", "crowd"}) {
    INFO("scene " << std::string(name));
    const Scene scene = shortened(name);
    SceneRunner runner(scene);
    while (!runner.finished()) runner.step();
    const SceneSummary summary = runner.summary();
    CHECK(summary.steps == int(std::lround(scene.duration / scene.step)));
    for (const VehicleSummary& vehicle : summary.vehicles) {
      REQUIRE(vehicle.finite);
      CHECK(vehicle.leftGroundAt < 0);  // no bundled scene drives off its ground
    }
    for (const TelemetryRow& row : runner.telemetry()) {
      REQUIRE(std::isfinite(row.position.length()));
      for (const WheelState& wheel : row.wheels) REQUIRE(std::isfinite(wheel.longitudinalForce + wheel.lateralForce));
    }
    // Golden figures of vehicle 1, each with the tolerance the file states.
    const toml::table golden = toml::parse_file(kGolden + name + ".toml");
    const VehicleSummary& first = summary.vehicles.front();
    auto check = [&](const char* key, double measured) {
      const toml::table* entry = golden[key].as_table();
      REQUIRE_MESSAGE(entry, key);
      const double value = *(*entry)["value"].value<double>();
      const double tolerance = *(*entry)["tolerance"].value<double>();
      INFO(std::string(key) << ": " << measured << ", golden " << value << " +- " << tolerance);
      CHECK(std::fabs(measured - value) <= tolerance);
    };
    check("distance", first.distance);
    check("top_speed", first.topSpeed);
    check("max_lateral_g", first.maxLateralG);
    check("final_x", first.finalPosition.x());
    check("final_y", first.finalPosition.y());
    check("final_heading_deg", first.finalHeadingDegrees);
    check("gear_changes", first.gearChanges);
    // The loader's figures the summary reports: the static loads carry the weight (to float
    // rounding), each wheel on its own helper-given rest length below its len_max.
    double loads = 0;
    for (const VehicleBuild::Wheel& wheel : first.build.wheels) {
      loads += wheel.staticLoad;
      CHECK(wheel.restLength < wheel.maxLength);
      CHECK(wheel.radius > 0);
    }
    REQUIRE(!first.build.wheels.empty());
    CHECK(loads == doctest::Approx(first.build.mass * scene.gravity).epsilon(1e-4));
    CHECK(int(summary.vehicles.size()) == *golden["vehicles"].value<int>());
  }
}

TEST_CASE("a car driven off its track's edge is reported as having left the ground") {
  // The flat lot is 200 m across; at full throttle from its middle the sedan reaches the edge in
  // well under 12 s (launch scene: 368 m in 18 s) and falls. The summary says when it fell 5 m
  // below the ground's lowest point, so that its top speed and distance (a falling car's) are
  // not taken for driving.
  const std::string text = "[scene]\nstep = 0.008333333\nduration = 12\n[ground]\ntype = \"track\"\nobj = \"" +
                           std::string(RAYCAR_DATA_DIR) + "/tracks/flat_lot.obj\"\n[[vehicle]]\nscript = \"" +
                           std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml\"\nposition = [0, 0, 0.1]\n"
                           "driver = \"timeline\"\nevents = [[0, 1, 0, 0, 0]]\n";
  const SceneSummary summary = run(parseScene(text, "off_edge.toml"));
  REQUIRE(summary.vehicles.size() == 1);
  CHECK(summary.vehicles.front().leftGroundAt > 1);
  CHECK(summary.vehicles.front().leftGroundAt < 12);
  // Its distance stops there: at most the 100 m to the edge, the 5 m fall, and what it flies at
  // the at most 30 m/s it left with in the 1.0 s that fall takes (sqrt(2 x 5 / 9.81)): 135 m.
  // Counted on, its fall to 12 s made it 230 m.
  CHECK(summary.vehicles.front().distance < 135);
}

TEST_CASE("a bundled scene's name finds the scene even where a folder of that name is, and a name found nowhere lists them") {
  // `raycar-sim drift --out drift` leaves a folder named drift in the working directory; the next
  // `raycar-sim drift` had opened that folder as the scene and refused it as a directory.
  // The working directory and the folder are put back however the test ends (a throw included);
  // the folder's name is this process's, so that two suites running at once do not share it.
  struct ScratchDirectory {
    std::filesystem::path before = std::filesystem::current_path();
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("raycar_find_scene_" + std::to_string(::getpid()));
    ScratchDirectory() {
      std::filesystem::create_directories(path / "drift");
      std::filesystem::current_path(path);
    }
    ~ScratchDirectory() {
      std::error_code ignored;
      std::filesystem::current_path(before, ignored);
      std::filesystem::remove_all(path, ignored);
    }
  };
  std::string found;
  {
    const ScratchDirectory scratch;
    found = findScene("drift");
    // A folder named with a path is passed on, for the reader to say what it is.
    CHECK(findScene("./drift") == "./drift");
    CHECK_THROWS_WITH_AS(loadScene("./drift"), doctest::Contains("directory"), Error);
  }
  CHECK(found.size() > std::string("/scenes/drift.toml").size());
  CHECK(found.compare(found.size() - 18, 18, "/scenes/drift.toml") == 0);
  // The error lists what a name may be: every bundled scene, each found by its name.
  CHECK_THROWS_WITH_AS(findScene("no_such_scene_anywhere"), doctest::Contains("drift, handling"), Error);
  const std::vector<std::string> names = bundledSceneNames();
  CHECK(names == std::vector<std::string>{"constant_radius", "crowd", "drift", "handling", "haul", "kerbs",
                                          "launch", "offroad", "parking", "rollback", "sine_with_dwell",
                                          "split_mu"});
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(std::filesystem::exists(findScene(name)));
  }
}

TEST_CASE("a car spawned on an incline stands on it: no wheel starts in the ground, and braked it stays put") {
  // On 15 degrees (tan 15 = 0.27, within the tires' grip) the sedan is placed with its footbrake
  // and handbrake on. Spawned level, its uphill wheels had started in the slope: a wheel carried
  // 157 kN (43 times its static load) and the car was 12 cm from its start after 3 s. Tilted to
  // the slope, it starts at rest on its springs (3.74 kN at most, 9.9 mm): no wheel may carry more than
  // twice its static load (the most a suddenly applied load gives an undamped spring; on the
  // slope the downhill axle's share grows by h tan(15) / L, about 5% of the weight, so 2.2 x the
  // flat static load), and the car may move no more than its tires' carcass deflection under the
  // slope's pull, m g sin(15) / (4 x 1e5 N/m per tire) ~ 1 cm: 3 cm allowed.
  const std::string text = "[scene]\nstep = 0.008333333\nduration = 3\n[ground]\ntype = \"incline\"\n"
                           "slope_deg = 15\nfriction = 1\n[[vehicle]]\nscript = \"" +
                           std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml\"\nposition = [0, 0, 0]\n"
                           "driver = \"timeline\"\nevents = [[0, 0, 1, 0, 1]]\n";
  SceneRunner runner(parseScene(text, "incline.toml"));
  {
    // Spawned with its up along the slope's normal (the incline rises along +y).
    SpawnedVehicle& car = runner.vehicle(0);
    const btVector3 up = car.chassis().getWorldTransform().getBasis() * car.loaded().settings.axes.up;
    const double slope = 15 * SIMD_PI / 180;
    CHECK(up.angle(btVector3(0, btScalar(-std::sin(slope)), btScalar(std::cos(slope)))) < 1e-4);
  }
  while (!runner.finished()) runner.step();
  const SceneSummary summary = runner.summary();
  REQUIRE(summary.vehicles.size() == 1);
  const VehicleSummary& car = summary.vehicles.front();
  REQUIRE(car.finite);
  double largestStaticLoad = 0;
  for (const VehicleBuild::Wheel& wheel : car.build.wheels)
    largestStaticLoad = std::max(largestStaticLoad, wheel.staticLoad);
  REQUIRE(largestStaticLoad > 0);
  double peakLoad = 0;
  for (const TelemetryRow& row : runner.telemetry())
    for (const WheelState& wheel : row.wheels) peakLoad = std::max(peakLoad, double(wheel.normalLoad));
  CHECK(peakLoad < 2.2 * largestStaticLoad);
  const std::vector<TelemetryRow>& rows = runner.telemetry();
  REQUIRE(rows.size() > 2);
  CHECK((rows.back().position - rows.front().position).length() < 0.03);
}

TEST_CASE("a car spawned above another stands where it would alone: the spawn finds the ground, not a roof") {
  auto scene = [](const std::string& vehicles) {
    return "[scene]\nstep = 0.008333333\nduration = 1\n[ground]\ntype = \"plane\"\n" + vehicles;
  };
  auto sedan = [](const char* position) {
    return "[[vehicle]]\nscript = \"" + std::string(RAYCAR_DATA_DIR) + "/vehicles/sedan.vehicle.toml\"\nposition = " +
           position + "\ndriver = \"timeline\"\nevents = [[0, 0, 0, 0, 0]]\n";
  };
  SceneRunner alone(parseScene(scene(sedan("[0, 0, 3]")), "alone.toml"));
  SceneRunner stacked(parseScene(scene(sedan("[0, 0, 0]") + sedan("[0, 0, 3]")), "stacked.toml"));
  REQUIRE(stacked.vehicleCount() == 2);
  const btTransform expected = alone.vehicle(0).chassis().getWorldTransform();
  const btTransform spawned = stacked.vehicle(1).chassis().getWorldTransform();
  CHECK(spawned.getOrigin() == expected.getOrigin());
  CHECK(spawned.getRotation() == expected.getRotation());
}

TEST_CASE("parking: the car ends inside the space and the bicycle ghost stays within 0.6 m") {
  // Seed 002's environment: 0.01 s step, a <= 1 m/s^2, steer <= 45 deg, v <= 2.78 m/s. The full
  // model lags its commanded speed (pedal and clutch at the start) and its tires slip a little,
  // where the kinematic bicycle has neither: the rear axles part by up to 0.43 m, 0.27 m at the end.
  const SceneSummary summary = run(loadScene(kScenes + "parking.toml"));
  const VehicleSummary& car = summary.vehicles.front();
  CHECK(car.insideParkingSpace);
  CHECK(car.hasGhost);
  CHECK(car.ghostMaxDistance < 0.6);
  CHECK(car.ghostFinalDistance < 0.6);
  CHECK(car.topSpeed <= 2.78 + 0.05);  // within the bicycle's speed limit
}

TEST_CASE("max_time_step_vehicle splits a longer scene step into equal substeps") {
  Scene scene = loadScene(kScenes + "haul.toml");  // the truck's cap: 0.02 s (the default)
  scene.step = 0.05;
  scene.duration = 1;
  SceneRunner runner(scene);
  CHECK(runner.substeps() == 3);  // 0.05 / 3 = 0.0167 <= 0.02
  while (!runner.finished()) runner.step();
  CHECK(runner.summary().vehicles.front().finite);
  scene.step = 1.0 / 120;
  CHECK(SceneRunner(scene).substeps() == 1);
}

TEST_CASE("the same scene gives a byte-identical telemetry.csv") {
  const Scene scene = loadScene(kScenes + "drift.toml");
  std::string outputs[2];
  for (int i = 0; i < 2; ++i) {
    SceneRunner runner(scene);
    while (!runner.finished()) runner.step();
    const std::string directory = std::string(RAYCAR_BINARY_DIR) + "/sim-determinism-" + std::to_string(i);
    writeReport(directory, runner);
    outputs[i] = readTextFile(directory + "/telemetry.csv", "report output");
  }
  CHECK(outputs[0].size() > 10000);
  CHECK(outputs[0] == outputs[1]);
}

TEST_CASE("the report holds telemetry with DESIGN.md's columns, a JSON summary and SVG plots") {
  Scene scene = loadScene(kScenes + "parking.toml");
  scene.duration = 2;
  SceneRunner runner(scene);
  while (!runner.finished()) runner.step();
  const std::string directory = std::string(RAYCAR_BINARY_DIR) + "/sim-report";
  writeReport(directory, runner);
  const std::string csv = readTextFile(directory + "/telemetry.csv", "report output");
  CHECK(csv.rfind("time,x,y,z,vx,vy,vz,yaw,speed,engine_rpm,gear,clutch,rear_x,rear_y,steering_torque,esc_brake,"
                  "clutch_torque,clutch_heat,"
                  "w1_contact,w1_compression,w1_load,w1_slip_ratio,w1_slip_angle,w1_fx,w1_fy,w1_omega,w1_steer,"
                  "w1_aligning,w1_camber,w1_temperature,w1_material",
                  0) == 0);
  CHECK(csv.find("ghost_distance") != std::string::npos);
  const toml::table unused;  // keep toml++ linked for the golden reader above
  const std::string json = readTextFile(directory + "/summary.json", "report output");
  CHECK(json.find("\"inside_parking_space\"") != std::string::npos);
  const std::string html = readTextFile(directory + "/report.html", "report output");
  for (const char* title : {"Top-down path", "Speed", "Engine", "Gear", "Wheel loads", "Slip ratios", "Slip angles"})
    CHECK(html.find(title) != std::string::npos);
  CHECK(html.find("<polyline") != std::string::npos);
  CHECK(html.find("bicycle ghost") != std::string::npos);
}

TEST_CASE("the summary's chassis_inertia is roll, pitch and yaw, in the script key's order") {
  // The loader's moments are about the chassis' principal axes, in whatever order its eigen-solve
  // gave them (a trial's Z-up export read [8000, 1800, 8500] for chassis_inertia = [1800, 8000,
  // 8500], its Y-up export [8000, 8500, 1800]). The summary gives them about the car's forward,
  // right and up axes: the script's values back, to the float eigen-solve's rounding (1e-5).
  Scene scene = loadScene(kScenes + "parking.toml");
  scene.duration = 0.1;
  scene.scriptOverrides = {parseKeyOverride("params.chassis_inertia=[500, 1800, 2000]")};
  SceneRunner runner(scene);
  runner.step();
  const btVector3 inertia = runner.summary().vehicles.at(0).build.chassisInertia;
  CHECK(inertia.x() == within(500, 1e-5));
  CHECK(inertia.y() == within(1800, 1e-5));
  CHECK(inertia.z() == within(2000, 1e-5));
}

TEST_CASE("summary.json stays valid JSON when a figure is not finite: null, never nan or inf") {
  SceneSummary summary;
  summary.name = "broken";
  VehicleSummary vehicle;
  vehicle.distance = std::numeric_limits<double>::quiet_NaN();
  vehicle.topSpeed = std::numeric_limits<double>::infinity();
  vehicle.finalPosition = btVector3(NAN, 0, 0);
  summary.vehicles.push_back(vehicle);
  const std::string json = summaryJson(summary);
  CHECK(json.find("nan") == std::string::npos);
  CHECK(json.find("inf") == std::string::npos);
  CHECK(json.find("\"distance\": null") != std::string::npos);
  CHECK(json.find("\"top_speed\": null") != std::string::npos);
  CHECK(json.find("\"final_position\": [null, 0, 0]") != std::string::npos);
}

TEST_CASE("bad scene files: errors name the file, the line and the key") {
  struct Row {
    const char* text;
    const char* expected;
  };
  const Row rows[] = {
      {"[scene]\nstep = 0\n[[vehicle]]\nscript = \"x\"\n", "bad.toml:2: scene.step: must lie in [0.0001, 0.1]"},
      {"[scene]\nnmae = \"x\"\n", "bad.toml:2: scene.nmae: unknown key in [scene] (did you mean 'name'?)"},
      // A number that is not finite is named so, not as out of range.
      {"[scene]\nstep = nan\n[[vehicle]]\nscript = \"x\"\n", "bad.toml:2: scene.step: is not a finite number"},
      {"[[vehicle]]\nscript = \"a\"\nposition = [0, inf, 0]\n", "bad.toml:3: vehicle.position: is not a finite number"},
      // A key without its unit's suffix is suggested the key with it, before another key three
      // letters off (heading against spacing).
      {"[[vehicle]]\nscript = \"a\"\nheading = 90\n", "bad.toml:3: vehicle.heading: unknown key in [[vehicle]] (did you mean 'heading_deg'?)"},
      {"[ground]\ntype = \"lava\"\n", "bad.toml:2: ground.type: must be \"plane\""},
      {"[[vehicle]]\nscript = \"a\"\ndriver = \"follow_path\"\n", "bad.toml:1: vehicle.path: this driver needs a path"},
      {"[[vehicle]]\nscript = \"a\"\nevents = [[1, 0, 0, 0, 0], [0.5, 0, 0, 0, 0]]\n", "bad.toml:3: vehicle.events: event times must increase"},
      // A table's error names its row and column (from 1); the handbrake column also takes true / false.
      {"[[vehicle]]\nscript = \"a\"\nevents = [[0, 0, 0, 0, 0], [1, \"full\", 0, 0, 0]]\n", "bad.toml:3: vehicle.events: row 2, column 2: expects a number"},
      {"[[vehicle]]\nscript = \"a\"\nevents = [[0, 0, 0, 0, \"on\"]]\n", "bad.toml:3: vehicle.events: row 1, column 5: must be 0 or 1 (or false / true)"},
      {"[[vehicle]]\nscript = \"a\"\nevents = [[0, 0, 0, 0, 0.5]]\n", "bad.toml:3: vehicle.events: row 1, column 5: must be 0 or 1 (or false / true)"},
      // A row written on a line of its own is placed at that line.
      {"[[vehicle]]\nscript = \"a\"\nevents = [\n  [0, 0, 0, 0, 0],\n  [1, 0, \"x\", 0, 0],\n]\n", "bad.toml:5: vehicle.events: row 2, column 3: expects a number"},
      {"[[vehicle]]\nscript = \"a\"\nevents = [[0, 0, 0, 0], [1, 0, 0, 0, 0]]\n", "bad.toml:3: vehicle.events: row 1: expects an array of 5 numbers"},
      {"[scene]\nstep = 0.01\n", "bad.toml: vehicle: the scene has no [[vehicle]]"},
      {"[weather]\nrain = 1\n", "bad.toml:1: weather: unknown section"},
      {"[[vehicle]]\nscript = \"a\"\nposition = [1, 2]\n", "bad.toml:3: vehicle.position: expects an array of 3 numbers"},
      {"[[vehicle]]\nscript = \"a\"\nposition = [0, 0, -0.5]\n", "bad.toml:3: vehicle.position: z is the model origin's height above the ground, at least 0"},
      {"[[vehicle]]\nscript = \"a\"\nesc = 1\n", "bad.toml:3: vehicle.esc: expects true or false"},
      {"[[vehicle]]\nscript = \"a\"\nwheel_query = \"box\"\n", "bad.toml:3: vehicle.wheel_query: must be \"ray\", \"sphere\" or \"cylinder\""},
      {"[ground]\ntype = \"heightfield\"\nsize = 10000\ncell = 0.1\n", "bad.toml:1: ground.cell: size / cell must be at most 4096"},
      // An integer a double cannot hold exactly: an error, not whatever value was left over.
      {"[scene]\nduration = 9007199254740993\n", "bad.toml:2: scene.duration: cannot be read exactly as a number"},
      {"[surfaces]\nmaterials = 3\n", "bad.toml:2: surfaces.materials: expects a table of track object names and materials"},
      {"[surfaces]\nmaterials = { ice = -1 }\n", "bad.toml:2: surfaces.materials: must lie in [0, 1e+06]"},
      {"[surfaces]\nfriction = [[0, 1.5, 0.2]]\n", "bad.toml:2: surfaces.friction: a row is [surface_id, material, friction]"},
      {"[surfaces]\nfriction = [[0, 1, 12]]\n", "bad.toml:2: surfaces.friction: friction must lie in [0, 10]"},
      {"[surfaces]\nfriction = [[0, 1]]\n", "bad.toml:2: surfaces.friction: row 1: expects an array of 3 numbers"},
      {"[surfaces]\nrolling_resistance = [[0, 1, 1.5]]\n", "bad.toml:2: surfaces.rolling_resistance: rolling_resistance must lie in [0, 1]"},
      {"[surfaces]\nrolling_resistance = [[0.5, 1, 0.1]]\n", "bad.toml:2: surfaces.rolling_resistance: a row is [surface_id, material, rolling_resistance]"},
      {"[surfaces]\nmaterials = { ice = 1 }\n[[vehicle]]\nscript = \"a\"\n", "bad.toml:1: surfaces.materials: names track objects: needs a track ground"},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    try {
      parseScene(row.text, "bad.toml");
      FAIL_CHECK("no error");
    } catch (const Error& error) {
      INFO("got: " << error.what());
      CHECK(std::string(error.what()).find(row.expected) != std::string::npos);
    }
  }
}

TEST_CASE("a timeline's handbrake column takes 0 / 1 or false / true") {
  const Scene scene = parseScene("[[vehicle]]\nscript = \"a\"\nevents = [[0, 1, 0, 0, false], [1, 0, 1, 0, true], [2, 0, 0, 0, 1]]\n",
                                 "flags.toml");
  REQUIRE(scene.vehicles.size() == 1);
  const std::vector<TimelineEvent>& events = scene.vehicles.front().events;
  REQUIRE(events.size() == 3);
  CHECK(!events[0].handbrake);
  CHECK(events[1].handbrake);
  CHECK(events[2].handbrake);
  CHECK(events[1].brake == 1.0f);
}

TEST_CASE("kerbs: the shapes span a 25 cm trench the ray drops into, and every kind crosses the course") {
  // Three sedans at 5 m/s, their wheels' ground queries a ray, a sphere and a cylinder.
  // Over the 25 cm trench (track y 40 to 40.25) a wheel of radius R rests on both edges, its
  // centre R - sqrt(R^2 - (w/2)^2) lower than on the flat; the ray finds the trench's floor 30 cm
  // down, beyond its travel, and hangs at full extension (compression 0).
  const Scene scene = loadScene(kScenes + "kerbs.toml");
  SceneRunner runner(scene);
  while (!runner.finished()) runner.step();
  const SceneSummary summary = runner.summary();
  REQUIRE(runner.wheelTraces().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const WheelTrace& trace = runner.wheelTraces()[i];
    const btScalar radius = runner.vehicle(i).vehicle().wheelSettings(0).radius;
    const double sag = radius - std::sqrt(radius * radius - 0.125 * 0.125);
    // Wheel 1's travel from the car's start to the trench: the car starts with its centre at
    // y = 0, the wheel ahead of it by its attachment's forward offset.
    double flat = 0, inTrench = 1e9;
    int flatCount = 0;
    for (size_t row = 0; row < trace.time.size(); ++row) {
      const double wheelY = trace.travelled[row] + runner.vehicle(i).vehicle().wheelSettings(0).attachmentPoint.y();
      if (wheelY > 62 && wheelY < 66) flat += trace.compression[row], ++flatCount;
      if (wheelY > 39.9 && wheelY < 40.35) inTrench = std::min(inTrench, trace.compression[row]);
    }
    REQUIRE(flatCount > 0);
    flat /= flatCount;
    CAPTURE(trace.label);
    CAPTURE(flat);
    CAPTURE(inTrench);
    CAPTURE(sag);
    CHECK(summary.vehicles[i].finite);
    CHECK(summary.vehicles[i].distance > 60);
    if (i == 0) {
      CHECK(inTrench == 0);  // the ray's wheel hangs at full extension
    } else {
      // At 5 m/s the wheel crosses in 0.05 s and sinks less than it would at rest (measured
      // 21 mm): it sinks, by at most the geometric sag plus 2 mm for the chassis' own heave.
      CHECK(inTrench > flat - sag - 0.002);
      CHECK(inTrench < flat - 0.005);
    }
  }
}

TEST_CASE("split_mu: on a table's ice the braking sedan yaws toward the asphalt, on asphalt it brakes straight") {
  // The scene's two sedans, ABS off, brake at 83 km/h (at the first event with the brake on):
  // the first with its left wheels on the track object `ice` (material 1, friction 0.15 in
  // [surfaces]), the second on asphalt alone.
  const Scene scene = loadScene(kScenes + "split_mu.toml");
  const double brakeAt = firstBrakeTime(scene.vehicles[0]);
  REQUIRE(brakeAt > 0);
  SceneRunner runner(scene);
  double firstYawAtBrake = 0, secondYawAtBrake = 0, firstTurn = 0, secondTurn = 0;
  bool onIce = false;
  auto yawOf = [&](size_t i) {
    const btVector3 forward = runner.vehicle(i).vehicle().worldForward();
    return std::atan2(double(forward.y()), double(forward.x()));
  };
  while (!runner.finished()) {
    runner.step();
    const double time = runner.time();
    if (time < brakeAt) {
      firstYawAtBrake = yawOf(0);
      secondYawAtBrake = yawOf(1);
    } else if (time < brakeAt + 0.75) {
      // The first 0.75 s of braking, before the yawing car's wheels leave their sides of the ice.
      firstTurn = yawOf(0) - firstYawAtBrake;
      secondTurn = yawOf(1) - secondYawAtBrake;
      const RaycastVehicle& split = runner.vehicle(0).vehicle();
      onIce = onIce || (split.wheelState(0).groundMaterial == 1 && split.wheelState(1).groundMaterial == 0);
    }
  }
  CAPTURE(firstTurn);
  CAPTURE(secondTurn);
  CHECK(onIce);
  CHECK(firstTurn < -0.05);                 // clockwise: the nose toward +x, the asphalt
  CHECK(std::fabs(secondTurn) < 0.001);     // straight
  const SceneSummary summary = runner.summary();
  CHECK(std::fabs(summary.vehicles[1].finalPosition.x() - 15) < 0.1);
}

TEST_CASE("a [surfaces] material for an object the track does not have is an error naming it") {
  Scene scene = loadScene(kScenes + "split_mu.toml");
  scene.objectMaterials = {{"lava", 2}};
  try {
    SceneRunner runner(scene);
    FAIL_CHECK("no error");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("surfaces.materials.lava: the track") != std::string::npos);
  }
}

TEST_CASE("sine_with_dwell: the coupe with ESC comes out of FMVSS 126's manoeuvre heading on, the one without spins out") {
  // Both at 80 km/h, 5 deg at the road wheels. The heading change after the manoeuvre: with
  // ESC small (the car ends near its path's direction: measured -16 deg), without it past 45 deg.
  const Scene scene = loadScene(kScenes + "sine_with_dwell.toml");
  const SceneSummary summary = run(scene);
  REQUIRE(summary.vehicles.size() == 2);
  const double withEsc = summary.vehicles[0].finalHeadingDegrees;  // they set off at heading 0
  const double withoutEsc = summary.vehicles[1].finalHeadingDegrees;
  CAPTURE(withEsc);
  CAPTURE(withoutEsc);
  CHECK(std::fabs(withEsc) < 30);
  CHECK(std::fabs(withoutEsc) > 45);
  CHECK(summary.vehicles[0].topSpeed * 3.6 == doctest::Approx(80).epsilon(0.025));
}

TEST_CASE("launch: the sedan's clutch slips at the launch and after each upshift, holds start rpm while it launches, and passes engine braking once the throttle lifts") {
  // The sedan (engine inertia 0.12 kg m^2, clutch 700 N m): full throttle from rest, lifting at
  // 14 s. While the launch slips with the clutch engaged the engine is held at engine_startRPM
  // (budget 1%: the hold is exact after the clutch's ramp; the first steps flare); after every
  // gear change the clutch locks again within its engagement 1 / clutch_speed and a step; with
  // the throttle closed and the clutch locked, it passes the engine braking torque
  // engine_braking x peak torque x rpm / max rpm (budget 5%: the engine's own deceleration,
  // I_e dw/dt, is the rest).
  const Scene scene = loadScene(kScenes + "launch.toml");
  SceneRunner runner(scene);
  while (!runner.finished()) runner.step();
  const VehicleSettings settings = loadVehicleScript(scene.vehicles[0].script).settings;
  REQUIRE(settings.engine.inertia > 0);
  const std::vector<TelemetryRow>& rows = runner.telemetry();
  const double engagement = 1 / settings.gearbox.clutchSpeed;
  double gearChangedAt = -1, launchHeat = -1;
  int relocks = 0, holdRows = 0, upshifts = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const TelemetryRow& row = rows[i];
    const bool slipping = row.clutchHeat > rows[i - 1].clutchHeat;
    if (row.gear != rows[i - 1].gear && row.gear > 1) {
      gearChangedAt = row.time;
      upshifts += row.gear > rows[i - 1].gear;
    }
    if (gearChangedAt >= 0 && !slipping && row.clutch >= 1) {
      CHECK(row.time - gearChangedAt <= engagement + scene.step);
      ++relocks;
      gearChangedAt = -1;
    }
    if (row.gear == 1 && slipping && row.clutch >= 1 && row.time < 2) {
      CHECK(row.engineRpm == within(settings.engine.startRpm, 0.01));
      ++holdRows;
    }
    if (row.gear == 1 && !slipping && launchHeat < 0 && row.time > 0.2) launchHeat = row.clutchHeat;
    if (row.time > 14.5) {
      const double braking = settings.engine.engineBraking * peakEngineTorque(settings.engine) *
                             row.engineRpm / settings.engine.maxRpm;
      CHECK(row.clutchTorque == within(-braking, 0.05));
    }
  }
  CAPTURE(launchHeat);
  CHECK(holdRows > 10);
  CHECK(upshifts == 3);  // first to fourth by 14 s at 4,200 rpm (2.6, 4.9 and 8.6 s)
  CHECK(relocks == upshifts);  // every gear change locked again
  CHECK(launchHeat > 1000);
}

TEST_CASE("handling: the course driver laps the circuit at its lateral target, within the tires' grip") {
  // The coupe on the 790 m circuit; the driver slows to v^2 x pursuit-arc curvature <= 0.85 g.
  // Its peak lateral acceleration (the velocity's change over 0.1 s) must reach the target less
  // 5% (corner entries overshoot it, never undershoot it by more) and stay below the grippiest
  // tire's friction, 1.1: no car corners beyond mu g on level ground. It ends the lap where the
  // path ends, heading along the last straight (+y, heading 0) within 10 deg: it did not spin.
  const SceneSummary summary = run(loadScene(kScenes + "handling.toml"));
  const VehicleSummary& coupe = summary.vehicles.front();
  REQUIRE(coupe.finite);
  REQUIRE(coupe.hasPath);
  CHECK(coupe.pathTime > 0);
  CHECK(coupe.maxLateralG >= 0.85 * 0.95);
  CHECK(coupe.maxLateralG <= 1.1);
  CHECK(std::fabs(coupe.finalHeadingDegrees) < 10);
  CHECK(std::hypot(coupe.finalPosition.x(), coupe.finalPosition.y()) < 5);
}

TEST_CASE("the summary's first stop runs from the brake's onset to standstill, as the telemetry has it") {
  // split_mu's first sedan brakes from 83 km/h at its scene's brake event and stops. The
  // summary's stop_from_speed, stop_distance and stop_time must be the telemetry's: the speed
  // across the ground at the step the brake came on (within one step of the event), the path
  // from there to the first row slower than 0.1 m/s, and the time between. Rounding only
  // (1e-5; the path sums a thousand float steps).
  const Scene scene = loadScene(kScenes + "split_mu.toml");
  const double brakeAt = firstBrakeTime(scene.vehicles[0]);
  REQUIRE(brakeAt > 0);
  SceneRunner runner(scene);
  while (!runner.finished()) runner.step();
  const SceneSummary summary = runner.summary();  // a copy: summary() returns by value
  const VehicleSummary& car = summary.vehicles[0];
  REQUIRE(car.stopDistance > 0);
  const std::vector<TelemetryRow>& rows = runner.telemetry();
  auto groundSpeed = [](const TelemetryRow& row) { return std::hypot(double(row.velocity.x()), double(row.velocity.y())); };
  size_t stop = 0;
  while (stop < rows.size() && !(rows[stop].time > brakeAt && groundSpeed(rows[stop]) < 0.1)) ++stop;
  REQUIRE(stop < rows.size());
  const double onset = rows[stop].time - car.stopTime;
  CHECK(std::fabs(onset - brakeAt) <= scene.step);
  size_t first = 0;
  while (first < stop && rows[first].time < onset - scene.step / 2) ++first;
  double path = 0;
  for (size_t i = first + 1; i <= stop; ++i) path += double((rows[i].position - rows[i - 1].position).length());
  CHECK(car.stopFromSpeed == within(groundSpeed(rows[first]), 1e-5));
  CHECK(car.stopDistance == within(path, 1e-5));
  CHECK(std::fabs(car.stopFromSpeed * 3.6 - 83) < 1);  // the scene's own figure
}
