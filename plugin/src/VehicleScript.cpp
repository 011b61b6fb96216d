#include "raycar/VehicleScript.h"

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

namespace raycar {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPositive = 1e-9;  // "greater than 0" as an inclusive lower bound

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
  const char* section;
  const char* name;
  ScriptValueType type;
  const char* unit;
  double minimum;  // inclusive, for numbers, integers and every element of lists
  double maximum;
  const char* defaultValue;  // TOML literal, applied before the file is read
  const char* meaning;
  Setter apply;
};

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

btVector3 axisFromText(const std::string& text) {
  const std::string lower = [&] {
    std::string s = text;
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }();
  const btScalar sign = !lower.empty() && lower[0] == '-' ? -1 : 1;
  const char axis = lower.empty() ? ' ' : lower.back();
  if ((lower.size() == 2 && (lower[0] == '+' || lower[0] == '-')) || lower.size() == 1) {
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
      {"wheel", "axle", T::Integer, "", 0, 64, "0", "axle number: anti-roll and snapping act per axle",
       SET(t.wheel->wheel.axle = int(v.integer))},
      {"wheel", "len_max", T::Number, "m", kPositive, 10, "0.3", "relaxed suspension length",
       SET(t.wheel->wheel.suspensionMaxLength = btScalar(v.number))},
      {"wheel", "stiffness", T::Number, "N/m", 0, 1e10, "0", "spring rate; 0: rests the spring at len_initial",
       SET(t.wheel->wheel.stiffness = btScalar(v.number))},
      {"wheel", "damping", T::Number, "N s/m", -100, 1e9, "-0.8", "damper rate; <= 0: that fraction of critical",
       SET(t.wheel->wheel.damping = btScalar(v.number))},
      {"wheel", "surface_id", T::Integer, "", -1e9, 1e9, "0", "the tire's surface identifier (carried for the game)",
       SET(t.wheel->wheel.surfaceId = int(v.integer))},
      {"wheel", "can_brake", T::Boolean, "0/1", 0, 1, "1", "the handbrake locks this wheel",
       SET(t.wheel->wheel.canBrake = v.boolean)},
      {"wheel", "min_friction", T::Number, "", 0, 100, "0", "lower clamp of (tire + ground) / 2",
       SET(t.wheel->wheel.minFriction = btScalar(v.number))},
      {"wheel", "max_friction", T::Number, "", 0, 100, "100", "upper clamp of (tire + ground) / 2",
       SET(t.wheel->wheel.maxFriction = btScalar(v.number))},
      {"wheel", "steering", T::Text, "", 0, 0, "\"auto\"", "\"auto\" (ahead of the centre of mass), \"steered\" or \"fixed\"",
       SET(t.wheel->wheel.steering = steerModeFromText(v.text))},
      {"wheel", "spin_inertia", T::Number, "kg m^2", kPositive, 1e4, "1", "wheel's moment of inertia about its axle",
       SET(t.wheel->wheel.spinInertia = btScalar(v.number))},
      // [params]: seed 001, by its own names
      {"params", "engine_power", T::Number, "W", 0, 1e8, "100000", "peak power of the sine engine",
       SET(t.script.settings.engine.power = btScalar(v.number))},
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
      {"params", "engine_maxRPM", T::Number, "rev/min", 1, 1e5, "5000", "no power at and above it",
       SET(t.script.settings.engine.maxRpm = btScalar(v.number))},
      {"params", "engine_minRPM", T::Number, "rev/min", 0, 1e5, "600", "below it, throttle closed, the clutch opens",
       SET(t.script.settings.engine.minRpm = btScalar(v.number))},
      {"params", "engine_idleRPM", T::Number, "rev/min", 0, 1e5, "800", "engine speed when idle",
       SET(t.script.settings.engine.idleRpm = btScalar(v.number))},
      {"params", "engine_startRPM", T::Number, "rev/min", 0, 1e5, "1200", "set when a gear is engaged from neutral",
       SET(t.script.settings.engine.startRpm = btScalar(v.number))},
      {"params", "engine_shiftupRPM", T::Number, "rev/min", 0, 1e5, "4200", "automatic upshift above it",
       SET(t.script.settings.gearbox.shiftUpRpm = btScalar(v.number))},
      {"params", "engine_shiftdownRPM", T::Number, "rev/min", 0, 1e5, "1800", "automatic downshift below it",
       SET(t.script.settings.gearbox.shiftDownRpm = btScalar(v.number))},
      {"params", "clutch_speed", T::Number, "1/s", kPositive, 1e4, "4", "clutch re-engages in 1 / clutch_speed s",
       SET(t.script.settings.gearbox.clutchSpeed = btScalar(v.number))},
      {"params", "gear_dir_switch_RPM", T::Number, "rev/min", 0, 1e5, "30", "wheel speed below which forward and reverse swap",
       SET(t.script.settings.gearbox.gearDirectionSwitchRpm = btScalar(v.number))},
      {"params", "axle_friction", T::Number, "N m", 0, 1e6, "0", "torque always against each wheel's spin",
       SET(t.script.settings.brakes.axleFriction = btScalar(v.number))},
      {"params", "brake_torque", T::Number, "N m", 0, 1e7, "2500", "footbrake torque per wheel at full input",
       SET(t.script.settings.brakes.brakeTorque = btScalar(v.number))},
      {"params", "slip_threshold", T::Number, "m/s", 0, 100, "0.05", "a contact sliding faster than this slips",
       SET(t.script.settings.friction.slipThreshold = btScalar(v.number))},
      {"params", "dyn_friction_ratio", T::Number, "", kPositive, 10, "1", "friction factor while slipping (Coulomb rows)",
       SET(t.script.settings.friction.dynamicFrictionRatio = btScalar(v.number))},
      {"params", "max_braking_friction", T::Number, "", kPositive, 100, "100", "friction cap on handbraked wheels",
       SET(t.script.settings.friction.maxBrakingFriction = btScalar(v.number))},
      {"params", "max_steer", T::Number, "deg", kPositive, 89.9, "30", "largest steer angle",
       SET(t.script.settings.steering.maxSteer = btScalar(v.number))},
      {"params", "max_steer_v0", T::Number, "deg", 0, 89.9, "0", "> 0: largest steer angle is v0 + kv x speed",
       SET(t.script.settings.steering.maxSteerV0 = btScalar(v.number))},
      {"params", "max_steer_kv", T::Number, "deg per m/s", -90, 90, "0", "speed term of the largest steer angle",
       SET(t.script.settings.steering.maxSteerKv = btScalar(v.number))},
      {"params", "steer_speed", T::Number, "deg/s", kPositive, 1e5, "120", "steering rate",
       SET(t.script.settings.steering.steerSpeed = btScalar(v.number))},
      {"params", "steer_speed_valScale", T::Number, "", -100, 100, "1", "steering rate factor at full lock",
       SET(t.script.settings.steering.steerSpeedValScale = btScalar(v.number))},
      {"params", "steer_speed_min", T::Number, "deg/s", 0, 1e5, "0", "lower bound of the steering rate",
       SET(t.script.settings.steering.steerSpeedMin = btScalar(v.number))},
      {"params", "steer_relaxation_v0", T::Number, "deg/s", 0, 1e5, "120", "return-to-centre rate at standstill",
       SET(t.script.settings.steering.steerRelaxationV0 = btScalar(v.number))},
      {"params", "steer_relaxation_kv", T::Number, "deg/s per m/s", -1e4, 1e4, "0", "speed term of the return rate",
       SET(t.script.settings.steering.steerRelaxationKv = btScalar(v.number))},
      {"params", "brake_vel_threshold", T::Number, "", -kInf, kInf, "0", "obsolete (seed 001); accepted",
       SET(t.script.chassis.brakeVelocityThreshold = btScalar(v.number))},
      {"params", "brake_axle_friction", T::Number, "", -kInf, kInf, "0", "obsolete (seed 001); accepted",
       SET(t.script.chassis.brakeAxleFriction = btScalar(v.number))},
      {"params", "max_steering_pedal", T::Number, "", 0, 1, "1", "pedal cap at full lock above pedal_limit_speed",
       SET(t.script.settings.steering.maxSteeringPedal = btScalar(v.number))},
      {"params", "pedal_limit_speed", T::Number, "m/s", 0, 1e4, "10", "speed above which the pedal cap applies",
       SET(t.script.settings.steering.pedalLimitSpeed = btScalar(v.number))},
      {"params", "pedal_speed", T::Number, "1/s", 0, 1e4, "0", "pedal change rate; 0: immediate",
       SET(t.script.settings.steering.pedalSpeed = btScalar(v.number))},
      {"params", "max_time_step_vehicle", T::Number, "s", 1e-4, 1, "0.02", "largest step the scene runner takes",
       SET(t.script.chassis.maxTimeStep = btScalar(v.number))},
      {"params", "sleep_speed_vehicle", T::Number, "m/s", 0, 100, "0.04", "chassis sleeps below this speed",
       SET(t.script.chassis.sleepSpeed = btScalar(v.number))},
      {"params", "damping_vehicle", T::Number, "1/s", 0, 100, "0", "linear velocity damping of the chassis",
       SET(t.script.chassis.damping = btScalar(v.number))},
      {"params", "stabilizer", T::Number, "fraction of stiffness", 0, 10, "0", "anti-roll per axle",
       SET(t.script.settings.stabilizer = btScalar(v.number))},
      {"params", "integration_type", T::Integer, "", 0, 1, "1", "0 explicit damper, 1 implicit damper",
       SET(t.script.chassis.integrationType = int(v.integer))},
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
      {"engine", "throttle_exponent", T::Number, "", kPositive, 10, "1", "torque x throttle^exponent",
       SET(t.script.settings.engine.throttleExponent = btScalar(v.number))},
      {"engine", "engine_braking", T::Number, "fraction of peak torque", 0, 1, "0.08", "drag at max rpm with the throttle closed",
       SET(t.script.settings.engine.engineBraking = btScalar(v.number))},
      // [gearbox]
      {"gearbox", "final_drive", T::Number, "", kPositive, 100, "3.7", "final drive ratio",
       SET(t.script.settings.gearbox.finalDrive = btScalar(v.number))},
      {"gearbox", "efficiency", T::Number, "", kPositive, 1, "0.92", "share of engine torque reaching the wheels",
       SET(t.script.settings.gearbox.efficiency = btScalar(v.number))},
      {"gearbox", "automatic", T::Boolean, "", 0, 1, "true", "false: gears from the shift inputs",
       SET(t.script.settings.gearbox.automatic = v.boolean)},
      {"gearbox", "shift_dwell", T::Number, "s", 0, 60, "1", "a shift back against the previous one waits this long",
       SET(t.script.settings.gearbox.shiftDwell = btScalar(v.number))},
      // [brakes]
      {"brakes", "front_bias", T::Number, "", 0, 1, "0.6", "share of footbrake torque on the front wheels",
       SET(t.script.settings.brakes.frontBias = btScalar(v.number))},
      // [assists]
      {"assists", "abs", T::Boolean, "", 0, 1, "false", "anti-lock brakes",
       SET(t.script.settings.assists.abs = v.boolean)},
      {"assists", "abs_target_slip", T::Number, "slip ratio", kPositive, 1, "0.1", "slip ABS holds a braking wheel at",
       SET(t.script.settings.assists.absTargetSlip = btScalar(v.number))},
      {"assists", "traction_control", T::Boolean, "", 0, 1, "false", "traction control",
       SET(t.script.settings.assists.tractionControl = v.boolean)},
      {"assists", "traction_target_slip", T::Number, "slip ratio", kPositive, 1, "0.1", "slip traction control holds a driven wheel at",
       SET(t.script.settings.assists.tractionTargetSlip = btScalar(v.number))},
      // [aero]
      {"aero", "air_density", T::Number, "kg/m^3", 0, 100, "1.225", "rho",
       SET(t.script.settings.aero.airDensity = btScalar(v.number))},
      {"aero", "drag_area", T::Number, "m^2", 0, 100, "0.7", "Cd A: drag = 1/2 rho Cd A v^2",
       SET(t.script.settings.aero.dragArea = btScalar(v.number))},
      {"aero", "downforce_area", T::Number, "m^2", 0, 100, "0", "Cl A: downforce = 1/2 rho Cl A v^2",
       SET(t.script.settings.aero.downforceArea = btScalar(v.number))},
      {"aero", "downforce_front_share", T::Number, "", 0, 1, "0.5", "share of downforce on the front axle",
       SET(t.script.settings.aero.downforceFrontShare = btScalar(v.number))},
      {"aero", "rolling_resistance", T::Number, "", 0, 0.99, "0.012", "Crr: torque Crr N R against each wheel's spin",
       SET(t.script.settings.aero.rollingResistance = btScalar(v.number))},
      // [steering]
      {"steering", "ackermann", T::Boolean, "", 0, 1, "true", "inner wheel steers more",
       SET(t.script.settings.steering.ackermann = v.boolean)},
      // [solver]
      {"solver", "iterations", T::Integer, "", 1, 100, "8", "contact solver sweeps per step",
       SET(t.script.settings.solver.iterations = int(v.integer))},
      {"solver", "stick_speed", T::Number, "m/s", 0, 100, "0.5", "below it, tires are static friction",
       SET(t.script.settings.solver.stickSpeed = btScalar(v.number))},
      {"solver", "tolerance", T::Number, "N", 0, 1e6, "1", "sweeps stop once none changes a row by more than this",
       SET(t.script.settings.solver.tolerance = btScalar(v.number))},
      {"solver", "wheel_query_cache", T::Boolean, "", 0, 1, "true", "exact cached wheel rays on triangle-mesh ground",
       SET(t.script.settings.wheelQuery.cache = v.boolean)},
      // [[differential]]
      {"differential", "axle", T::Integer, "", 0, 64, "0", "the driven axle",
       SET(t.differential->axle = int(v.integer))},
      {"differential", "type", T::Text, "", 0, 0, "\"open\"", "\"open\", \"locked\" or \"limited_slip\"",
       SET({
         if (v.text == "open") t.differential->type = DifferentialType::Open;
         else if (v.text == "locked") t.differential->type = DifferentialType::Locked;
         else if (v.text == "limited_slip") t.differential->type = DifferentialType::LimitedSlip;
         else throw Rejected("must be \"open\", \"locked\" or \"limited_slip\"");
       })},
      {"differential", "torque_share", T::Number, "", -1, 1, "-1", "share of the drive torque; -1: by driving-wheel count",
       SET(t.differential->torqueShare = btScalar(v.number))},
      {"differential", "preload", T::Number, "N m", 0, 1e6, "50", "limited slip: locking torque at no input",
       SET(t.differential->preloadTorque = btScalar(v.number))},
      {"differential", "locking_coefficient", T::Number, "", 0, 100, "0.5", "limited slip: locking torque per N m of input",
       SET(t.differential->lockingCoefficient = btScalar(v.number))},
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
      {"tire", "friction", T::Number, "", kPositive, 100, "1", "tire material friction",
       SET(t.tire->tire.friction = btScalar(v.number))},
      {"tire", "longitudinal_b", T::Number, "", kPositive, 1e3, "15", "Magic Formula B of mu_x(s)",
       SET(t.tire->tire.longitudinalCurve.magicFormula.stiffnessB = btScalar(v.number))},
      {"tire", "longitudinal_c", T::Number, "", kPositive, 1.999, "1.45", "Magic Formula C of mu_x(s)",
       SET(t.tire->tire.longitudinalCurve.magicFormula.shapeC = btScalar(v.number))},
      {"tire", "longitudinal_d", T::Number, "", kPositive, 10, "1", "Magic Formula D (peak) of mu_x(s)",
       SET(t.tire->tire.longitudinalCurve.magicFormula.peakD = btScalar(v.number))},
      {"tire", "longitudinal_e", T::Number, "", -100, 1, "0", "Magic Formula E of mu_x(s)",
       SET(t.tire->tire.longitudinalCurve.magicFormula.curvatureE = btScalar(v.number))},
      {"tire", "longitudinal_points", T::PointList, "[slip ratio, mu]", 0, 100, "[]", "tabulated mu_x(s); replaces the formula",
       SET(setCurvePoints(t.tire->tire.longitudinalCurve, v.points, 1))},
      {"tire", "lateral_b", T::Number, "per rad", kPositive, 1e3, "9", "Magic Formula B of mu_y(alpha)",
       SET(t.tire->tire.lateralCurve.magicFormula.stiffnessB = btScalar(v.number))},
      {"tire", "lateral_c", T::Number, "", kPositive, 1.999, "1.55", "Magic Formula C of mu_y(alpha)",
       SET(t.tire->tire.lateralCurve.magicFormula.shapeC = btScalar(v.number))},
      {"tire", "lateral_d", T::Number, "", kPositive, 10, "1", "Magic Formula D (peak) of mu_y(alpha)",
       SET(t.tire->tire.lateralCurve.magicFormula.peakD = btScalar(v.number))},
      {"tire", "lateral_e", T::Number, "", -100, 1, "0", "Magic Formula E of mu_y(alpha)",
       SET(t.tire->tire.lateralCurve.magicFormula.curvatureE = btScalar(v.number))},
      {"tire", "lateral_points", T::PointList, "[deg, mu]", 0, 100, "[]", "tabulated mu_y(alpha), alpha in degrees; replaces the formula",
       SET(setCurvePoints(t.tire->tire.lateralCurve, v.points, SIMD_PI / 180))},
      {"tire", "slip_ratio_epsilon", T::Number, "m/s", kPositive, 100, "0.5", "keeps s finite near standstill",
       SET(t.tire->tire.slipRatioEpsilon = btScalar(v.number))},
      {"tire", "slip_angle_epsilon", T::Number, "m/s", kPositive, 100, "0.5", "keeps alpha finite near standstill",
       SET(t.tire->tire.slipAngleEpsilon = btScalar(v.number))},
      {"tire", "load_sensitivity", T::Number, "", 0, 0.999, "0.1", "mu (1 - k (N / N_ref - 1))",
       SET(t.tire->tire.loadSensitivity = btScalar(v.number))},
      {"tire", "reference_load", T::Number, "N", 0, 1e7, "4000", "N_ref, the tire's nominal load; 0: each wheel's static load (neutral steer)",
       SET(t.tire->tire.referenceLoad = btScalar(v.number))},
      {"tire", "side_friction_coefficient", T::Number, "s/m", 0, 100, "0.75", "linear model: side force per side speed and load",
       SET(t.tire->tire.sideFrictionCoefficient = btScalar(v.number))},
      {"tire", "relaxation_length", T::Number, "m", 0, 10, "0.3", "standstill spring: slip stiffness / this; 0 (or under 1 mm): rigid static friction",
       SET(t.tire->tire.relaxationLength = btScalar(v.number))},
  };
  return table;
}
#undef SET

