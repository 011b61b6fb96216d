#include "Sweep.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>

#include "Scene.h"
#include "SvgPlot.h"
#include "raycar/Error.h"
#include "raycar/io/KeyOverride.h"

namespace raycar::sim {
namespace {

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// A TOML value as the text --set takes back: 0.6, 40000, true, "text", [1, 2]. A number is
// written with the fewest digits that read back to it (0.2, not 0.20000000000000001).
std::string tomlText(const toml::node& node) {
  if (const auto* real = node.as_floating_point(); real && std::isfinite(real->get())) {
    char digits[40];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(digits, sizeof digits, "%.*g", precision, real->get());
      if (std::strtod(digits, nullptr) == real->get()) break;
    }
    std::string text = digits;
    // Still a TOML float: 2.0 stays 2.0, not the integer 2; 1e+20 is TOML as it is.
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
  }
  std::ostringstream text;
  node.visit([&](const auto& value) { text << toml::toml_formatter(value, toml::format_flags::none); });
  return text.str();
}

int lineOf(const toml::node& node) { return int(node.source().begin.line); }

// Checks an override's shape now, so that a bad one is an error of the sweep file, not of 6 runs.
void checkOverride(const std::string& text, const std::string& path, int line, const std::string& key) {
  try {
    parseKeyOverride(text);
  } catch (const Error& error) {
    throw Error({path, line, key}, error.message() + " (in '" + text + "')");
  }
}

std::vector<std::string> overrideList(const toml::node& node, const std::string& path, const std::string& key) {
  const toml::array* array = node.as_array();
  if (!array) throw Error({path, lineOf(node), key}, "expects an array of \"section.key=value\" strings");
  std::vector<std::string> texts;
  for (const toml::node& element : *array) {
    if (!element.is_string()) throw Error({path, lineOf(element), key}, "expects \"section.key=value\" strings");
    texts.push_back(*element.value<std::string>());
    checkOverride(texts.back(), path, lineOf(element), key);
  }
  return texts;
}

struct GridKey {
  int line = 0;
  std::string key;
  std::vector<std::string> values;
};

// [grid] keys, dotted ones (wheel.stiffness) as nested tables, quoted ones as they are.
void readGrid(const toml::table& table, const std::string& prefix, const std::string& path,
              std::vector<GridKey>& keys) {
  for (auto&& [name, node] : table) {
    const std::string key = prefix + std::string(name.str());
    if (const toml::table* nested = node.as_table()) {
      readGrid(*nested, key + ".", path, keys);
      continue;
    }
    const toml::array* values = node.as_array();
    const int line = int(name.source().begin.line);
    if (!values || values->empty())
      throw Error({path, line, "grid." + key}, "expects a non-empty array of the values to sweep");
    keys.push_back({line, key, {}});
    for (const toml::node& value : *values) {
      keys.back().values.push_back(tomlText(value));
      checkOverride(key + "=" + keys.back().values.back(), path, line, "grid." + key);
    }
  }
}

// A CSV cell: quoted when it holds a comma or a quote.
std::string csvCell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string htmlEscape(const std::string& text) {
  std::string escaped;
  for (char c : text) escaped += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return escaped;
}

// The minimal JSON reader summary.json needs: objects, arrays, numbers, strings, true, false, null.
class SummaryReader {
 public:
  SummaryReader(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  std::vector<std::pair<std::string, double>> read() {
    skipSpace();
    expect('{');
    readObject("", 0);
    skipSpace();
    if (position_ != text_.size()) fail("text after the summary");
    return figures_;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error({path_, 0, "summary"}, message + " at byte " + std::to_string(position_));
  }
  void skipSpace() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  void expect(char c) {
    skipSpace();
    if (position_ >= text_.size() || text_[position_] != c) fail(std::string("expected '") + c + "'");
    ++position_;
  }
  bool peek(char c) {
    skipSpace();
    return position_ < text_.size() && text_[position_] == c;
  }
  std::string readString() {
    expect('"');
    std::string value;
    while (position_ < text_.size() && text_[position_] != '"') {
      if (text_[position_] == '\\') ++position_;
      if (position_ < text_.size()) value += text_[position_++];
    }
    expect('"');
    return value;
  }
  // After '{': the object's members. vehicle: 0 outside the vehicles, else its number from 1.
  void readObject(const std::string& prefix, int vehicle) {
    if (peek('}')) {
      ++position_;
      return;
    }
    for (;;) {
      const std::string key = readString();
      expect(':');
      readValue(prefix + key, key, vehicle);
      if (peek(',')) {
        ++position_;
        continue;
      }
      expect('}');
      return;
    }
  }
  void readValue(const std::string& name, const std::string& key, int vehicle) {
    skipSpace();
    if (position_ >= text_.size()) fail("unexpected end");
    const char c = text_[position_];
    if (c == '"') {
      readString();  // strings (scene, script) are no figures
    } else if (c == '{') {
      ++position_;
      readObject(name + "_", vehicle);
    } else if (c == '[') {
      ++position_;
      readArray(name, key, vehicle);
    } else if (text_.compare(position_, 4, "true") == 0) {
      position_ += 4;
      figures_.emplace_back(name, 1);
    } else if (text_.compare(position_, 5, "false") == 0) {
      position_ += 5;
      figures_.emplace_back(name, 0);
    } else if (text_.compare(position_, 4, "null") == 0) {
      position_ += 4;
      figures_.emplace_back(name, std::numeric_limits<double>::quiet_NaN());
    } else {
      const char* begin = text_.c_str() + position_;
      char* end = nullptr;
      const double value = std::strtod(begin, &end);
      if (end == begin) fail("expected a value");
      position_ += size_t(end - begin);
      figures_.emplace_back(name, value);
    }
  }
  // An array of three numbers is a vector (name_x, name_y, name_z); any other array, such as
  // the wheels' list of objects, is numbered from 1 as the script's [[wheel]] records are
  // (name_1_field, name_2_field, ...).
  void readArray(const std::string& name, const std::string& key, int vehicle) {
    if (peek(']')) {
      ++position_;
      return;
    }
    const size_t first = figures_.size();
    int count = 0;
    bool scalars = true;
    for (;;) {
      if (key == "vehicles" && vehicle == 0) {
        expect('{');
        const int number = count + 1;
        readObject(number == 1 ? "" : "vehicle" + std::to_string(number) + "_", number);
        scalars = false;
      } else {
        // A number, true, false or null is one figure; an object, a list or a string is not.
        skipSpace();
        scalars = scalars && position_ < text_.size() && std::strchr("{[\"", text_[position_]) == nullptr;
        readValue(name + "_" + std::to_string(count + 1), key, vehicle);
      }
      ++count;
      if (peek(',')) {
        ++position_;
        continue;
      }
      expect(']');
      break;
    }
    if (count == 3 && scalars) {
      static const char* const kAxes[] = {"x", "y", "z"};
      for (int axis = 0; axis < 3; ++axis) figures_[first + size_t(axis)].first = name + "_" + kAxes[axis];
    }
  }

  const std::string& text_;
  std::string path_;
  size_t position_ = 0;
  std::vector<std::pair<std::string, double>> figures_;
};

// The swept keys of every run, in first-seen order.
std::vector<std::string> sweptKeys(const std::vector<SweepRun>& runs) {
  std::vector<std::string> keys;
  for (const SweepRun& run : runs)
    for (const auto& [key, value] : run.swept)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

std::string sweptValue(const SweepRun& run, const std::string& key) {
  for (const auto& [name, value] : run.swept)
    if (name == key) return value;
  return "";
}

double figureOf(const std::vector<std::pair<std::string, double>>& figures, const std::string& name) {
  for (const auto& [key, value] : figures)
    if (key == name) return value;
  return std::numeric_limits<double>::quiet_NaN();
}

std::string sceneName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0) name.resize(name.size() - 5);
  return name;
}

}  // namespace

