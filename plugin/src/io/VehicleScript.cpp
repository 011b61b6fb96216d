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

#include "raycar/Error.h"
#include "raycar/vehicle/SettingsFields.h"

namespace raycar {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPositive = kFieldPositive;  // "greater than 0" as an inclusive lower bound

// A TOML value in the shape its key expects.
struct Value {
  double number = 0;
  long long integer = 0;
  bool boolean = false;
  std::string text;
  std::vector<double> list;
  std::vector<std::array<double, 2>> points;
  btVector3 vector{0, 0, 0};
};

// What a key writes into: the script, and the record being read for [[...]] sections.
struct Target {
  VehicleScript& script;
  HullRecord* hull = nullptr;
  WheelRecord* wheel = nullptr;
  TireRecord* tire = nullptr;
  DifferentialSettings* differential = nullptr;
};

// A value the key accepts by type and range but not by meaning (an unknown enum text, 9 gears).
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Setter = void (*)(Target&, const Value&);

struct Key {
  // A key of the script's own: the model, hull records, chassis and camera parameters, lists,
  // texts and switches.
  Key(const char* section, const char* name, ScriptValueType type, const char* unit, double minimum,
      double maximum, const char* defaultValue, const char* meaning, Setter apply)
      : section(section), name(name), type(type), unit(unit), minimum(minimum), maximum(maximum),
        defaultValue(defaultValue), meaning(meaning), apply(apply) {}
  // A key that is a settings number: its type, unit and range are the field's row
  // (SettingsFields.h), the one rule the C++ API is checked against too, and its default is the
  // default-constructed settings' value (the objects a script is read into start as those).
  Key(const char* section, const char* name, FieldScope scope, const char* fieldName,
      const char* meaning)
      : section(section), name(name), defaultValue(""), meaning(meaning),
        field(findSettingsField(scope, fieldName)) {
    if (!field)
      throw std::logic_error(std::string("script key ") + section + "." + name +
                             " names no settings field " + fieldName);
    type = field->integer ? ScriptValueType::Integer : ScriptValueType::Number;
    unit = field->unit;
    minimum = field->minimum;
    maximum = field->maximum;
  }

