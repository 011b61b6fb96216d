// raycar-sweep SWEEP.toml [--out DIR] [--jobs N] [--sshloginfile FILE] [--sim PROGRAM] [--dry-run]:
// expands a sweep into raycar-sim runs, runs them through GNU parallel, and gathers every run's
// summary into DIR/sweep.csv and DIR/sweep.html (default DIR: out/sweeps/NAME).

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "Scene.h"
#include "Sweep.h"
#include "raycar/Error.h"
#include "raycar/io/VehicleLoader.h"

namespace {

const char* const kUsage =
    "usage: raycar-sweep SWEEP.toml [--out DIR] [--jobs N] [--sshloginfile FILE] [--sim PROGRAM] [--dry-run]\n"
    "  expands the sweep's [grid] and [[run]] records over its scenes into raycar-sim runs (each\n"
    "  with --set overrides), checks every run's scene and scripts, and hands the runs to GNU\n"
    "  parallel (Debian's package 'parallel'). DIR/sweep.csv gets a row per run (its overrides,\n"
    "  host, wall time and every summary.json figure), DIR/sweep.html plots the chosen figures\n"
    "  against the swept keys; each run's own output is in DIR/runs/NNN. DIR: out/sweeps/NAME.\n"
    "  --jobs N: runs at once per machine (parallel's --jobs; default: one per core).\n"
    "  --sshloginfile FILE: run across the machines FILE lists (parallel's --sshloginfile); each\n"
    "  needs raycar-sim at the same path (or --sim's) and DIR on a shared filesystem.\n"
    "  --sim PROGRAM: the raycar-sim to run (default: the one beside raycar-sweep).\n"
    "  --dry-run: check the runs and write DIR/commands.txt without running them.\n";

std::string programBeside(const std::string& name) {
  char executable[4096];
  const ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length <= 0) return name;
  const std::string path(executable, size_t(length));
  return path.substr(0, path.find_last_of('/') + 1) + name;
}

std::string readFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// Loads the run's scene and every vehicle's script with its overrides, as raycar-sim will: a bad
// key stops the sweep before any run starts, with the file's own error.
void checkRun(const raycar::sim::SweepRun& run) {
  std::vector<raycar::KeyOverride> overrides;
  for (const std::string& text : run.overrides) overrides.push_back(raycar::parseKeyOverride(text));
  const raycar::sim::Scene scene = raycar::sim::loadScene(run.scene, overrides);
  for (const raycar::sim::VehicleEntry& entry : scene.vehicles) {
    std::vector<raycar::KeyOverride> all = entry.scriptOverrides;
    all.insert(all.end(), scene.scriptOverrides.begin(), scene.scriptOverrides.end());
    raycar::loadVehicle(entry.script, all);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string sweepPath, out, jobs, sshLoginFile, sim = programBeside("raycar-sim");
  bool dryRun = false;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool hasValue = i + 1 < argc;
    if (argument == "--help" || argument == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (argument == "--out" && hasValue) out = argv[++i];
    else if (argument == "--jobs" && hasValue) {
      jobs = argv[++i];
      char* end = nullptr;
      const long parsed = std::strtol(jobs.c_str(), &end, 10);
      if (*end != '\0' || parsed < 1 || parsed > 1024) {
        std::fprintf(stderr, "raycar-sweep: --jobs takes a whole number in [1, 1024], not '%s'\n", jobs.c_str());
        return 2;
      }
    } else if (argument == "--sshloginfile" && hasValue) sshLoginFile = argv[++i];
    else if (argument == "--sim" && hasValue) sim = argv[++i];
    else if (argument == "--dry-run") dryRun = true;
    else if (sweepPath.empty() && argument[0] != '-') sweepPath = argument;
    else {
      std::fputs(kUsage, stderr);
      return 2;
    }
  }
  if (sweepPath.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  using namespace raycar::sim;
  try {
    const Sweep sweep = loadSweep(sweepPath);
    const std::vector<SweepRun> runs = expandSweep(sweep);
    for (const SweepRun& run : runs) {
      try {
        checkRun(run);
      } catch (const raycar::Error& error) {
        std::fprintf(stderr, "raycar-sweep: run %d (%s):\n  %s\n", run.number, run.scene.c_str(), error.what());
        return 1;
      }
    }
    if (out.empty()) out = "out/sweeps/" + sweep.name;
    std::filesystem::create_directories(out + "/runs");
    // Absolute, so that a run on another machine (--sshloginfile) writes to the same shared path.
    out = std::filesystem::absolute(out).lexically_normal().string();
    if (!out.empty() && out.back() == '/') out.pop_back();
    const std::string commandsPath = out + "/commands.txt", jobLogPath = out + "/joblog.txt";
    {
      std::ofstream commands(commandsPath, std::ios::binary);
      for (const SweepRun& run : runs) commands << runCommand(run, sim, out, runs.size()) << '\n';
      if (!commands) throw raycar::Error({commandsPath, 0, ""}, "cannot write the run commands");
    }
    if (dryRun) {
      std::printf("%zu runs checked; commands in %s\n", runs.size(), commandsPath.c_str());
      return 0;
    }
    std::filesystem::remove(jobLogPath);
    // parallel runs each line of commands.txt as a shell command; the job log gives each run's
    // host, wall time and exit code. --halt soon,fail=1 starts nothing new after a failure.
    std::string command = "parallel --will-cite --halt soon,fail=1 --joblog " + shellQuote(jobLogPath);
    if (!jobs.empty()) command += " --jobs " + jobs;
    if (!sshLoginFile.empty()) command += " --sshloginfile " + shellQuote(sshLoginFile);
    command += " < " + shellQuote(commandsPath);
    std::printf("%s: %zu runs through GNU parallel%s\n", sweep.name.c_str(), runs.size(),
                jobs.empty() ? "" : (", " + jobs + " jobs").c_str());
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    const double wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
      std::fprintf(stderr, "raycar-sweep: cannot run GNU parallel: install Debian's package 'parallel'\n");
      return 1;
    }
    const std::vector<RunLog> logs = readJobLog(readFile(jobLogPath), runs.size());
    std::vector<std::vector<std::pair<std::string, double>>> figures;
    int failed = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string folder = runFolder(out, runs[i].number, runs.size());
      const std::string summaryPath = folder + "/summary.json";
      if (logs[i].exitCode != 0 || !std::filesystem::exists(summaryPath)) {
        ++failed;
        std::fprintf(stderr, "raycar-sweep: run %d failed (exit %d); its output: %s/sim.log\n%s", runs[i].number,
                     logs[i].exitCode, folder.c_str(), readFile(folder + "/sim.log").c_str());
        figures.emplace_back();
        continue;
      }
      figures.push_back(flattenSummary(readFile(summaryPath), summaryPath));
    }
    std::ofstream(out + "/sweep.csv", std::ios::binary) << sweepCsv(runs, figures, logs);
    std::ofstream(out + "/sweep.html", std::ios::binary)
        << sweepHtml(sweep, runs, figures, logs, wallSeconds, jobs.empty() ? "one per core" : jobs);
    std::printf("%zu runs (%d failed) in %.2f s wall time; wrote %s/sweep.csv, %s/sweep.html\n", runs.size(), failed,
                wallSeconds, out.c_str(), out.c_str());
    return failed ? 1 : 0;
  } catch (const raycar::Error& error) {
    std::fprintf(stderr, "raycar-sweep: %s\n", error.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& error) {
    std::fprintf(stderr, "raycar-sweep: %s\n", error.what());
    return 1;
  }
}
