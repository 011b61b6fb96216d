#include "raycar/tire/Tire.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "Inline.h"
#include "raycar/vehicle/SettingsFields.h"
#include "tire/ArcTangent.h"

namespace raycar {

btScalar slipRatio(btScalar forwardSpeed, btScalar surfaceSpeed, btScalar epsilon) {
  return (surfaceSpeed - forwardSpeed) / std::max(std::fabs(forwardSpeed), epsilon);
}

btScalar slipAngle(btScalar forwardSpeed, btScalar sideSpeed, btScalar epsilon) {
  const btScalar reference = std::fabs(forwardSpeed) + epsilon;
  // atan2 of a positive reference is the arc tangent of the quotient; where the quotient is no
  // number (0 / 0 at a zero epsilon standing still, infinity / infinity) std::atan2 says what it
  // means.
  const btScalar tangent = sideSpeed / reference;
  if (!(reference > 0) || std::isnan(tangent)) return std::atan2(sideSpeed, reference);
  return arcTangent(tangent);
}

btScalar loadSensitivityFactor(btScalar loadSensitivity, btScalar normalLoad,
                               btScalar referenceLoad) {
  if (!(referenceLoad > 0)) return 1;
  return std::max(btScalar(0), 1 - loadSensitivity * (normalLoad / referenceLoad - 1));
}

std::optional<SettingsProblem> gripAtRestProblem(const TireSettings& tire, btScalar staticLoad, int wheel) {
  if (!(tire.referenceLoad > 0) || !(tire.loadSensitivity > 0)) return std::nullopt;
  if (loadSensitivityFactor(tire.loadSensitivity, staticLoad, tire.referenceLoad) > 0) return std::nullopt;
  char message[360];
  std::snprintf(message, sizeof message,
                "grips with nothing at the wheel's static load of %.0f N: load sensitivity %.2f "
                "takes mu to 0 from %.0f N, 1 + 1 / %.2f times referenceLoad %.0f N; set it to "
                "the tire's nominal load, near the static load, or 0 for each wheel's static load",
                double(staticLoad), double(tire.loadSensitivity),
                double(tire.referenceLoad * (1 + 1 / tire.loadSensitivity)), double(tire.loadSensitivity),
                double(tire.referenceLoad));
  return SettingsProblem{"wheel " + std::to_string(wheel + 1) + " tire", "referenceLoad", message,
                         FieldScope::Tire, wheel};
}

SlipCurveTire::SlipCurveTire(const TireSettings& settings)
    : longitudinalCurve_(settings.longitudinalCurve),
      lateralCurve_(settings.lateralCurve),
      slipRatioEpsilon_(settings.slipRatioEpsilon),
      slipAngleEpsilon_(settings.slipAngleEpsilon),
      inversePeakSlipX_(1 / longitudinalCurve_.peakSlip()),
      inversePeakSlipY_(1 / lateralCurve_.peakSlip()) {
  const btScalar locked = std::max(longitudinalCurve_.evaluate(1).value,
                                   lateralCurve_.evaluate(btScalar(SIMD_HALF_PI)).value);
  lockedSlideShare_ = locked / longitudinalCurve_.peak();
}

btScalar SlipCurveTire::peakLongitudinalForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad * longitudinalCurve_.peak();
}

btScalar SlipCurveTire::peakLateralForce(const TireContact& contact) const {
  return contact.friction * contact.normalLoad * lateralCurve_.peak();
}

btScalar SlipCurveTire::slipStiffness(const TireContact& contact, bool longitudinal) const {
  const FrictionCurve& curve = longitudinal ? longitudinalCurve_ : lateralCurve_;
  return contact.friction * contact.normalLoad * curve.evaluate(0).slope;
}

