#include "Drivers.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace raycar::sim {
namespace {

class TimelineDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<TimelineDriver>(*this); }
  explicit TimelineDriver(std::vector<TimelineEvent> events) : events_(std::move(events)) {}
  DriverCommand update(const DriverView& view) override {
    while (next_ < events_.size() && events_[next_].time <= view.time + 1e-9) ++next_;
    DriverCommand command;
    if (next_ == 0) return command;
    const TimelineEvent& event = events_[next_ - 1];
    command.input.pedal = event.pedal;
    command.input.brake = event.brake;
    command.input.steer = event.steer;
    command.input.handbrake = event.handbrake;
    return command;
  }

 private:
  std::vector<TimelineEvent> events_;
  size_t next_ = 0;
};

// Pedal and brake that hold a speed: proportional-integral on the error.
class SpeedController {
 public:
  void pedalAndBrake(double target, double speed, double dt, DriverInput& input) {
    const double error = target - speed;
    integral_ = std::clamp(integral_ + error * dt, -2.0, 2.0);
    const double demand = 0.35 * error + 0.25 * integral_;
    if (target <= 0.05 && speed < 0.3) {  // stopped: hold it
      input.pedal = 0;
      input.brake = 1;
      integral_ = 0;
      return;
    }
    input.pedal = float(std::clamp(demand, 0.0, 1.0));
    input.brake = float(std::clamp(-demand * 0.6, 0.0, 1.0));
  }

 private:
  double integral_ = 0;
};

class HoldSpeedDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<HoldSpeedDriver>(*this); }
  explicit HoldSpeedDriver(const VehicleEntry& entry) : speed_(entry.speed), steer_(entry.steer) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    control_.pedalAndBrake(speed_, view.speed, view.dt, command.input);
    command.input.steer = float(steer_);
    return command;
  }

 private:
  double speed_, steer_;
  SpeedController control_;
};

// Pure pursuit along a polyline; remembers how far along it the vehicle has come.
class PurePursuit {
 public:
  PurePursuit(std::vector<std::array<double, 2>> path, double lookahead)
      : path_(std::move(path)), lookahead_(lookahead) {
    lengths_.push_back(0);
    for (size_t i = 1; i < path_.size(); ++i)
      lengths_.push_back(lengths_.back() + std::hypot(path_[i][0] - path_[i - 1][0], path_[i][1] - path_[i - 1][1]));
    // Each inner vertex's corner: the radius of the arc pure pursuit cuts across it, tangent to
    // both segments lookahead / 2 from the vertex, R = lookahead / (2 tan(turn / 2)); 0 (none)
    // where the path runs straight on.
    cornerRadii_.assign(path_.size(), 0);
    for (size_t i = 1; i + 1 < path_.size(); ++i) {
      const double headingIn = std::atan2(path_[i][1] - path_[i - 1][1], path_[i][0] - path_[i - 1][0]);
      const double headingOut = std::atan2(path_[i + 1][1] - path_[i][1], path_[i + 1][0] - path_[i][0]);
      const double turn = std::fabs(std::remainder(headingOut - headingIn, 2 * SIMD_PI));
      if (turn >= 1e-3) cornerRadii_[i] = lookahead_ / (2 * std::tan(std::min(turn, 3.0) / 2));
    }
  }

  // Steer angle (rad) for the bicycle at (x, y, heading) with wheelbase L; updates progress.
  double steer(double x, double y, double heading, double wheelbase) {
    // Progress: the closest point on the path ahead of the last one.
    double best = 1e18;
    // Only segments within reach: a path that passes near a later part of itself must not skip.
    for (size_t i = segment_; i + 1 < path_.size() && lengths_[i] <= travelled_ + lookahead_; ++i) {
      const double t = projection(i, x, y);
      const double px = path_[i][0] + t * (path_[i + 1][0] - path_[i][0]);
      const double py = path_[i][1] + t * (path_[i + 1][1] - path_[i][1]);
      const double d = std::hypot(px - x, py - y);
      if (d < best) best = d, segment_ = i, along_ = t;
    }
    travelled_ = lengths_[segment_] + along_ * (lengths_[segment_ + 1] - lengths_[segment_]);
    const double target = std::min(travelled_ + lookahead_, lengths_.back());
    const auto [tx, ty] = pointAt(target);
    const double dx = tx - x, dy = ty - y;
    const double distance = std::max(std::hypot(dx, dy), 1e-6);
    const double alpha = std::atan2(dy, dx) - heading;
    // The arc through the target point tangent to the heading: curvature 2 sin(alpha) / distance.
    curvature_ = 2 * std::sin(alpha) / std::max(distance, 0.5 * lookahead_);
    return std::atan(wheelbase * curvature_);
  }
  double remaining() const { return lengths_.back() - travelled_; }
  double curvature() const { return curvature_; }  // 1/m of the last steer()'s arc