Sweep parseSweep(const std::string& text, const std::string& path) {
  Sweep sweep;
  sweep.path = path;
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  for (auto&& [key, node] : document) {
    const std::string section(key.str());
    const int line = int(key.source().begin.line);
    if (section == "sweep") {
      if (!node.is_table()) throw Error({path, line, section}, "must be a table: [sweep]");
      for (auto&& [name, value] : *node.as_table()) {
        const std::string field(name.str());
        const int fieldLine = int(name.source().begin.line);
        auto strings = [&]() {
          std::vector<std::string> texts;
          const toml::array* array = value.as_array();
          if (!array) throw Error({path, fieldLine, "sweep." + field}, "expects an array of strings");
          for (const toml::node& element : *array) {
            if (!element.is_string()) throw Error({path, fieldLine, "sweep." + field}, "expects an array of strings");
            texts.push_back(*element.value<std::string>());
          }
          return texts;
        };
        if (field == "name") {
          if (!value.is_string()) throw Error({path, fieldLine, "sweep.name"}, "expects a string");
          sweep.name = *value.value<std::string>();
        } else if (field == "scenes") {
          for (const std::string& scene : strings()) {
            // A bundled scene's name, or a path relative to the sweep file.
            const bool isPath = scene.find('/') != std::string::npos || scene.find(".toml") != std::string::npos;
            const std::string relative = isPath && scene[0] != '/' ? directoryOf(path) + scene : scene;
            try {
              sweep.scenes.push_back(findScene(relative));
            } catch (const Error& error) {
              throw Error({path, fieldLine, "sweep.scenes"}, "'" + scene + "': " + error.message());
            }
          }
        } else if (field == "figures") {
          sweep.figures = strings();
        } else if (field == "set") {
          sweep.everyRun = overrideList(value, path, "sweep.set");
        } else {
          throw Error({path, fieldLine, "sweep." + field}, "unknown key in [sweep]; known: name, scenes, figures, set");
        }
      }
    } else if (section == "grid") {
      if (!node.is_table()) throw Error({path, line, section}, "must be a table: [grid]");
      // toml++ keeps a table's keys sorted by name: the file's order (the first key slowest)
      // comes back from their lines.
      std::vector<GridKey> keys;
      readGrid(*node.as_table(), "", path, keys);
      std::stable_sort(keys.begin(), keys.end(), [](const GridKey& a, const GridKey& b) { return a.line < b.line; });
      for (const GridKey& key : keys) {
        sweep.gridKeys.push_back(key.key);
        sweep.gridValues.push_back(key.values);
      }
    } else if (section == "run") {
      const toml::array* records = node.as_array();
      if (!records || !records->is_array_of_tables()) throw Error({path, line, section}, "must be records: [[run]]");
      for (const toml::node& record : *records)
        for (auto&& [name, value] : *record.as_table()) {
          if (name.str() != "set")
            throw Error({path, int(name.source().begin.line), "run." + std::string(name.str())}, "unknown key in [[run]]; known: set");
          sweep.listedRuns.push_back(overrideList(value, path, "run.set"));
        }
    } else {
      throw Error({path, line, section}, "unknown section; known: [sweep], [grid], [[run]]");
    }
  }
  if (sweep.scenes.empty()) throw Error({path, 0, "sweep.scenes"}, "a sweep needs at least one scene");
  if (sweep.gridKeys.empty() && sweep.listedRuns.empty())
    throw Error({path, 0, "grid"}, "a sweep needs a [grid] or [[run]] records");
  if (sweep.figures.empty()) sweep.figures = {"distance", "top_speed", "max_lateral_g"};
  if (sweep.name.empty()) sweep.name = sceneName(path);
  return sweep;
}

