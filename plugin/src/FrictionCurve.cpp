#include "raycar/FrictionCurve.h"

#include <algorithm>
#include <cmath>

namespace raycar {

FrictionCurveSettings defaultLongitudinalCurve() {
  FrictionCurveSettings curve;
  curve.magicFormula = MagicFormula{15, 1.45, 1, 0};
  curve.maxSlip = 1.5;
  return curve;
}

FrictionCurveSettings defaultLateralCurve() {
  FrictionCurveSettings curve;
  curve.magicFormula = MagicFormula{9, 1.55, 1, 0};
  curve.maxSlip = SIMD_HALF_PI;
  return curve;
}

std::vector<std::string> validateCurve(const FrictionCurveSettings& settings,
                                       const std::string& name) {
  std::vector<std::string> problems;
  auto problem = [&](const std::string& text) { problems.push_back(name + ": " + text); };
  if (settings.form == FrictionCurveSettings::Form::MagicFormula) {
    const MagicFormula& mf = settings.magicFormula;
    if (!(mf.stiffnessB > 0) || !std::isfinite(mf.stiffnessB)) problem("B must be > 0");
    if (!(mf.shapeC > 0) || !(mf.shapeC < 2)) problem("C must lie in (0, 2)");
    if (!(mf.peakD > 0) || !std::isfinite(mf.peakD)) problem("D must be > 0");
    if (!(mf.curvatureE <= 1) || !std::isfinite(mf.curvatureE)) problem("E must be <= 1");
    if (!(settings.maxSlip > 0) || !std::isfinite(settings.maxSlip)) problem("max slip must be > 0");
    return problems;
  }
  const std::vector<CurvePoint>& points = settings.points;
  if (points.size() < 2) {
    problem("needs at least 2 points");
    return problems;
  }
  if (points.front().slip != 0 || points.front().friction != 0)
    problem("the first point must be (0, 0): no slip, no friction force");
  for (size_t i = 0; i < points.size(); ++i) {
    const CurvePoint& point = points[i];
    if (!std::isfinite(point.slip) || !std::isfinite(point.friction)) {
      problem("point " + std::to_string(i + 1) + " is not finite");
    } else if (point.friction < 0) {
      problem("point " + std::to_string(i + 1) + " has negative friction");
    }
    if (i > 0 && !(point.slip > points[i - 1].slip))
      problem("point " + std::to_string(i + 1) + ": slip must increase from point to point");
  }
  bool anyPositive = false;
  for (const CurvePoint& point : points) anyPositive = anyPositive || point.friction > 0;
  if (!anyPositive) problem("all friction values are 0");
  return problems;
}

namespace {

btScalar magicFormula(const MagicFormula& mf, btScalar x) {
  const btScalar bx = mf.stiffnessB * x;
  return mf.peakD * std::sin(mf.shapeC * std::atan(bx - mf.curvatureE * (bx - std::atan(bx))));
}

}  // namespace

FrictionCurve::FrictionCurve(const FrictionCurveSettings& settings) {
  if (settings.form == FrictionCurveSettings::Form::MagicFormula) {
    inverseSpacing_ = btScalar(kSampleCount) / settings.maxSlip;
    for (int i = 0; i <= kSampleCount; ++i) {
      const btScalar x = settings.maxSlip * btScalar(i) / btScalar(kSampleCount);
      slips_.push_back(x);
      values_.push_back(magicFormula(settings.magicFormula, x));
    }
  } else {
    uniform_ = false;
    for (const CurvePoint& point : settings.points) {
      slips_.push_back(point.slip);
      values_.push_back(point.friction);
    }
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i] > peakValue_) {
      peakValue_ = values_[i];
      peakSlip_ = slips_[i];
    }
  }
}

FrictionCurve::Sample FrictionCurve::evaluate(btScalar slip) const {
  const btScalar sign = slip < 0 ? btScalar(-1) : btScalar(1);
  const btScalar magnitude = std::fabs(slip);
  if (!(magnitude < slips_.back())) return {sign * values_.back(), 0};  // also NaN
  size_t index;
  if (uniform_) {
    index = std::min(size_t(magnitude * inverseSpacing_), slips_.size() - 2);
  } else {
    index = size_t(std::upper_bound(slips_.begin(), slips_.end(), magnitude) - slips_.begin()) - 1;
  }
  const btScalar span = slips_[index + 1] - slips_[index];
  const btScalar slope = (values_[index + 1] - values_[index]) / span;
  return {sign * (values_[index] + slope * (magnitude - slips_[index])), slope};
}

}  // namespace raycar
