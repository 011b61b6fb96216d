#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Tire models: how much force a tire transmits for a given slip (seeds 000 and 004).
//
// The contact solver (ContactSolver.cpp) asks a TireModel, direction by direction, for the force
// at the current slip velocity and for its derivative, and takes implicit (Newton) steps on that
// law. A stiff law therefore never overshoots, even at 1/60 s, where the explicit slip-force
// update of seed 004 would oscillate: at 20 m/s a street tire's longitudinal stiffness is ~50x
// what an explicit step tolerates.
//
// Two models come with raycar, and TireModel is the interface for a game's own:
// - SlipCurves (seed 004): slip ratio s = (R w - Vx) / max(|Vx|, eps_s) and slip angle
//   alpha = atan2(Vy, |Vx| + eps_a), normalised curves mu_x(s), mu_y(alpha) scaled by the contact's
//   friction and load sensitivity. Combined slip: each curve is read at the combined slip
//   rho = |(s / s_peak, alpha / alpha_peak)|, and each direction takes its share of a unit vector
//   that turns from the normalised slips (up to the peak) to the sliding direction
//   sigma = (s, tan alpha) (from twice the peak slip on):
//     Fx = mu N mu_x(rho s_peak) d_x,  Fy = -mu N mu_y(rho alpha_peak) d_y.
//   Small combined slips give each pure curve's own force (the linear range of a tire does not
//   couple its directions); the force stays inside seed 004's friction ellipse; and a locked,
//   sliding wheel (s = -1, tan alpha = Vy / Vx) pushes against its sliding velocity, so a car
//   with locked front wheels does not steer.
// - LinearSideFriction (seed 000): side force = side speed x load x coefficient, and a tire that
//   rolls without longitudinal slip up to the friction limit. Not accurate at speed; kept because
//   it is simple to tune and convincing at low speed.
// Aligning moment: TireSettings::pneumaticTrail and pneumaticTrailFactor below.
// Camber thrust: TireSettings::camberStiffness, solved as a slip-angle shift (Wheel.cpp).
// Slip lag: TireSettings::slipLag (the side force builds over the relaxation length).

#include <LinearMath/btScalar.h>

#include <memory>
#include <optional>

#include "raycar/Error.h"
#include "raycar/tire/FrictionCurve.h"
#include "raycar/tire/TireTemperature.h"

