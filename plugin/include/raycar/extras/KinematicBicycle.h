#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// The kinematic bicycle of seed 002, with its exact equations and clamps: the low-speed reference
// a full vehicle model is compared against (the parking scene drives one as a ghost).
//
//   x' = v cos(psi), y' = v sin(psi), v' = a, psi' = v tan(delta) / L
// stepped explicitly: x += x' dt, y += y' dt, v = clamp(v + a dt, -v_max, v_max), psi += psi' dt,
// with a clamped to [-a_max, a_max], delta to [-delta_max, delta_max] and psi' to [-pi/2, pi/2].
// (x, y) is the rear axle's centre; psi is counter-clockwise, delta > 0 turns left.

#include <LinearMath/btScalar.h>

namespace raycar {

struct KinematicBicycleSettings {
  btScalar wheelbase = 2.75f;          // L (m): seed 002's Lf + Lr for its 4 m car
  btScalar maxAcceleration = 1.0f;     // a_max (m/s^2)
  btScalar maxSteer = 0.785f;          // delta_max (rad), 45 deg
  btScalar maxSpeed = 2.78f;           // v_max (m/s), 10 km/h
};

struct KinematicBicycleState {
  btScalar x = 0, y = 0;  // m
  btScalar heading = 0;   // psi (rad)
  btScalar speed = 0;     // v (m/s)
  btScalar steer = 0;     // delta (rad), as last applied
};

class KinematicBicycle {
 public:
  explicit KinematicBicycle(const KinematicBicycleSettings& settings,
                            const KinematicBicycleState& start = {})
      : settings_(settings), state_(start) {}
  // One step of dt seconds with acceleration `acceleration` (m/s^2) and steer `steer` (rad).
  void step(btScalar acceleration, btScalar steer, btScalar dt);
  const KinematicBicycleState& state() const { return state_; }
  const KinematicBicycleSettings& settings() const { return settings_; }

 private:
  KinematicBicycleSettings settings_;
  KinematicBicycleState state_;
};

}  // namespace raycar
