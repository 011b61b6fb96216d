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

btScalar interpolatePoints(const std::vector<CurvePoint>& points, btScalar x) {
  if (x >= points.back().slip) return points.back().friction;
  const auto upper = std::upper_bound(points.begin(), points.end(), x,
                                      [](btScalar value, const CurvePoint& p) { return value < p.slip; });
  const CurvePoint& b = *upper;
  const CurvePoint& a = *(upper - 1);
  return a.friction + (b.friction - a.friction) * (x - a.slip) / (b.slip - a.slip);
}

}  // namespace

FrictionCurve::FrictionCurve(const FrictionCurveSettings& settings) {
  const bool isFormula = settings.form == FrictionCurveSettings::Form::MagicFormula;
  const btScalar maxSlip = isFormula ? settings.maxSlip : settings.points.back().slip;
  inverseSpacing_ = btScalar(kSampleCount) / maxSlip;
  values_.resize(kSampleCount + 1);
  for (int i = 0; i <= kSampleCount; ++i) {
    const btScalar x = maxSlip * btScalar(i) / btScalar(kSampleCount);
    values_[i] = isFormula ? magicFormula(settings.magicFormula, x)
                           : interpolatePoints(settings.points, x);
    if (values_[i] > peakValue_) {
      peakValue_ = values_[i];
      peakSlip_ = x;
    }
  }
}

FrictionCurve::Sample FrictionCurve::evaluate(btScalar slip) const {
  const btScalar sign = slip < 0 ? btScalar(-1) : btScalar(1);
  const btScalar position = std::fabs(slip) * inverseSpacing_;
  if (!(position < btScalar(kSampleCount))) return {sign * values_.back(), 0};  // also NaN
  const int index = int(position);
  const btScalar fraction = position - btScalar(index);
  const btScalar low = values_[index];
  const btScalar high = values_[index + 1];
  return {sign * (low + (high - low) * fraction), (high - low) * inverseSpacing_};
}

}  // namespace raycar