Sweep loadSweep(const std::string& path) { return parseSweep(readTextFile(path, "sweep file"), path); }

std::vector<SweepRun> expandSweep(const Sweep& sweep) {
  // The grid's combinations, the first key slowest: an odometer over the value lists.
  std::vector<std::vector<std::pair<std::string, std::string>>> combinations;
  if (!sweep.gridKeys.empty()) {
    std::vector<size_t> digit(sweep.gridKeys.size(), 0);
    for (;;) {
      std::vector<std::pair<std::string, std::string>> combination;
      for (size_t k = 0; k < digit.size(); ++k) combination.emplace_back(sweep.gridKeys[k], sweep.gridValues[k][digit[k]]);
      combinations.push_back(combination);
      size_t k = digit.size();
      while (k > 0 && ++digit[k - 1] == sweep.gridValues[k - 1].size()) digit[--k] = 0;
      if (k == 0) break;
    }
  }
  for (const std::vector<std::string>& listed : sweep.listedRuns) {
    std::vector<std::pair<std::string, std::string>> combination;
    for (const std::string& text : listed) {
      const size_t equals = text.find('=');
      combination.emplace_back(text.substr(0, equals), text.substr(equals + 1));
    }
    combinations.push_back(combination);
  }
  std::vector<SweepRun> runs;
  for (const std::string& scene : sweep.scenes)
    for (const auto& combination : combinations) {
      SweepRun run;
      run.number = int(runs.size()) + 1;
      run.scene = scene;
      run.swept = combination;
      run.overrides = sweep.everyRun;
      for (const auto& [key, value] : combination) run.overrides.push_back(key + "=" + value);
      runs.push_back(run);
    }
  return runs;
}