const char* const kTableSections[] = {"model", "params", "engine", "gearbox", "brakes",
                                      "assists", "aero", "steering", "solver"};
const char* const kRecordSections[] = {"hull", "wheel", "tire", "differential"};

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

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
  std::string low = key.minimum == kPositive ? "(0" : "[" + numberText(key.minimum);
  return low + ", " + numberText(key.maximum) + (std::isinf(key.maximum) ? ")" : "]");
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
      if (isOneOf(section, kTableSections)) {
        const toml::table* table = node.as_table();
        if (!table) fail(line, section, "must be a table: [" + section + "]");
        readTable(section, *table, target);
      } else if (isOneOf(section, kRecordSections)) {
        const toml::array* records = node.as_array();
        if (!records || !records->is_array_of_tables())
          fail(line, section, "must be records: [[" + section + "]]");
        for (const toml::node& record : *records) readRecord(section, *record.as_table());
      } else {
        std::vector<std::string> sections(std::begin(kTableSections), std::end(kTableSections));
        sections.insert(sections.end(), std::begin(kRecordSections), std::end(kRecordSections));
        fail(line, std::string(key.str()), "unknown section" + suggestion(section, sections));
      }
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
      const bool isRecordKey = isOneOf(key.section, kRecordSections);
      if (recordSection.empty() ? isRecordKey : key.section != recordSection) continue;
      const toml::table literal = toml::parse(std::string("value = ") + key.defaultValue);
      key.apply(target, convert(key, *literal.get("value"), 0, key.name));
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
        fail(line, where, "unknown key in [" + section + "]" + suggestion(keyName, known));
      }
      const Value value = convert(*key, node, line, where);
      try {
        key->apply(target, value);
      } catch (const Rejected& rejected) {
        fail(line, where, rejected.what());
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
    if (value < key.minimum || value > key.maximum)
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
        if (double(value.integer) < key.minimum || double(value.integer) > key.maximum)
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
};

std::string directoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

VehicleScript parseVehicleScript(const std::string& text, const std::string& path) {
  VehicleScript script;
  script.path = path;
  script.hulls.reserve(64);  // records are pointed at while they are read
  script.wheels.reserve(64);
  script.tires.reserve(64);
  script.settings.differentials.reserve(64);
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    throw Error({path, int(error.source().begin.line), ""}, std::string(error.description()));
  }
  // Records beyond the reserved room would move the records being written into.
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

std::vector<ScriptKeyInfo> scriptKeyReference() {
  std::vector<ScriptKeyInfo> reference;
  for (const Key& key : keys())
    reference.push_back({key.section, key.name, key.type, key.unit, key.defaultValue, rangeText(key),
                         key.meaning, key.minimum, key.maximum});
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
