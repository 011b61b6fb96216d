// raycar-sim SCENE.toml [--out DIR] [--threads N] [--set section.key=value ...]: runs a scene headless at its fixed step and writes
// telemetry.csv, summary.json and report.html into DIR (default: out/NAME).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Report.h"
#include "SceneRunner.h"
#include "raycar/Error.h"

namespace {
const char* const kUsage =
    "usage: raycar-sim SCENE.toml [--out DIR] [--threads N] [--set section.key=value ...]\n"
    "  SCENE.toml: a scene file, or a bundled scene's name (listed below), found in the installed\n"
    "  data (PREFIX/share/raycar/scenes) or the source tree.\n"
    "  runs the scene headless at its fixed step; writes DIR/telemetry.csv, summary.json (SI units:\n"
    "  m, m/s, s; lateral acceleration in g) and report.html. DIR defaults to out/NAME.\n"
    "  --threads N: the vehicles run in one raycar::VehicleGroup of N threads (N >= 1) instead of\n"
    "  as one world action each; the results are the same unless cars drive on each other.\n"
    "  --set section.key=value (repeatable): sets a key as if the file had it, with the file's checks.\n"
    "  [scene], [ground], [surfaces] and [[vehicle]] keys are the scene's (vehicle.speed=20 sets it\n"
    "  in every [[vehicle]], vehicle[2].speed=20 in the second); any other section is a vehicle\n"
    "  script's, for every vehicle's script (params.stabilizer=0.8, wheel[3].stiffness=40000,\n"
    "  engine.model=curve). The value is TOML; a bare word is a string.\n";
}  // namespace

int main(int argc, char** argv) {
  std::string scenePath, out;
  int threads = 0;
  std::vector<raycar::KeyOverride> overrides;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      std::fputs(kUsage, stdout);
      std::string names;
      for (const std::string& name : raycar::sim::bundledSceneNames()) names += " " + name;
      std::printf("  bundled scenes:%s\n", names.empty() ? " none found" : names.c_str());
      return 0;
    }
    if (argument == "--out" && i + 1 < argc) out = argv[++i];
    else if (argument == "--threads" && i + 1 < argc) {
      char* end = nullptr;
      const long parsed = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || parsed < 1 || parsed > 256) {
        std::fprintf(stderr, "raycar-sim: --threads takes a whole number in [1, 256], not '%s'\n", argv[i]);
        return 2;
      }
      threads = int(parsed);
    }
    else if (argument == "--set" && i + 1 < argc) {
      try {
        overrides.push_back(raycar::parseKeyOverride(argv[++i]));
      } catch (const raycar::Error& error) {
        std::fprintf(stderr, "raycar-sim: %s\n", error.what());
        return 2;
      }
    }
    else if (scenePath.empty() && argument[0] != '-') scenePath = argument;
    else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (scenePath.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  try {
    const raycar::sim::Scene scene = raycar::sim::loadScene(raycar::sim::findScene(scenePath), overrides);
    if (out.empty()) out = "out/" + (scene.name.empty() ? std::string("scene") : scene.name);
    raycar::sim::SceneRunner runner(scene, threads);
    for (const std::string& note : runner.notes()) std::fprintf(stderr, "raycar-sim: %s\n", note.c_str());
    const bool terminal = isatty(fileno(stderr));
    const auto start = std::chrono::steady_clock::now();
    int shown = -1;
    while (!runner.finished()) {
      runner.step();
      const int percent = runner.steps() * 100 / std::max(runner.totalSteps(), 1);
      if (terminal && percent != shown) {
        shown = percent;
        std::fprintf(stderr, "\r[%-40.*s] %3d%%", percent * 40 / 100, "########################################", percent);
      }
    }
    if (terminal) std::fprintf(stderr, "\n");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    raycar::sim::writeReport(out, runner);
    const raycar::sim::SceneSummary summary = runner.summary();
    std::printf("%s: %d steps, %.1f s simulated in %.2f s wall time, %zu vehicle(s)\n", scene.name.c_str(),
                summary.steps, summary.simulatedTime, seconds, summary.vehicles.size());
    const raycar::sim::VehicleSummary& first = summary.vehicles.front();
    std::printf("vehicle 1: %.1f m, top speed %.2f m/s (%.1f km/h), max lateral %.2f g, %d gear changes\n",
                first.distance, first.topSpeed, first.topSpeed * 3.6, first.maxLateralG, first.gearChanges);
    if (summary.vehicles.size() > 1) {
      size_t finite = 0;
      for (const raycar::sim::VehicleSummary& vehicle : summary.vehicles) finite += vehicle.finite;
      std::printf("%zu of %zu vehicles finite throughout\n", finite, summary.vehicles.size());
    }
    if (first.hasGhost)
      std::printf("bicycle ghost: largest distance %.3f m, final %.3f m; inside the space: %s\n",
                  first.ghostMaxDistance, first.ghostFinalDistance, first.insideParkingSpace ? "yes" : "no");
    for (size_t i = 0; i < summary.vehicles.size(); ++i)
      if (summary.vehicles[i].leftGroundAt >= 0)
        std::printf("vehicle %zu left the ground at %.2f s (fell off its edge): its figures after that mean little\n", i + 1,
                    summary.vehicles[i].leftGroundAt);
    std::printf("wrote %s/telemetry.csv, %s/summary.json, %s/report.html\n", out.c_str(), out.c_str(), out.c_str());
    return 0;
  } catch (const raycar::Error& error) {
    std::fprintf(stderr, "raycar-sim: %s\n", error.what());
    return 1;
  }
}