std::string runFolder(const std::string& outFolder, int number, size_t runCount) {
  const int width = std::max(3, int(std::to_string(runCount).size()));
  char digits[32];
  std::snprintf(digits, sizeof digits, "%0*d", width, number);
  return outFolder + "/runs/" + digits;
}

std::string shellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string runCommand(const SweepRun& run, const std::string& simProgram, const std::string& outFolder,
                       size_t runCount) {
  const std::string folder = runFolder(outFolder, run.number, runCount);
  std::string command = "mkdir -p " + shellQuote(folder) + " && " + shellQuote(simProgram) + " " +
                        shellQuote(run.scene) + " --out " + shellQuote(folder);
  for (const std::string& override : run.overrides) command += " --set " + shellQuote(override);
  return command + " > " + shellQuote(folder + "/sim.log") + " 2>&1";
}

std::vector<std::pair<std::string, double>> flattenSummary(const std::string& json, const std::string& path) {
  return SummaryReader(json, path).read();
}

std::vector<RunLog> readJobLog(const std::string& text, size_t runCount) {
  // Seq Host Starttime JobRuntime Send Receive Exitval Signal Command, tab-separated, a header first.
  std::vector<RunLog> logs(runCount);
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    std::string cell;
    while (fields.size() < 8 && std::getline(cells, cell, '\t')) fields.push_back(cell);
    if (fields.size() < 8) continue;
    const long sequence = std::strtol(fields[0].c_str(), nullptr, 10);
    if (sequence < 1 || size_t(sequence) > runCount) continue;
    RunLog& log = logs[size_t(sequence) - 1];
    log.host = fields[1] == ":" ? "local" : fields[1];
    log.seconds = std::strtod(fields[3].c_str(), nullptr);
    log.exitCode = int(std::strtol(fields[6].c_str(), nullptr, 10));
  }
  return logs;
}

std::string sweepCsv(const std::vector<SweepRun>& runs, const std::vector<std::vector<std::pair<std::string, double>>>& figures,
                     const std::vector<RunLog>& logs) {
  const std::vector<std::string> keys = sweptKeys(runs);
  std::vector<std::string> names;
  for (const auto& run : figures)
    for (const auto& [name, value] : run)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::ostringstream csv;
  csv << "run,scene";
  for (const std::string& key : keys) csv << ',' << csvCell(key);
  csv << ",host,wall_seconds";
  for (const std::string& name : names) csv << ',' << name;
  csv << '\n';
  for (size_t i = 0; i < runs.size(); ++i) {
    csv << runs[i].number << ',' << csvCell(sceneName(runs[i].scene));
    for (const std::string& key : keys) csv << ',' << csvCell(sweptValue(runs[i], key));
    csv << ',' << csvCell(logs[i].host) << ',' << (logs[i].host.empty() ? "" : number(logs[i].seconds));
    for (const std::string& name : names) {
      const double value = figureOf(figures[i], name);
      csv << ',' << (std::isnan(value) ? "" : number(value));
    }
    csv << '\n';
  }
  return csv.str();
}