// The law's two layers, slips into normalised slips (law) and those into a force
// (combinedLaw), are one function: the solve asks for about twenty laws a car and step, and the
// call between them passed the result through memory.
template <bool kLongitudinal>
RAYCAR_ALWAYS_INLINE FrictionLaw SlipCurveTire::combinedLaw(btScalar sigmaX, btScalar sigmaY, btScalar scale) const {
  // sigma = (s, tan alpha); the normalised slips n = (s / s_peak, alpha / alpha_peak), rho = |n|.
  // Each direction's force is its own curve read at the combined slip, times that direction's
  // share of a unit vector d:  F_own = scale x mu_own(rho x peak_own) x d_own.
  // d turns from n / rho (up to the peak, rho <= 1) to sigma / |sigma| (from twice the peak on):
  // - in the curves' linear range mu_own(rho peak) n_own / rho = mu_own'(0) x own slip, so a
  //   small combined slip gives each pure curve's own force, however the two curves' peaks
  //   differ (reading the direction from sigma instead coupled them: a drive slip of 0.02 raised
  //   the side force at 1 deg by 20%, and a rear-drive car holding its speed understeered);
  // - once the patch slides the force opposes its sliding velocity, so a locked, steered wheel
  //   pushes against its slide and does not steer the car.
  // The blend is a smoothstep in rho over [1, 2]. The stiffness returned is the analytic
  // derivative dF_own / d sigma_own.
  constexpr bool x = kLongitudinal;
  const FrictionCurve& curve = x ? longitudinalCurve_ : lateralCurve_;
  const btScalar magnitudeSquared = sigmaX * sigmaX + sigmaY * sigmaY;
  if (magnitudeSquared < btScalar(1e-14)) {
    // At zero slip the force is 0 and its slope the curve's initial slope (alpha = tan alpha).
    return {0, scale * curve.evaluate(0).slope, false};
  }
  const btScalar peak = x ? longitudinalCurve_.peakSlip() : lateralCurve_.peakSlip();
  const btScalar normalX = sigmaX * inversePeakSlipX_;
  const btScalar normalY = arcTangent(sigmaY) * inversePeakSlipY_;
  const btScalar rho = std::sqrt(normalX * normalX + normalY * normalY);
  const btScalar inverseRho = 1 / rho;
  // d/d sigma_own of the normalised slips: (1 / s_peak, 0) or (0, 1 / (alpha_peak (1 + tan^2))).
  const btScalar normalXRate = x ? inversePeakSlipX_ : 0;
  const btScalar normalYRate = x ? 0 : inversePeakSlipY_ / (1 + sigmaY * sigmaY);
  const btScalar rhoRate = (normalX * normalXRate + normalY * normalYRate) * inverseRho;
  // F_own = scale x mu_own(rho x peak) x d_own, and its rate from d_own's rate `ownRate`.
  auto lawAlong = [&](btScalar own, btScalar ownRate) -> FrictionLaw {
    const FrictionCurve::Sample sample = curve.evaluate(rho * peak);
    return {scale * sample.value * own,
            scale * (sample.slope * peak * rhoRate * own + sample.value * ownRate), false};
  };
  if (rho <= 1) {
    // Up to the peak the direction is n / rho itself (b = 0): a unit vector, so the general
    // form's normalisation of D and the rate of its length drop out (n . dn = 0), and so does
    // everything about sigma's own direction. Most rows of a car that is not sliding are here.
    const btScalar own = (x ? normalX : normalY) * inverseRho;
    return lawAlong(own, ((x ? normalXRate : normalYRate) - own * rhoRate) * inverseRho);
  }
  // Blend b(rho) and its rate.
  const btScalar inverseSigma = 1 / std::sqrt(magnitudeSquared);
  const btScalar t = std::clamp(rho - 1, btScalar(0), btScalar(1));
  const btScalar blend = t * t * (3 - 2 * t);
  const btScalar blendRate = 6 * t * (1 - t) * rhoRate;
  // The two unit directions and their rates.
  const btScalar nX = normalX * inverseRho, nY = normalY * inverseRho;
  const btScalar nXRate = normalXRate * inverseRho - nX * rhoRate * inverseRho;
  const btScalar nYRate = normalYRate * inverseRho - nY * rhoRate * inverseRho;
  const btScalar eX = sigmaX * inverseSigma, eY = sigmaY * inverseSigma;
  const btScalar ownE = x ? eX : eY;
  const btScalar eXRate = ((x ? 1 : 0) - eX * ownE) * inverseSigma;
  const btScalar eYRate = ((x ? 0 : 1) - eY * ownE) * inverseSigma;
  // D = (1 - b) n + b e, d = D / |D|.
  const btScalar dX = (1 - blend) * nX + blend * eX;
  const btScalar dY = (1 - blend) * nY + blend * eY;
  const btScalar dXRate = blendRate * (eX - nX) + (1 - blend) * nXRate + blend * eXRate;
  const btScalar dYRate = blendRate * (eY - nY) + (1 - blend) * nYRate + blend * eYRate;
  const btScalar length = std::sqrt(dX * dX + dY * dY);
  if (!(length > btScalar(1e-6))) return {0, scale * curve.evaluate(0).slope, false};
  const btScalar inverseLength = 1 / length;
  const btScalar own = (x ? dX : dY) * inverseLength;
  return lawAlong(own, (x ? dXRate : dYRate) * inverseLength -
                          own * (dX * dXRate + dY * dYRate) * inverseLength * inverseLength);
}