  // The fastest speed (m/s) from which every corner ahead can still be taken: each corner's
  // speed sqrt(a_lateral R) (R: cornerRadii_), reached by braking at `deceleration` over the
  // distance to it, v^2 = v_corner^2 + 2 a d.
  double cornerSpeedAhead(double lateralAcceleration, double deceleration) const {
    double speed = 1e9;
    for (size_t i = segment_ + 1; i + 1 < path_.size(); ++i) {
      const double distance = lengths_[i] - travelled_;
      if (distance > 400) break;  // farther corners cannot bind at road speeds
      if (distance < 0 || cornerRadii_[i] == 0) continue;
      const double corner = lateralAcceleration * cornerRadii_[i];  // v^2
      speed = std::min(speed, std::sqrt(corner + 2 * deceleration * distance));
    }
    return speed;
  }

 private:
  double projection(size_t i, double x, double y) const {
    const double ax = path_[i][0], ay = path_[i][1], bx = path_[i + 1][0], by = path_[i + 1][1];
    const double length2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay);
    if (length2 <= 0) return 0;
    return std::clamp(((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / length2, 0.0, 1.0);
  }
  std::array<double, 2> pointAt(double distance) const {
    for (size_t i = 0; i + 1 < path_.size(); ++i) {
      if (distance <= lengths_[i + 1] || i + 2 == path_.size()) {
        const double span = lengths_[i + 1] - lengths_[i];
        const double t = span > 0 ? std::clamp((distance - lengths_[i]) / span, 0.0, 1.0) : 0;
        return {path_[i][0] + t * (path_[i + 1][0] - path_[i][0]), path_[i][1] + t * (path_[i + 1][1] - path_[i][1])};
      }
    }
    return path_.back();
  }

  std::vector<std::array<double, 2>> path_;
  std::vector<double> lengths_;
  std::vector<double> cornerRadii_;  // m, per vertex; 0: no corner
  double lookahead_;
  size_t segment_ = 0;
  double along_ = 0, travelled_ = 0;
  double curvature_ = 0;
};

class FollowPathDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<FollowPathDriver>(*this); }
  explicit FollowPathDriver(const VehicleEntry& entry)
      : pursuit_(entry.path, entry.lookahead), speed_(entry.speed), lateralAcceleration_(entry.lateralG * 9.81) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    const double steer = pursuit_.steer(view.x, view.y, view.heading, view.wheelbase);
    command.input.steer = float(std::clamp(steer / view.maxSteer, -1.0, 1.0));
    // Slow down to stop at the end: v <= sqrt(2 a d) with a gentle 2 m/s^2.
    double target = std::min(speed_, std::sqrt(2 * 2.0 * std::max(pursuit_.remaining() - 0.5, 0.0)));
    // A course driver: no faster than the arc to the lookahead point allows at lateral_g,
    // v^2 |curvature| <= a_lateral, and slow enough to brake for each corner ahead at the same
    // acceleration (the friction circle's other axis).
    if (lateralAcceleration_ > 0) {
      target = std::min(target, std::sqrt(lateralAcceleration_ / std::max(std::fabs(pursuit_.curvature()), 1e-4)));
      target = std::min(target, pursuit_.cornerSpeedAhead(lateralAcceleration_, lateralAcceleration_));
    }
    control_.pedalAndBrake(target, view.speed, view.dt, command.input);
    return command;
  }
  bool pathComplete() const override { return pursuit_.remaining() < 1; }

 private:
  PurePursuit pursuit_;
  double speed_;
  double lateralAcceleration_;  // m/s^2; 0: no limit
  SpeedController control_;
};

class DriftDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<DriftDriver>(*this); }
  explicit DriftDriver(const VehicleEntry& entry)
      : entrySpeed_(entry.speed),
        target_(entry.driftAngleDegrees * SIMD_PI / 180),
        holdSeconds_(entry.driftSeconds) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    const double direction = target_ >= 0 ? 1 : -1;  // +1: a left-hand drift
    // In a left-hand drift the car rotates left and slides out to the right: the velocity points
    // right of the heading, so the body slip is negative; `slide` is positive while drifting.
    const double slide = -direction * view.slipAngle;
    const double slideRate = (slide - lastSlide_) / view.dt;
    lastSlide_ = slide;
    switch (phase_) {
      case Phase::Accelerate:
        speed_.pedalAndBrake(entrySpeed_, view.speed, view.dt, command.input);
        if (view.speed >= entrySpeed_) phase_ = Phase::Initiate;
        break;
      case Phase::Initiate:
        command.input.pedal = 1;
        command.input.steer = float(direction * 0.6);
        if (slide >= 0.5 * std::fabs(target_)) phase_ = Phase::Hold, holdStart_ = view.time;
        break;
      case Phase::Hold:
      case Phase::Recover: {
        // Recovering: the same control with the target slide brought down to 0 over 2 s, so the
        // rear regains grip gradually instead of snapping the car the other way.
        const double ramp = phase_ == Phase::Recover ? std::max(0.0, 1 - (view.time - holdStart_) / 2.0) : 1.0;
        const double target = std::fabs(target_) * ramp;
        // Front wheels about along the velocity (countersteer = -slide), corrected on the error:
        // too much slide -> more countersteer; and damped on its rate.
        const double error = slide - target;
        const double wheelAngle = direction * (-slide - 1.2 * error - 0.25 * slideRate + 0.1 * ramp);
        command.input.steer = float(std::clamp(wheelAngle / view.maxSteer, -1.0, 1.0));
        // Throttle keeps the rear sliding; the speed term keeps the circle from opening up.
        const double pedal = 0.75 - 1.5 * error - 0.08 * (view.speed - entrySpeed_);
        command.input.pedal = float(std::clamp(pedal, 0.15 * ramp, 1.0));
        if (phase_ == Phase::Hold && (view.time - holdStart_ >= holdSeconds_ || slide > 1.3)) {
          phase_ = Phase::Recover;
          holdStart_ = view.time;
        } else if (phase_ == Phase::Recover && ramp == 0 && std::fabs(slide) < 0.03) {
          phase_ = Phase::Exit;
        }
        break;
      }
      case Phase::Exit:
        speed_.pedalAndBrake(0, view.speed, view.dt, command.input);
        break;
    }
    return command;
  }

 private:
  enum class Phase { Accelerate, Initiate, Hold, Recover, Exit };
  double entrySpeed_, target_, holdSeconds_;
  Phase phase_ = Phase::Accelerate;
  double holdStart_ = 0, lastSlide_ = 0;
  SpeedController speed_;
};

class ParkingDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<ParkingDriver>(*this); }
  explicit ParkingDriver(const VehicleEntry& entry)
      : pursuit_(entry.path, entry.lookahead), cruise_(std::min(entry.speed, kMaxSpeed)) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    command.bicycle = true;
    command.steerAngle = std::clamp(pursuit_.steer(view.x, view.y, view.heading, view.wheelbase), -kMaxSteer, kMaxSteer);
    // Speed profile: cruise, then brake at a_max to stop at the end of the path.
    const double remaining = std::max(pursuit_.remaining() - 0.05, 0.0);
    const double target = std::min(cruise_, std::sqrt(2 * kMaxAcceleration * 0.8 * remaining));
    command.acceleration = std::clamp((target - commandedSpeed_) / 0.3, -kMaxAcceleration, kMaxAcceleration);
    commandedSpeed_ = std::clamp(commandedSpeed_ + command.acceleration * view.dt, 0.0, kMaxSpeed);
    command.input.steer = float(std::clamp(command.steerAngle / view.maxSteer, -1.0, 1.0));
    control_.pedalAndBrake(commandedSpeed_, view.speed, view.dt, command.input);
    return command;
  }

 private:
  static constexpr double kMaxAcceleration = 1.0;  // seed 002's bicycle limits
  static constexpr double kMaxSteer = 0.785;
  static constexpr double kMaxSpeed = 2.78;
  PurePursuit pursuit_;
  double cruise_;
  double commandedSpeed_ = 0;
  SpeedController control_;
};

