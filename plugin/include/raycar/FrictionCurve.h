#pragma once
// Normalised tire friction curves: mu(x) / mu_surface as a function of slip (seed 004, step 4).
// x is the slip ratio s for the longitudinal curve and the slip angle alpha (rad) for the lateral
// one. A curve peaks near 1; the contact's surface friction scales it. Curves are odd: mu(-x) =
// -mu(x). Either form below is resampled once into a uniform table, so that evaluating a curve in
// the per-step solver is one multiply and one lerp, whatever its form.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

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

// Problems with a curve description, each prefixed with `name`; empty when it is usable.
std::vector<std::string> validateCurve(const FrictionCurveSettings& settings,
                                       const std::string& name);

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
  std::vector<btScalar> slips_;   // sample abscissae, increasing from 0
  std::vector<btScalar> values_;  // mu at slips_
  bool uniform_ = true;           // slips_[i] = i / inverseSpacing_
  btScalar inverseSpacing_ = 1;
  btScalar peakValue_ = 0;
  btScalar peakSlip_ = 0;
};

}  // namespace raycar
