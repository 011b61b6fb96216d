#include "raycar/extras/KinematicBicycle.h"

#include <algorithm>
#include <cmath>

namespace raycar {

void KinematicBicycle::step(btScalar acceleration, btScalar steer, btScalar dt) {
  const KinematicBicycleSettings& s = settings_;
  const btScalar a = std::clamp(acceleration, -s.maxAcceleration, s.maxAcceleration);
  const btScalar delta = std::clamp(steer, -s.maxSteer, s.maxSteer);
  const btScalar v = state_.speed;
  const btScalar headingRate =
      std::clamp(v * std::tan(delta) / s.wheelbase, -SIMD_HALF_PI, SIMD_HALF_PI);
  state_.x += v * std::cos(state_.heading) * dt;
  state_.y += v * std::sin(state_.heading) * dt;
  state_.speed = std::clamp(v + a * dt, -s.maxSpeed, s.maxSpeed);
  state_.heading += headingRate * dt;
  state_.steer = delta;
}

}  // namespace raycar
