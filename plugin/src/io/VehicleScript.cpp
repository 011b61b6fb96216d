#include "raycar/io/VehicleScript.h"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "io/ScriptKeys.h"
#include "io/NameSuggestion.h"
#include "io/TomlOverrides.h"
#include "raycar/Error.h"
#include "raycar/vehicle/SettingsFields.h"

namespace raycar {
namespace {

using namespace script;  // the key table
using T = ScriptValueType;

const char* const kTableSections[] = {"model", "params", "engine", "gearbox", "brakes",
                                      "assists", "aero", "steering", "solver"};
const char* const kRecordSections[] = {"hull", "wheel", "tire", "differential"};

const char* typeName(ScriptValueType type) {
  switch (type) {
    case T::Number: return "a number";
    case T::Integer: return "an integer";
    case T::Boolean: return "true/false or 0/1";
    case T::Text: return "a string";
    case T::NumberList: return "an array of numbers";
    case T::IntegerList: return "an array of integers";
    case T::Vector3: return "an array of 3 numbers";
    case T::PointList: return "an array of [a, b] pairs";
  }
  return "";
}

std::string numberText(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string rangeText(const Key& key) {
  if (key.type == T::Text || key.type == T::Boolean) return "";
  return raycar::rangeText(key.minimum, key.maximum, key.type == T::Integer || key.type == T::IntegerList);
}

class Parser {
 public:
  Parser(VehicleScript& script) : script_(script), keyFile_(script.path) {}

  void read(const toml::table& document) {
    Target target{script_};
    applyDefaults("", target);
    for (auto&& [key, node] : document) {
      const std::string section = lower(std::string(key.str()));
      const int line = int(key.source().begin.line);
      keyFile_ = toml_overrides::sourceFile(key, script_.path);
      // A section's own error joins the key errors, like them, and reading goes on.
      auto problem = [&](const std::string& object, const std::string& message) {
        problems_.emplace_back(ErrorLocation{keyFile_, line, object}, message);
      };
      if (isOneOf(section, kTableSections)) {
        const toml::table* table = node.as_table();
        if (!table) {
          problem(section, "must be a table: [" + section + "]");
          continue;
        }
        readTable(section, -1, *table, target);
      } else if (isOneOf(section, kRecordSections)) {
        const toml::array* records = node.as_array();
        if (!records || !records->is_array_of_tables()) {
          problem(section, "must be records: [[" + section + "]]");
          continue;
        }
        for (const toml::node& record : *records) readRecord(section, *record.as_table());
      } else {
        std::vector<std::string> sections(std::begin(kTableSections), std::end(kTableSections));
        sections.insert(sections.end(), std::begin(kRecordSections), std::end(kRecordSections));
        problem(std::string(key.str()), "unknown section" + suggestion(section, sections));
      }
    }
    // toml++ keeps a table's keys sorted by name: put the problems back in file order.
    std::stable_sort(problems_.begin(), problems_.end(), [](const Error& a, const Error& b) {
      return a.location().line < b.location().line;
    });
    // A --set key for every record of a section (wheel.x=...) is one mistake, not one per
    // record: problems that read the same (file, line, key and message) are listed once.
    std::vector<Error> distinct;
    for (const Error& problem : problems_)
      if (std::none_of(distinct.begin(), distinct.end(),
                       [&](const Error& kept) { return std::string(kept.what()) == problem.what(); }))
        distinct.push_back(problem);
    problems_ = std::move(distinct);
    if (problems_.size() == 1) throw problems_.front();
    if (problems_.size() > 1) {
      // One error, placed at the first problem; its message lists the others with their places.
      std::string message = problems_.front().message() + "\n  and " + std::to_string(problems_.size() - 1) +
                            " more:";
      for (size_t i = 1; i < problems_.size(); ++i) message += "\n  " + std::string(problems_[i].what());
      throw Error(problems_.front().location(), message);
    }
  }

 private:
  template <size_t N>
  static bool isOneOf(const std::string& name, const char* const (&names)[N]) {
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
  }

  [[noreturn]] void fail(int line, const std::string& object, const std::string& message) const {
    throw Error({keyFile_, line, object}, message);
  }

  void applyDefaults(const std::string& recordSection, Target& target) {
    for (const Key& key : keys()) {
      if (key.field) continue;  // its settings object starts default-constructed
      const bool isRecordKey = isOneOf(key.section, kRecordSections);
      if (recordSection.empty() ? isRecordKey : key.section != recordSection) continue;
      const toml::table literal = toml::parse(std::string("value = ") + key.defaultValue);
      applyKey(key, target, convert(key, *literal.get("value"), 0, key.name));
    }
  }

  void readRecord(const std::string& section, const toml::table& table) {
    Target target{script_};
    const int line = int(table.source().begin.line);
    size_t record = 0;
    if (section == "hull") {
      record = script_.hulls.size();
      script_.hulls.push_back(HullRecord{line});
      target.hull = &script_.hulls.back();
    } else if (section == "wheel") {
      record = script_.wheels.size();
      script_.wheels.push_back(WheelRecord{line, WheelSettings{}});
      target.wheel = &script_.wheels.back();
    } else if (section == "tire") {
      record = script_.tires.size();
      script_.tires.push_back(TireRecord{line, {}, TireSettings{}});
      target.tire = &script_.tires.back();
    } else {
      record = script_.settings.differentials.size();
      script_.settings.differentials.emplace_back();
      target.differential = &script_.settings.differentials.back();
    }
    script_.keyPlaces.push_back({section, int(record), "", line, "", script_.path});  // the record itself
    applyDefaults(section, target);
    readTable(section, int(record), table, target);
  }

  // record: the record's index among its section's, -1 for a table section.
  void readTable(const std::string& section, int record, const toml::table& table, Target& target) {
    for (auto&& [name, node] : table) {
      const std::string keyName(name.str());
      const int line = int(name.source().begin.line);
      keyFile_ = toml_overrides::sourceFile(name, script_.path);
      const std::string where = section + "." + keyName;
      const Key* key = find(section, keyName);
      if (!key) {
        std::vector<std::string> known;
        for (const Key& candidate : keys())
          if (candidate.section == section) known.push_back(candidate.name);
        // Named as the file writes the section: a record ([[wheel]]) or a table ([engine]).
        const std::string header = record < 0 ? "[" + section + "]" : "[[" + section + "]]";
        // A key of another section, written in the wrong one (brake_torque under [brakes]):
        // where it belongs, ahead of a near name here.
        std::string elsewhere;
        for (const Key& candidate : keys())
          if (candidate.section != section && candidate.name == keyName) {
            const bool isRecord = isOneOf(candidate.section, kRecordSections);
            elsewhere = " (" + keyName + " is a key of " + (isRecord ? "[[" : "[") + candidate.section +
                        (isRecord ? "]]" : "]") + ")";
            break;
          }
        problems_.emplace_back(ErrorLocation{keyFile_, line, where},
                               "unknown key in " + header + (elsewhere.empty() ? suggestion(keyName, known) : elsewhere));
        continue;
      }
      // A bad value is remembered and reading goes on: the file's every key error is reported
      // at once (Parser::read throws them together).
      try {
        const Value value = convert(*key, node, line, where);
        try {
          applyKey(*key, target, value);
        } catch (const Rejected& rejected) {
          fail(line, where, rejected.what());
        }
        script_.keyPlaces.push_back({section, record, keyName, line, key->member(), keyFile_});
      } catch (const Error& error) {
        problems_.push_back(error);
      }
    }
  }

  static const Key* find(const std::string& section, const std::string& name) {
    const std::string wanted = lower(name);
    for (const Key& key : keys())
      if (key.section == section && lower(key.name) == wanted) return &key;
    return nullptr;
  }

  double number(const Key& key, const toml::node& node, int line, const std::string& where) const {
    if (!node.is_number()) fail(line, where, "expects " + std::string(typeName(key.type)) + got(node));
    // toml++ gives no double for an integer beyond 2^53 that a double cannot hold exactly.
    const std::optional<double> exact = node.value<double>();
    if (!exact)
      fail(line, where, "= " + std::to_string(*node.value<int64_t>()) +
                            " cannot be read exactly as a number (an integer beyond 2^53)");
    const double value = *exact;
    if (!std::isfinite(value)) fail(line, where, "is not a finite number");
    if (key.field) {
      const std::string problem = fieldValueProblem(*key.field, value);
      if (!problem.empty()) fail(line, where, problem);
    } else if (value < key.minimum || value > key.maximum)
      fail(line, where, "= " + numberText(value) + " is out of range " + rangeText(key) +
                            (key.unit[0] ? " (" + std::string(key.unit) + ")" : ""));
    return value;
  }

  static std::string got(const toml::node& node) {
    switch (node.type()) {
      case toml::node_type::string: return ", got a string";
      case toml::node_type::integer: return ", got an integer";
      case toml::node_type::floating_point: return ", got a number";
      case toml::node_type::boolean: return ", got a boolean";
      case toml::node_type::array: return ", got an array";
      case toml::node_type::table: return ", got a table";
      default: return ", got a date or time";
    }
  }

  Value convert(const Key& key, const toml::node& node, int line, const std::string& where) const {
    Value value;
    switch (key.type) {
      case T::Number:
        value.number = number(key, node, line, where);
        break;
      case T::Integer:
        if (!node.is_integer()) fail(line, where, "expects an integer" + got(node));
        value.integer = *node.value<int64_t>();
        if (key.field) {
          const std::string problem = fieldValueProblem(*key.field, double(value.integer));
          if (!problem.empty()) fail(line, where, problem);
        } else if (double(value.integer) < key.minimum || double(value.integer) > key.maximum)
          fail(line, where, "= " + std::to_string(value.integer) + " is out of range " + rangeText(key));
        break;
      case T::Boolean:
        if (node.is_boolean()) {
          value.boolean = *node.value<bool>();
        } else if (node.is_integer() && (*node.value<int64_t>() == 0 || *node.value<int64_t>() == 1)) {
          value.boolean = *node.value<int64_t>() == 1;
        } else {
          fail(line, where, "expects true/false or 0/1" + got(node));
        }
        break;
      case T::Text:
        if (!node.is_string()) fail(line, where, "expects a string" + got(node));
        value.text = *node.value<std::string>();
        break;
      case T::NumberList:
      case T::IntegerList:
      case T::Vector3: {
        const toml::array* array = node.as_array();
        if (!array) fail(line, where, "expects " + std::string(typeName(key.type)) + got(node));
        if (key.type == T::Vector3 && array->size() != 3)
          fail(line, where, "expects an array of 3 numbers, got " + std::to_string(array->size()));
        for (const toml::node& element : *array) {
          if (key.type == T::IntegerList && !element.is_integer())
            fail(line, where, "expects an array of integers");
          value.list.push_back(number(key, element, line, where));
        }
        if (key.type == T::Vector3)
          value.vector = btVector3(btScalar(value.list[0]), btScalar(value.list[1]), btScalar(value.list[2]));
        break;
      }
      case T::PointList: {
        const toml::array* array = node.as_array();
        if (!array) fail(line, where, "expects an array of [a, b] pairs" + got(node));
        for (const toml::node& element : *array) {
          const toml::array* pair = element.as_array();
          if (!pair || pair->size() != 2) fail(line, where, "expects an array of [a, b] pairs");
          value.points.push_back({number(key, *pair->get(0), line, where), number(key, *pair->get(1), line, where)});
        }
        break;
      }
    }
    return value;
  }

  VehicleScript& script_;
  std::vector<Error> problems_;  // key errors found so far
  std::string keyFile_;          // the file of the key being read: the script, or an override
};

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

VehicleScript parseVehicleScript(const std::string& text, const std::string& path,
                                 const std::vector<KeyOverride>& overrides) {
  VehicleScript script;
  script.path = path;
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  // A script without [[tire]] has one default tire on every axle: an override of a tire key
  // creates that record (a trial's --set tire.lateral_d had been refused for want of one).
  toml_overrides::applyKeyOverrides(document, overrides, path,
                                    std::vector<std::string>(std::begin(kRecordSections), std::end(kRecordSections)),
                                    {"tire"});
  // A record is written through a pointer only while it is the last one read, so the vectors may
  // grow; 64 records a section is the limit because no vehicle has more (axles end at 64).
  for (const char* section : kRecordSections) {
    const toml::array* records = document[section].as_array();
    if (records && records->size() > 64)
      throw Error({path, int(records->source().begin.line), section}, "more than 64 records");
  }
  Parser(script).read(document);
  if (script.objPath.empty()) throw Error({path, 0, "model.obj"}, "[model] obj is required: the OBJ model");
  if (std::fabs(script.modelAxes.up.dot(script.modelAxes.forward)) > 0.5f) {
    // Either key may be the mistake: the error stands at the one written last (an override
    // after the file's keys, a later line before an earlier one) and names where both came from.
    const ScriptKeyPlace* up = scriptKeyPlace(script, "model", "up");
    const ScriptKeyPlace* forward = scriptKeyPlace(script, "model", "forward");
    auto order = [&path](const ScriptKeyPlace* place) {  // written later: larger
      if (place == nullptr) return -1;
      return place->file != path ? std::numeric_limits<int>::max() : place->line;
    };
    auto from = [&path](const ScriptKeyPlace* place) {
      if (place == nullptr) return std::string(" (default)");
      return place->file != path ? " (" + place->file + ")" : " (line " + std::to_string(place->line) + ")";
    };
    const ScriptKeyPlace* last = order(up) > order(forward) ? up : forward;
    throw Error({last ? last->file : path, last ? last->line : 0, last == up ? "model.up" : "model.forward"},
                "the model's up axis" + from(up) + " and forward axis" + from(forward) +
                    " lie along one line; they must be perpendicular");
  }
  if (script.objPath[0] != '/') script.objPath = directoryOf(path) + script.objPath;
  return script;
}

const ScriptKeyPlace* scriptKeyPlace(const VehicleScript& script, const std::string& section, const std::string& key) {
  auto sameKey = [](const std::string& written, const std::string& name) {  // keys ignore case
    return written.size() == name.size() &&
           std::equal(written.begin(), written.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  };
  for (const ScriptKeyPlace& place : script.keyPlaces)
    if (place.section == section && place.record < 0 && sameKey(place.key, key)) return &place;
  return nullptr;
}

VehicleScript loadVehicleScript(const std::string& path, const std::vector<KeyOverride>& overrides) {
  return parseVehicleScript(readTextFile(path, "vehicle script"), path, overrides);
}

namespace {

// The default as TOML: a field key's from the default-constructed settings.
std::string defaultText(const Key& key) {
  if (!key.field) return key.defaultValue;
  VehicleSettings vehicle;
  WheelSettings wheel;
  TireSettings tire;
  DifferentialSettings differential;
  std::ostringstream out;
  out << key.field->bind(FieldOwners{&vehicle, &wheel, &tire, &differential}).get();
  return out.str();
}

}  // namespace

std::vector<ScriptKeyInfo> scriptKeyReference() {
  std::vector<ScriptKeyInfo> reference;
  for (const Key& key : keys())
    reference.push_back({key.section, key.name, key.type, key.unit, defaultText(key), rangeText(key),
                         key.meaning, key.minimum, key.maximum, key.field});
  return reference;
}

std::string scriptReferenceMarkdown() {
  std::ostringstream out;
  out << "| section | key | unit | default | range | meaning |\n|---|---|---|---|---|---|\n";
  for (const ScriptKeyInfo& key : scriptKeyReference()) {
    const bool record = key.section == "hull" || key.section == "wheel" || key.section == "tire" ||
                        key.section == "differential";
    out << "| " << (record ? "[[" + key.section + "]]" : "[" + key.section + "]") << " | `" << key.name
        << "` | " << key.unit << " | `" << key.defaultValue << "` | " << key.range << " | "
        << key.meaning << " |\n";
  }
  return out.str();
}

}  // namespace raycar