namespace raycar {

enum class TireModelKind { SlipCurves, LinearSideFriction };

class TireModel;

struct TireSettings {
  TireModelKind model = TireModelKind::SlipCurves;
  btScalar friction = 1.0;  // tire material friction; the contact uses (tire + ground) / 2
  FrictionCurveSettings longitudinalCurve = defaultLongitudinalCurve();  // mu_x(s), normalised
  FrictionCurveSettings lateralCurve = defaultLateralCurve();            // mu_y(alpha rad)
  btScalar slipRatioEpsilon = 0.5;  // m/s, keeps s finite near standstill (seed 004)
  btScalar slipAngleEpsilon = 0.5;  // m/s, keeps alpha finite near standstill (seed 004)
  btScalar loadSensitivity = 0.1;   // k_load: mu_eff = mu (1 - k_load (N / N_ref - 1)), [0, 1)
  // N_ref (N): the tire's nominal load, a property of the tire. The default suits a passenger
  // car's tires (a 1.2-1.7 t car puts 3-4.5 kN on each). 0: each wheel's own static load, which
  // makes cornering stiffness proportional to static load on every axle, and so every two-axle
  // car neutral-steer in the linear single-track model (K = m_f / C_f - m_r / C_r = 0) whatever
  // its weight distribution. Not a tandem: its two axles turn about different points and scrub
  // against each other, which understeers (a trial's 40 t 6x4 truck: 7.5 deg of steer at 0.08 g
  // and 8.4 at 0.51 g on a 40 m circle), and the single-track model, which counts the tandem as
  // one axle, does not see that.
  btScalar referenceLoad = 4000;
  btScalar sideFrictionCoefficient = 0.75;  // LinearSideFriction only (s/m)
  // Relaxation length sigma (m): at standstill a tire's carcass is a spring of stiffness
  // slip stiffness / sigma (the zero-speed limit of the relaxation-length model), which is how
  // static friction is solved: a parked car's hold is shared between its wheels as their
  // stiffnesses share it. 0 (or under 1 mm): rigid static friction (the share is then left to
  // the solve's order).
  btScalar relaxationLength = 0.3;
  // Slip lag: a rolling tire's lateral force builds over the relaxation length instead of at
  // once - its carcass' lateral deflection y follows dy/dt = Vy - |Vx| y / sigma and the force
  // is the law's at the slip angle y / sigma, so a step in slip angle brings the force up as
  // 1 - exp(-x / sigma) over the distance x rolled. At standstill this is the carcass spring
  // above. Off: the force follows the slip at once (the lag's sigma -> 0 limit).
  bool slipLag = false;
  // Pneumatic trail at zero slip t0 (m): the lateral force acts this far behind the contact's
  // centre, which makes the aligning moment Mz = -t Fy that turns a steered wheel back toward
  // its path (and the chassis with it). The trail falls with the slip angle as the contact
  // patch's rear starts to slide (TireModel::pneumaticTrailFactor): to 0 at the lateral force's
  // peak. Passenger tires: 0.02-0.05 m. 0: no aligning moment from the tire.
  btScalar pneumaticTrail = 0;
  // Camber stiffness per unit load (1/rad): a wheel leaning by gamma rolls with the camber thrust
  // C_gamma gamma toward the side its top leans, C_gamma = this x N. Solved as a shift of the
  // slip angle by C_gamma gamma / C_alpha, so thrust and cornering share the friction limit.
  // Passenger tires: about 1 (a tenth of C_alpha / N). 0: no camber thrust.
  btScalar camberStiffness = 0;
  TireThermalSettings thermal;  // the tire's temperature and its grip (TireTemperature.h)
  std::shared_ptr<const TireModel> customModel;  // when set, replaces `model`
};

// A contact as the tire sees it at the start of a step.
struct TireContact {
  btScalar normalLoad = 0;    // N (newtons)
  btScalar friction = 0;      // mu after surface mixing, load sensitivity and sliding modifiers
  btScalar forwardSpeed = 0;  // Vx (m/s): contact velocity relative to the ground, wheel forward
};

// A tire's force in one direction, linearised at the current slip velocity.
struct FrictionLaw {
  btScalar force = 0;      // N along the direction (opposes the slip velocity)
  btScalar stiffness = 0;  // N s/m: -dForce / dSlipVelocity; < 0 past the curve's peak
  bool sticks = false;     // the tire removes all slip up to the friction limit (Coulomb)
};

class TireModel {
 public:
  virtual ~TireModel() = default;
  // Largest force in each direction (N): the semi-axes of the friction ellipse.
  virtual btScalar peakLongitudinalForce(const TireContact& contact) const = 0;
  virtual btScalar peakLateralForce(const TireContact& contact) const = 0;
  // Slip velocities (m/s): tire surface velocity relative to the ground, longitudinal Vx - R w
  // and lateral Vy. Each law is linearised in its own direction's slip; the other is given.
  virtual FrictionLaw longitudinal(const TireContact& contact, btScalar longitudinalSlip,
                                   btScalar lateralSlip) const = 0;
  virtual FrictionLaw lateral(const TireContact& contact, btScalar lateralSlip,
                              btScalar longitudinalSlip) const = 0;
  // Whether the force laws already fall from static to sliding friction (slip curves do); if
  // not, the contact's friction is multiplied by dyn_friction_ratio while it slides (and only
  // then: ContactFriction.h).
  virtual bool hasOwnSlidingFriction() const { return false; }
  // What a locked wheel slides with, as a share of its peak longitudinal force, at most: the
  // handbrake's hold is kept at least this (ContactFriction.h), so that a parked car's hold never
  // falls below the slide it would brake with. 1 unless the model knows its own.
  virtual btScalar lockedSlideShare() const { return 1; }
  // Slip stiffness at zero slip (N per unit slip ratio, or per rad of slip angle): what the
  // static friction spring is made of. The default, 20 x the peak force, is a street tire's.
  virtual btScalar slipStiffness(const TireContact& contact, bool longitudinal) const {
    return 20 * (longitudinal ? peakLongitudinalForce(contact) : peakLateralForce(contact));
  }
  // The share of the zero-slip pneumatic trail left at slip angle alpha (rad): 1 at zero slip,
  // falling linearly to 0 at the slip angle of the lateral force's peak and 0 beyond (the
  // brush model's trail falls about so; its aligning moment t Fy then peaks at about half the
  // force's peak slip). The default takes the peak at kDefaultPeakSlipAngle.
  virtual btScalar pneumaticTrailFactor(btScalar slipAngle) const {
    return trailFactorBelowPeak(slipAngle, kDefaultPeakSlipAngle);
  }
  static constexpr btScalar kDefaultPeakSlipAngle = btScalar(0.178);  // rad, 10.2 deg

