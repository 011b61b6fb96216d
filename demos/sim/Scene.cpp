#include "Scene.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "io/TomlOverrides.h"  // the library's own: applies --set overrides to the parsed file
#include "DataFolders.h"
#include "TableReader.h"
#include "raycar/Error.h"

namespace raycar::sim {
namespace {

const std::vector<std::string> kSceneSections = {"scene", "ground", "surfaces", "vehicle"};

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// A path the scene names, relative to the scene's folder unless absolute. Opened as written:
// "dir/.." is the folder's real parent only where dir is no link (the summary shows it shortened).
std::string resolve(const std::string& base, const std::string& path) {
  return !path.empty() && path[0] == '/' ? path : directoryOf(base) + path;
}

}  // namespace

Scene parseScene(const std::string& text, const std::string& path, const std::vector<KeyOverride>& overrides) {
  Scene scene;
  scene.path = path;
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  toml_overrides::applyKeyOverrides(document, overridesOfSections(overrides, kSceneSections), path, {"vehicle"});
  // The others are vehicle-script keys: every vehicle of the scene loads its script with them.
  for (const KeyOverride& override : overrides)
    if (std::find(kSceneSections.begin(), kSceneSections.end(), override.section) == kSceneSections.end())
      scene.scriptOverrides.push_back(override);
  for (auto&& [key, node] : document) {
    const std::string section(key.str());
    const int line = int(key.source().begin.line);
    if (section == "scene" || section == "ground") {
      if (!node.is_table()) throw Error({path, line, section}, "must be a table: [" + section + "]");
      TableReader reader(path, section, *node.as_table());
      if (section == "scene") {
        reader.on("name", [&](const toml::node& n) { scene.name = reader.text(n); });
        reader.on("step", [&](const toml::node& n) { scene.step = reader.number(n, 1e-4, 0.1); });
        reader.on("duration", [&](const toml::node& n) { scene.duration = reader.number(n, 0, 3600); });
        reader.on("record_every", [&](const toml::node& n) { scene.recordEvery = int(reader.number(n, 1, 1e6)); });
        reader.on("gravity", [&](const toml::node& n) { scene.gravity = reader.number(n, 0, 100); });
        reader.on("rollback_every", [&](const toml::node& n) { scene.rollbackEvery = int(reader.number(n, 0, 1e6)); });
        reader.on("rollback_steps", [&](const toml::node& n) { scene.rollbackSteps = int(reader.number(n, 1, 1e6)); });
        reader.on("rollback_prediction", [&](const toml::node& n) {
          const std::string prediction = reader.text(n);
          if (prediction != "hold" && prediction != "exact") reader.fail("must be \"hold\" or \"exact\"");
          scene.rollbackHoldsInputs = prediction == "hold";
        });
        reader.on("parking_space", [&](const toml::node& n) {
          const std::vector<double> v = reader.numbers(n, 4, -1e4, 1e4);
          scene.parkingSpace = {v[0], v[1], v[2], v[3]};
          scene.hasParkingSpace = true;
        });
      } else {
        reader.on("type", [&](const toml::node& n) {
          const std::string type = reader.text(n);
          if (type == "plane") scene.ground = GroundType::Plane;
          else if (type == "incline") scene.ground = GroundType::Incline;
          else if (type == "track") scene.ground = GroundType::Track;
          else if (type == "heightfield") scene.ground = GroundType::Heightfield;
          else reader.fail("must be \"plane\", \"incline\", \"track\" or \"heightfield\"");
        });
        reader.on("friction", [&](const toml::node& n) { scene.friction = reader.number(n, 0, 10); });
        reader.on("slope_deg", [&](const toml::node& n) { scene.slopeDegrees = reader.number(n, -60, 60); });
        reader.on("obj", [&](const toml::node& n) { scene.trackObj = resolve(path, reader.text(n)); });
        reader.on("size", [&](const toml::node& n) { scene.heightfieldSize = reader.number(n, 1, 1e4); });
        reader.on("cell", [&](const toml::node& n) { scene.heightfieldCell = reader.number(n, 0.1, 100); });
        reader.on("amplitude", [&](const toml::node& n) { scene.heightfieldAmplitude = reader.number(n, 0, 100); });
        reader.on("wavelength", [&](const toml::node& n) { scene.heightfieldWavelength = reader.number(n, 1, 1e4); });
      }
      reader.read();
      if (section == "scene" && scene.rollbackEvery > 0 && scene.rollbackSteps >= scene.rollbackEvery)
        throw Error({path, line, "scene.rollback_steps"}, "must be fewer than rollback_every");
      // A heightfield holds (size / cell + 1)^2 heights; 4096 cells a side is 64 MiB already.
      if (section == "ground" && scene.ground == GroundType::Heightfield &&
          scene.heightfieldSize / scene.heightfieldCell > 4096)
        throw Error({path, line, "ground.cell"}, "size / cell must be at most 4096 cells a side");
    } else if (section == "surfaces") {
      if (!node.is_table()) throw Error({path, line, section}, "must be a table: [surfaces]");
      scene.surfacesLine = line;
      TableReader reader(path, section, *node.as_table());
      reader.on("materials", [&](const toml::node& n) {
        const toml::table* materials = n.as_table();
        if (!materials) reader.fail("expects a table of track object names and materials: { grass = 1 }");
        for (auto&& [name, material] : *materials)
          scene.objectMaterials.emplace_back(std::string(name.str()), int(reader.number(material, 0, 1e6)));
      });
      // Rows of [surface_id, material, value], the value within [0, highest].
      auto pairRows = [&](const toml::node& n, const char* value, double highest,
                          std::vector<SurfacePair>& pairs) {
        for (const std::vector<double>& row : reader.rows(n, 3)) {
          for (int i = 0; i < 2; ++i)
            if (row[size_t(i)] != std::floor(row[size_t(i)]))
              reader.fail(std::string("a row is [surface_id, material, ") + value + "]: the first two are integers");
          if (!(row[2] >= 0 && row[2] <= highest)) {
            std::ostringstream message;
            message << value << " must lie in [0, " << highest << "]";
            reader.fail(message.str());
          }
          pairs.push_back({int(row[0]), int(row[1]), row[2]});
        }
      };
      reader.on("friction", [&](const toml::node& n) { pairRows(n, "friction", 10, scene.surfaceFriction); });
      reader.on("rolling_resistance",
                [&](const toml::node& n) { pairRows(n, "rolling_resistance", 1, scene.surfaceRollingResistance); });
      reader.read();
    } else if (section == "vehicle") {
      const toml::array* records = node.as_array();
      if (!records || !records->is_array_of_tables())
        throw Error({path, line, section}, "must be records: [[vehicle]]");
      for (const toml::node& record : *records) {
        VehicleEntry entry;
        entry.line = int(record.source().begin.line);
        TableReader reader(path, "vehicle", *record.as_table(), true);
        reader.on("script", [&](const toml::node& n) { entry.script = resolve(path, reader.text(n)); });
        reader.on("position", [&](const toml::node& n) {
          const std::vector<double> v = reader.numbers(n, 3, -1e5, 1e5);
          // z is a height above the ground found below: a car placed under it would be thrown
          // out by Bullet's contacts (a truck at -0.5 m left at 4.8 m/s and jumped 0.7 m).
          if (v[2] < 0) reader.fail("z is the model origin's height above the ground, at least 0; got " + std::to_string(v[2]));
          entry.position = btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2]));
        });
        reader.on("heading_deg", [&](const toml::node& n) { entry.headingDegrees = reader.number(n, -360, 360); });
        reader.on("count", [&](const toml::node& n) { entry.count = int(reader.number(n, 1, 10000)); });
        reader.on("columns", [&](const toml::node& n) { entry.columns = int(reader.number(n, 1, 10000)); });
        reader.on("spacing", [&](const toml::node& n) {
          const std::vector<double> v = reader.numbers(n, 2, 0.5, 1e4);
          entry.spacing = {v[0], v[1]};
        });
        reader.on("driver", [&](const toml::node& n) {
          const std::string type = reader.text(n);
          if (type == "timeline") entry.driver = DriverType::Timeline;
          else if (type == "hold_speed") entry.driver = DriverType::HoldSpeed;
          else if (type == "follow_path") entry.driver = DriverType::FollowPath;
          else if (type == "parking") entry.driver = DriverType::Parking;
          else if (type == "drift") entry.driver = DriverType::Drift;
          else if (type == "constant_radius") entry.driver = DriverType::ConstantRadius;
          else if (type == "sine_with_dwell") entry.driver = DriverType::SineWithDwell;
          else reader.fail("must be \"timeline\", \"hold_speed\", \"follow_path\", \"parking\", \"drift\", \"constant_radius\" or \"sine_with_dwell\"");
        });
        reader.on("events", [&](const toml::node& n) {
          double previous = -1;
          for (const std::vector<double>& row : reader.rows(n, 5, 4)) {  // the handbrake: 0 / 1 or false / true
            if (row[0] <= previous) reader.fail("event times must increase");
            previous = row[0];
            entry.events.push_back({row[0], float(std::clamp(row[1], -1.0, 1.0)), float(std::clamp(row[2], 0.0, 1.0)),
                                    float(std::clamp(row[3], -1.0, 1.0)), row[4] != 0});
          }
        });
        reader.on("speed", [&](const toml::node& n) { entry.speed = reader.number(n, -100, 200); });
        reader.on("steer", [&](const toml::node& n) { entry.steer = reader.number(n, -1, 1); });
        reader.on("path", [&](const toml::node& n) {
          for (const std::vector<double>& row : reader.rows(n, 2)) entry.path.push_back({row[0], row[1]});
          if (entry.path.size() < 2) reader.fail("a path needs at least 2 points");
        });
        reader.on("lookahead", [&](const toml::node& n) { entry.lookahead = reader.number(n, 0.1, 100); });
        reader.on("lateral_g", [&](const toml::node& n) { entry.lateralG = reader.number(n, 0, 5); });
        reader.on("ghost", [&](const toml::node& n) { entry.ghost = reader.boolean(n); });
        reader.on("drift_angle_deg", [&](const toml::node& n) { entry.driftAngleDegrees = reader.number(n, -80, 80); });
        reader.on("drift_seconds", [&](const toml::node& n) { entry.driftSeconds = reader.number(n, 0, 600); });
        reader.on("radius", [&](const toml::node& n) { entry.radius = reader.number(n, 2, 10000); });
        reader.on("speed_step", [&](const toml::node& n) { entry.speedStep = reader.number(n, 0.01, 100); });
        reader.on("step_seconds", [&](const toml::node& n) { entry.stepSeconds = reader.number(n, 1, 600); });
        reader.on("amplitude_deg", [&](const toml::node& n) { entry.amplitudeDegrees = reader.number(n, -60, 60); });
        reader.on("esc", [&](const toml::node& n) { entry.esc = reader.boolean(n) ? 1 : 0; });
        reader.on("set", [&](const toml::node& n) {
          const toml::array* texts = n.as_array();
          if (!texts) reader.fail("expects an array of \"section.key=value\" strings");
          for (const toml::node& text : *texts) {
            try {
              entry.scriptOverrides.push_back(parseKeyOverride(reader.text(text)));
            } catch (const Error& error) {
              reader.fail(error.message());
            }
          }
        });
        reader.on("wheel_query", [&](const toml::node& n) {
          entry.wheelQuery = reader.text(n);
          if (entry.wheelQuery != "ray" && entry.wheelQuery != "sphere" && entry.wheelQuery != "cylinder")
            reader.fail("must be \"ray\", \"sphere\" or \"cylinder\"");
        });
        reader.read();
        if (entry.script.empty()) throw Error({path, entry.line, "vehicle.script"}, "a [[vehicle]] needs a script");
        if ((entry.driver == DriverType::FollowPath || entry.driver == DriverType::Parking) && entry.path.empty())
          throw Error({path, entry.line, "vehicle.path"}, "this driver needs a path");
        scene.vehicles.push_back(std::move(entry));
      }
    } else {
      throw Error({path, line, section}, "unknown section; known: [scene], [ground], [surfaces], [[vehicle]]");
    }
  }
  if (scene.vehicles.empty()) throw Error({path, 0, "vehicle"}, "the scene has no [[vehicle]]");
  if (scene.ground == GroundType::Track && scene.trackObj.empty())
    throw Error({path, 0, "ground.obj"}, "a track ground needs obj = \"...\"");
  if (!scene.objectMaterials.empty() && scene.ground != GroundType::Track)
    throw Error({path, scene.surfacesLine, "surfaces.materials"}, "names track objects: needs a track ground");
  return scene;
}

