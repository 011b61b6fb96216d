#include "raycar/Tire.h"

#include <algorithm>
#include <cmath>

namespace raycar {

btScalar slipRatio(btScalar forwardSpeed, btScalar surfaceSpeed, btScalar epsilon) {
  return (surfaceSpeed - forwardSpeed) / std::max(std::fabs(forwardSpeed), epsilon);
}

btScalar slipAngle(btScalar forwardSpeed, btScalar sideSpeed, btScalar epsilon) {
  return std::atan2(sideSpeed, std::fabs(forwardSpeed) + epsilon);
}

btScalar loadSensitivityFactor(btScalar loadSensitivity, btScalar normalLoad,
                               btScalar referenceLoad) {
  if (!(referenceLoad > 0)) return 1;
  return std::max(btScalar(0), 1 - loadSensitivity * (normalLoad / referenceLoad - 1));
}

SlipCurveTire::SlipCurveTire(const TireSettings& settings)
    : longitudinalCurve_(settings.longitudinalCurve),
      lateralCurve_(settings.lateralCurve),
      slipRatioEpsilon_(settings.slipRatioEpsilon),
      slipAngleEpsilon_(settings.slipAngleEpsilon) {}

btScalar SlipCurveTire::peakLongitudinalForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad * longitudinalCurve_.peak();
}

btScalar SlipCurveTire::peakLateralForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad * lateralCurve_.peak();
}

FrictionLaw SlipCurveTire::longitudinal(const TireContact& contact, btScalar slipVelocity) const {
  // s = (R w - Vx) / Vref = -slipVelocity / Vref, with Vref frozen for the step.
  const btScalar referenceSpeed = std::max(std::fabs(contact.forwardSpeed), slipRatioEpsilon_);
  const FrictionCurve::Sample sample = longitudinalCurve_.evaluate(-slipVelocity / referenceSpeed);
  const btScalar scale = contact.friction * contact.normalLoad;
  return {scale * sample.value, scale * sample.slope / referenceSpeed, false};
}

FrictionLaw SlipCurveTire::lateral(const TireContact& contact, btScalar slipVelocity) const {
  const btScalar referenceSpeed = std::fabs(contact.forwardSpeed) + slipAngleEpsilon_;
  const btScalar angle = std::atan2(slipVelocity, referenceSpeed);
  const FrictionCurve::Sample sample = lateralCurve_.evaluate(angle);
  const btScalar scale = contact.friction * contact.normalLoad;
  // d alpha / d Vy = Vref / (Vy^2 + Vref^2)
  const btScalar angleRate =
      referenceSpeed / (slipVelocity * slipVelocity + referenceSpeed * referenceSpeed);
  return {-scale * sample.value, scale * sample.slope * angleRate, false};
}

btScalar LinearSideFrictionTire::peakLongitudinalForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad;
}

btScalar LinearSideFrictionTire::peakLateralForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad;
}

FrictionLaw LinearSideFrictionTire::longitudinal(const TireContact&, btScalar) const {
  return {0, 0, true};
}

FrictionLaw LinearSideFrictionTire::lateral(const TireContact& contact,
                                            btScalar slipVelocity) const {
  const btScalar stiffness = sideFrictionCoefficient_ * contact.normalLoad;
  return {-stiffness * slipVelocity, stiffness, false};
}

std::shared_ptr<const TireModel> makeTireModel(const TireSettings& settings) {
  if (settings.customModel) return settings.customModel;
  if (settings.model == TireModelKind::LinearSideFriction)
    return std::make_shared<LinearSideFrictionTire>(settings.sideFrictionCoefficient);
  return std::make_shared<SlipCurveTire>(settings);
}

std::vector<std::string> validateTire(const TireSettings& settings, const std::string& name) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const std::string& text) {
    if (!ok) problems.push_back(name + ": " + text);
  };
  require(settings.friction > 0 && std::isfinite(settings.friction), "friction must be > 0");
  require(settings.slipRatioEpsilon > 0 && std::isfinite(settings.slipRatioEpsilon),
          "slip ratio epsilon must be > 0 m/s");
  require(settings.slipAngleEpsilon > 0 && std::isfinite(settings.slipAngleEpsilon),
          "slip angle epsilon must be > 0 m/s");
  require(settings.loadSensitivity >= 0 && settings.loadSensitivity < 1,
          "load sensitivity must lie in [0, 1)");
  require(settings.referenceLoad >= 0 && std::isfinite(settings.referenceLoad),
          "reference load must be >= 0 N (0: the static load)");
  require(settings.sideFrictionCoefficient >= 0 && std::isfinite(settings.sideFrictionCoefficient),
          "side friction coefficient must be >= 0 s/m");
  if (settings.model == TireModelKind::SlipCurves && !settings.customModel) {
    for (auto& text : validateCurve(settings.longitudinalCurve, name + " longitudinal curve"))
      problems.push_back(text);
    for (auto& text : validateCurve(settings.lateralCurve, name + " lateral curve"))
      problems.push_back(text);
  }
  return problems;
}

}  // namespace raycar
