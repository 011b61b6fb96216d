#include "raycar/io/VehicleLoader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "io/NameSuggestion.h"
#include "io/VectorText.h"
#include "raycar/Error.h"
#include "raycar/io/MassProperties.h"
#include "raycar/tire/Tire.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/vehicle/Suspension.h"

namespace raycar {
namespace {

// m/s^2: the loader's checks and notes weigh a vehicle on Earth (the world's gravity is not
// known until the vehicle is built).
constexpr btScalar kEarthGravity = btScalar(9.81);

// `value` with `decimals` decimals, for the notes' figures.
std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// The model's axes: coordinates (right, forward, up) of a model point.
struct ModelFrame {
  btVector3 up, forward, right;
  explicit ModelFrame(const ChassisAxes& axes)
      : up(axes.up), forward(axes.forward), right(axes.forward.cross(axes.up)) {}
};

class Builder {
 public:
  Builder(const VehicleScript& script, const ObjModel& model)
      : script_(script), model_(model), frame_(script.modelAxes) {}

  LoadedVehicle build() {
    vehicle_.scriptPath = script_.path;
    vehicle_.modelPath = model_.path;
    vehicle_.settings = script_.settings;
    vehicle_.modelAxes = script_.modelAxes;
    vehicle_.chassis = script_.chassis;
    vehicle_.camera = script_.camera;
    findParts();
    computeMass();
    buildWheels();
    checkSupport();
    buildShapesAndVisuals();
    buildSuspensions();
    if (const ObjObject* eye = find("eye_pos")) {
      vehicle_.hasEye = true;
      vehicle_.eyePosition = toChassis(eye->centroid());
      eye_ = eye;
    }
    for (const ObjObject& object : model_.objects)
      if (!read_.count(&object)) vehicle_.ignoredObjects.push_back(object.name);
    const std::vector<SettingsProblem> problems = checkVehicleSettings(vehicle_.settings);
    if (!problems.empty()) {
      // Each problem at the key that set its member; the error at the first of them.
      std::vector<std::string> texts;
      ErrorLocation first;
      for (const SettingsProblem& problem : problems) {
        if (texts.empty()) first = placeOf(problem);
        texts.push_back(placedText(problem));
      }
      throw SettingsError(first, texts);
    }
    notePlausibility();
    noteModelPlacement();
    noteFacelessParts();
    return vehicle_;
  }

 private:
  mutable std::set<const ObjObject*> read_;  // the objects the vehicle was built from
  int lowestWheel_ = -1;      // the wheel whose tread reaches lowest along up, model frame
  btScalar lowestTread_ = 0;  // m, that tread along up from the model's origin
  const ObjObject* eye_ = nullptr;  // the eye_pos helper, if any

  struct HullPart {
    const ObjObject* mesh;
    const ObjObject* proxy;
    HullRecord record;
    std::vector<btVector3> vertices;       // offset by zoffset
    std::vector<btVector3> proxyVertices;
  };

  [[noreturn]] void modelError(const std::string& object, int line, const std::string& message) const {
    throw Error({model_.path, line, object}, message);
  }
  [[noreturn]] void scriptError(const std::string& object, int line, const std::string& message) const {
    throw Error({script_.path, line, object}, message);
  }

  // The model's object named `name`, recorded as read (LoadedVehicle::ignoredObjects lists the
  // others); nullptr if absent.
  const ObjObject* find(const std::string& name) const {
    const ObjObject* found = model_.find(name);
    if (found) read_.insert(found);
    return found;
  }
  const ObjObject* findEither(const std::string& a, const std::string& b) const {
    const ObjObject* found = find(a);
    return found ? found : find(b);
  }

  const ObjObject& helper(const std::string& name, const std::string& alternative,
                          const std::string& owner) const {
    if (const ObjObject* object = findEither(name, alternative)) return *object;
    if (const ObjModel::DroppedObject* dropped = droppedHelper(name, alternative))
      modelError(dropped->name, dropped->line, "helper of " + owner + whyNoVertex(*dropped));
    const bool lowerHelper = name.size() >= 6 && name.compare(name.size() - 6, 6, "_lower") == 0;
    // The helper has no line of its own; its wheel's, where the model has the wheel, says where
    // in the file to add it.
    const ObjObject* ownerObject = model_.find(owner);
    const std::string ownerPlace =
        ownerObject != nullptr && ownerObject->line > 0 ? " (" + owner + " is at line " + std::to_string(ownerObject->line) + ")" : "";
    modelError(name, 0, "helper of " + owner + ownerPlace + " is missing: add an object named '" + name +
                            "' (one vertex, an edge or a small mesh) " +
                            (lowerHelper ? "at the wheel's centre at rest"
                                         : "above the lower helper by the suspension's length at rest (len_initial)") +
                            nearestUnreadName(name, true) + legacyNameHint(name) + otherMissingHelpers(name));
  }

  // `prefix`, an optional '_', digits, then exactly `suffix`: wheel3, wheel_3_lower, hull2.
  static bool isNumberedName(const std::string& text, const std::string& prefix, const std::string& suffix) {
    if (text.rfind(prefix, 0) != 0) return false;
    size_t at = prefix.size();
    if (at < text.size() && text[at] == '_') ++at;
    const size_t digits = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    return at > digits && text.compare(at, std::string::npos, suffix) == 0;
  }

  // " (did you mean 'X'?)" for the model's object not read as anything that is nearest to the
  // missing `name` (a typo, "wheel 4" for "wheel4"), or "". A missing part is not offered a
  // helper (wheel3_lower for wheel3).
  std::string nearestUnreadName(const std::string& name, bool helperWanted) const {
    std::vector<std::string> candidates;
    for (const ObjObject& object : model_.objects) {
      const std::string& text = object.name;
      // Rightly named objects are no typos: another wheel's helper, or a part further on after
      // a gap (partCountError says so).
      const bool wellNamed = isNumberedName(text, "wheel", "_lower") || isNumberedName(text, "wheel", "_upper") ||
                             isNumberedName(text, "wheel", "") || isNumberedName(text, "hull", "") ||
                             isNumberedName(text, "hullproxy", "");
      if (read_.count(&object) || wellNamed) continue;
      const bool helperName = text.find("_low") != std::string::npos || text.find("_up") != std::string::npos;
      if (helperName == helperWanted) candidates.push_back(text);
    }
    return suggestion(name, candidates);
  }

  // The other wheel helpers the model lacks besides `first`, so that one export fixes them all;
  // and when it has none at all, not even named, the likely cause: Blender's own OBJ exporter
  // writes no Empties.
  std::string otherMissingHelpers(const std::string& first) const {
    std::string missing;
    int present = 0, named = 0;
    bool anyTaken = false;  // a helper whose vertices another object's faces use
    for (size_t i = 0; i < wheelObjects_.size(); ++i) {
      const std::string n = std::to_string(i + 1);
      for (const char* end : {"_upper", "_lower"}) {
        const std::string name = "wheel" + n + end;
        const ObjModel::DroppedObject* dropped = droppedHelper(name, "wheel_" + n + end);
        named += dropped != nullptr;
        if (model_.find(name) || model_.find("wheel_" + n + end)) {
          ++present;
        } else if (name != first) {
          missing += (missing.empty() ? "" : ", ") + name;
          if (dropped != nullptr) {
            missing += " (line " + std::to_string(dropped->line) +
                       (dropped->vertexLines > 0 ? ": its vertices are used by another object's faces)"
                                                 : ": no vertex under it)");
            anyTaken = anyTaken || dropped->vertexLines > 0;
          }
        }
      }
    }
    std::string text;
    if (!missing.empty()) text += "; also missing: " + missing;
    if (anyTaken) text += "; " + std::string(kTakenVertices);
    if (present == 0 && named == 0)
      text += "; the model has no wheel helper at all: Blender's own OBJ export does not write "
              "Empties, so make each helper a one-vertex mesh, or export with "
              "raycar's exporter, blender/export_raycar.py (share/raycar/blender when installed), "
              "which writes them";
    return text;
  }