Scene loadScene(const std::string& path, const std::vector<KeyOverride>& overrides) {
  return parseScene(readTextFile(path, "scene file"), path, overrides);
}

}  // namespace raycar::sim

namespace raycar::sim {

std::vector<std::string> bundledSceneFolders() {
  std::vector<std::string> folders;
  for (const std::string& folder : bundledDataFolders()) folders.push_back(folder + "/scenes");
  return folders;
}

std::vector<std::string> bundledSceneNames() {
  std::vector<std::string> names;
  for (const std::string& folder : bundledSceneFolders()) {
    std::error_code error;
    for (std::filesystem::directory_iterator entry(folder, error), end; !error && entry != end;
         entry.increment(error)) {
      const std::filesystem::path& path = entry->path();
      if (path.extension() == ".toml") names.push_back(path.stem().string());
    }
  }
  // A name in two folders is found in the first (findScene); list it once.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string findScene(const std::string& argument) {
  // Anything readable but a folder (a file, a link to one, a pipe): a folder named as a bundled
  // scene (`raycar-sim drift --out drift` leaves one) had hidden the scene, opened as the file
  // and refused as a directory.
  auto readable = [](const std::string& path) {
    std::error_code error;
    return std::filesystem::exists(path, error) && !std::filesystem::is_directory(path, error);
  };
  if (readable(argument)) return argument;
  if (argument.find('/') == std::string::npos) {
    const bool hasSuffix = argument.size() > 5 && argument.compare(argument.size() - 5, 5, ".toml") == 0;
    const std::string file = hasSuffix ? argument : argument + ".toml";
    for (const std::string& folder : bundledSceneFolders())
      if (readable(folder + "/" + file)) return folder + "/" + file;
  }
  // A folder named on its own: the reader says what it is ("the path is a directory").
  std::error_code error;
  if (std::filesystem::exists(argument, error)) return argument;
  std::string searched;
  for (const std::string& folder : bundledSceneFolders()) searched += "\n  " + folder;
  std::string names;
  for (const std::string& name : bundledSceneNames()) names += (names.empty() ? "" : ", ") + name;
  throw Error({argument, 0, ""}, "no such scene file, nor a bundled scene of that name in:" + searched +
                                     "\n  (the bundled scenes: " + (names.empty() ? "none found" : names) + ")");
}

}  // namespace raycar::sim