 protected:
  static btScalar trailFactorBelowPeak(btScalar slipAngle, btScalar peakSlipAngle) {
    const btScalar share = 1 - btFabs(slipAngle) / peakSlipAngle;
    return share > 0 ? share : 0;
  }
};

class SlipCurveTire final : public TireModel {
 public:
  explicit SlipCurveTire(const TireSettings& settings);
  btScalar peakLongitudinalForce(const TireContact& contact) const override;
  btScalar peakLateralForce(const TireContact& contact) const override;
  FrictionLaw longitudinal(const TireContact& contact, btScalar longitudinalSlip,
                           btScalar lateralSlip) const override;
  FrictionLaw lateral(const TireContact& contact, btScalar lateralSlip,
                      btScalar longitudinalSlip) const override;
  bool hasOwnSlidingFriction() const override { return true; }
  // The larger of the longitudinal curve at a slip ratio of 1 and the lateral curve at 90 deg,
  // over the longitudinal peak (the default curves: 0.82).
  btScalar lockedSlideShare() const override { return lockedSlideShare_; }
  btScalar slipStiffness(const TireContact& contact, bool longitudinal) const override;
  btScalar pneumaticTrailFactor(btScalar slipAngle) const override {
    return trailFactorBelowPeak(slipAngle, lateralCurve_.peakSlip());
  }

 private:
  // Force and derivative with respect to sigma_own for one direction: scale x
  // mu(rho x_peak) d_own, with rho from the normalised slips (Tire.cpp derives d). A template
  // on the direction, so that each direction's copy keeps only its own arithmetic.
  template <bool kLongitudinal>
  FrictionLaw combinedLaw(btScalar sigmaX, btScalar sigmaY, btScalar scale) const;
  // The law in slip velocities (m/s) for one direction.
  template <bool kLongitudinal>
  FrictionLaw law(const TireContact& contact, btScalar longitudinalSlip, btScalar lateralSlip) const;

  FrictionCurve longitudinalCurve_;
  FrictionCurve lateralCurve_;
  btScalar lockedSlideShare_ = 1;
  btScalar slipRatioEpsilon_;
  btScalar slipAngleEpsilon_;
  btScalar inversePeakSlipX_;  // 1 / s_peak
  btScalar inversePeakSlipY_;  // 1 / alpha_peak (1/rad)
};

class LinearSideFrictionTire final : public TireModel {
 public:
  explicit LinearSideFrictionTire(btScalar sideFrictionCoefficient)
      : sideFrictionCoefficient_(sideFrictionCoefficient) {}
  btScalar peakLongitudinalForce(const TireContact& contact) const override;
  btScalar peakLateralForce(const TireContact& contact) const override;
  FrictionLaw longitudinal(const TireContact& contact, btScalar longitudinalSlip,
                           btScalar lateralSlip) const override;
  FrictionLaw lateral(const TireContact& contact, btScalar lateralSlip,
                      btScalar longitudinalSlip) const override;

 private:
  btScalar sideFrictionCoefficient_;  // s/m
};

// The model a TireSettings asks for (its customModel when set); tires with identical settings
// share one model.
std::shared_ptr<const TireModel> makeTireModel(const TireSettings& settings);

// Problems with the settings, each prefixed with `name`; empty when usable: every number against
// its row of settingsFields(), then the curves' own rules.
std::vector<SettingsProblem> validateTire(const TireSettings& settings, const std::string& name);

// Seed 004's slips, for telemetry and for the curves.
btScalar slipRatio(btScalar forwardSpeed, btScalar surfaceSpeed, btScalar epsilon);  // s
btScalar slipAngle(btScalar forwardSpeed, btScalar sideSpeed, btScalar epsilon);      // rad

// Load sensitivity factor 1 - k (N / N_ref - 1), never below 0.
btScalar loadSensitivityFactor(btScalar loadSensitivity, btScalar normalLoad,
                               btScalar referenceLoad);

// A tire that grips with nothing at its wheel's static load (N): load sensitivity reaches mu = 0
// from N_ref (1 + 1 / k) on, so a tire meant for a car put under a truck can neither drive, steer
// nor brake it. The problem is of the tire's referenceLoad, on wheel `wheel` (from 0).
std::optional<SettingsProblem> gripAtRestProblem(const TireSettings& tire, btScalar staticLoad, int wheel);

}  // namespace raycar