// ISO 4138's steady-state circular test at constant radius: the speed raised in steps, the
// steering holding the circle. Steering: the circle's geometric angle atan(L / R), plus a slow
// integral of the yaw-rate error against V / R (the tires' slip angles); slow, so that it does
// not ring against a steering system's own rate limit. When the car can no longer hold the
// circle (the yaw rate short of V / R by a third, or the body slip past 15 deg) it brakes to a
// stop: the limit has been found.
class ConstantRadiusDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<ConstantRadiusDriver>(*this); }
  explicit ConstantRadiusDriver(const VehicleEntry& entry)
      : radius_(entry.radius), speed_(entry.speed), step_(entry.speedStep), stepSeconds_(entry.stepSeconds) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    const double yawRate =
        started_ ? std::remainder(view.heading - lastHeading_, 2 * SIMD_PI) / view.dt : 0;
    lastHeading_ = view.heading;
    started_ = true;
    const double target = speed_ + step_ * std::floor(view.time / stepSeconds_);
    const double error = view.speed / radius_ - yawRate;
    const bool onCircle = view.time < stepSeconds_ || view.speed < 1 ||
                          (std::fabs(view.slipAngle) < 15 * SIMD_PI / 180 && error < view.speed / radius_ / 3);
    if (!onCircle) done_ = true;
    if (done_) {
      control_.pedalAndBrake(0, view.speed, view.dt, command.input);
      return command;
    }
    correction_ = std::clamp(correction_ + 0.3 * error * view.dt, -0.5, 0.5);
    const double angle = std::atan(view.wheelbase / radius_) + correction_;
    command.input.steer = float(std::clamp(angle / view.maxSteer, -1.0, 1.0));
    control_.pedalAndBrake(target, view.speed, view.dt, command.input);
    command.input.brake = 0;  // a step up or a hold: never brake on the circle
    return command;
  }

 private:
  double radius_, speed_, step_, stepSeconds_;
  double lastHeading_ = 0, correction_ = 0;
  bool started_ = false, done_ = false;
  SpeedController control_;
};

}  // namespace

double sineWithDwell(double t, double amplitude) {
  const double omega = 2 * SIMD_PI * kSineWithDwellFrequency;
  const double secondPeak = 0.75 / kSineWithDwellFrequency;  // 1.071 s
  if (t < 0) return 0;
  if (t < secondPeak) return amplitude * std::sin(omega * t);
  if (t < secondPeak + kSineWithDwellDwell) return -amplitude;
  const double resumed = t - kSineWithDwellDwell;
  return resumed < 1 / kSineWithDwellFrequency ? amplitude * std::sin(omega * resumed) : 0;
}

// FMVSS 126 as a driver: up to `speed` on the pedal, a second coasting (the standard releases
// the throttle), then the sine with dwell on the steering, coasting on.
class SineWithDwellDriver final : public Driver {
 public:
  std::unique_ptr<Driver> clone() const override { return std::make_unique<SineWithDwellDriver>(*this); }
  explicit SineWithDwellDriver(const VehicleEntry& entry)
      : speed_(entry.speed), amplitude_(entry.amplitudeDegrees * SIMD_PI / 180) {}
  DriverCommand update(const DriverView& view) override {
    DriverCommand command;
    if (coastStart_ < 0) {
      control_.pedalAndBrake(speed_, view.speed, view.dt, command.input);
      if (view.speed >= speed_) coastStart_ = view.time;
      return command;
    }
    const double angle = sineWithDwell(view.time - coastStart_ - 1, amplitude_);
    command.input.steer = float(std::clamp(angle / view.maxSteer, -1.0, 1.0));
    return command;
  }

 private:
  double speed_, amplitude_;
  double coastStart_ = -1;  // s: when the speed was reached
  SpeedController control_;
};

std::unique_ptr<Driver> makeDriver(const VehicleEntry& entry) {
  switch (entry.driver) {
    case DriverType::Timeline: return std::make_unique<TimelineDriver>(entry.events);
    case DriverType::HoldSpeed: return std::make_unique<HoldSpeedDriver>(entry);
    case DriverType::FollowPath: return std::make_unique<FollowPathDriver>(entry);
    case DriverType::Parking: return std::make_unique<ParkingDriver>(entry);
    case DriverType::Drift: return std::make_unique<DriftDriver>(entry);
    case DriverType::ConstantRadius: return std::make_unique<ConstantRadiusDriver>(entry);
    case DriverType::SineWithDwell: return std::make_unique<SineWithDwellDriver>(entry);
  }
  return nullptr;
}

}  // namespace raycar::sim
