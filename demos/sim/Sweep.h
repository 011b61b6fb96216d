#pragma once
// raycar-sweep: a sweep file expands into raycar-sim runs (each a scene with --set overrides),
// which GNU parallel runs on this machine or across machines; their summary.json figures gather
// into sweep.csv and sweep.html.
//
//   [sweep]  name, scenes = ["handling", "path/to/scene.toml"] (bundled names, or paths relative
//            to the sweep file), figures = ["path_time", "max_lateral_g"] (plotted against the
//            swept keys; default distance, top_speed, max_lateral_g), set = ["section.key=value"]
//            (every run)
//   [grid]   "section.key" = [value, ...]: every combination of the keys' values, the first key
//            slowest ("wheel[3].stiffness" must be quoted; an unquoted wheel.stiffness is the
//            same key written as a TOML dotted key)
//   [[run]]  set = ["section.key=value", ...]: one run each, after the grid's
// Every scene gets every run. Errors name the file, the line and the key.

#include <string>
#include <utility>
#include <vector>

namespace raycar::sim {

struct Sweep {
  std::string path;
  std::string name;
  std::vector<std::string> scenes;           // resolved paths
  std::vector<std::string> figures;          // summary figures to plot
  std::vector<std::string> everyRun;         // overrides of every run, "section.key=value"
  std::vector<std::string> gridKeys;         // "section.key"
  std::vector<std::vector<std::string>> gridValues;  // per grid key: the values as TOML text
  std::vector<std::vector<std::string>> listedRuns;  // [[run]] set lists
};

struct SweepRun {
  int number = 0;                // 1..: its row in sweep.csv and its folder runs/NNN
  std::string scene;             // path
  std::vector<std::pair<std::string, std::string>> swept;  // the run's own keys and values
  std::vector<std::string> overrides;  // every --set, "section.key=value": the sweep's, then its own
};

Sweep loadSweep(const std::string& path);
Sweep parseSweep(const std::string& text, const std::string& path);

// Every scene x (every grid combination, then every listed run), numbered from 1.
std::vector<SweepRun> expandSweep(const Sweep& sweep);

// The folder of run `number` inside the sweep's output folder: runs/001, runs/002, ...
std::string runFolder(const std::string& outFolder, int number, size_t runCount);

// The shell command that makes the run: raycar-sim with its scene, --out and --set arguments,
// each quoted for the shell, its output kept in the run's folder as sim.log.
std::string runCommand(const SweepRun& run, const std::string& simProgram, const std::string& outFolder,
                       size_t runCount);

// A string as one shell word: in single quotes, with any single quote spelled '\''.
std::string shellQuote(const std::string& text);

// summary.json as named numbers, in file order: steps, simulated_time, then the first vehicle's
// figures by their names (distance, top_speed, ..., final_position_x/y/z; true 1, false 0,
// null NaN), and the figures of vehicle k > 1 as vehicle<k>_<name>. Strings are left out.
// Throws raycar::Error naming `path` when the text is not such a summary.
std::vector<std::pair<std::string, double>> flattenSummary(const std::string& json, const std::string& path);

// What GNU parallel's --joblog says of a run: the host and the wall time (s); empty host when
// the run is not in the log.
struct RunLog {
  std::string host;
  double seconds = 0;
  int exitCode = -1;
};
// The log's rows by their sequence number (the command's line in commands.txt, from 1).
std::vector<RunLog> readJobLog(const std::string& text, size_t runCount);

// One row per run: number, scene, the swept keys (every key any run sets of its own), host,
// wall_seconds, then every summary figure (the union over the runs, in first-seen order).
std::string sweepCsv(const std::vector<SweepRun>& runs, const std::vector<std::vector<std::pair<std::string, double>>>& figures,
                     const std::vector<RunLog>& logs);

// The page: per scene and chosen figure, the figure against the first grid key, one line per
// combination of the other keys; then the table of every run.
std::string sweepHtml(const Sweep& sweep, const std::vector<SweepRun>& runs,
                      const std::vector<std::vector<std::pair<std::string, double>>>& figures,
                      const std::vector<RunLog>& logs, double wallSeconds, const std::string& jobs);

}  // namespace raycar::sim
