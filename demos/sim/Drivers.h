#pragma once
// Drivers for raycar-sim: they turn what a vehicle sees into a DriverInput each step.
//
// - Timeline: the inputs of the last event whose time has come.
// - HoldSpeed: a proportional-integral pedal (and brake) on forward speed, fixed steering.
// - FollowPath: pure pursuit (steer = atan(2 L sin(alpha) / lookahead) towards the point one
//   lookahead ahead on the path) at a held speed, braking to a stop at the path's end.
// - Drift: accelerates to an entry speed, flicks in with full power, then holds a body slip angle
//   (the angle between the velocity and the heading) by countersteering, with the front wheels
//   about along the velocity plus a correction on the slip angle's error and rate, and by
//   modulating the throttle; then lets the slide die with the front wheels along the velocity,
//   and stops.
// - ConstantRadius: ISO 4138's steady-state circular test - a circle at speeds raised in steps,
//   steered by the circle's geometric angle plus a slow yaw-rate integral, until the car cannot
//   hold the circle; then it stops.
// - Parking: pure pursuit within seed 002's limits (|a| <= 1 m/s^2, |delta| <= 45 deg,
//   v <= 2.78 m/s) with a speed profile that stops at the path's end. It commands an
//   acceleration and a steer angle, which a kinematic bicycle ghost takes as they are; the full
//   vehicle tracks the commanded speed with pedal and brake and steers to the same angle.

#include <memory>

#include "Scene.h"
#include "raycar/vehicle/DriverInput.h"

namespace raycar::sim {

// What a driver sees, in the world's XY plane (Z up).
struct DriverView {
  double time = 0;            // s
  double dt = 0;              // s
  double x = 0, y = 0;        // m: rear axle centre
  double heading = 0;         // rad, counter-clockwise from +x, of the vehicle's forward
  double speed = 0;           // m/s along forward
  double wheelbase = 2.5;     // m
  double maxSteer = 0.5;      // rad at the present speed
  double slipAngle = 0;       // rad: body slip, velocity direction minus heading (> 0: to the left)
};

struct DriverCommand {
  DriverInput input;
  bool bicycle = false;       // acceleration and steer below are meant for a kinematic bicycle
  double acceleration = 0;    // m/s^2
  double steerAngle = 0;      // rad
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual DriverCommand update(const DriverView& view) = 0;
  // A copy in its present state (a rollback's snapshot).
  virtual std::unique_ptr<Driver> clone() const = 0;
  // A driver with a path (follow_path): true once within 1 m of its end.
  virtual bool pathComplete() const { return false; }
};

std::unique_ptr<Driver> makeDriver(const VehicleEntry& entry);

// NHTSA FMVSS 126's sine with dwell: the steer (here the road-wheel angle, rad) t s after the
// steer begins, for `amplitude`: a 0.7 Hz sine whose second peak is held 0.5 s before the last
// quarter cycle back to zero; 0 before and after (it ends at kSineWithDwellEnd).
double sineWithDwell(double t, double amplitude);
constexpr double kSineWithDwellFrequency = 0.7;  // Hz
constexpr double kSineWithDwellDwell = 0.5;      // s
constexpr double kSineWithDwellEnd = 1 / kSineWithDwellFrequency + kSineWithDwellDwell;  // 1.929 s

}  // namespace raycar::sim
