#include "io/ScriptKeys.h"

#include <cctype>

namespace raycar::script {
namespace {

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

GroundQueryKind groundQueryFromText(const std::string& text) {
  if (text == "ray") return GroundQueryKind::Ray;
  if (text == "sphere") return GroundQueryKind::Sphere;
  if (text == "cylinder") return GroundQueryKind::Cylinder;
  throw Rejected("must be \"ray\", \"sphere\" or \"cylinder\"");
}

SteerMode steerModeFromText(const std::string& text) {
  if (text == "auto") return SteerMode::Automatic;
  if (text == "steered") return SteerMode::Steered;
  if (text == "fixed") return SteerMode::Fixed;
  throw Rejected("must be \"auto\", \"steered\" or \"fixed\"");
}

}  // namespace

// [params] chassis_inertia: all three moments at least 0.001 kg m^2 (a toy car's; a subnormal
// one's inverse is infinite and put NaN into the world), or all 0 (the parts' meshes'); and
// moments a body can have, each at most the sum of the other two (of the three sums of two
// squared distances from the axes, none exceeds the other two together).
void setChassisInertia(Target& t, const btVector3& moments) {
  constexpr btScalar kLeastMoment = btScalar(1e-3);  // kg m^2
  if (!moments.isZero()) {
    if (!(moments.x() >= kLeastMoment && moments.y() >= kLeastMoment && moments.z() >= kLeastMoment))
      throw Rejected("needs all three moments at least 0.001 kg m^2 (or all 0: the parts' meshes')");
    const char* const names[3] = {"roll", "pitch", "yaw"};
    for (int a = 0; a < 3; ++a) {
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      if (moments[a] > moments[b] + moments[c])
        throw Rejected(std::string("no body has these moments: ") + names[a] + " exceeds " + names[b] +
                       " + " + names[c]);
    }
  }
  t.script.chassis.inertia = moments;
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
       SET(t.wheel->wheel.driving = v.boolean), "driving"},
      {"wheel", "stabilizer", FieldScope::Wheel, "stabilizer",
       "this wheel's axle's anti-roll bar, a fraction of k as [params] stabilizer, which it replaces for the axle; < 0: [params] stabilizer; an axle's wheels give the same"},
      {"wheel", "axle", FieldScope::Wheel, "axle",
       "axle number: anti-roll and snapping act per axle"},
      {"wheel", "len_max", FieldScope::Wheel, "suspensionMaxLength",
       "relaxed suspension length"},
      {"wheel", "stiffness", FieldScope::Wheel, "stiffness",
       "spring rate k: the wheel rests at len_max - N / k under its static load N (choose len_max as len_initial + N / k to rest at len_initial; N, the summary's static_load: with every wheel's rate given, what the springs carry with the chassis resting tilted on them; with automatic rates, the lever rule on two axles and the most even split on more); 0: the rate that rests it at len_initial"},
      {"wheel", "damping", FieldScope::Wheel, "damping",
       "damper rate; <= 0: that fraction of critical"},
      {"wheel", "surface_id", FieldScope::Wheel, "surfaceId",
       "the tire's surface: its row in the game's SurfaceTable (friction per ground material)"},
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
      {"wheel", "query", T::Text, "", 0, 0, "\"ray\"",
       "how the wheel finds the ground: \"ray\" (its centre line), \"sphere\" or \"cylinder\" (its shape)",
       SET(t.wheel->wheel.groundQuery = groundQueryFromText(v.text)), "groundQuery"},
      {"wheel", "query_radius", FieldScope::Wheel, "queryRadius",
       "query = \"sphere\": its radius; 0 is the wheel's"},
      {"wheel", "max_slope", FieldScope::Wheel, "maxSlope",
       "sphere and cylinder: steeper contacts (walls, kerb faces) are not ground"},
      {"wheel", "caster", FieldScope::Wheel, "casterAngle",
       "steering axis' caster angle, > 0 leans its top rearward"},
      {"wheel", "camber", FieldScope::Wheel, "staticCamber",
       "static camber at the rest length, > 0 leans the top away from the car's centre line"},
      {"wheel", "camber_gain", FieldScope::Wheel, "camberGain",
       "camber change per metre of compression past rest (usually < 0)"},
      {"wheel", "mechanical_trail", FieldScope::Wheel, "mechanicalTrail",
       "the steering axis meets the ground this far ahead of the contact (R tan(caster) through the wheel's centre)"},
      // [params]: seed 001, by its own names
      {"params", "engine_power", FieldScope::Vehicle, "engine.power",
       "peak power of the sine engine"},
      {"params", "engine_power_back", T::Number, "W", 0, 1e8, "0", "no longer used (seed 001); accepted",
       SET(t.script.chassis.enginePowerBack = btScalar(v.number))},
      {"params", "chassis_inertia", T::Vector3, "kg m^2", 0, 1e9, "[0, 0, 0]",
       "the chassis' moments of inertia [roll, pitch, yaw] about its forward, right and up axes through the centre of mass, each at least 0.001 and none above the other two's sum; [0, 0, 0]: from the parts' meshes",
       SET(setChassisInertia(t, v.vector))},
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
       }), "gearbox.gears"},
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
       "friction factor while sliding, for tires without slip curves"},
      {"params", "max_braking_friction", FieldScope::Vehicle, "friction.maxBrakingFriction",
       "friction cap on handbraked wheels (held or sliding)"},
      {"params", "max_steer", FieldScope::Vehicle, "steering.maxSteer",
       "largest steer angle, at the car's centre line (Ackermann turns the inner wheel more, the outer less)"},
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
       "anti-roll: a bar of this fraction of k between each axle's two wheels, on every axle whose [[wheel]] records give none of their own"},
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
       }), "engine.model"},
      {"engine", "torque_curve", T::PointList, "[rev/min, N m]", 0, 1e6, "[]", "torque against engine speed, rpm increasing",
       SET({
         t.script.settings.engine.torqueCurve.clear();
         for (const auto& p : v.points) t.script.settings.engine.torqueCurve.push_back({btScalar(p[0]), btScalar(p[1])});
       }), "engine.torqueCurve"},
      {"engine", "throttle_exponent", FieldScope::Vehicle, "engine.throttleExponent",
       "torque x throttle^exponent"},
      {"engine", "engine_braking", FieldScope::Vehicle, "engine.engineBraking",
       "drag at max rpm with the throttle closed"},
      {"engine", "inertia", FieldScope::Vehicle, "engine.inertia",
       "crankshaft and flywheel; > 0: the engine speed is a state and the clutch slips"},
      {"engine", "clutch_capacity", FieldScope::Vehicle, "engine.clutchCapacity",
       "with inertia: the engaged clutch's torque limit; 0: twice the peak torque"},
      {"engine", "stall", T::Boolean, "", 0, 1, "false",
       "with inertia: the engine stalls below engine_minRPM instead of the clutch opening",
       SET(t.script.settings.engine.stall = v.boolean)},
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
      {"assists", "esc", T::Boolean, "", 0, 1, "false",
       "stability control: brakes one wheel to bring the yaw rate to the driver's reference",
       SET(t.script.settings.assists.stabilityControl = v.boolean)},
      {"assists", "esc_yaw_gain", FieldScope::Vehicle, "assists.escYawGain",
       "yaw moment = this x Izz x (reference - yaw rate)"},
      {"assists", "esc_deadband", FieldScope::Vehicle, "assists.escDeadband",
       "yaw-rate error the stability control leaves alone"},
      {"assists", "esc_understeer_gradient", FieldScope::Vehicle, "assists.escUndersteerGradient",
       "the reference car's understeer gradient"},
      {"assists", "esc_max_brake_torque", FieldScope::Vehicle, "assists.escMaxBrakeTorque",
       "largest brake torque the stability control puts on a wheel"},
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
      {"steering", "ratio", FieldScope::Vehicle, "steering.steeringRatio",
       "steering wheel angle / road wheel angle; the column feels the aligning moments / this"},
      {"steering", "mode", T::Text, "", 0, 0, "\"angle\"",
       "\"angle\": the input sets the steer angle; \"torque\": the input is the driver's torque, the column turns against the aligning moments",
       SET({
         if (v.text == "angle") t.script.settings.steering.mode = SteeringMode::Angle;
         else if (v.text == "torque") t.script.settings.steering.mode = SteeringMode::Torque;
         else throw Rejected("must be \"angle\" or \"torque\"");
       })},
      {"steering", "column_inertia", FieldScope::Vehicle, "steering.columnInertia",
       "mode = \"torque\": inertia at the steering wheel"},
      {"steering", "column_damping", FieldScope::Vehicle, "steering.columnDamping",
       "mode = \"torque\": damping at the steering wheel"},
      {"steering", "max_driver_torque", FieldScope::Vehicle, "steering.maxDriverTorque",
       "mode = \"torque\": the driver's torque at input 1"},
      // [solver]
      {"solver", "iterations", FieldScope::Vehicle, "solver.iterations",
       "contact solver sweeps per step"},
      {"solver", "stick_speed", FieldScope::Vehicle, "solver.stickSpeed",
       "below it, tires are static friction"},
      {"solver", "bump_stop_recovery_speed", FieldScope::Vehicle, "solver.bumpStopMaxRecoverySpeed",
       "fastest a bump stop pushes a wheel's overlap with the ground out"},
      {"solver", "tolerance", FieldScope::Vehicle, "solver.tolerance",
       "sweeps stop once every row's force is estimated within this of converged"},
      {"solver", "wheel_query_cache", T::Boolean, "", 0, 1, "true", "exact cached wheel rays on triangle-mesh ground",
       SET(t.script.settings.wheelQuery.cache = v.boolean)},
      // [[differential]]
      {"differential", "axle", FieldScope::Differential, "axle",
       "the driven axle"},
      {"differential", "type", T::Text, "", 0, 0, "\"open\"",
       "\"open\", \"locked\", \"limited_slip\" or \"torsen\"",
       SET({
         if (v.text == "open") t.differential->type = DifferentialType::Open;
         else if (v.text == "locked") t.differential->type = DifferentialType::Locked;
         else if (v.text == "limited_slip") t.differential->type = DifferentialType::LimitedSlip;
         else if (v.text == "torsen") t.differential->type = DifferentialType::Torsen;
         else throw Rejected("must be \"open\", \"locked\", \"limited_slip\" or \"torsen\"");
       }), "type"},
      {"differential", "torque_share", FieldScope::Differential, "torqueShare",
       "share of the drive torque; -1: by driving-wheel count"},
      {"differential", "preload", FieldScope::Differential, "preloadTorque",
       "limited slip: locking torque (the most the wheels' torques differ by) at no input"},
      {"differential", "locking_coefficient", FieldScope::Differential, "lockingCoefficient",
       "limited slip: locking torque per N m of input"},
      {"differential", "torque_bias_ratio", FieldScope::Differential, "torqueBiasRatio",
       "torsen: in a steady spin the slower wheel's torque at most this times the faster one's"},
      // [[tire]]
      {"tire", "axles", T::IntegerList, "", 0, 64, "[]", "axles whose wheels use this tire (each an axle the wheels are on, and no axle in two records); empty: all",
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
       SET(setCurvePoints(t.tire->tire.longitudinalCurve, v.points, 1)), "longitudinalCurve.points"},
      {"tire", "lateral_b", FieldScope::Tire, "lateralCurve.magicFormula.stiffnessB",
       "Magic Formula B of mu_y(alpha)"},
      {"tire", "lateral_c", FieldScope::Tire, "lateralCurve.magicFormula.shapeC",
       "Magic Formula C of mu_y(alpha)"},
      {"tire", "lateral_d", FieldScope::Tire, "lateralCurve.magicFormula.peakD",
       "Magic Formula D (peak) of mu_y(alpha)"},
      {"tire", "lateral_e", FieldScope::Tire, "lateralCurve.magicFormula.curvatureE",
       "Magic Formula E of mu_y(alpha)"},
      {"tire", "lateral_points", T::PointList, "[deg, mu]", 0, 100, "[]", "tabulated mu_y(alpha), alpha in degrees; replaces the formula",
       SET(setCurvePoints(t.tire->tire.lateralCurve, v.points, SIMD_PI / 180)), "lateralCurve.points"},
      {"tire", "slip_ratio_epsilon", FieldScope::Tire, "slipRatioEpsilon",
       "keeps s finite near standstill"},
      {"tire", "slip_angle_epsilon", FieldScope::Tire, "slipAngleEpsilon",
       "keeps alpha finite near standstill"},
      {"tire", "load_sensitivity", FieldScope::Tire, "loadSensitivity",
       "mu (1 - k (N / N_ref - 1))"},
      {"tire", "reference_load", FieldScope::Tire, "referenceLoad",
       "N_ref, the tire's nominal load; 0: each wheel's static load (a two-axle car then steers neutral)"},
      {"tire", "side_friction_coefficient", FieldScope::Tire, "sideFrictionCoefficient",
       "linear model: side force per side speed and load"},
      {"tire", "relaxation_length", FieldScope::Tire, "relaxationLength",
       "standstill spring: slip stiffness / this; 0 (or under 1 mm): rigid static friction"},
      {"tire", "slip_lag", T::Boolean, "", 0, 1, "false",
       "the rolling tire's side force builds over relaxation_length (1 - exp(-x / sigma)) instead of at once",
       SET(t.tire->tire.slipLag = v.boolean)},
      {"tire", "thermal", T::Boolean, "", 0, 1, "false",
       "tire temperature: sliding heats it, air cools it, its grip peaks at optimal_temperature",
       SET(t.tire->tire.thermal.enabled = v.boolean)},
      {"tire", "heat_capacity", FieldScope::Tire, "thermal.heatCapacity",
       "thermal: the tire's heated layer"},
      {"tire", "cooling", FieldScope::Tire, "thermal.cooling",
       "thermal: heat lost per degree above ambient at rest"},
      {"tire", "cooling_per_speed", FieldScope::Tire, "thermal.coolingPerSpeed",
       "thermal: more cooling per m/s of rolling speed"},
      {"tire", "ambient_temperature", FieldScope::Tire, "thermal.ambientTemperature",
       "thermal: the air's, and the tire's at the start"},
      {"tire", "optimal_temperature", FieldScope::Tire, "thermal.optimalTemperature",
       "thermal: where the tire grips best"},
      {"tire", "temperature_window", FieldScope::Tire, "thermal.temperatureWindow",
       "thermal: the grip loss is complete this far from the optimum"},
      {"tire", "grip_loss", FieldScope::Tire, "thermal.gripLoss",
       "thermal: share of grip lost a window from the optimum: 1 - loss min(1, ((T - T_opt) / window)^2)"},
      {"tire", "camber_stiffness", FieldScope::Tire, "camberStiffness",
       "camber thrust per unit load: C_gamma = this x N, thrust C_gamma gamma toward the lean"},
      {"tire", "pneumatic_trail", FieldScope::Tire, "pneumaticTrail",
       "t0: the lateral force acts this far behind the contact at zero slip (aligning moment -t Fy), falling to 0 at the lateral peak"},
  };
  return table;
}
#undef SET

}  // namespace raycar::script