  const char* section;
  const char* name;
  ScriptValueType type = ScriptValueType::Number;
  const char* unit = "";
  double minimum = 0;  // inclusive, for numbers, integers and every element of lists
  double maximum = 0;
  const char* defaultValue;  // TOML literal, applied before the file is read ("" for field keys)
  const char* meaning;
  Setter apply = nullptr;
  const SettingsField* field = nullptr;  // set: the key writes this settings number
};

// The settings objects a key of the record being read can write.
FieldOwners ownersOf(Target& target) {
  return FieldOwners{&target.script.settings, target.wheel ? &target.wheel->wheel : nullptr,
                     target.tire ? &target.tire->tire : nullptr, target.differential};
}

void applyKey(const Key& key, Target& target, const Value& value) {
  if (!key.field) return key.apply(target, value);
  key.field->bind(ownersOf(target)).set(key.field->integer ? double(value.integer) : value.number);
}

using T = ScriptValueType;
#define SET(expression) [](Target & t, const Value& v) { (void)t; (void)v; expression; }

// A tabulated curve replaces the Magic Formula; `slipScale` converts the file's slip unit.
void setCurvePoints(FrictionCurveSettings& curve, const std::vector<std::array<double, 2>>& points,
                    double slipScale) {
  if (points.empty()) return;
  curve.form = FrictionCurveSettings::Form::Points;
  curve.points.clear();
  for (const auto& p : points) curve.points.push_back(CurvePoint{btScalar(p[0] * slipScale), btScalar(p[1])});
}

// Keys, sections and axis names are case-insensitive.
std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

btVector3 axisFromText(const std::string& text) {
  const std::string name = lower(text);
  const btScalar sign = !name.empty() && name[0] == '-' ? -1 : 1;
  const char axis = name.empty() ? ' ' : name.back();
  if ((name.size() == 2 && (name[0] == '+' || name[0] == '-')) || name.size() == 1) {
    if (axis == 'x') return btVector3(sign, 0, 0);
    if (axis == 'y') return btVector3(0, sign, 0);
    if (axis == 'z') return btVector3(0, 0, sign);
  }
  throw Rejected("must be an axis: +x, -x, +y, -y, +z or -z");
}

SteerMode steerModeFromText(const std::string& text) {
  if (text == "auto") return SteerMode::Automatic;
  if (text == "steered") return SteerMode::Steered;
  if (text == "fixed") return SteerMode::Fixed;
  throw Rejected("must be \"auto\", \"steered\" or \"fixed\"");
}

const std::vector<Key>& keys() {
  static const std::vector<Key> table = {
      // [model]
      {"model", "obj", T::Text, "path", 0, 0, "\"\"", "the OBJ model, relative to the script",
       SET(t.script.objPath = v.text)},
      {"model", "up", T::Text, "axis", 0, 0, "\"+z\"", "the model's up axis (CryEngine: +z)",
       SET(t.script.modelAxes.up = axisFromText(v.text))},
      {"model", "forward", T::Text, "axis", 0, 0, "\"+y\"", "the model's forward axis (CryEngine: +y)",
       SET(t.script.modelAxes.forward = axisFromText(v.text))},
      // [[hull]]
      {"hull", "flags", T::Integer, "", 0, 2, "1", "0 invisible and physical, 1 visible and physical, 2 visible only",
       SET(t.hull->flags = int(v.integer))},
      {"hull", "mass", T::Number, "kg", 0, 1e7, "0", "mass of the part (its mesh must be closed)",
       SET(t.hull->mass = btScalar(v.number))},
      {"hull", "zoffset", T::Number, "m", -1, 1, "0", "shift of the part along the model's up axis; further, a part sits in the ground",
       SET(t.hull->zoffset = btScalar(v.number))},
      // [[wheel]]
      {"wheel", "driving", T::Boolean, "0/1", 0, 1, "0", "the engine drives this wheel",
       SET(t.wheel->wheel.driving = v.boolean)},
      {"wheel", "axle", FieldScope::Wheel, "axle",
       "axle number: anti-roll and snapping act per axle"},
      {"wheel", "len_max", FieldScope::Wheel, "suspensionMaxLength",
       "relaxed suspension length"},
      {"wheel", "stiffness", FieldScope::Wheel, "stiffness",
       "spring rate; 0: rests the spring at len_initial"},
      {"wheel", "damping", FieldScope::Wheel, "damping",
       "damper rate; <= 0: that fraction of critical"},
      {"wheel", "surface_id", FieldScope::Wheel, "surfaceId",
       "the tire's surface identifier (carried for the game)"},
      {"wheel", "can_brake", T::Boolean, "0/1", 0, 1, "1", "the handbrake locks this wheel",
       SET(t.wheel->wheel.canBrake = v.boolean)},
      {"wheel", "min_friction", FieldScope::Wheel, "minFriction",
       "lower clamp of (tire + ground) / 2"},
      {"wheel", "max_friction", FieldScope::Wheel, "maxFriction",
       "upper clamp of (tire + ground) / 2"},
      {"wheel", "steering", T::Text, "", 0, 0, "\"auto\"", "\"auto\" (ahead of the centre of mass), \"steered\" or \"fixed\"",
       SET(t.wheel->wheel.steering = steerModeFromText(v.text))},
      {"wheel", "spin_inertia", FieldScope::Wheel, "spinInertia",
       "wheel's moment of inertia about its axle"},
      // [params]: seed 001, by its own names
      {"params", "engine_power", FieldScope::Vehicle, "engine.power",
       "peak power of the sine engine"},
      {"params", "engine_power_back", T::Number, "W", 0, 1e8, "0", "no longer used (seed 001); accepted",
       SET(t.script.chassis.enginePowerBack = btScalar(v.number))},
      {"params", "gears", T::NumberList, "", -100, 100, "[-3.2, 0, 3.2, 2.1, 1.45, 1.1, 0.87]",
       "gear ratios: reverse (< 0), neutral (0), forward; at most 8",
       SET({
         if (v.list.size() > size_t(kMaxGears))
           throw Rejected("has " + std::to_string(v.list.size()) + " ratios; at most 8 (reverse, neutral, 6 forward)");
         if (v.list.size() < 3) throw Rejected("needs reverse, neutral and at least one forward ratio");
         if (!(v.list[0] < 0)) throw Rejected("the first ratio (reverse) must be negative");
         if (v.list[1] != 0) throw Rejected("the second ratio (neutral) must be 0");
         for (size_t i = 2; i < v.list.size(); ++i)
           if (!(v.list[i] > 0)) throw Rejected("forward ratio " + std::to_string(i - 1) + " must be > 0");
         t.script.settings.gearbox.gears.assign(v.list.begin(), v.list.end());
       })},
      {"params", "engine_maxRPM", FieldScope::Vehicle, "engine.maxRpm",
       "no power at and above it"},
      {"params", "engine_minRPM", FieldScope::Vehicle, "engine.minRpm",
       "below it, throttle closed, the clutch opens"},
      {"params", "engine_idleRPM", FieldScope::Vehicle, "engine.idleRpm",
       "engine speed when idle"},
      {"params", "engine_startRPM", FieldScope::Vehicle, "engine.startRpm",
       "set when a gear is engaged from neutral"},
      {"params", "engine_shiftupRPM", FieldScope::Vehicle, "gearbox.shiftUpRpm",
       "automatic upshift above it"},
      {"params", "engine_shiftdownRPM", FieldScope::Vehicle, "gearbox.shiftDownRpm",
       "automatic downshift below it"},
      {"params", "clutch_speed", FieldScope::Vehicle, "gearbox.clutchSpeed",
       "clutch re-engages in 1 / clutch_speed s"},
      {"params", "gear_dir_switch_RPM", FieldScope::Vehicle, "gearbox.gearDirectionSwitchRpm",
       "wheel speed below which forward and reverse swap"},
      {"params", "axle_friction", FieldScope::Vehicle, "brakes.axleFriction",
       "torque always against each wheel's spin"},
      {"params", "brake_torque", FieldScope::Vehicle, "brakes.brakeTorque",
       "footbrake torque per wheel at full input"},
      {"params", "slip_threshold", FieldScope::Vehicle, "friction.slipThreshold",
       "a contact sliding faster than this slips"},
      {"params", "dyn_friction_ratio", FieldScope::Vehicle, "friction.dynamicFrictionRatio",
       "friction factor while slipping (Coulomb rows)"},
      {"params", "max_braking_friction", FieldScope::Vehicle, "friction.maxBrakingFriction",
       "friction cap on handbraked wheels"},
      {"params", "max_steer", FieldScope::Vehicle, "steering.maxSteer",
       "largest steer angle"},
      {"params", "max_steer_v0", FieldScope::Vehicle, "steering.maxSteerV0",
       "> 0: largest steer angle is v0 + kv x speed"},
      {"params", "max_steer_kv", FieldScope::Vehicle, "steering.maxSteerKv",
       "speed term of the largest steer angle"},
      {"params", "steer_speed", FieldScope::Vehicle, "steering.steerSpeed",
       "steering rate"},
      {"params", "steer_speed_valScale", FieldScope::Vehicle, "steering.steerSpeedValScale",
       "steering rate factor at full lock"},
      {"params", "steer_speed_min", FieldScope::Vehicle, "steering.steerSpeedMin",
       "lower bound of the steering rate"},
      {"params", "steer_relaxation_v0", FieldScope::Vehicle, "steering.steerRelaxationV0",
       "return-to-centre rate at standstill"},
      {"params", "steer_relaxation_kv", FieldScope::Vehicle, "steering.steerRelaxationKv",
       "speed term of the return rate"},
      {"params", "brake_vel_threshold", T::Number, "", -kInf, kInf, "0", "obsolete (seed 001); accepted",
       SET(t.script.chassis.brakeVelocityThreshold = btScalar(v.number))},
      {"params", "brake_axle_friction", T::Number, "", -kInf, kInf, "0", "obsolete (seed 001); accepted",
       SET(t.script.chassis.brakeAxleFriction = btScalar(v.number))},
      {"params", "max_steering_pedal", FieldScope::Vehicle, "steering.maxSteeringPedal",
       "pedal cap at full lock above pedal_limit_speed"},
      {"params", "pedal_limit_speed", FieldScope::Vehicle, "steering.pedalLimitSpeed",
       "speed above which the pedal cap applies"},
      {"params", "pedal_speed", FieldScope::Vehicle, "steering.pedalSpeed",
       "pedal change rate; 0: immediate"},
      {"params", "max_time_step_vehicle", T::Number, "s", 1e-4, 1, "0.02", "largest step the scene runner takes",
       SET(t.script.chassis.maxTimeStep = btScalar(v.number))},
      {"params", "sleep_speed_vehicle", T::Number, "m/s", 0, 100, "0.04", "chassis sleeps below this speed",
       SET(t.script.chassis.sleepSpeed = btScalar(v.number))},
      {"params", "damping_vehicle", T::Number, "1/s", 0, 100, "0", "linear velocity damping of the chassis",
       SET(t.script.chassis.damping = btScalar(v.number))},
      {"params", "stabilizer", FieldScope::Vehicle, "stabilizer",
       "anti-roll per axle"},
      {"params", "integration_type", T::Integer, "", 0, 1, "1", "0 explicit damper, 1 implicit damper",
       SET({
         t.script.chassis.integrationType = int(v.integer);
         t.script.settings.solver.implicitDamper = v.integer == 1;
       })},
      {"params", "cam_stiffness_positive", T::Vector3, "1/s^2", 0, 1e6, "[0, 0, 0]", "camera spring per axis (x, y, z) for positive offsets; 0: fixed",
       SET(t.script.camera.stiffnessPositive = v.vector)},
      {"params", "cam_stiffness_negative", T::Vector3, "1/s^2", 0, 1e6, "[0, 0, 0]", "camera spring per axis for negative offsets; 0: fixed",
       SET(t.script.camera.stiffnessNegative = v.vector)},
      {"params", "cam_limits_positive", T::Vector3, "m", 0, 1e3, "[1, 1, 1]", "largest positive camera offset per axis",
       SET(t.script.camera.limitsPositive = v.vector)},
      {"params", "cam_limits_negative", T::Vector3, "m", 0, 1e3, "[1, 1, 1]", "largest negative camera offset per axis",
       SET(t.script.camera.limitsNegative = v.vector)},
      {"params", "cam_damping", T::Number, "1/s", 0, 1e4, "0", "uniform camera damping",
       SET(t.script.camera.damping = btScalar(v.number))},
      {"params", "cam_max_timestep", T::Number, "s", kPositive, 1, "0.02", "longest camera integration step",
       SET(t.script.camera.maxTimeStep = btScalar(v.number))},
      {"params", "cam_snap_dist", T::Number, "m", 0, 1e3, "0", "camera snaps to the pivot within this distance ...",
       SET(t.script.camera.snapDistance = btScalar(v.number))},
      {"params", "cam_snap_vel", T::Number, "m/s", 0, 1e3, "0", "... and this relative speed",
       SET(t.script.camera.snapVelocity = btScalar(v.number))},
      // [engine] (seed 004)
      {"engine", "model", T::Text, "", 0, 0, "\"sine\"", "\"sine\" (CryEngine power curve) or \"curve\" (torque_curve)",
       SET({
         if (v.text == "sine") t.script.settings.engine.model = EngineModel::PowerSine;
         else if (v.text == "curve") t.script.settings.engine.model = EngineModel::TorqueCurve;
         else throw Rejected("must be \"sine\" or \"curve\"");
       })},
      {"engine", "torque_curve", T::PointList, "[rev/min, N m]", 0, 1e6, "[]", "torque against engine speed, rpm increasing",
       SET({
         t.script.settings.engine.torqueCurve.clear();
         for (const auto& p : v.points) t.script.settings.engine.torqueCurve.push_back({btScalar(p[0]), btScalar(p[1])});
       })},
      {"engine", "throttle_exponent", FieldScope::Vehicle, "engine.throttleExponent",
       "torque x throttle^exponent"},
      {"engine", "engine_braking", FieldScope::Vehicle, "engine.engineBraking",
       "drag at max rpm with the throttle closed"},
      // [gearbox]
      {"gearbox", "final_drive", FieldScope::Vehicle, "gearbox.finalDrive",
       "final drive ratio"},
      {"gearbox", "efficiency", FieldScope::Vehicle, "gearbox.efficiency",
       "share of engine torque reaching the wheels"},
      {"gearbox", "automatic", T::Boolean, "", 0, 1, "true", "false: gears from the shift inputs",
       SET(t.script.settings.gearbox.automatic = v.boolean)},
      {"gearbox", "shift_dwell", FieldScope::Vehicle, "gearbox.shiftDwell",
       "a shift back against the previous one waits this long"},
      // [brakes]
      {"brakes", "front_bias", FieldScope::Vehicle, "brakes.frontBias",
       "share of footbrake torque on the front wheels"},
      // [assists]
      {"assists", "abs", T::Boolean, "", 0, 1, "false", "anti-lock brakes",
       SET(t.script.settings.assists.abs = v.boolean)},
      {"assists", "abs_target_slip", FieldScope::Vehicle, "assists.absTargetSlip",
       "slip ABS holds a braking wheel at"},
      {"assists", "traction_control", T::Boolean, "", 0, 1, "false", "traction control",
       SET(t.script.settings.assists.tractionControl = v.boolean)},
      {"assists", "traction_target_slip", FieldScope::Vehicle, "assists.tractionTargetSlip",
       "slip traction control holds a driven wheel at"},
      // [aero]
      {"aero", "air_density", FieldScope::Vehicle, "aero.airDensity",
       "rho"},
      {"aero", "drag_area", FieldScope::Vehicle, "aero.dragArea",
       "Cd A: drag = 1/2 rho Cd A v^2"},
      {"aero", "downforce_area", FieldScope::Vehicle, "aero.downforceArea",
       "Cl A: downforce = 1/2 rho Cl A v^2"},
      {"aero", "downforce_front_share", FieldScope::Vehicle, "aero.downforceFrontShare",
       "share of downforce on the front axle"},
      {"aero", "rolling_resistance", FieldScope::Vehicle, "aero.rollingResistance",
       "Crr: torque Crr N R against each wheel's spin"},
      // [steering]
      {"steering", "ackermann", T::Boolean, "", 0, 1, "true", "inner wheel steers more",
       SET(t.script.settings.steering.ackermann = v.boolean)},
      // [solver]
      {"solver", "iterations", FieldScope::Vehicle, "solver.iterations",
       "contact solver sweeps per step"},
      {"solver", "stick_speed", FieldScope::Vehicle, "solver.stickSpeed",
       "below it, tires are static friction"},
      {"solver", "bump_stop_recovery_speed", FieldScope::Vehicle, "solver.bumpStopMaxRecoverySpeed",
       "fastest a bump stop pushes a wheel's overlap with the ground out"},
      {"solver", "tolerance", FieldScope::Vehicle, "solver.tolerance",
       "sweeps stop once none changes a row by more than this"},
      {"solver", "wheel_query_cache", T::Boolean, "", 0, 1, "true", "exact cached wheel rays on triangle-mesh ground",
       SET(t.script.settings.wheelQuery.cache = v.boolean)},
      // [[differential]]
      {"differential", "axle", FieldScope::Differential, "axle",
       "the driven axle"},
      {"differential", "type", T::Text, "", 0, 0, "\"open\"", "\"open\", \"locked\" or \"limited_slip\"",
       SET({
         if (v.text == "open") t.differential->type = DifferentialType::Open;
         else if (v.text == "locked") t.differential->type = DifferentialType::Locked;
         else if (v.text == "limited_slip") t.differential->type = DifferentialType::LimitedSlip;
         else throw Rejected("must be \"open\", \"locked\" or \"limited_slip\"");
       })},
      {"differential", "torque_share", FieldScope::Differential, "torqueShare",
       "share of the drive torque; -1: by driving-wheel count"},
      {"differential", "preload", FieldScope::Differential, "preloadTorque",
       "limited slip: locking torque at no input"},
      {"differential", "locking_coefficient", FieldScope::Differential, "lockingCoefficient",
       "limited slip: locking torque per N m of input"},
      // [[tire]]
      {"tire", "axles", T::IntegerList, "", 0, 64, "[]", "axles whose wheels use this tire; empty: all",
       SET({
         t.tire->axles.clear();
         for (double axle : v.list) t.tire->axles.push_back(int(axle));
       })},
      {"tire", "model", T::Text, "", 0, 0, "\"curves\"", "\"curves\" (seed 004 slip curves) or \"linear\" (seed 000)",
       SET({
         if (v.text == "curves") t.tire->tire.model = TireModelKind::SlipCurves;
         else if (v.text == "linear") t.tire->tire.model = TireModelKind::LinearSideFriction;
         else throw Rejected("must be \"curves\" or \"linear\"");
       })},
      {"tire", "friction", FieldScope::Tire, "friction",
       "tire material friction"},
      {"tire", "longitudinal_b", FieldScope::Tire, "longitudinalCurve.magicFormula.stiffnessB",
       "Magic Formula B of mu_x(s)"},
      {"tire", "longitudinal_c", FieldScope::Tire, "longitudinalCurve.magicFormula.shapeC",
       "Magic Formula C of mu_x(s)"},
      {"tire", "longitudinal_d", FieldScope::Tire, "longitudinalCurve.magicFormula.peakD",
       "Magic Formula D (peak) of mu_x(s)"},
      {"tire", "longitudinal_e", FieldScope::Tire, "longitudinalCurve.magicFormula.curvatureE",
       "Magic Formula E of mu_x(s)"},
      {"tire", "longitudinal_points", T::PointList, "[slip ratio, mu]", 0, 100, "[]", "tabulated mu_x(s); replaces the formula",
       SET(setCurvePoints(t.tire->tire.longitudinalCurve, v.points, 1))},
      {"tire", "lateral_b", FieldScope::Tire, "lateralCurve.magicFormula.stiffnessB",
       "Magic Formula B of mu_y(alpha)"},
      {"tire", "lateral_c", FieldScope::Tire, "lateralCurve.magicFormula.shapeC",
       "Magic Formula C of mu_y(alpha)"},
      {"tire", "lateral_d", FieldScope::Tire, "lateralCurve.magicFormula.peakD",
       "Magic Formula D (peak) of mu_y(alpha)"},
      {"tire", "lateral_e", FieldScope::Tire, "lateralCurve.magicFormula.curvatureE",
       "Magic Formula E of mu_y(alpha)"},
      {"tire", "lateral_points", T::PointList, "[deg, mu]", 0, 100, "[]", "tabulated mu_y(alpha), alpha in degrees; replaces the formula",
       SET(setCurvePoints(t.tire->tire.lateralCurve, v.points, SIMD_PI / 180))},
      {"tire", "slip_ratio_epsilon", FieldScope::Tire, "slipRatioEpsilon",
       "keeps s finite near standstill"},
      {"tire", "slip_angle_epsilon", FieldScope::Tire, "slipAngleEpsilon",
       "keeps alpha finite near standstill"},
      {"tire", "load_sensitivity", FieldScope::Tire, "loadSensitivity",
       "mu (1 - k (N / N_ref - 1))"},
      {"tire", "reference_load", FieldScope::Tire, "referenceLoad",
       "N_ref, the tire's nominal load; 0: each wheel's static load (neutral steer)"},
      {"tire", "side_friction_coefficient", FieldScope::Tire, "sideFrictionCoefficient",
       "linear model: side force per side speed and load"},
      {"tire", "relaxation_length", FieldScope::Tire, "relaxationLength",
       "standstill spring: slip stiffness / this; 0 (or under 1 mm): rigid static friction"},
  };
  return table;
}
#undef SET

const char* const kTableSections[] = {"model", "params", "engine", "gearbox", "brakes",
                                      "assists", "aero", "steering", "solver"};
const char* const kRecordSections[] = {"hull", "wheel", "tire", "differential"};

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestDistance = 4;  // farther than 3 edits is no suggestion
  for (const std::string& candidate : candidates) {
    const size_t distance = editDistance(lower(name), lower(candidate));
    if (distance < bestDistance) bestDistance = distance, best = candidate;
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

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
  Parser(VehicleScript& script) : script_(script) {}

  void read(const toml::table& document) {
    Target target{script_};
    applyDefaults("", target);
    for (auto&& [key, node] : document) {
      const std::string section = lower(std::string(key.str()));
      const int line = int(key.source().begin.line);
      // A section's own error joins the key errors, like them, and reading goes on.
      auto problem = [&](const std::string& object, const std::string& message) {
        problems_.emplace_back(ErrorLocation{script_.path, line, object}, message);
      };
      if (isOneOf(section, kTableSections)) {
        const toml::table* table = node.as_table();
        if (!table) {
          problem(section, "must be a table: [" + section + "]");
          continue;
        }
        readTable(section, *table, target);
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
    throw Error({script_.path, line, object}, message);
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
    if (section == "hull") {
      script_.hulls.push_back(HullRecord{line});
      target.hull = &script_.hulls.back();
    } else if (section == "wheel") {
      script_.wheels.push_back(WheelRecord{line, WheelSettings{}});
      target.wheel = &script_.wheels.back();
    } else if (section == "tire") {
      script_.tires.push_back(TireRecord{line, {}, TireSettings{}});
      target.tire = &script_.tires.back();
    } else {
      script_.settings.differentials.emplace_back();
      target.differential = &script_.settings.differentials.back();
    }
    applyDefaults(section, target);
    readTable(section, table, target);
  }

  void readTable(const std::string& section, const toml::table& table, Target& target) {
    for (auto&& [name, node] : table) {
      const std::string keyName(name.str());
      const int line = int(name.source().begin.line);
      const std::string where = section + "." + keyName;
      const Key* key = find(section, keyName);
      if (!key) {
        std::vector<std::string> known;
        for (const Key& candidate : keys())
          if (candidate.section == section) known.push_back(candidate.name);
        problems_.emplace_back(ErrorLocation{script_.path, line, where},
                               "unknown key in [" + section + "]" + suggestion(keyName, known));
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
};

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

VehicleScript parseVehicleScript(const std::string& text, const std::string& path) {
  VehicleScript script;
  script.path = path;
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  // A record is written through a pointer only while it is the last one read, so the vectors may
  // grow; 64 records a section is the limit because no vehicle has more (axles end at 64).
  for (const char* section : kRecordSections) {
    const toml::array* records = document[section].as_array();
    if (records && records->size() > 64)
      throw Error({path, int(records->source().begin.line), section}, "more than 64 records");
  }
  Parser(script).read(document);
  if (script.objPath.empty()) throw Error({path, 0, "model.obj"}, "[model] obj is required: the OBJ model");
  if (std::fabs(script.modelAxes.up.dot(script.modelAxes.forward)) > 0.5f)
    throw Error({path, 0, "model.forward"}, "the model's up and forward axes must differ");
  if (script.objPath[0] != '/') script.objPath = directoryOf(path) + script.objPath;
  return script;
}

VehicleScript loadVehicleScript(const std::string& path) {
  return parseVehicleScript(readTextFile(path, "vehicle script"), path);
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
