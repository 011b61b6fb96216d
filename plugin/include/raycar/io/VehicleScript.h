#pragma once
// The vehicle script: TOML with CryEngine's key names (seed 001), case-insensitive, plus sections
// for what seed 004 adds. One table (scriptKeys()) maps every key to its settings field, type,
// unit, default and valid range; it drives parsing, validation and the README's reference.
//
//   [model]        obj, up, forward
//   [[hull]]       one record per hullN of the model, in order: flags, mass, zoffset
//   [[wheel]]      one record per wheelN: driving, axle, len_max, stiffness, damping, surface_id,
//                  can_brake, min_friction, max_friction (+ steering, spin_inertia)
//   [params]       every seed 001 parameter by its own name (engine_power, gears, cam_*, ...)
//   [engine] [gearbox] [brakes] [assists] [aero] [steering] [solver]
//   [[differential]] per driven axle; [[tire]] per group of axles
// Errors name the file, the line and the key: unknown keys and sections (with the nearest known
// name), wrong types, values out of range. Nothing falls back silently to a default.

#include <string>
#include <vector>

#include "raycar/extras/ChaseCamera.h"
#include "raycar/io/KeyOverride.h"
#include "raycar/vehicle/SettingsFields.h"
#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

struct HullRecord {
  int line = 0;
  int flags = 1;        // 0 invisible + physical, 1 visible + physical, 2 visible only
  btScalar mass = 0;    // kg
  btScalar zoffset = 0;  // m along the model's up axis
};

struct WheelRecord {
  int line = 0;
  WheelSettings wheel;  // what the record sets; geometry comes from the model
};

struct TireRecord {
  int line = 0;
  std::vector<int> axles;  // the axles whose wheels use this tire; empty: every axle
  TireSettings tire;
};

// Seed 001's parameters for the chassis' "driving" state; applied to the chassis body when a
// vehicle is spawned (VehicleLoader).
struct ChassisParams {
  btScalar damping = 0;          // damping_vehicle (1/s): linear velocity damping while driving
  btScalar sleepSpeed = 0.04;    // sleep_speed_vehicle (m/s): Bullet's linear sleeping threshold
  btScalar maxTimeStep = 0.02;   // max_time_step_vehicle (s): the largest step the scene runner takes
  int integrationType = 1;       // integration_type: 0 explicit damper, 1 implicit (semi-implicit Euler)
  btScalar enginePowerBack = 0;  // engine_power_back: no longer used (seed 001), accepted
  btScalar brakeVelocityThreshold = 0;  // brake_vel_threshold: obsolete (seed 001), accepted
  btScalar brakeAxleFriction = 0;       // brake_axle_friction: obsolete (seed 001), accepted
  // chassis_inertia (kg m^2): the chassis' moments about its forward, right and up axes through
  // the centre of mass (roll, pitch, yaw), in place of the parts' meshes'; (0, 0, 0): the meshes'.
  btVector3 inertia{0, 0, 0};
};

// Where a key was written, so that a rule broken between settings members (idle above max rpm,
// min above max friction) is reported at the key that set the member.
struct ScriptKeyPlace {
  std::string section;  // "params", "wheel", ...
  int record = -1;      // its record among the section's [[...]] records, from 0; -1 in a table
  std::string key;      // as written; "" for the [[record]] line itself
  int line = 0;
  std::string member;   // the settings member it writes ("maxFriction", "engine.idleRpm"), or ""
  std::string file;     // where it was written: the script, or the --set override that wrote it
                        // ("--set <override> (<script>)", line 0)
};

struct VehicleScript {
  std::string path;           // the script file
  std::string objPath;        // [model] obj, resolved against the script's folder
  ChassisAxes modelAxes;      // the model's up and forward axes ([model] up, forward)
  std::vector<HullRecord> hulls;
  std::vector<WheelRecord> wheels;
  std::vector<TireRecord> tires;
  VehicleSettings settings;   // everything but the wheels, which the loader builds
  ChassisParams chassis;
  ChaseCameraSettings camera;
  std::vector<ScriptKeyPlace> keyPlaces;  // every key read, in file order within its table
};

// `overrides` set keys as if the file had them (KeyOverride.h); an error in one names it.
VehicleScript loadVehicleScript(const std::string& path, const std::vector<KeyOverride>& overrides = {});
VehicleScript parseVehicleScript(const std::string& text, const std::string& path,
                                 const std::vector<KeyOverride>& overrides = {});

// Where a table key (`section`.`key`, not a [[record]]'s) was written, in the script or by an
// override; null when neither wrote it (the key kept its default).
const ScriptKeyPlace* scriptKeyPlace(const VehicleScript& script, const std::string& section, const std::string& key);

// The key table, for documentation.
enum class ScriptValueType { Number, Integer, Boolean, Text, NumberList, IntegerList, Vector3, PointList };
struct ScriptKeyInfo {
  std::string section;     // "params", "wheel", "engine", ... ([[x]] records: "hull", "wheel", ...)
  std::string name;
  ScriptValueType type;
  std::string unit;
  std::string defaultValue;  // as TOML
  std::string range;         // human-readable
  std::string meaning;
  double minimum = 0;        // the range's ends (numbers, integers and list elements)
  double maximum = 0;
  const SettingsField* field = nullptr;  // the settings number the key writes, if it writes one
};
std::vector<ScriptKeyInfo> scriptKeyReference();
// The reference as a Markdown table (the README's script reference).
std::string scriptReferenceMarkdown();

}  // namespace raycar
