#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Normalised tire friction curves: mu(x) / mu_surface as a function of slip (seed 004, step 4).
// x is the slip ratio s for the longitudinal curve and the slip angle alpha (rad) for the lateral
// one. A curve peaks near 1; the contact's surface friction scales it. Curves are odd: mu(-x) =
// -mu(x). The Magic Formula is sampled once into a uniform table, points are kept as given, so
// that evaluating a curve in the per-step solver is a lookup and one lerp, whatever its form.

#include <LinearMath/btScalar.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "raycar/Error.h"

namespace raycar {

// Pacejka's Magic Formula: y = D sin(C atan(B x - E (B x - atan(B x)))).
struct MagicFormula {
  btScalar stiffnessB = 15;   // B, per unit of x (per slip ratio, or per rad)
  btScalar shapeC = 1.45;     // C, dimensionless: above 1 the curve falls past its peak
  btScalar peakD = 1;         // D, the peak value
  btScalar curvatureE = 0;    // E, dimensionless, <= 1: how sharply the curve falls past its peak
};

struct CurvePoint {
  btScalar slip;      // x: slip ratio, or slip angle in rad; >= 0
  btScalar friction;  // y: normalised friction, >= 0
};

struct FrictionCurveSettings {
  enum class Form { MagicFormula, Points };
  Form form = Form::MagicFormula;
  MagicFormula magicFormula;       // used when form == MagicFormula
  std::vector<CurvePoint> points;  // used when form == Points: (0, 0) first, slip increasing
  btScalar maxSlip = 1.5;          // MagicFormula only: sampled on [0, maxSlip], constant after
};

// Defaults in the ranges seed 004 recommends for a street tire.
FrictionCurveSettings defaultLongitudinalCurve();  // peak at s = 0.126, 0.82 when locked (s = -1)
FrictionCurveSettings defaultLateralCurve();       // peak at 10.2 deg, 0.83 at 35 deg, 0.73 at 90 deg

// Problems with a curve description, each about `object` (e.g. "wheel 1 tire longitudinal
// curve") and the member `field` that holds the curve (e.g. "longitudinalCurve"; the problems
// name its "points" or "magicFormula"); empty when it is usable.
std::vector<SettingsProblem> validateCurve(const FrictionCurveSettings& settings,
                                           const std::string& object, const std::string& field = "");

// Whether two descriptions give the same curve (the fields their form uses are equal).
bool describeSameCurve(const FrictionCurveSettings& a, const FrictionCurveSettings& b);

class FrictionCurve {
 public:
  struct Sample {
    btScalar value;  // mu(x), signed like x
    btScalar slope;  // d mu / dx at x (>= 0 on the rising part, < 0 past the peak)
  };

  FrictionCurve() = default;
  // Expects a description that validateCurve() accepts.
  explicit FrictionCurve(const FrictionCurveSettings& settings);
  Sample evaluate(btScalar slip) const;
  btScalar peak() const { return peakValue_; }
  btScalar peakSlip() const { return peakSlip_; }

 private:
  static constexpr int kSampleCount = 512;
  // One sample of the table and the slope of the segment that starts at it, side by side so
  // that an evaluation reads one place.
  struct Knot {
    btScalar slip;
    btScalar value;
    btScalar slope;  // towards the next knot; 0 at the last
  };
  struct Table {
    std::vector<Knot> knots;  // slip increasing from 0
    bool uniform = true;      // knots[i].slip = i / inverseSpacing
    btScalar inverseSpacing = 1;
  };
  // Identical curves share one table (a thousand cars share a few kilobytes, which stay in the
  // cache, instead of each reading its own from memory).
  static std::shared_ptr<const Table> sharedTable(const FrictionCurveSettings& settings);

  std::shared_ptr<const Table> table_;
  btScalar peakValue_ = 0;
  btScalar peakSlip_ = 0;
};

// Inline: the solve reads a curve a few dozen times per car and step (Tire.cpp's laws).
inline FrictionCurve::Sample FrictionCurve::evaluate(btScalar slip) const {
  const std::vector<Knot>& knots = table_->knots;
  const btScalar sign = slip < 0 ? btScalar(-1) : btScalar(1);
  const btScalar magnitude = std::fabs(slip);
  if (!(magnitude < knots.back().slip)) return {sign * knots.back().value, 0};  // also NaN
  size_t index;
  if (table_->uniform) {
    index = std::min(size_t(magnitude * table_->inverseSpacing), knots.size() - 2);
  } else {
    index = size_t(std::upper_bound(knots.begin(), knots.end(), magnitude,
                                    [](btScalar value, const Knot& knot) { return value < knot.slip; }) -
                   knots.begin()) - 1;
  }
  const Knot& knot = knots[index];
  return {sign * (knot.value + knot.slope * (magnitude - knot.slip)), knot.slope};
}

}  // namespace raycar
