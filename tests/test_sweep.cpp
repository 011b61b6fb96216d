// raycar-sweep (demos/sim/Sweep.h): a sweep file expands into runs of raycar-sim with --set
// overrides; GNU parallel runs them; sweep.csv holds one row per run. A run made through the
// sweep is the run made directly, to the byte.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "Report.h"
#include "SceneRunner.h"
#include "SvgPlot.h"
#include "Sweep.h"
#include "raycar/Error.h"

using namespace raycar;
using namespace raycar::sim;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::vector<std::string> csvRows(const std::string& text) {
  std::vector<std::string> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  return rows;
}

std::vector<std::string> csvCells(const std::string& row) {
  std::vector<std::string> cells;
  std::istringstream stream(row);
  for (std::string cell; std::getline(stream, cell, ',');) cells.push_back(cell);
  return cells;
}

// A 2 x 3 grid over the drift scene, cut to 1 s; the first key slowest.
const char* const kSweep = R"(
[sweep]
name = "test"
scenes = ["drift"]
figures = ["distance", "max_lateral_g"]
set = ["scene.duration=1", "scene.record_every=12"]

[grid]
"params.stabilizer" = [0.2, 1.0]
wheel.stiffness = [30000, 45000, 60000]
)";

}  // namespace

TEST_CASE("a sweep's grid expands into every combination, the first key slowest") {
  const Sweep sweep = parseSweep(kSweep, "/tmp/test.sweep.toml");
  const std::vector<SweepRun> runs = expandSweep(sweep);
  REQUIRE(runs.size() == 6);
  const char* const expected[6][2] = {{"0.2", "30000"}, {"0.2", "45000"}, {"0.2", "60000"},
                                      {"1.0", "30000"}, {"1.0", "45000"}, {"1.0", "60000"}};
  for (size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(i);
    CHECK(runs[i].number == int(i) + 1);
    REQUIRE(runs[i].swept.size() == 2);
    CHECK(runs[i].swept[0].first == "params.stabilizer");
    CHECK(runs[i].swept[0].second == expected[i][0]);
    CHECK(runs[i].swept[1].first == "wheel.stiffness");  // a dotted key is the same key
    CHECK(runs[i].swept[1].second == expected[i][1]);
    // The sweep's own overrides first, then the run's.
    CHECK(runs[i].overrides == std::vector<std::string>{"scene.duration=1", "scene.record_every=12",
                                                         std::string("params.stabilizer=") + expected[i][0],
                                                         std::string("wheel.stiffness=") + expected[i][1]});
  }
  CHECK(runFolder("/o", 7, 6) == "/o/runs/007");
  CHECK(runFolder("/o", 7, 1200) == "/o/runs/0007");
  CHECK(shellQuote("it's") == "'it'\\''s'");
}