  // A helper named in the file that holds no vertex of its own, or nullptr.
  const ObjModel::DroppedObject* droppedHelper(const std::string& name, const std::string& alternative) const {
    for (const ObjModel::DroppedObject& dropped : model_.droppedObjects)
      if (dropped.name == name || dropped.name == alternative) return &dropped;
    return nullptr;
  }
  // Why such a helper holds no vertex. With `v` lines under it that other objects' faces use, it
  // reads after an edit by hand that deleted an object's lines: the faces written after them still
  // count vertices from the top of the file, and now reach one line further down each, into the
  // next helper's vertex.
  static constexpr const char* kTakenVertices =
      "a helper whose vertices another object's faces use follows lines deleted above it by hand "
      "(faces written after them still count vertices from the top of the file): export the model "
      "again";
  static std::string whyNoVertex(const ObjModel::DroppedObject& dropped) {
    if (dropped.vertexLines > 0) return " holds no vertex of its own: " + std::string(kTakenVertices);
    return " has no vertex: write its `v` line(s) after its `o` statement (a `g` group's vertices "
           "written before the `g` line belong to the object before it)";
  }

  // Blender's legacy OBJ exporter names an object "<object>_<mesh>" when the two differ
  // (hull1_Cube). Where the wanted name appears so, the error says what was found and the fix.
  std::string legacyNameHint(const std::string& wanted) const {
    std::vector<std::string> found;
    for (const ObjObject& object : model_.objects) {
      // A wheel's helpers (wheel1_lower, wheel1_upper, or wheel1_lower_Vert from the same
      // exporter) are named so on purpose.
      const bool helperName = object.name.rfind(wanted + "_lower", 0) == 0 || object.name.rfind(wanted + "_upper", 0) == 0;
      if (object.name.rfind(wanted + "_", 0) == 0 && !helperName) found.push_back(object.name);
    }
    if (found.empty()) return "";
    // Blender's own exporter writes a space in a name as '_': "wheel4 " (a space typed after it)
    // comes out as "wheel4_", which is no legacy suffix.
    if (found.front() == wanted + "_")
      return "; found '" + found.front() + "': Blender's OBJ export writes a space in an object's name as '_', "
             "so the object is named '" + wanted + " ' (with a space after it) in Blender; rename it '" + wanted + "'";
    std::string text = "; found '" + found.front() + "'";
    if (found.size() > 1) text += " and " + std::to_string(found.size() - 1) + " more like it";
    return text + ": Blender's legacy OBJ exporter appends the mesh's name to the object's. Name "
                  "each mesh like its object, or export with Blender's File > Export > Wavefront "
                  "(.obj) (or raycar's blender/export_raycar.py, share/raycar/blender when installed), which "
                  "write object names alone";
  }

