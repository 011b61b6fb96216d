// Rollback in raycar-sim ([scene] rollback_every): the runner rewinds its vehicles, chassis
// bodies, drivers and figures every rollback_every steps and replays the last rollback_steps with
// the drivers' inputs. A run that rewinds is, row for row, the run that never did: with the
// inputs predicted right ("exact") and with the inputs predicted wrong ("hold"), whose replays
// must then correct the cars.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "Report.h"
#include "SceneRunner.h"
#include "raycar/io/KeyOverride.h"

using namespace raycar;
using namespace raycar::sim;

namespace {

std::string telemetryText(const SceneRunner& runner, const std::string& name) {
  const std::string path = std::string(RAYCAR_BINARY_DIR) + "/rollback_" + name + ".csv";
  writeTelemetryCsv(path, runner.telemetry());
  std::ifstream file(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return text;
}

SceneRunner& runToEnd(SceneRunner& runner) {
  while (!runner.finished()) runner.step();
  return runner;
}

}  // namespace

TEST_CASE("a scene that rewinds and replays gives the trajectory of the run that never rewound") {
  struct Row {
    std::string scene;
    std::string prediction;
    int threads;
    bool heldInputIsWrong;  // the driver's input changes within the rewound steps
  };
  const Row rows[] = {
      {"drift", "hold", 0, true},    // the coupe sliding: inputs change every step
      {"drift", "exact", 0, false},
      {"drift", "hold", 2, true},    // in a VehicleGroup of two threads
      // The sedan's slipping clutch and engine inertia; its full throttle never changes, so
      // holding it is a right prediction.
      {"launch", "hold", 0, false},
      {"parking", "hold", 0, true},  // a driver with a path and a kinematic-bicycle ghost
      {"crowd", "hold", 2, true},    // 200 cars
  };
  const int every = 30, rewound = 10;
  for (const Row& row : rows) {
    CAPTURE(row.scene);
    CAPTURE(row.prediction);
    CAPTURE(row.threads);
    const std::string path = std::string(RAYCAR_DATA_DIR) + "/scenes/" + row.scene + ".toml";
    const std::vector<KeyOverride> shorter = {parseKeyOverride("scene.duration=3"), parseKeyOverride("scene.record_every=1")};
    std::vector<KeyOverride> rolling = shorter;
    for (const std::string& text : {"scene.rollback_every=" + std::to_string(every), "scene.rollback_steps=" + std::to_string(rewound),
                                   "scene.rollback_prediction=" + row.prediction})
      rolling.push_back(parseKeyOverride(text));
    SceneRunner plain(loadScene(path, shorter), row.threads);
    SceneRunner rewinding(loadScene(path, rolling), row.threads);
    runToEnd(plain);
    runToEnd(rewinding);
    // Every telemetry row of vehicle 1, and every vehicle's final figures, to the bit.
    CHECK(telemetryText(rewinding, "rewinding") == telemetryText(plain, "plain"));
    const SceneSummary a = plain.summary(), b = rewinding.summary();
    REQUIRE(a.vehicles.size() == b.vehicles.size());
    for (size_t i = 0; i < a.vehicles.size(); ++i) {
      CHECK(a.vehicles[i].finalPosition == b.vehicles[i].finalPosition);
      CHECK(a.vehicles[i].distance == b.vehicles[i].distance);
      CHECK(a.vehicles[i].maxLateralG == b.vehicles[i].maxLateralG);
    }
    // It did rewind: once for every rollback point k * every whose window starts inside the run.
    int expected = 0;
    for (int k = 1; k * every - rewound < plain.totalSteps(); ++k) ++expected;
    CHECK(b.rollbacks == expected);
    // A wrong prediction: the replays moved the cars. A right one replays the same steps, bit for bit.
    if (row.heldInputIsWrong) CHECK(b.largestRollbackCorrection > 1e-5);
    else CHECK(b.largestRollbackCorrection == 0);
  }
}