std::string sweepHtml(const Sweep& sweep, const std::vector<SweepRun>& runs,
                      const std::vector<std::vector<std::pair<std::string, double>>>& figures,
                      const std::vector<RunLog>& logs, double wallSeconds, const std::string& jobs) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>raycar sweep: " << htmlEscape(sweep.name)
       << "</title>\n<style>body{font-family:sans-serif;margin:20px}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}svg{font-size:11px}</style></head><body>\n"
       << "<h1>Sweep " << htmlEscape(sweep.name) << "</h1>\n<p>" << runs.size() << " runs in " << fixed(wallSeconds, 2)
       << " s wall time (GNU parallel, jobs: " << htmlEscape(jobs) << "). Every run: ";
  for (const std::string& text : sweep.everyRun) html << "<code>" << htmlEscape(text) << "</code> ";
  html << "</p>\n";
  // Per scene and figure: the figure against the first grid key (numbers), a line per
  // combination of the other keys; listed runs appear in the table only.
  if (!sweep.gridKeys.empty()) {
    const std::string& xKey = sweep.gridKeys.front();
    for (const std::string& scene : sweep.scenes)
      for (const std::string& figure : sweep.figures) {
        std::map<std::string, Series> lines;
        std::vector<std::string> order;
        for (size_t i = 0; i < runs.size(); ++i) {
          if (runs[i].scene != scene || runs[i].swept.size() != sweep.gridKeys.size()) continue;
          std::string label;
          for (const auto& [key, value] : runs[i].swept)
            if (key != xKey) label += (label.empty() ? "" : ", ") + key + "=" + value;
          if (!lines.count(label)) order.push_back(label);
          Series& series = lines[label];
          series.name = label.empty() ? figure : label;
          series.x.push_back(std::strtod(sweptValue(runs[i], xKey).c_str(), nullptr));
          series.y.push_back(figureOf(figures[i], figure));
        }
        std::vector<Series> plotted;
        for (const std::string& label : order) {
          plotted.push_back(lines[label]);
          plotted.back().colour = kColours[(plotted.size() - 1) % 8];
        }
        html << "<h2>" << htmlEscape(sceneName(scene)) << ": " << htmlEscape(figure) << "</h2>\n"
             << plot(figure + " against " + xKey, xKey, figure, plotted);
      }
  }
  html << "<h2>Runs</h2>\n<table><tr><th>run</th><th>scene</th>";
  const std::vector<std::string> keys = sweptKeys(runs);
  for (const std::string& key : keys) html << "<th>" << htmlEscape(key) << "</th>";
  html << "<th>host</th><th>wall s</th>";
  for (const std::string& figure : sweep.figures) html << "<th>" << htmlEscape(figure) << "</th>";
  html << "</tr>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    html << "<tr><td>" << runs[i].number << "</td><td>" << htmlEscape(sceneName(runs[i].scene)) << "</td>";
    for (const std::string& key : keys) html << "<td>" << htmlEscape(sweptValue(runs[i], key)) << "</td>";
    html << "<td>" << htmlEscape(logs[i].host) << "</td><td>" << fixed(logs[i].seconds, 2) << "</td>";
    for (const std::string& figure : sweep.figures) {
      const double value = figureOf(figures[i], figure);
      html << "<td>" << (std::isnan(value) ? "" : number(value)) << "</td>";
    }
    html << "</tr>\n";
  }
  html << "</table>\n<p>Every figure of every run: sweep.csv; each run's own report: runs/NNN/report.html.</p>\n"
       << "</body></html>\n";
  return html.str();
}

}  // namespace raycar::sim