  // The model's object names, for an error that says what was found instead.
  std::string objectNames() const {
    std::string text;
    const size_t shown = std::min<size_t>(model_.objects.size(), 12);
    for (size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + model_.objects[i].name;
    if (model_.objects.size() > shown) text += ", ... (" + std::to_string(model_.objects.size()) + " in all)";
    return text;
  }

  // The model's parts `part`1..`part`N (N = modelCount) against the script's [[part]] records
  // (their lines): one record per part, in order. The error names the first part without a
  // record, or the first record without a part, and what the model has instead: a part further
  // on after a gap in the numbers, or an object named nearly so (another case, Blender's ".001"
  // of a duplicated object, the legacy exporter's "_<mesh>").
  [[noreturn]] void partCountError(const std::string& part, size_t modelCount,
                                   const std::vector<int>& recordLines) const {
    const std::string counted = "the model has " + std::to_string(modelCount) + " " + part + " part" +
                                (modelCount == 1 ? "" : "s") + " and the script " +
                                std::to_string(recordLines.size()) + " [[" + part + "]] record" +
                                (recordLines.size() == 1 ? "" : "s") + ": one record per part, in order";
    if (modelCount > recordLines.size()) {
      const std::string name = part + std::to_string(recordLines.size() + 1);
      const ObjObject* object = findEither(name, part + "_" + std::to_string(recordLines.size() + 1));
      modelError(object ? object->name : name, object ? object->line : 0,
                 "has no [[" + part + "]] record in " + script_.path + " (" + counted + ")");
    }
    const std::string number = std::to_string(modelCount + 1);
    const std::string missing = part + number, missingAlternative = part + "_" + number;
    std::string found;
    auto lower = [](std::string text) {
      for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
      return text;
    };
    // Blender's name for a copy: "<name>.001"; here of a part, "wheel1.001" or "wheel_1.001".
    auto copyOfPart = [&](const std::string& name) {
      size_t at = part.size();
      if (name.compare(0, at, part) != 0) return false;
      if (at < name.size() && name[at] == '_') ++at;
      const size_t digits = at;
      while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at]))) ++at;
      if (at == digits || at == name.size() || name[at] != '.') return false;
      const size_t suffix = ++at;
      while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at]))) ++at;
      return at > suffix && at == name.size();
    };
    for (const ObjObject& object : model_.objects) {
      const std::string name = lower(object.name);
      const bool nearly = name == missing || name == missingAlternative ||
                          name.rfind(missing + ".", 0) == 0 || name.rfind(missingAlternative + ".", 0) == 0;
      if (nearly || copyOfPart(name)) {
        found = "; found '" + object.name + "' at line " + std::to_string(object.line) + " of " + model_.path +
                (nearly ? ": name it '" + missing + "' exactly (names are case-sensitive, and Blender names a "
                          "duplicated object '<name>.001')"
                        : ": Blender's name for a copy of another part; name it '" + missing + "'");
        break;
      }
    }
    if (found.empty()) found = legacyNameHint(missing);
    if (found.empty()) found = nearestUnreadName(missing, false);
    if (found.empty()) {
      for (size_t n = modelCount + 2; n <= modelCount + 16 && found.empty(); ++n)
        if (const ObjObject* later = findEither(part + std::to_string(n), part + "_" + std::to_string(n)))
          found = "; the model has '" + later->name + "' (line " + std::to_string(later->line) +
                  "): parts are numbered from 1 without gaps, and those after a gap are not read";
    }
    scriptError("[[" + part + "]] record " + std::to_string(modelCount + 1), recordLines[modelCount],
                "has no part '" + missing + "' (or '" + missingAlternative + "') in the model " + model_.path +
                    " (" + counted + ")" + found);
  }

  std::vector<btVector3> shifted(const ObjObject& object, btScalar zoffset) const {
    std::vector<btVector3> vertices = object.vertices;
    for (btVector3& v : vertices) v += frame_.up * zoffset;
    return vertices;
  }

  void findParts() {
    for (int n = 1;; ++n) {
      const ObjObject* mesh = find("hull" + std::to_string(n));
      if (!mesh) break;
      hulls_.push_back(HullPart{mesh, find("hullproxy" + std::to_string(n)), {}, {}, {}});
    }
    if (hulls_.empty())
      modelError("hull1", 0, "the model has no hull parts: name them hull1, hull2, ... (its objects: " +
                                 objectNames() + ")" + legacyNameHint("hull1"));
    for (int n = 1;; ++n) {
      const ObjObject* wheel = findEither("wheel" + std::to_string(n), "wheel_" + std::to_string(n));
      if (!wheel) break;
      wheelObjects_.push_back(wheel);
    }
    if (wheelObjects_.empty())
      modelError("wheel1", 0, "the model has no wheels: name them wheel1, wheel2, ... (or wheel_1, ...) (its objects: " +
                                  objectNames() + ")" + legacyNameHint("wheel1"));
    if (script_.hulls.size() != hulls_.size()) {
      std::vector<int> lines;
      for (const HullRecord& record : script_.hulls) lines.push_back(record.line);
      partCountError("hull", hulls_.size(), lines);
    }
    if (script_.wheels.size() != wheelObjects_.size()) {
      std::vector<int> lines;
      for (const WheelRecord& record : script_.wheels) lines.push_back(record.line);
      partCountError("wheel", wheelObjects_.size(), lines);
    }
    for (size_t i = 0; i < hulls_.size(); ++i) {
      HullPart& part = hulls_[i];
      part.record = script_.hulls[i];
      part.vertices = shifted(*part.mesh, part.record.zoffset);
      if (part.proxy) part.proxyVertices = shifted(*part.proxy, part.record.zoffset);
    }
  }

  void computeMass() {
    std::vector<MassProperties> parts;
    for (HullPart& part : hulls_) {
      if (part.record.mass <= 0) continue;
      const std::string name = part.mesh->name;
      if (part.record.flags == 2)
        scriptError("hull " + name, part.record.line,
                    "has mass " + std::to_string(part.record.mass) + " kg but flags 2 (visible only, not physical)");
      const ObjObject& solid = part.proxy ? *part.proxy : *part.mesh;
      const std::vector<btVector3>& vertices = part.proxy ? part.proxyVertices : part.vertices;
      // Checked on the part as the file has it (before its zoffset), so that an edge the error
      // names is found at the coordinates it gives.
      const std::string problem = closedMeshProblem(solid.vertices, solid.triangles, solid.triangleLines);
      if (!problem.empty())
        modelError(solid.name, solid.line,
                   "carries mass (" + std::to_string(part.record.mass) + " kg) but its mesh " + problem +
                       "; parts with mass must be closed meshes");
      parts.push_back(solidMassProperties(vertices, solid.triangles, part.record.mass));
    }
    if (parts.empty()) {
      // At an override that set a mass to 0 (--set hull.mass=0), if one did: the file's records
      // may all have had their masses.
      ErrorLocation where{script_.path, script_.hulls.empty() ? 0 : script_.hulls.front().line, "hull"};
      for (const ScriptKeyPlace& place : script_.keyPlaces)
        if (place.section == "hull" && place.key == "mass" && place.file.rfind("--set", 0) == 0)
          where = {place.file, place.line, "hull.mass"};
      throw Error(where, "no [[hull]] record has mass > 0: the vehicle needs a mass");
    }
    MassProperties total = combineMassProperties(parts);
    // [params] chassis_inertia: the moments a game tunes (a mass box gives a car's mass but not
    // its yaw inertia: a trial's 1200 kg hatch had 772 kg m^2 where such a car has about 1700),
    // about the car's own axes through the centre of mass the parts give.
    const btVector3& moments = script_.chassis.inertia;
    if (!moments.isZero()) {
      const btMatrix3x3 carAxes(frame_.forward.x(), frame_.right.x(), frame_.up.x(),
                                frame_.forward.y(), frame_.right.y(), frame_.up.y(),
                                frame_.forward.z(), frame_.right.z(), frame_.up.z());
      total.inertia = carAxes.scaled(moments) * carAxes.transpose();
    }
    const PrincipalAxes axes = principalAxes(total.inertia);
    vehicle_.mass = total.mass;
    vehicle_.principalInertia = axes.moments;
    vehicle_.modelFromChassis = btTransform(axes.rotation, total.centerOfMass);
    chassisFromModel_ = vehicle_.modelFromChassis.inverse();
    // The chassis body's axes are the model's, seen from the principal frame.
    vehicle_.settings.axes.up = (chassisFromModel_.getBasis() * frame_.up).normalized();
    vehicle_.settings.axes.forward = (chassisFromModel_.getBasis() * frame_.forward).normalized();
  }

  btVector3 toChassis(const btVector3& modelPoint) const { return chassisFromModel_ * modelPoint; }

  void buildWheels() {
    struct WheelGeometry {
      btVector3 pivot;      // model frame
      btScalar restLength;  // len_initial
      btScalar radius, width;
      btVector3 centre;
    };
    std::vector<WheelGeometry> geometry;
    for (size_t i = 0; i < wheelObjects_.size(); ++i) {
      const ObjObject& wheel = *wheelObjects_[i];
      const std::string n = std::to_string(i + 1);
      const std::string owner = wheel.name;
      const ObjObject& lower = helper("wheel" + n + "_lower", "wheel_" + n + "_lower", owner);
      const ObjObject& upper = helper("wheel" + n + "_upper", "wheel_" + n + "_upper", owner);
      WheelGeometry g;
      // Seed 001: only the difference along up counts, whichever helper is higher.
      g.restLength = std::fabs((upper.centroid() - lower.centroid()).dot(frame_.up));
      g.pivot = lower.centroid() + frame_.up * g.restLength;
      btVector3 low(BT_LARGE_FLOAT, BT_LARGE_FLOAT, BT_LARGE_FLOAT), high = -low;
      for (const btVector3& v : wheel.vertices) {
        const btVector3 local(v.dot(frame_.right), v.dot(frame_.forward), v.dot(frame_.up));
        low.setMin(local);
        high.setMax(local);
      }
      const btVector3 middle = (low + high) / 2;
      g.centre = frame_.right * middle.x() + frame_.forward * middle.y() + frame_.up * middle.z();
      g.width = high.x() - low.x();
      g.radius = 0;
      for (const btVector3& v : wheel.vertices) {
        const btVector3 d = v - g.centre;
        g.radius = std::max(g.radius, std::sqrt(d.dot(frame_.forward) * d.dot(frame_.forward) +
                                                d.dot(frame_.up) * d.dot(frame_.up)));
      }
      if (!(g.radius > btScalar(1e-3)) || !(g.width > btScalar(1e-4)))
        modelError(wheel.name, wheel.line, "is not a wheel: its geometry has no radius or no width (a cylinder about the right axis)");
      // Beyond the settings' 10 m radius: the model is in another unit (a 0.3 m wheel made in
      // centimetres is 30 m; no road wheel is more than 2 m).
      if (g.radius > btScalar(10))
        modelError(wheel.name, wheel.line,
                   "has a radius of " + std::to_string(g.radius) + " m: raycar reads the model in metres, and this one "
                   "looks made in centimetres (or another unit); scale it to metres on export (Blender: Scale 0.01)");
      // Below the settings' 1 cm: a model in a larger unit (a 0.32 m wheel exported at scale 0.01).
      if (g.radius < btScalar(0.01))
        modelError(wheel.name, wheel.line,
                   "has a radius of " + std::to_string(g.radius) + " m: raycar reads the model in metres, and this one "
                   "looks scaled down (exported at a scale below 1, or made in a larger unit); scale it to metres on export");
      checkWheelShape(wheel, high - low, g.radius);
      checkHelpers(wheel, lower, upper, g.centre, g.radius, g.width);
      geometry.push_back(g);
    }
    // Each wheel's lowest point along up (m, model frame): its tread where it meets the ground.
    std::vector<btScalar> treads;
    for (const WheelGeometry& g : geometry) treads.push_back((g.centre - frame_.up * g.radius).dot(frame_.up));
    checkWheelsBelowHull(treads);
    if (!treads.empty()) {  // where the model's ground is (noteModelPlacement)
      lowestWheel_ = int(std::min_element(treads.begin(), treads.end()) - treads.begin());
      lowestTread_ = treads[size_t(lowestWheel_)];
    }
    // Wheels on one axle that almost mirror each other across the centre plane are made exact.
    for (size_t i = 0; i < geometry.size(); ++i) {
      for (size_t j = i + 1; j < geometry.size(); ++j) {
        if (script_.wheels[i].wheel.axle != script_.wheels[j].wheel.axle) continue;
        WheelGeometry& a = geometry[i];
        WheelGeometry& b = geometry[j];
        const btScalar rightA = a.pivot.dot(frame_.right), rightB = b.pivot.dot(frame_.right);
        const btVector3 mirrored = b.pivot - frame_.right * (2 * rightB);
        const btScalar tolerance = btScalar(0.05) + btScalar(0.05) * std::fabs(rightA);
        if ((a.pivot - mirrored).length() > tolerance || rightA * rightB >= 0) continue;
        const btScalar halfTrack = (std::fabs(rightA) + std::fabs(rightB)) / 2;
        const btScalar forward = (a.pivot.dot(frame_.forward) + b.pivot.dot(frame_.forward)) / 2;
        const btScalar up = (a.pivot.dot(frame_.up) + b.pivot.dot(frame_.up)) / 2;
        a.pivot = frame_.right * std::copysign(halfTrack, rightA) + frame_.forward * forward + frame_.up * up;
        b.pivot = frame_.right * std::copysign(halfTrack, rightB) + frame_.forward * forward + frame_.up * up;
        a.restLength = b.restLength = (a.restLength + b.restLength) / 2;
      }
    }
    // A wheel alone on its axle (a three-wheeler's) within the same 5 cm of the centre plane is
    // put on it: a Morgan-style trike whose one driven rear wheel sat 1 cm off spun itself round
    // at full throttle, where the centred one drives straight.
    for (size_t i = 0; i < geometry.size(); ++i) {
      bool alone = true;
      for (size_t j = 0; j < geometry.size() && alone; ++j)
        alone = j == i || script_.wheels[j].wheel.axle != script_.wheels[i].wheel.axle;
      const btScalar right = geometry[i].pivot.dot(frame_.right);
      if (alone && std::fabs(right) <= btScalar(0.05)) geometry[i].pivot -= frame_.right * right;
    }
    checkTireAxles();
    for (size_t i = 0; i < geometry.size(); ++i) {
      WheelSettings wheel = script_.wheels[i].wheel;
      wheel.attachmentPoint = toChassis(geometry[i].pivot);
      wheel.suspensionRestLength = geometry[i].restLength;
      wheel.radius = geometry[i].radius;
      wheel.width = geometry[i].width;
      wheel.tire = tireFor(wheel.axle);
      vehicle_.settings.wheels.push_back(wheel);
      MeshPart mesh{wheelObjects_[i]->name, {}, wheelObjects_[i]->triangles};
      for (const btVector3& v : wheelObjects_[i]->vertices)
        mesh.vertices.push_back(chassisFromModel_.getBasis() * (v - geometry[i].centre));
      vehicle_.wheelMeshes.push_back(std::move(mesh));
    }
  }

  // The wheels must carry the weight without pulling: a centre of mass outside their support (a
  // mass part placed wrong, a wheel left out) would only be found when the vehicle is made, as
  // a settings error naming no line, where automatic rates need the static loads. Found here, it
  // names the script's wheel records.
  void checkSupport() const {
    // Only where the vehicle will need its static loads: automatic spring or damper rates, or a
    // tire whose reference load comes from them (as VehicleRuntime decides). A model with its
    // rates set (a trailer on one axle, a single-track vehicle) carries no such rule.
    if (!needsStaticLoads(vehicle_.settings)) return;
    const std::vector<SupportPoint> support = supportPoints(vehicle_.settings);
    try {
      staticWheelLoads(support, btScalar(vehicle_.mass) * kEarthGravity);
    } catch (const SettingsError& error) {
      std::string problems;
      for (const std::string& problem : error.problems()) problems += (problems.empty() ? "" : "; ") + problem;
      scriptError("[[wheel]] records", script_.wheels.empty() ? 0 : script_.wheels.front().line,
                  problems + whereCentreOfMassLies(support) +
                      " (the centre of mass comes from the [[hull]] records' masses and zoffsets and "
                      "their parts' meshes; the wheels' places from the model's wheelN_lower helpers)" +
                      (standsOnALine(support) ? kOneLineHint : ""));
    }
  }

  // Wheels on one axle, or in single file, hold a vehicle up only with help (a trailer's hitch):
  // the static loads, which the automatic rates and the notes below start from, are then the
  // helper's business, and the script must say the rates itself.
  static constexpr const char* kOneLineHint =
      "; the wheels stand on one line (one axle, or in single file): such a vehicle, a trailer on "
      "one axle, stands only when something else carries part of it (its hitch), so the loader "
      "cannot share its weight among the wheels; give each [[wheel]] record its stiffness (N/m) "
      "and damping (N s/m), and each [[tire]] a reference_load (N), which then need no static loads";
  // "; the centre of mass lies 0.050 m ahead of the front-most wheel" where it lies ahead of,
  // behind or beside every wheel: the figure a modeller moves a mass part by.
  static std::string whereCentreOfMassLies(const std::vector<SupportPoint>& points) {
    btScalar front = -BT_LARGE_FLOAT, rear = BT_LARGE_FLOAT, right = -BT_LARGE_FLOAT, left = BT_LARGE_FLOAT;
    for (const SupportPoint& point : points) {
      front = std::max(front, point.forward);
      rear = std::min(rear, point.forward);
      right = std::max(right, point.right);
      left = std::min(left, point.right);
    }
    // Support points are measured from the centre of mass: a front-most wheel behind it (< 0)
    // leaves the centre of mass ahead of every wheel.
    if (front < 0) return "; the centre of mass lies " + fixed(-front, 3) + " m ahead of the front-most wheel";
    if (rear > 0) return "; the centre of mass lies " + fixed(rear, 3) + " m behind the rearmost wheel";
    if (right < 0) return "; the centre of mass lies " + fixed(-right, 3) + " m right of every wheel";
    if (left > 0) return "; the centre of mass lies " + fixed(left, 3) + " m left of every wheel";
    return "";
  }

  static bool standsOnALine(const std::vector<SupportPoint>& points) {
    if (points.empty()) return true;
    const SupportPoint& first = points.front();
    btScalar farthest = 0, alongForward = 0, alongRight = 0;  // m, from the first point
    for (const SupportPoint& point : points) {
      const btScalar forward = point.forward - first.forward, right = point.right - first.right;
      const btScalar distance = std::sqrt(forward * forward + right * right);
      if (distance > farthest) {
        farthest = distance;
        alongForward = forward / distance;
        alongRight = right / distance;
      }
    }
    for (const SupportPoint& point : points) {  // off that line by more than a millimetre
      const btScalar off = (point.forward - first.forward) * alongRight - (point.right - first.right) * alongForward;
      if (std::fabs(off) > btScalar(1e-3)) return false;
    }
    return true;
  }

  // LoadedVehicle::warnings about where the model stands. A model stands on its ground at the
  // origin (up = 0) at rest, as a scene's position and placeModel put it: modelled around its
  // middle, a hatchback spawned with its wheels 0.5 m into the ground and was thrown 0.9 m up.
  // Its chase camera's pivot sits behind it: more than a metre ahead of the centre of mass, the
  // script's forward is the model's back (the car then drives tail first and steers with its
  // rear wheels).
  // Parts that are shown but have no faces draw nothing: a shown hull (flags 1 or 2) or a wheel
  // made of vertices or edges alone (a wheel's radius and width then come from its vertices).
  void noteFacelessParts() {
    auto note = [&](const ObjObject& object, const std::string& what) {
      vehicle_.warnings.push_back(Error({model_.path, object.line, object.name}, what).what());
    };
    for (const HullPart& part : hulls_)
      if (part.record.flags != 0 && part.mesh->triangles.empty())
        note(*part.mesh, "is shown (flags " + std::to_string(part.record.flags) + ") but has no faces: nothing of it is drawn");
    for (const ObjObject* wheel : wheelObjects_)
      if (wheel->triangles.empty())
        note(*wheel, "has no faces: nothing of it is drawn, and its radius and width come from its vertices alone");
  }

  void noteModelPlacement() {
    if (lowestWheel_ >= 0) {
      const btScalar tolerance = std::max(btScalar(0.02), btScalar(0.1) * vehicle_.settings.wheels[size_t(lowestWheel_)].radius);
      if (std::fabs(lowestTread_) > tolerance) {
        const ObjObject& wheel = *wheelObjects_[size_t(lowestWheel_)];
        vehicle_.warnings.push_back(
            Error({model_.path, wheel.line, wheel.name},
                  "its tread, the lowest of the wheels', is " + fixed(std::fabs(lowestTread_), 3) + " m " +
                      (lowestTread_ < 0 ? "below" : "above") +
                      " the model's origin along up: a model stands on the ground at its origin (up = 0) at "
                      "rest, as a scene's position and placeModel put it; move the model (or its origin) so "
                      "that the wheels stand on that plane")
                .what());
      }
    }
    // Across the ground too: a scene's position and placeModel put the model's origin there, and
    // tilt the model to the ground's slope about it. A car modelled 47 m from its origin had
    // started 47 m from its place, and on a hill 4 m under the terrain.
    if (!vehicle_.settings.wheels.empty()) {
      btVector3 middle(0, 0, 0), low(BT_LARGE_FLOAT, BT_LARGE_FLOAT, BT_LARGE_FLOAT), high = -low;
      for (const WheelSettings& wheel : vehicle_.settings.wheels) {
        const btVector3 pivot = vehicle_.modelFromChassis * wheel.attachmentPoint;
        const btVector3 ground = pivot - frame_.up * pivot.dot(frame_.up);
        middle += ground / btScalar(vehicle_.settings.wheels.size());
        low.setMin(ground);
        high.setMax(ground);
      }
      const btScalar spread = std::max(btScalar(1), (high - low).length());  // m: the wheels' footprint
      if (middle.length() > spread) {
        const ObjObject& wheel = *wheelObjects_.front();
        vehicle_.warnings.push_back(
            Error({model_.path, wheel.line, wheel.name},
                  "the wheels' middle is " + fixed(middle.length(), 3) + " m from the model's origin across the "
                      "ground, beyond the wheels' own spread (" + fixed(spread, 3) + " m): a scene's position "
                      "and placeModel put the model's origin there and tilt the car to the ground's slope about "
                      "it, so the car starts that far off, and on a slope above or under the ground; move the "
                      "model (or its origin) to the car's middle")
                .what());
      }
    }
    if (eye_ != nullptr) {
      const btScalar ahead = vehicle_.eyePosition.dot(vehicle_.settings.axes.forward);  // m
      if (ahead > btScalar(1)) {  // m: a camera beside the car (a side view) is no sign
        vehicle_.warnings.push_back(
            Error({model_.path, eye_->line, eye_->name},
                  "is " + fixed(ahead, 3) + " m ahead of the centre of mass along the script's forward: the chase "
                  "camera sits behind the car, so is forward the model's back? The car would drive tail "
                  "first" + axesHint())
                .what());
      }
    }
  }

  // A LoadedVehicle::warnings entry placed at the key that set `field` (placeOf).
  void noteAt(FieldScope scope, int index, const std::string& object, const std::string& field,
              const std::string& message) {
    vehicle_.warnings.push_back(placedText({object, field, message, scope, index}));
  }

  // A note's phrase for wheel `index`'s given damping (N s/m) when it is under 5% of `critical`
  // (N s/m, at the load `atLoad` says), else "": a damping of 0.8 meant as 80% (which is -0.8)
  // is 0.8 N s/m.
  static std::string weakDamping(size_t index, btScalar damping, btScalar critical, const char* atLoad) {
    if (!(damping > 0) || !(damping < btScalar(0.05) * critical)) return "";
    return "wheel " + std::to_string(index + 1) + "'s damping " + fixed(damping, 2) + " N s/m is " +
           fixed(100 * damping / critical, 2) + "% of critical (" + fixed(critical, 0) + " N s/m " + atLoad +
           "): it rings on its spring; a damping <= 0 is a share of critical (-0.8: 80%)";
  }

  // LoadedVehicle::warnings about each wheel's tire, spring and damper at its static load
  // (`loads`, N, at 9.81 m/s^2).
  void noteLoadedParts(const std::vector<btScalar>& loads) {
    const VehicleSettings& settings = vehicle_.settings;
    const btScalar gravity = kEarthGravity;
    // Per axle, its weakest wheel: one note for each tire that is wrong for its load.
    std::map<int, int> weakestOnAxle;
    std::map<int, btScalar> weakestFactor;
    for (size_t i = 0; i < settings.wheels.size(); ++i) {
      const TireSettings& tire = settings.wheels[i].tire;
      if (!(tire.loadSensitivity > 0) || !(tire.referenceLoad > 0)) continue;
      const btScalar factor = loadSensitivityFactor(tire.loadSensitivity, loads[i], tire.referenceLoad);
      const int axle = settings.wheels[i].axle;
      if (factor < btScalar(0.8) && (!weakestFactor.count(axle) || factor < weakestFactor[axle])) {
        weakestFactor[axle] = factor;
        weakestOnAxle[axle] = int(i);
      }
    }
    for (const auto& [axle, index] : weakestOnAxle) {
      const TireSettings& tire = settings.wheels[size_t(index)].tire;
      noteAt(FieldScope::Tire, index, "wheel " + std::to_string(index + 1) + " tire", "referenceLoad",
           "grips with " + fixed(weakestFactor[axle], 2) + " of its friction at rest: its static load " +
               fixed(loads[size_t(index)], 0) + " N is " + fixed(loads[size_t(index)] / tire.referenceLoad, 1) +
               " times the tire's reference_load " + fixed(tire.referenceLoad, 0) + " N (load_sensitivity " +
               fixed(tire.loadSensitivity, 2) + ": mu (1 - k (N / N_ref - 1))); set reference_load to the "
               "tire's nominal load, near the static load, or 0 for each wheel's static load");
    }
    // A given spring rate that cannot carry its wheel within its travel is an error when the car
    // is built, at the world's gravity; here, at the key, with Earth's.
    for (const SettingsProblem& problem : springsShortOfTheirLoads(settings.wheels, loads)) {
      noteAt(problem.scope, problem.index, "", problem.field,
           problem.object + " at 9.81 m/s^2: " + problem.message + "; building the car is then an error");
      vehicle_.springRatePlaces.push_back(placeOf({problem.object, problem.field, problem.message, problem.scope, problem.index}));
    }
    // Per axle, its first wheel whose given spring rate rests it away from where the model
    // stands (more than 2 cm, and more than a quarter of the modelled sag), and whose given
    // damping is under 5% of critical: a damping of 0.8 meant as 80% (which is -0.8) is 0.8 N s/m.
    std::set<int> heightNoted, dampingNoted;
    for (size_t i = 0; i < settings.wheels.size(); ++i) {
      const WheelSettings& wheel = settings.wheels[i];
      const btScalar modelledSag = wheel.suspensionMaxLength - wheel.suspensionRestLength;  // m
      const btScalar stiffness = resolveSuspensionRates(wheel, loads[i], gravity).stiffness;  // N/m
      if (wheel.stiffness > 0 && !heightNoted.count(wheel.axle)) {
        const btScalar sag = loads[i] / wheel.stiffness;
        const btScalar off = sag - modelledSag;  // m, > 0: lower than modelled
        if (sag <= wheel.suspensionMaxLength && std::fabs(off) > std::max(btScalar(0.02), btScalar(0.25) * modelledSag)) {
          heightNoted.insert(wheel.axle);
          noteAt(FieldScope::Wheel, int(i), "", "stiffness",
               "wheel " + std::to_string(i + 1) + " rests " + fixed(std::fabs(off), 3) + " m " +
                   (off > 0 ? "lower" : "higher") + " than modelled: stiffness " + fixed(wheel.stiffness, 0) +
                   " N/m sags " + fixed(sag, 3) + " m under its static load of " + fixed(loads[i], 0) +
                   " N, where the model's helpers give len_max - len_initial = " + fixed(modelledSag, 3) +
                   " m (stiffness 0 sets the rate that rests it as modelled)");
        }
      }
      if (!dampingNoted.count(wheel.axle) && loads[i] > 0) {
        const std::string weak = weakDamping(i, wheel.damping, criticalDamping(stiffness, loads[i] / gravity),
                                             "for its spring and load");
        if (!weak.empty()) {
          dampingNoted.insert(wheel.axle);
          noteAt(FieldScope::Wheel, int(i), "", "damping", weak);
        }
      }
    }
  }

  // LoadedVehicle::warnings when the wheels alone cannot hold the vehicle up (`error`, from
  // staticWheelLoads) and every rate is given: what the loader could not check, and how far the
  // springs carry the whole weight, which a trailer's axle carries when its hitch carries
  // nothing (less with the centre of mass ahead of the axle, more behind it).
  void noteUndefinedLoads(const SettingsError& error, const std::vector<SupportPoint>& support) {
    const VehicleSettings& settings = vehicle_.settings;
    const btScalar weight = btScalar(vehicle_.mass) * kEarthGravity;  // N
    const btScalar share = weight / btScalar(settings.wheels.size());  // N a wheel
    std::string text;
    for (const std::string& problem : error.problems()) text += (text.empty() ? "" : "; ") + problem;
    text += ", so the loader does not check the springs' rest height and travel, the dampers, the tires' "
            "reference load or the brakes against the wheels' loads";
    if (standsOnALine(support))
      text += " (the wheels stand on one line: a trailer on one axle stands only when its hitch carries part "
              "of it)";
    text += "; with all of its " + fixed(weight, 0) + " N on its wheels, each would carry " + fixed(share, 0) + " N";
    std::set<int> notedAxles;  // each axle's first wheel speaks for it, as in noteLoadedParts
    for (size_t i = 0; i < settings.wheels.size(); ++i) {
      const WheelSettings& wheel = settings.wheels[i];
      if (!notedAxles.insert(wheel.axle).second) continue;
      const btScalar holds = wheel.stiffness * wheel.suspensionMaxLength;  // N within its travel
      if (holds < share)
        text += "; wheel " + std::to_string(i + 1) + "'s stiffness " + fixed(wheel.stiffness, 0) +
                " N/m holds at most " + fixed(holds, 0) + " N within len_max " + fixed(wheel.suspensionMaxLength, 3) +
                " m before its bump stop";
      // At the whole share; critical damping goes with the square root of the load, so a hitch
      // carrying a tenth of it raises the share by 5% only.
      const std::string weak =
          weakDamping(i, wheel.damping, criticalDamping(wheel.stiffness, share / kEarthGravity), "at that load");
      if (!weak.empty()) text += "; " + weak;
    }
    vehicle_.warnings.push_back(
        Error({script_.path, script_.wheels.empty() ? 0 : script_.wheels.front().line, "[[wheel]] records"}, text)
            .what());
  }

  // LoadedVehicle::warnings. Each threshold is far outside what a road vehicle's own parts give,
  // so that a bundled car warns of nothing: a tire keeps at least 80% of its friction at its
  // static load; the wheels' spin inertia (I / R^2 each, as mass) is at most a fifth of the car's
  // mass (a car's 4 x 1 kg m^2 on 0.3 m wheels is 44 kg, 3%); the footbrake reaches half a g.
  void notePlausibility() {
    const VehicleSettings& settings = vehicle_.settings;
    const btScalar gravity = kEarthGravity;
    const btScalar mass = btScalar(vehicle_.mass);
    const std::vector<SupportPoint> support = supportPoints(settings);
    std::vector<btScalar> loads;
    try {
      loads = staticWheelLoads(support, mass * gravity);
    } catch (const SettingsError& error) {
      // Reached only with every rate given (checkSupport stops a script that needs the loads).
      noteUndefinedLoads(error, support);  // `loads` stays empty
    }
    if (!loads.empty()) noteLoadedParts(loads);
    // A steering lock that falls with speed to nothing within road speeds (max_steer_v0 + kv v,
    // held at 0 beyond): above that speed the car cannot steer at all. kv = -2 deg per m/s on
    // v0 = 20 deg had left a car that drove straight on from 10 m/s without a word.
    const SteeringSettings& steering = settings.steering;
    if (steering.maxSteerV0 > 0 && steering.maxSteerKv < 0) {
      const btScalar noSteering = -steering.maxSteerV0 / steering.maxSteerKv;  // m/s
      if (noSteering < btScalar(70))
        noteAt(FieldScope::Vehicle, -1, "steering", "steering.maxSteerKv",
               "the steering lock max_steer_v0 + max_steer_kv x v falls to 0 at " + fixed(noSteering, 1) + " m/s (" +
                   fixed(noSteering * btScalar(3.6), 0) + " km/h): above that speed the car cannot steer at all");
    }
    btScalar spinMass = 0;  // kg
    for (const WheelSettings& wheel : settings.wheels) spinMass += wheel.spinInertia / (wheel.radius * wheel.radius);
    if (spinMass > btScalar(0.2) * mass) {
      noteAt(FieldScope::Wheel, 0, "", "spinInertia",
           "the wheels' spin_inertia adds " + fixed(spinMass, 0) + " kg (the sum of spin_inertia / radius^2) to the car's " +
               fixed(mass, 0) + " kg whenever it speeds up or brakes; a wheel of mass m and radius R has about "
               "0.6 m R^2 (a 20 kg car wheel of 0.3 m: 1.1 kg m^2; the default, 1 kg m^2, is such a wheel's)");
    }
    // Driving wheels need an engine that gives torque: a trailer's wheels drive nothing.
    int firstDriving = -1;
    for (size_t i = 0; i < settings.wheels.size() && firstDriving < 0; ++i)
      if (settings.wheels[i].driving) firstDriving = int(i);
    if (firstDriving >= 0 && !(peakEngineTorque(settings.engine) > 0)) {
      const bool sine = settings.engine.model == EngineModel::PowerSine;
      noteAt(FieldScope::Vehicle, -1, "engine", sine ? "engine.power" : "engine.torqueCurve",
             "gives no torque (" + std::string(sine ? "engine_power 0 W" : "a torque_curve of 0 N m") +
                 "), yet wheel " + std::to_string(firstDriving + 1) +
                 " is a driving wheel (driving = 1): the vehicle cannot drive itself; a towed vehicle's "
                 "wheels are driving = 0");
    }
    // A differential that locks ties its axle's wheels together: on an axle with one driving
    // wheel (a three-wheeler's) there is nothing to tie, and its type changes nothing.
    for (size_t d = 0; d < settings.differentials.size(); ++d) {
      const DifferentialSettings& differential = settings.differentials[d];
      if (differential.type == DifferentialType::Open) continue;
      int drivingWheels = 0;
      for (const WheelSettings& wheel : settings.wheels) drivingWheels += wheel.driving && wheel.axle == differential.axle;
      if (drivingWheels == 1)
        noteAt(FieldScope::Differential, int(d), "differential " + std::to_string(d + 1) + " (axle " +
                   std::to_string(differential.axle) + ")", "type",
               "locks the wheels of its axle together, but the axle drives one wheel: with nothing to lock "
               "it to, the type changes nothing (an open differential drives a lone wheel the same)");
    }
    // A vehicle that stands only with help (a trailer) brakes with its helper's brakes too.
    if (loads.empty()) return;
    int frontWheels = 0;
    for (const SupportPoint& point : support) frontWheels += point.forward > 0;
    const int rearWheels = int(support.size()) - frontWheels;
    btScalar brakeForce = 0;  // N at full pedal, as torque over radius
    for (size_t i = 0; i < settings.wheels.size(); ++i)
      brakeForce += footbrakeTorque(settings.brakes, 1, support[i].forward > 0, frontWheels, rearWheels) /
                    settings.wheels[i].radius;
    const btScalar deceleration = brakeForce / (mass * gravity);  // g
    if (deceleration < btScalar(0.5)) {
      noteAt(FieldScope::Vehicle, -1, "brakes", "brakes.brakeTorque",
           "the footbrake stops the car at no more than " + fixed(deceleration, 2) + " g (brake_torque " +
               fixed(settings.brakes.brakeTorque, 0) + " N m a wheel against " + fixed(mass, 0) +
               " kg); a road vehicle's brakes lock its wheels, about 0.8 g: brake_torque near 0.8 m g R / wheels");
    }
  }

  // "+x", "-z", ... for a model axis (the script's own spelling), else the vector.
  static std::string axisName(const btVector3& axis) {
    static const char* names[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i)
      if (std::fabs(std::fabs(axis[i]) - 1) < btScalar(1e-6)) return std::string(axis[i] > 0 ? "+" : "-") + names[i];
    return vectorText(axis);
  }
  std::string axesHint() const {
    return "; is the script's [model] up = \"" + axisName(frame_.up) + "\", forward = \"" + axisName(frame_.forward) +
           "\" how the model was exported? (Blender's own OBJ export, Y up and -Z forward, is up = \"+y\", "
           "forward = \"+z\"; raycar's blender/export_raycar.py writes up = \"+z\", forward = \"-y\")";
  }

  // A wheel is a cylinder about the model's right axis: as long along forward as along up (its
  // diameter), within a fifth (a low-poly hexagon's flats and corners differ by 13%). A wheel
  // left standing, turned along the car, or read with the wrong axes is not, and would be taken
  // with the wrong radius and width (0.32 m and 0.60 m for a 0.30 m wheel 0.22 m wide).
  //
  // As round within its outline: its farthest point from the axle (the radius the wheel is
  // taken with) at most 15% beyond half its mean diameter (a hexagon's corners are 7% beyond):
  // a box as a wheel (as long as it is high) had been taken with half its diagonal for its
  // radius, and the car stood cross-loaded on it. And no wider than 1.5 times its diameter: two
  // wheels in one object (a Mirror modifier across the car) had been taken as one 1.8 m wide.
  void checkWheelShape(const ObjObject& wheel, const btVector3& extent, btScalar radius) const {  // (right, forward, up), m
    const btScalar along = extent.y(), up = extent.z();
    if (std::fabs(along - up) > btScalar(0.2) * std::max(along, up))
      modelError(wheel.name, wheel.line,
                 "is not round about the model's right axis: " + std::to_string(along) + " m along forward (" +
                     axisName(frame_.forward) + ") against " + std::to_string(up) + " m along up (" + axisName(frame_.up) +
                     "), " + std::to_string(extent.x()) + " m wide; a wheel is a cylinder whose axis is the car's right "
                     "axis (is it rotated?)" + axesHint());
    const btScalar halfDiameter = (along + up) / 4;
    if (radius > btScalar(1.15) * halfDiameter)
      modelError(wheel.name, wheel.line,
                 "is not round: its farthest point is " + std::to_string(radius) + " m from its axle, against half its "
                     "diameter, " + std::to_string(halfDiameter) + " m (a box? a wheel is a cylinder about the car's right "
                     "axis, its outline a circle or a polygon of at least six sides)");
    if (extent.x() > btScalar(1.5) * 2 * radius)
      modelError(wheel.name, wheel.line,
                 "is " + std::to_string(extent.x()) + " m wide against a diameter of " + std::to_string(2 * radius) +
                     " m: a wheel object holds one wheel (are two wheels one object, mirrored across the car? give "
                     "each its own object, wheelN, with its own helpers)");
  }

  // The helpers give the wheel's centre at rest (the lower one) and its suspension's length
  // (their distance along up): the lower helper must sit at the wheel's centre, and the two must
  // be apart along up. Helpers apart only across it mean other axes than the script's; helpers
  // that coincide, or a lower helper off the wheel, leave the car standing on its bump stops or
  // tilted.
  void checkHelpers(const ObjObject& wheel, const ObjObject& lower, const ObjObject& upper,
                    const btVector3& centre, btScalar radius, btScalar width) const {
    const btVector3 apart = upper.centroid() - lower.centroid();
    const btScalar alongUp = std::fabs(apart.dot(frame_.up));
    if (!(alongUp > btScalar(1e-3))) {
      const std::string where = "'" + upper.name + "' (line " + std::to_string(upper.line) + ") and '" + lower.name +
                                "' (line " + std::to_string(lower.line) + ")";
      if (apart.length() > btScalar(1e-3))
        modelError(wheel.name, wheel.line,
                   "its helpers " + where + " are " + std::to_string(apart.length()) + " m apart but not along the "
                   "model's up axis (" + axisName(frame_.up) + "), so its suspension would have no length" + axesHint());
      modelError(wheel.name, wheel.line,
                 "its helpers " + where + " are at one place, so its suspension would have no length (len_initial 0): "
                 "put the upper helper above the lower one by the suspension's travel at rest");
    }
    // Across the axle only: a wheel mesh with a hub or brake disc on one side has its middle off
    // the helper along the axle, which tilts nothing.
    const btVector3 offset = lower.centroid() - centre;
    const btScalar offCentre = (offset - frame_.right * offset.dot(frame_.right)).length();
    const btScalar allowed = std::max(btScalar(0.02), btScalar(0.1) * radius);
    if (offCentre > allowed)
      modelError(wheel.name, wheel.line,
                 "its lower helper '" + lower.name + "' (line " + std::to_string(lower.line) + ") is " +
                     std::to_string(offCentre) + " m from the wheel's centre (more than " + std::to_string(allowed) +
                     " m): the lower helper marks where the wheel's centre is at rest; move it, or the wheel, there");
    // Along the axle, within the wheel's own width: the wheel is placed at the helper, and one
    // 0.3 m outboard of its mesh had put the wheel outside the body and pulled the car 3.4 deg
    // off its line in 3 s.
    const btScalar alongAxle = std::fabs(offset.dot(frame_.right));
    const btScalar allowedAlong = std::max(btScalar(0.02), width / 2);
    if (alongAxle > allowedAlong)
      modelError(wheel.name, wheel.line,
                 "its lower helper '" + lower.name + "' (line " + std::to_string(lower.line) + ") is " +
                     std::to_string(alongAxle) + " m from the wheel's centre along its axle, beyond half its width (" +
                     std::to_string(allowedAlong) + " m): the wheel is placed at the helper, so the helper must be "
                     "on it; move it, or the wheel, there");
  }

  // The wheels carry the car from below: a model whose every wheel's lowest point lies above the
  // middle of its hulls along the script's up axis is upside down in the script's axes.
  void checkWheelsBelowHull(const std::vector<btScalar>& treads) const {
    btScalar low = BT_LARGE_FLOAT, high = -BT_LARGE_FLOAT;
    for (const HullPart& part : hulls_)
      for (const btVector3& v : part.vertices) {
        low = std::min(low, v.dot(frame_.up));
        high = std::max(high, v.dot(frame_.up));
      }
    if (!(high >= low)) return;
    const btScalar middle = (low + high) / 2;
    for (const btScalar tread : treads)
      if (!(tread > middle)) return;
    const ObjObject& first = *wheelObjects_.front();
    modelError(first.name, first.line,
               "every wheel's lowest point is above the middle of the hull along the model's up axis (" +
                   axisName(frame_.up) + "): the car stands upside down in the script's axes" + axesHint());
  }

  // Every axle a [[tire]] record names has wheels, and no axle is named by two records: a record
  // for an axle the car lacks (a typo, a script copied from a truck) had been ignored without a
  // word, its wheels left on the default tire (the sedan's understeer gradient 1.04 -> 0.04
  // deg/g), and of two records naming one axle the first had silently won.
  void checkTireAxles() const {
    std::vector<int> axles;  // the axles the wheels are on
    for (const WheelRecord& wheel : script_.wheels)
      if (std::find(axles.begin(), axles.end(), wheel.wheel.axle) == axles.end()) axles.push_back(wheel.wheel.axle);
    std::sort(axles.begin(), axles.end());
    std::string known;
    for (const int axle : axles) known += (known.empty() ? "" : ", ") + std::to_string(axle);
    std::map<int, size_t> claimed;  // axle -> the record naming it
    for (size_t i = 0; i < script_.tires.size(); ++i) {
      const TireRecord& record = script_.tires[i];
      const ErrorLocation where = tireAxlesPlace(i);
      for (const int axle : record.axles) {
        if (std::find(axles.begin(), axles.end(), axle) == axles.end())
          throw Error(where, "names axle " + std::to_string(axle) + ", but the wheels are on axle" +
                                 (axles.size() == 1 ? " " : "s ") + known);
        const auto [previous, added] = claimed.emplace(axle, i);
        if (!added)
          throw Error(where, "names axle " + std::to_string(axle) + ", which [[tire]] record " +
                                 std::to_string(previous->second + 1) + " (line " +
                                 std::to_string(script_.tires[previous->second].line) +
                                 ") already gives a tire: each axle's tire is one record's");
      }
    }
  }

  // Where [[tire]] record `record`'s `axles` key was written (its record's line if not found).
  ErrorLocation tireAxlesPlace(size_t record) const {
    for (const ScriptKeyPlace& place : script_.keyPlaces)
      if (place.section == "tire" && place.record == int(record) && place.key == "axles")
        return {place.file, place.line, "tire.axles"};
    return {script_.path, script_.tires[record].line, "[[tire]] " + std::to_string(record + 1)};
  }

  // The [[tire]] record a wheel on `axle` uses: the one naming the axle, else the last one for
  // every axle; -1 when none applies (the default tire).
  int tireRecordFor(int axle) const {
    int everyAxle = -1;
    for (size_t i = 0; i < script_.tires.size(); ++i) {
      const TireRecord& record = script_.tires[i];
      if (record.axles.empty()) everyAxle = int(i);
      if (std::find(record.axles.begin(), record.axles.end(), axle) != record.axles.end()) return int(i);
    }
    return everyAxle;
  }

  TireSettings tireFor(int axle) const {
    const int record = tireRecordFor(axle);
    return record >= 0 ? script_.tires[size_t(record)].tire : TireSettings{};
  }

  // A settings problem as "FILE:LINE: object: message", placed by placeOf; placed at the
  // problem's object itself (no key set it), the object is said once.
  std::string placedText(const SettingsProblem& problem) const {
    const ErrorLocation place = placeOf(problem);
    return Error(place, place.object == problem.object ? problem.message : problem.text()).what();
  }

  // Where the script set what a settings problem is about: the key that last wrote its member
  // in the record (or table) the problem concerns; else that record's line; else the file.
  ErrorLocation placeOf(const SettingsProblem& problem) const {
    std::string section;  // "": any table section
    int record = -1;      // -2: any record of `section`
    const bool ofWheel = problem.index >= 0 && size_t(problem.index) < vehicle_.settings.wheels.size();
    if ((problem.scope == FieldScope::Wheel || problem.scope == FieldScope::Tire) && !ofWheel)
      return {script_.path, 0, problem.object};
    switch (problem.scope) {
      case FieldScope::Vehicle:
        break;
      case FieldScope::Wheel:
        section = "wheel";
        record = problem.index;
        break;
      case FieldScope::Tire:
        section = "tire";
        record = tireRecordFor(vehicle_.settings.wheels[size_t(problem.index)].axle);
        if (record < 0) return {script_.path, 0, problem.object};  // the default tire
        break;
      case FieldScope::Differential:
        section = "differential";
        record = problem.index >= 0 ? problem.index : -2;
        break;
    }
    auto writes = [](const ScriptKeyPlace& place, const std::string& field) {
      if (place.key.empty() || field.empty() || place.member.empty()) return false;
      return place.member == field || place.member.compare(0, field.size() + 1, field + ".") == 0;
    };
    // The key that set the problem's member; if the file left it at its default, the key that set
    // the first member the rule compares it with (a maxRpm set below the default idleRpm).
    std::vector<std::string> fields{problem.field};
    fields.insert(fields.end(), problem.comparedFields.begin(), problem.comparedFields.end());
    const ScriptKeyPlace* found = nullptr;
    const ScriptKeyPlace* recordLine = nullptr;
    auto inScope = [&](const ScriptKeyPlace& place) {
      return section.empty() ? place.record < 0 : place.section == section && (record == -2 || place.record == record);
    };
    // An override (--set) that wrote any member the rule compares is what made the problem: a
    // max rpm set below the file's idle rpm is placed at the override, not at the idle key.
    for (const std::string& field : fields)
      for (const ScriptKeyPlace& place : script_.keyPlaces)
        if (inScope(place) && place.file.rfind("--set", 0) == 0 && writes(place, field)) found = &place;
    for (const std::string& field : fields) {
      if (found) break;
      for (const ScriptKeyPlace& place : script_.keyPlaces) {
        if (!inScope(place)) continue;
        if (place.key.empty() && recordLine == nullptr) recordLine = &place;
        if (writes(place, field)) found = &place;  // the last write is the one that counts
      }
    }
    if (found) return {found->file, found->line, found->section + "." + found->key};
    if (recordLine) return {script_.path, recordLine->line, "[[" + section + "]] " + std::to_string(recordLine->record + 1)};
    return {script_.path, 0, problem.object};
  }

  void buildShapesAndVisuals() {
    bool proxySeen = false;
    for (const HullPart& part : hulls_) {
      const bool physical = part.record.flags != 2;
      // Seed 001: after the first part with a hullproxy, parts without one do not collide.
      bool collides = physical && (part.proxy != nullptr || !proxySeen);
      if (part.proxy) proxySeen = true;
      if (collides) {
        MeshPart hull{part.proxy ? part.proxy->name : part.mesh->name, {}, {}};
        for (const btVector3& v : part.proxy ? part.proxyVertices : part.vertices) hull.vertices.push_back(toChassis(v));
        vehicle_.collisionHulls.push_back(std::move(hull));
      }
      if (part.record.flags != 0) {
        MeshPart visual{part.mesh->name, {}, part.mesh->triangles};
        for (const btVector3& v : part.vertices) visual.vertices.push_back(toChassis(v));
        vehicle_.visualParts.push_back(std::move(visual));
      }
    }
    if (vehicle_.collisionHulls.empty())
      scriptError("hull", 0, "no hull part collides: give at least one part flags 0 or 1");
  }

  void buildSuspensions() {
    std::vector<const ObjObject*> parts;
    std::vector<std::string> prefixes;
    for (int n = 1;; ++n) {
      const std::string a = "susp" + std::to_string(n), b = "sus_" + std::to_string(n);
      const ObjObject* part = findEither(a, b);
      if (!part) break;
      parts.push_back(part);
      prefixes.push_back(part->name + "_");
    }
    for (size_t k = 0; k < parts.size(); ++k) {
      SuspensionPart suspension;
      suspension.mesh.name = parts[k]->name;
      suspension.mesh.triangles = parts[k]->triangles;
      for (const btVector3& v : parts[k]->vertices) suspension.mesh.vertices.push_back(toChassis(v));
      int ends = 0;
      for (const ObjObject& object : model_.objects) {
        if (object.name.compare(0, prefixes[k].size(), prefixes[k]) != 0) continue;
        read_.insert(&object);
        const std::string target = object.name.substr(prefixes[k].size());
        SuspensionPart::End end;
        end.point = toChassis(object.centroid());
        if (target == "hull") {
          end.anchor = SuspensionPart::Anchor::Hull;
        } else if (target.compare(0, 5, "wheel") == 0 || target.compare(0, 4, "susp") == 0 ||
                   target.compare(0, 4, "sus_") == 0) {
          const bool wheel = target[0] == 'w';
          const size_t digits = target.find_first_of("0123456789");
          // At most four digits: a longer number names no wheel (and would overflow an int).
          int index = 0;
          if (digits != std::string::npos) {
            const size_t digitsEnd = std::min(target.find_first_not_of("0123456789", digits), target.size());
            if (digitsEnd - digits <= 4) index = std::stoi(target.substr(digits, digitsEnd - digits));
          }
          const size_t count = wheel ? wheelObjects_.size() : parts.size();
          if (index < 1 || size_t(index) > count || (!wheel && size_t(index - 1) == k))
            modelError(object.name, object.line, "end helper of " + parts[k]->name + " names no " +
                                                     (wheel ? "wheel" : "other suspension part") + " of the model");
          end.anchor = wheel ? SuspensionPart::Anchor::Wheel : SuspensionPart::Anchor::Suspension;
          end.index = index - 1;
        } else {
          modelError(object.name, object.line, "end helper of " + parts[k]->name +
                                                   " must target hull, wheelN or suspN");
        }
        if (ends < 2) suspension.ends[ends] = end;
        ++ends;
      }
      if (ends != 2)
        modelError(parts[k]->name, parts[k]->line, "needs exactly two end helpers (" + prefixes[k] + "hull, " +
                                                       prefixes[k] + "wheel1, " + prefixes[k] +
                                                       "susp2, ...); found " + std::to_string(ends));
      vehicle_.suspensions.push_back(std::move(suspension));
    }
    // Ends may hang on other suspension parts, but not in a circle.
    std::vector<int> state(vehicle_.suspensions.size(), 0);  // 0 new, 1 visiting, 2 done
    std::function<void(size_t)> visit = [&](size_t k) {
      if (state[k] == 2) return;
      if (state[k] == 1) modelError(parts[k]->name, parts[k]->line, "suspension parts hang on each other in a circle");
      state[k] = 1;
      for (const SuspensionPart::End& end : vehicle_.suspensions[k].ends)
        if (end.anchor == SuspensionPart::Anchor::Suspension) visit(size_t(end.index));
      state[k] = 2;
    };
    for (size_t k = 0; k < vehicle_.suspensions.size(); ++k) visit(k);
  }

  const VehicleScript& script_;
  const ObjModel& model_;
  ModelFrame frame_;
  LoadedVehicle vehicle_;
  std::vector<HullPart> hulls_;
  std::vector<const ObjObject*> wheelObjects_;
  btTransform chassisFromModel_ = btTransform::getIdentity();
};

}  // namespace

LoadedVehicle buildVehicle(const VehicleScript& script, const ObjModel& model) {
  return Builder(script, model).build();
}

LoadedVehicle loadVehicle(const std::string& scriptPath, const std::vector<KeyOverride>& overrides) {
  const VehicleScript script = loadVehicleScript(scriptPath, overrides);
  std::string text;
  try {
    text = readTextFile(script.objPath, "OBJ file");
  } catch (const Error& error) {  // named at the key that gave the path (the script's line, or its --set)
    const ScriptKeyPlace* key = scriptKeyPlace(script, "model", "obj");
    throw Error({key ? key->file : scriptPath, key ? key->line : 0, "model.obj"},
                error.message() + " " + script.objPath);
  }
  return buildVehicle(script, parseObjModel(text, script.objPath));
}

}  // namespace raycar