template <bool kLongitudinal>
FrictionLaw SlipCurveTire::law(const TireContact& contact, btScalar longitudinalSlip,
                               btScalar lateralSlip) const {
  // s = -(Vx - R w) / Vref_x and tan alpha = Vy / Vref_y, with the reference speeds (seed 004's
  // epsilons) frozen for the step.
  const btScalar speed = std::fabs(contact.forwardSpeed);
  const btScalar inverseReferenceX = 1 / std::max(speed, slipRatioEpsilon_);
  const btScalar inverseReferenceY = 1 / (speed + slipAngleEpsilon_);
  const FrictionLaw law =
      combinedLaw<kLongitudinal>(-longitudinalSlip * inverseReferenceX,
                                 lateralSlip * inverseReferenceY, contact.friction * contact.normalLoad);
  // Both forces oppose their slip velocity; the chain rule divides by the reference speed.
  return kLongitudinal ? FrictionLaw{law.force, law.stiffness * inverseReferenceX, false}
                      : FrictionLaw{-law.force, law.stiffness * inverseReferenceY, false};
}

FrictionLaw SlipCurveTire::longitudinal(const TireContact& contact, btScalar longitudinalSlip,
                                        btScalar lateralSlip) const {
  return law<true>(contact, longitudinalSlip, lateralSlip);
}

FrictionLaw SlipCurveTire::lateral(const TireContact& contact, btScalar lateralSlip,
                                   btScalar longitudinalSlip) const {
  return law<false>(contact, longitudinalSlip, lateralSlip);
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

namespace {

// What a built-in model reads from its settings; models with equal keys behave identically.
bool sameModel(const TireSettings& a, const TireSettings& b) {
  if (a.model != b.model) return false;
  if (a.model == TireModelKind::LinearSideFriction)
    return a.sideFrictionCoefficient == b.sideFrictionCoefficient;
  return describeSameCurve(a.longitudinalCurve, b.longitudinalCurve) &&
         describeSameCurve(a.lateralCurve, b.lateralCurve) &&
         a.slipRatioEpsilon == b.slipRatioEpsilon && a.slipAngleEpsilon == b.slipAngleEpsilon;
}

}  // namespace

std::shared_ptr<const TireModel> makeTireModel(const TireSettings& settings) {
  if (settings.customModel) return settings.customModel;
  // Identical tires share one model: the solve asks a tire for its force a few dozen times per
  // car and step, and a model shared by a whole fleet stays in the cache. Models are built when
  // vehicles are (possibly on several threads), never per step.
  static std::mutex mutex;
  static std::vector<std::pair<TireSettings, std::weak_ptr<const TireModel>>> models;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [known, model] : models)
    if (sameModel(known, settings))
      if (std::shared_ptr<const TireModel> shared = model.lock()) return shared;
  models.erase(std::remove_if(models.begin(), models.end(),
                              [](const auto& entry) { return entry.second.expired(); }),
               models.end());
  std::shared_ptr<const TireModel> model;
  if (settings.model == TireModelKind::LinearSideFriction)
    model = std::make_shared<LinearSideFrictionTire>(settings.sideFrictionCoefficient);
  else
    model = std::make_shared<SlipCurveTire>(settings);
  models.emplace_back(settings, model);
  return model;
}

std::vector<SettingsProblem> validateTire(const TireSettings& settings, const std::string& name) {
  std::vector<SettingsProblem> problems;
  checkFields(FieldScope::Tire, ConstFieldOwners{nullptr, nullptr, &settings}, name, problems);
  // The curves' own rules: a tabulated curve's points always; a Magic Formula's parameters
  // only when the field rows passed them (a NaN parameter is one problem, not two).
  if (settings.model == TireModelKind::SlipCurves && !settings.customModel) {
    const bool fieldsPassed = problems.empty();
    auto check = [&](const FrictionCurveSettings& curve, const std::string& curveName,
                     const char* field) {
      if (curve.form == FrictionCurveSettings::Form::MagicFormula && !fieldsPassed) return;
      for (auto& problem : validateCurve(curve, curveName, field)) problems.push_back(problem);
    };
    check(settings.longitudinalCurve, name + " longitudinal curve", "longitudinalCurve");
    check(settings.lateralCurve, name + " lateral curve", "lateralCurve");
  }
  return problems;
}

}  // namespace raycar
