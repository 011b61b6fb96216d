#include "raycar/tire/FrictionCurve.h"

#include <algorithm>
#include <cmath>
#include <mutex>

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

std::vector<SettingsProblem> validateCurve(const FrictionCurveSettings& settings,
                                           const std::string& object, const std::string& field) {
  std::vector<SettingsProblem> problems;
  const bool formula = settings.form == FrictionCurveSettings::Form::MagicFormula;
  const std::string member = field.empty() ? "" : field + (formula ? ".magicFormula" : ".points");
  auto problem = [&](const std::string& text) { problems.push_back({object, member, text, FieldScope::Tire}); };
  if (formula) {
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
    } else if (point.slip > 100 || point.friction > 100) {
      // The script's range for curve points (slip ratio, or rad here; mu).
      problem("point " + std::to_string(i + 1) + " lies beyond 100 in slip or friction");
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

bool describeSameCurve(const FrictionCurveSettings& a, const FrictionCurveSettings& b) {
  if (a.form != b.form) return false;
  if (a.form == FrictionCurveSettings::Form::MagicFormula) {
    const MagicFormula& x = a.magicFormula;
    const MagicFormula& y = b.magicFormula;
    return x.stiffnessB == y.stiffnessB && x.shapeC == y.shapeC && x.peakD == y.peakD &&
           x.curvatureE == y.curvatureE && a.maxSlip == b.maxSlip;
  }
  return std::equal(a.points.begin(), a.points.end(), b.points.begin(), b.points.end(),
                    [](const CurvePoint& p, const CurvePoint& q) {
                      return p.slip == q.slip && p.friction == q.friction;
                    });
}

std::shared_ptr<const FrictionCurve::Table> FrictionCurve::sharedTable(
    const FrictionCurveSettings& settings) {
  // Curves are built when vehicles are, possibly on several threads; never per step.
  static std::mutex mutex;
  static std::vector<std::pair<FrictionCurveSettings, std::weak_ptr<const Table>>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [known, table] : tables)
    if (describeSameCurve(known, settings))
      if (std::shared_ptr<const Table> shared = table.lock()) return shared;
  tables.erase(std::remove_if(tables.begin(), tables.end(),
                              [](const auto& entry) { return entry.second.expired(); }),
               tables.end());

  auto table = std::make_shared<Table>();
  if (settings.form == FrictionCurveSettings::Form::MagicFormula) {
    table->inverseSpacing = btScalar(kSampleCount) / settings.maxSlip;
    for (int i = 0; i <= kSampleCount; ++i) {
      const btScalar x = settings.maxSlip * btScalar(i) / btScalar(kSampleCount);
      table->knots.push_back({x, magicFormula(settings.magicFormula, x), 0});
    }
  } else {
    table->uniform = false;
    for (const CurvePoint& point : settings.points)
      table->knots.push_back({point.slip, point.friction, 0});
  }
  std::vector<Knot>& knots = table->knots;
  for (size_t i = 0; i + 1 < knots.size(); ++i)
    knots[i].slope = (knots[i + 1].value - knots[i].value) / (knots[i + 1].slip - knots[i].slip);
  knots.shrink_to_fit();
  tables.emplace_back(settings, table);
  return table;
}

FrictionCurve::FrictionCurve(const FrictionCurveSettings& settings)
    : table_(sharedTable(settings)) {
  for (const Knot& knot : table_->knots) {
    if (knot.value > peakValue_) {
      peakValue_ = knot.value;
      peakSlip_ = knot.slip;
    }
  }
}

}  // namespace raycar
