#include "raycar/vehicle/SettingsFields.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>

#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {
namespace {

constexpr double kPositive = kFieldPositive;
using S = FieldScope;

// A row's binding: the member of the scope's object that the row is.
#define VEHICLE(member) [](const FieldOwners& o) { return FieldValue{&o.vehicle->member}; }
#define VEHICLE_INT(member) [](const FieldOwners& o) { return FieldValue{nullptr, &o.vehicle->member}; }
#define WHEEL(member) [](const FieldOwners& o) { return FieldValue{&o.wheel->member}; }
#define WHEEL_INT(member) [](const FieldOwners& o) { return FieldValue{nullptr, &o.wheel->member}; }
#define TIRE(member) [](const FieldOwners& o) { return FieldValue{&o.tire->member}; }
#define DIFFERENTIAL(member) [](const FieldOwners& o) { return FieldValue{&o.differential->member}; }
#define DIFFERENTIAL_INT(member) \
  [](const FieldOwners& o) { return FieldValue{nullptr, &o.differential->member}; }

const std::vector<SettingsField> kFields = {
    // The vehicle. Rpm and speeds end at 1e5 rev/min and 1e4-1e5 deg/s: beyond any machine.
    {"stabilizer", S::Vehicle, false, "fraction of stiffness", 0, 10, VEHICLE(stabilizer)},
    {"friction.slipThreshold", S::Vehicle, false, "m/s", 0, 100, VEHICLE(friction.slipThreshold)},
    {"friction.dynamicFrictionRatio", S::Vehicle, false, "", kPositive, 10, VEHICLE(friction.dynamicFrictionRatio)},
    {"friction.handbrakeFrictionScale", S::Vehicle, false, "", kPositive, 10, VEHICLE(friction.handbrakeFrictionScale)},
    {"friction.maxBrakingFriction", S::Vehicle, false, "", kPositive, 100, VEHICLE(friction.maxBrakingFriction)},
    {"aero.airDensity", S::Vehicle, false, "kg/m^3", 0, 100, VEHICLE(aero.airDensity)},
    {"aero.dragArea", S::Vehicle, false, "m^2", 0, 100, VEHICLE(aero.dragArea)},
    {"aero.downforceArea", S::Vehicle, false, "m^2", 0, 100, VEHICLE(aero.downforceArea)},
    {"aero.downforceFrontShare", S::Vehicle, false, "", 0, 1, VEHICLE(aero.downforceFrontShare)},
    // Crr 1 would stop a wheel with a force equal to its load: no rolling left.
    {"aero.rollingResistance", S::Vehicle, false, "", 0, 0.99, VEHICLE(aero.rollingResistance)},
    {"engine.power", S::Vehicle, false, "W", 0, 1e8, VEHICLE(engine.power)},
    {"engine.throttleExponent", S::Vehicle, false, "", kPositive, 10, VEHICLE(engine.throttleExponent)},
    {"engine.maxRpm", S::Vehicle, false, "rev/min", 1, 1e5, VEHICLE(engine.maxRpm)},
    {"engine.minRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(engine.minRpm)},
    {"engine.idleRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(engine.idleRpm)},
    {"engine.startRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(engine.startRpm)},
    {"engine.engineBraking", S::Vehicle, false, "fraction of peak torque", 0, 1, VEHICLE(engine.engineBraking)},
    {"gearbox.finalDrive", S::Vehicle, false, "", kPositive, 100, VEHICLE(gearbox.finalDrive)},
    {"gearbox.efficiency", S::Vehicle, false, "", kPositive, 1, VEHICLE(gearbox.efficiency)},
    {"gearbox.shiftUpRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(gearbox.shiftUpRpm)},
    {"gearbox.shiftDownRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(gearbox.shiftDownRpm)},
    {"gearbox.clutchSpeed", S::Vehicle, false, "1/s", kPositive, 1e4, VEHICLE(gearbox.clutchSpeed)},
    {"gearbox.gearDirectionSwitchRpm", S::Vehicle, false, "rev/min", 0, 1e5, VEHICLE(gearbox.gearDirectionSwitchRpm)},
    {"gearbox.shiftDwell", S::Vehicle, false, "s", 0, 60, VEHICLE(gearbox.shiftDwell)},
    {"brakes.brakeTorque", S::Vehicle, false, "N m", 0, 1e7, VEHICLE(brakes.brakeTorque)},
    {"engine.inertia", S::Vehicle, false, "kg m^2", 0, 100, VEHICLE(engine.inertia)},
    {"engine.clutchCapacity", S::Vehicle, false, "N m", 0, 1e6, VEHICLE(engine.clutchCapacity)},
    {"brakes.frontBias", S::Vehicle, false, "", 0, 1, VEHICLE(brakes.frontBias)},
    {"brakes.axleFriction", S::Vehicle, false, "N m", 0, 1e6, VEHICLE(brakes.axleFriction)},
    {"assists.absTargetSlip", S::Vehicle, false, "slip ratio", kPositive, 1, VEHICLE(assists.absTargetSlip)},
    {"assists.tractionTargetSlip", S::Vehicle, false, "slip ratio", kPositive, 1, VEHICLE(assists.tractionTargetSlip)},
    {"assists.escYawGain", S::Vehicle, false, "1/s", 0, 1000, VEHICLE(assists.escYawGain)},
    {"assists.escDeadband", S::Vehicle, false, "rad/s", 0, 10, VEHICLE(assists.escDeadband)},
    {"assists.escUndersteerGradient", S::Vehicle, false, "deg/g", -10, 10, VEHICLE(assists.escUndersteerGradient)},
    {"assists.escMaxBrakeTorque", S::Vehicle, false, "N m", 0, 1e6, VEHICLE(assists.escMaxBrakeTorque)},
    // Steer angles stop short of 90 deg, where a wheel would roll sideways.
    {"steering.maxSteer", S::Vehicle, false, "deg", kPositive, 89.9, VEHICLE(steering.maxSteer)},
    {"steering.maxSteerV0", S::Vehicle, false, "deg", 0, 89.9, VEHICLE(steering.maxSteerV0)},
    {"steering.maxSteerKv", S::Vehicle, false, "deg per m/s", -90, 90, VEHICLE(steering.maxSteerKv)},
    {"steering.steerSpeed", S::Vehicle, false, "deg/s", kPositive, 1e5, VEHICLE(steering.steerSpeed)},
    {"steering.steerSpeedValScale", S::Vehicle, false, "", -100, 100, VEHICLE(steering.steerSpeedValScale)},
    {"steering.steerSpeedMin", S::Vehicle, false, "deg/s", 0, 1e5, VEHICLE(steering.steerSpeedMin)},
    {"steering.steerRelaxationV0", S::Vehicle, false, "deg/s", 0, 1e5, VEHICLE(steering.steerRelaxationV0)},
    {"steering.steerRelaxationKv", S::Vehicle, false, "deg/s per m/s", -1e4, 1e4, VEHICLE(steering.steerRelaxationKv)},
    {"steering.maxSteeringPedal", S::Vehicle, false, "", 0, 1, VEHICLE(steering.maxSteeringPedal)},
    {"steering.pedalLimitSpeed", S::Vehicle, false, "m/s", 0, 1e4, VEHICLE(steering.pedalLimitSpeed)},
    {"steering.pedalSpeed", S::Vehicle, false, "1/s", 0, 1e4, VEHICLE(steering.pedalSpeed)},
    {"steering.steeringRatio", S::Vehicle, false, "", 1, 100, VEHICLE(steering.steeringRatio)},
    {"steering.columnInertia", S::Vehicle, false, "kg m^2", kPositive, 100, VEHICLE(steering.columnInertia)},
    {"steering.columnDamping", S::Vehicle, false, "N m s/rad", 0, 1e4, VEHICLE(steering.columnDamping)},
    {"steering.maxDriverTorque", S::Vehicle, false, "N m", 0, 1e4, VEHICLE(steering.maxDriverTorque)},
    {"solver.iterations", S::Vehicle, true, "", 1, 100, VEHICLE_INT(solver.iterations)},
    {"solver.tolerance", S::Vehicle, false, "N", 0, 1e6, VEHICLE(solver.tolerance)},
    {"solver.stickSpeed", S::Vehicle, false, "m/s", 0, 100, VEHICLE(solver.stickSpeed)},
    {"solver.bumpStopErrorReduction", S::Vehicle, false, "", 0, 1, VEHICLE(solver.bumpStopErrorReduction)},
    {"solver.bumpStopMaxRecoverySpeed", S::Vehicle, false, "m/s", kPositive, 100, VEHICLE(solver.bumpStopMaxRecoverySpeed)},
    // A cached region wider than 10 m, or looking ahead further than 10 s, only gathers
    // triangles the wheel will not reach before the region is rebuilt.
    {"wheelQuery.margin", S::Vehicle, false, "m", 0, 10, VEHICLE(wheelQuery.margin)},
    {"wheelQuery.lookahead", S::Vehicle, false, "s", 0, 10, VEHICLE(wheelQuery.lookahead)},
    {"wheelQuery.maxCachedTriangles", S::Vehicle, true, "", 1, 4096, VEHICLE_INT(wheelQuery.maxCachedTriangles)},
    // Each wheel. Lengths end at 10 m and positions at 1 km from the chassis origin: a wheel
    // further out is a modelling error, and single precision keeps 0.1 mm there.
    {"attachmentPoint.x", S::Wheel, false, "m", -1000, 1000, WHEEL(attachmentPoint.m_floats[0])},
    {"attachmentPoint.y", S::Wheel, false, "m", -1000, 1000, WHEEL(attachmentPoint.m_floats[1])},
    {"attachmentPoint.z", S::Wheel, false, "m", -1000, 1000, WHEEL(attachmentPoint.m_floats[2])},
    {"radius", S::Wheel, false, "m", 0.01, 10, WHEEL(radius)},
    {"width", S::Wheel, false, "m", kPositive, 10, WHEEL(width)},
    {"suspensionMaxLength", S::Wheel, false, "m", kPositive, 10, WHEEL(suspensionMaxLength)},
    {"suspensionRestLength", S::Wheel, false, "m", 0, 10, WHEEL(suspensionRestLength)},
    // Above 1e10 N/m a spring is a rigid link: no suspension is left to model.
    {"stiffness", S::Wheel, false, "N/m", 0, 1e10, WHEEL(stiffness)},
    {"damping", S::Wheel, false, "N s/m", -100, 1e9, WHEEL(damping)},
    {"spinInertia", S::Wheel, false, "kg m^2", kPositive, 1e4, WHEEL(spinInertia)},
    {"axle", S::Wheel, true, "", 0, 64, WHEEL_INT(axle)},
    {"stabilizer", S::Wheel, false, "fraction of stiffness", -1, 10, WHEEL(stabilizer)},
    {"minFriction", S::Wheel, false, "", 0, 100, WHEEL(minFriction)},
    {"maxFriction", S::Wheel, false, "", 0, 100, WHEEL(maxFriction)},
    // raycar only carries the surface identifier for the game: any int.
    {"surfaceId", S::Wheel, true, "", -2147483648.0, 2147483647.0, WHEEL_INT(surfaceId)},
    {"queryRadius", S::Wheel, false, "m", 0, 10, WHEEL(queryRadius)},
    {"casterAngle", S::Wheel, false, "deg", -45, 45, WHEEL(casterAngle)},
    {"mechanicalTrail", S::Wheel, false, "m", -1, 1, WHEEL(mechanicalTrail)},
    {"staticCamber", S::Wheel, false, "deg", -30, 30, WHEEL(staticCamber)},
    {"camberGain", S::Wheel, false, "deg/m", -1000, 1000, WHEEL(camberGain)},
    // A slope of 90 deg and more would take a wall for ground.
    {"maxSlope", S::Wheel, false, "deg", kPositive, 89.9, WHEEL(maxSlope)},
    // Each wheel's tire. Magic Formula C stops short of 2, where the curve's sine turns over.
    {"friction", S::Tire, false, "", kPositive, 100, TIRE(friction)},
    {"longitudinalCurve.magicFormula.stiffnessB", S::Tire, false, "", kPositive, 1e3, TIRE(longitudinalCurve.magicFormula.stiffnessB)},
    {"longitudinalCurve.magicFormula.shapeC", S::Tire, false, "", kPositive, 1.999, TIRE(longitudinalCurve.magicFormula.shapeC)},
    {"longitudinalCurve.magicFormula.peakD", S::Tire, false, "", kPositive, 10, TIRE(longitudinalCurve.magicFormula.peakD)},
    {"longitudinalCurve.magicFormula.curvatureE", S::Tire, false, "", -100, 1, TIRE(longitudinalCurve.magicFormula.curvatureE)},
    {"longitudinalCurve.maxSlip", S::Tire, false, "slip ratio", kPositive, 100, TIRE(longitudinalCurve.maxSlip)},
    {"lateralCurve.magicFormula.stiffnessB", S::Tire, false, "per rad", kPositive, 1e3, TIRE(lateralCurve.magicFormula.stiffnessB)},
    {"lateralCurve.magicFormula.shapeC", S::Tire, false, "", kPositive, 1.999, TIRE(lateralCurve.magicFormula.shapeC)},
    {"lateralCurve.magicFormula.peakD", S::Tire, false, "", kPositive, 10, TIRE(lateralCurve.magicFormula.peakD)},
    {"lateralCurve.magicFormula.curvatureE", S::Tire, false, "", -100, 1, TIRE(lateralCurve.magicFormula.curvatureE)},
    {"lateralCurve.maxSlip", S::Tire, false, "rad", kPositive, 100, TIRE(lateralCurve.maxSlip)},
    {"slipRatioEpsilon", S::Tire, false, "m/s", kPositive, 100, TIRE(slipRatioEpsilon)},
    {"slipAngleEpsilon", S::Tire, false, "m/s", kPositive, 100, TIRE(slipAngleEpsilon)},
    // k_load 1 would take all grip from a tire at twice its nominal load.
    {"loadSensitivity", S::Tire, false, "", 0, 0.999, TIRE(loadSensitivity)},
    {"referenceLoad", S::Tire, false, "N", 0, 1e7, TIRE(referenceLoad)},
    {"sideFrictionCoefficient", S::Tire, false, "s/m", 0, 100, TIRE(sideFrictionCoefficient)},
    {"relaxationLength", S::Tire, false, "m", 0, 10, TIRE(relaxationLength)},
    {"pneumaticTrail", S::Tire, false, "m", 0, 0.5, TIRE(pneumaticTrail)},
    {"camberStiffness", S::Tire, false, "per rad", 0, 100, TIRE(camberStiffness)},
    {"thermal.heatCapacity", S::Tire, false, "J/K", kPositive, 1e7, TIRE(thermal.heatCapacity)},
    {"thermal.cooling", S::Tire, false, "W/K", 0, 1e6, TIRE(thermal.cooling)},
    {"thermal.coolingPerSpeed", S::Tire, false, "W/K per m/s", 0, 1e6, TIRE(thermal.coolingPerSpeed)},
    {"thermal.ambientTemperature", S::Tire, false, "C", -100, 200, TIRE(thermal.ambientTemperature)},
    {"thermal.optimalTemperature", S::Tire, false, "C", -100, 500, TIRE(thermal.optimalTemperature)},
    {"thermal.temperatureWindow", S::Tire, false, "C", kPositive, 1000, TIRE(thermal.temperatureWindow)},
    {"thermal.gripLoss", S::Tire, false, "", 0, 1, TIRE(thermal.gripLoss)},
    // Each differential.
    {"axle", S::Differential, true, "", 0, 64, DIFFERENTIAL_INT(axle)},
    {"torqueShare", S::Differential, false, "", -1, 1, DIFFERENTIAL(torqueShare)},
    {"preloadTorque", S::Differential, false, "N m", 0, 1e6, DIFFERENTIAL(preloadTorque)},
    {"lockingCoefficient", S::Differential, false, "", 0, 100, DIFFERENTIAL(lockingCoefficient)},
    {"torqueBiasRatio", S::Differential, false, "", 1, 100, DIFFERENTIAL(torqueBiasRatio)},
};

#undef VEHICLE
#undef VEHICLE_INT
#undef WHEEL
#undef WHEEL_INT
#undef TIRE
#undef DIFFERENTIAL
#undef DIFFERENTIAL_INT

std::string numberText(double value, int digits = 6) {
  std::ostringstream out;
  out << std::setprecision(digits) << value;
  return out.str();
}

// The shortest text that reads back as the same btScalar: "-0.1" for -0.1f, but every digit that
// tells 89.90000001 from 89.9 where btScalar is double.
std::string scalarText(double value) {
  for (int digits = 6; digits < std::numeric_limits<btScalar>::max_digits10; ++digits) {
    const std::string text = numberText(value, digits);
    if (btScalar(std::strtod(text.c_str(), nullptr)) == btScalar(value)) return text;
  }
  return numberText(value, std::numeric_limits<btScalar>::max_digits10);
}

}  // namespace

const std::vector<SettingsField>& settingsFields() { return kFields; }

const SettingsField* findSettingsField(FieldScope scope, const std::string& name) {
  for (const SettingsField& field : kFields)
    if (field.scope == scope && name == field.name) return &field;
  return nullptr;
}

std::string rangeText(double minimum, double maximum, bool integer) {
  const int digits = integer ? 12 : 6;
  auto text = [digits](double value) {
    if (std::isinf(value)) return std::string(value > 0 ? "inf" : "-inf");
    return numberText(value, digits);
  };
  const std::string low = minimum == kFieldPositive ? "(0" : (std::isinf(minimum) ? "(" : "[") + text(minimum);
  return low + ", " + text(maximum) + (std::isinf(maximum) ? ")" : "]");
}

std::string fieldRangeText(const SettingsField& field) {
  return rangeText(field.minimum, field.maximum, field.integer);
}

std::string fieldValueProblem(const SettingsField& field, double value) {
  if (!std::isfinite(value)) return "= " + numberText(value) + " is not finite";
  // A real field is compared as the btScalar it is stored as: 89.9 read from a script is the
  // float nearest 89.9 in the field, and must pass where the row says 89.9.
  const bool inside = field.integer
                          ? value >= field.minimum && value <= field.maximum && value == std::floor(value)
                          : btScalar(value) >= btScalar(field.minimum) &&
                                btScalar(value) <= btScalar(field.maximum);
  if (inside) return "";
  return "= " + (field.integer ? numberText(value, 12) : scalarText(value)) + " is out of range " + fieldRangeText(field) +
         (field.unit[0] ? std::string(" (") + field.unit + ")" : std::string());
}

void checkFields(FieldScope scope, const ConstFieldOwners& owners, const std::string& object,
                 std::vector<SettingsProblem>& problems) {
  // The rows bind writable members (the script writes through them); a check only reads them.
  const FieldOwners readable{const_cast<VehicleSettings*>(owners.vehicle), const_cast<WheelSettings*>(owners.wheel),
                             const_cast<TireSettings*>(owners.tire),
                             const_cast<DifferentialSettings*>(owners.differential)};
  for (const SettingsField& field : kFields) {
    if (field.scope != scope) continue;
    const std::string problem = fieldValueProblem(field, field.bind(readable).get());
    if (!problem.empty()) problems.push_back({object, field.name, field.name + (" " + problem), scope});
  }
}

}  // namespace raycar