TEST_CASE("a bad sweep file is an error naming its file, line and key") {
  struct Row {
    const char* text;
    const char* where;  // "file:line: key"
  };
  const Row rows[] = {
      {"[sweep]\nscenes = [\"drift\"]\nfigurs = [\"x\"]\n[grid]\n\"params.stabilizer\" = [1]\n", "s.toml:3: sweep.figurs"},
      {"[sweep]\nscenes = [\"no_such_scene\"]\n[grid]\n\"params.stabilizer\" = [1]\n", "s.toml:2: sweep.scenes"},
      {"[sweep]\nscenes = [\"drift\"]\n[grid]\n\"params.stabilizer\" = 1\n", "s.toml:4: grid.params.stabilizer"},
      {"[sweep]\nscenes = [\"drift\"]\n[grid]\n\"stabilizer\" = [1]\n", "s.toml:4: grid.stabilizer"},
      {"[sweep]\nscenes = [\"drift\"]\n[[run]]\nset = [\"params.stabilizer\"]\n", "s.toml:4: run.set"},
      {"[sweep]\nscenes = [\"drift\"]\n", "s.toml: grid"},
      {"[sweep]\nscenes = [\"drift\"]\n[grids]\n", "s.toml:3: grids"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    try {
      parseSweep(row.text, "s.toml");
      FAIL("accepted");
    } catch (const Error& error) {
      CHECK(std::string(error.what()).rfind(row.where, 0) == 0);
    }
  }
}

TEST_CASE("a summary flattens into named figures") {
  const std::string json =
      "{\"scene\": \"x\", \"steps\": 12, \"vehicles\": [\n"
      "{\"script\": \"a\", \"distance\": 1.5, \"time_0_100\": null, \"final_position\": [1, 2, 3], \"finite\": true,\n"
      " \"wheels\": [{\"radius\": 0.3}, {\"radius\": 0.31}, {\"radius\": 0.32}, {\"radius\": 0.33}],\n"
      " \"gear_times\": [4, 5]},\n"
      "{\"script\": \"b\", \"distance\": -2e-3, \"finite\": false}]}";
  const auto figures = flattenSummary(json, "summary.json");
  // Three numbers are a vector (x, y, z); any other array, the wheels' records too, is numbered
  // from 1 as the script's [[wheel]] records are.
  REQUIRE(figures.size() == 15);
  const char* const names[] = {"steps", "distance", "time_0_100", "final_position_x", "final_position_y",
                               "final_position_z", "finite", "wheels_1_radius", "wheels_2_radius",
                               "wheels_3_radius", "wheels_4_radius", "gear_times_1", "gear_times_2",
                               "vehicle2_distance", "vehicle2_finite"};
  const double values[] = {12, 1.5, NAN, 1, 2, 3, 1, 0.3, 0.31, 0.32, 0.33, 4, 5, -2e-3, 0};
  for (size_t i = 0; i < figures.size(); ++i) {
    CHECK(figures[i].first == names[i]);
    if (std::isnan(values[i])) CHECK(std::isnan(figures[i].second));
    else CHECK(figures[i].second == values[i]);
  }
  // A three-wheeled car's wheels are no vector, nor are three lists; an empty list adds nothing.
  const struct {
    const char* json;
    std::vector<std::string> names;
  } arrays[] = {
      {"{\"wheels\": [{\"radius\": 1}, {\"radius\": 2}, {\"radius\": 3}]}",
       {"wheels_1_radius", "wheels_2_radius", "wheels_3_radius"}},
      {"{\"a\": [[1], [2], [3]]}", {"a_1_1", "a_2_1", "a_3_1"}},
      {"{\"a\": [[1, 2, 3]]}", {"a_1_x", "a_1_y", "a_1_z"}},
      {"{\"a\": [], \"b\": [7]}", {"b_1"}},
  };
  for (const auto& array : arrays) {
    CAPTURE(array.json);
    std::vector<std::string> names;
    for (const auto& figure : flattenSummary(array.json, "summary.json")) names.push_back(figure.first);
    CHECK(names == array.names);
  }
  CHECK_THROWS_AS(flattenSummary("{\"steps\": }", "s.json"), Error);
  CHECK_THROWS_AS(flattenSummary("{\"steps\": 1} tail", "s.json"), Error);
}

#if defined(RAYCAR_SWEEP_PROGRAM)
TEST_CASE("a 2 x 3 sweep through GNU parallel gives 6 rows, each the run made directly") {
  REQUIRE_MESSAGE(std::system("parallel --version > /dev/null 2>&1") == 0,
                  "GNU parallel is missing: apt-get install parallel (tools/install-deps.sh installs it)");
  const std::string folder = std::string(RAYCAR_BINARY_DIR) + "/sweep_test";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  const std::string sweepPath = folder + "/test.sweep.toml";
  std::ofstream(sweepPath) << kSweep;
  const std::string command = std::string(RAYCAR_SWEEP_PROGRAM) + " " + sweepPath + " --out " + folder +
                              "/out --jobs 2 > " + folder + "/sweep.log 2>&1";
  REQUIRE_MESSAGE(std::system(command.c_str()) == 0, readFile(folder + "/sweep.log"));

  const std::vector<std::string> rows = csvRows(readFile(folder + "/out/sweep.csv"));
  REQUIRE(rows.size() == 7);  // the header and 6 runs
  const std::vector<std::string> header = csvCells(rows[0]);
  const auto column = [&](const std::string& name) {
    return size_t(std::find(header.begin(), header.end(), name) - header.begin());
  };
  REQUIRE(column("distance") < header.size());
  const std::vector<SweepRun> runs = expandSweep(loadSweep(sweepPath));
  for (size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(i);
    std::vector<KeyOverride> overrides;
    for (const std::string& text : runs[i].overrides) overrides.push_back(parseKeyOverride(text));
    SceneRunner direct(loadScene(runs[i].scene, overrides));
    while (!direct.finished()) direct.step();
    const std::string directFolder = folder + "/direct" + std::to_string(i + 1);
    writeReport(directFolder, direct);
    const std::string runFolderPath = runFolder(folder + "/out", runs[i].number, runs.size());
    // The whole summary and every telemetry row, byte for byte.
    CHECK(readFile(runFolderPath + "/summary.json") == readFile(directFolder + "/summary.json"));
    CHECK(readFile(runFolderPath + "/telemetry.csv") == readFile(directFolder + "/telemetry.csv"));
    const std::vector<std::string> cells = csvCells(rows[i + 1]);
    REQUIRE(cells.size() == header.size());
    CHECK(cells[column("run")] == std::to_string(i + 1));
    CHECK(cells[column("params.stabilizer")] == runs[i].swept[0].second);
    CHECK(cells[column("wheel.stiffness")] == runs[i].swept[1].second);
    CHECK(cells[column("host")] == "local");
    // The row's figures are the direct run's, as summary.json prints them.
    CHECK(std::stod(cells[column("distance")]) == std::stod(number(direct.summary().vehicles[0].distance)));
    CHECK(std::stod(cells[column("max_lateral_g")]) == std::stod(number(direct.summary().vehicles[0].maxLateralG)));
  }
  // The runs differ: the sweep did set the keys.
  CHECK(csvCells(rows[1])[column("distance")] != csvCells(rows[6])[column("distance")]);
  CHECK(readFile(folder + "/out/sweep.html").find("<svg") != std::string::npos);
}
#endif
