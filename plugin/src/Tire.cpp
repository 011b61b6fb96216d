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

FrictionLaw SlipCurveTire::combinedLaw(bool longitudinal, btScalar sigmaX, btScalar sigmaY,
                                       btScalar scale) const {
  // sigma = (s, tan alpha); rho = |(s / s_peak, alpha / alpha_peak)|.
  const FrictionCurve& curve = longitudinal ? longitudinalCurve_ : lateralCurve_;
  const btScalar slipPeakX = longitudinalCurve_.peakSlip();
  const btScalar slipPeakY = lateralCurve_.peakSlip();
  const btScalar angle = std::atan(sigmaY);
  const btScalar normalX = sigmaX / slipPeakX;
  const btScalar normalY = angle / slipPeakY;
  const btScalar rho = std::sqrt(normalX * normalX + normalY * normalY);
  const btScalar magnitude = std::sqrt(sigmaX * sigmaX + sigmaY * sigmaY);
  if (magnitude < btScalar(1e-7)) {
    // At zero slip the force is 0 and its slope the curve's initial slope (alpha = tan alpha).
    return {0, scale * curve.evaluate(0).slope, false};
  }
  const btScalar own = longitudinal ? sigmaX : sigmaY;
  const btScalar other = longitudinal ? sigmaY : sigmaX;
  const btScalar peak = longitudinal ? slipPeakX : slipPeakY;
  const FrictionCurve::Sample sample = curve.evaluate(rho * peak);
  const btScalar share = own / magnitude;
  // d rho / d sigma_own: s / (s_peak^2 rho), or alpha / (alpha_peak^2 rho) / (1 + tan^2)
  const btScalar rhoRate = longitudinal ? normalX / (slipPeakX * rho)
                                        : normalY / (slipPeakY * rho) / (1 + sigmaY * sigmaY);
  // d (own / |sigma|) / d own = other^2 / |sigma|^3
  const btScalar shareRate = other * other / (magnitude * magnitude * magnitude);
  return {scale * sample.value * share,
          scale * (sample.slope * peak * rhoRate * share + sample.value * shareRate), false};
}

FrictionLaw SlipCurveTire::law(const TireContact& contact, bool longitudinal,
                               btScalar longitudinalSlip, btScalar lateralSlip) const {
  // s = -(Vx - R w) / Vref_x and tan alpha = Vy / Vref_y, with the reference speeds (seed 004's
  // epsilons) frozen for the step.
  const btScalar referenceX = std::max(std::fabs(contact.forwardSpeed), slipRatioEpsilon_);
  const btScalar referenceY = std::fabs(contact.forwardSpeed) + slipAngleEpsilon_;
  const FrictionLaw law = combinedLaw(longitudinal, -longitudinalSlip / referenceX,
                                      lateralSlip / referenceY, contact.friction * contact.normalLoad);
  // Both forces oppose their slip velocity; the chain rule divides by the reference speed.
  return longitudinal ? FrictionLaw{law.force, law.stiffness / referenceX, false}
                      : FrictionLaw{-law.force, law.stiffness / referenceY, false};
}

FrictionLaw SlipCurveTire::longitudinal(const TireContact& contact, btScalar longitudinalSlip,
                                        btScalar lateralSlip) const {
  return law(contact, true, longitudinalSlip, lateralSlip);
}

FrictionLaw SlipCurveTire::lateral(const TireContact& contact, btScalar lateralSlip,
                                   btScalar longitudinalSlip) const {
  return law(contact, false, longitudinalSlip, lateralSlip);
}

btScalar LinearSideFrictionTire::peakLongitudinalForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad;
}

btScalar LinearSideFrictionTire::peakLateralForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad;
}

FrictionLaw LinearSideFrictionTire::longitudinal(const TireContact&, btScalar, btScalar) const {
  return {0, 0, true};
}

FrictionLaw LinearSideFrictionTire::lateral(const TireContact& contact, btScalar lateralSlip,
                                            btScalar) const {
  const btScalar stiffness = sideFrictionCoefficient_ * contact.normalLoad;
  return {-stiffness * lateralSlip, stiffness, false};
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
