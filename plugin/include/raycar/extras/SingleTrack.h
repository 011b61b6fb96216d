#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// The linear single-track (bicycle) model of a vehicle, derived from its settings: what its tires'
// laws give at the axles' static loads. For tuning (is this car meant to understeer?), for the
// ISO 4138 report of raycar-sim, and as the analytic reference of the handling tests.
//
// Axles: wheels ahead of the centre of mass form the front axle, the rest the rear (a tandem
// counts as one axle at its wheels' mean position). Each wheel's cornering stiffness is its
// tire's slip stiffness (N/rad) at its static load, with surface friction (tire + ground) / 2
// clamped as the vehicle does and load sensitivity against the tire's nominal load. Seed 004's
// slip angle atan(Vy / (|Vx| + eps)) makes a stiffness per Vy / V smaller by V / (V + eps) at
// speed V; the speed-dependent figures below include that.
//
//   K  = m (l_r / C_f - l_f / C_r) / L          understeer gradient (rad per m/s^2)
//   r / delta    = V / (L + K V^2)              steady yaw-rate gain (1/s)
//   beta / delta = (l_r - m l_f V^2 / (L C_r)) / (L + K V^2)   steady sideslip gain
//   delta = L / R + K a_y                       steer angle on a circle of radius R (ISO 4138)
// Limits: linear (small slip angles, no load transfer), steady state, no drive or brake slip.

#include <LinearMath/btScalar.h>

#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

struct SingleTrackModel {
  btScalar mass = 0;            // kg
  btScalar frontArm = 0;        // l_f (m): centre of mass to the front axle
  btScalar rearArm = 0;         // l_r (m): centre of mass to the rear axle
  btScalar frontStiffness = 0;  // C_f (N/rad), both front wheels, at zero speed's limit
  btScalar rearStiffness = 0;   // C_r (N/rad)
  btScalar slipAngleEpsilon = 0;  // m/s, the tires' (their mean)

  btScalar wheelbase() const { return frontArm + rearArm; }
  // The axle stiffnesses' factor at speed V: V / (V + eps).
  btScalar speedFactor(btScalar speed) const { return speed / (speed + slipAngleEpsilon); }
  btScalar understeerGradient(btScalar speed) const;  // K (rad per m/s^2) at speed V (m/s)
  btScalar yawRateGain(btScalar speed) const;          // r / delta (1/s)
  btScalar sideslipGain(btScalar speed) const;         // beta / delta
  // Steer angle (rad) on a circle of `radius` (m) at lateral acceleration `lateral` (m/s^2).
  btScalar steerOnCircle(btScalar radius, btScalar lateral) const;
};

// One wheel's cornering stiffness (N/rad) at `load` (N) on ground of friction `groundFriction`:
// its tire's slip stiffness with the vehicle's surface mixing, clamps and load sensitivity.
btScalar wheelCorneringStiffness(const WheelSettings& wheel, btScalar load, btScalar groundFriction = 1);

// The model of `settings` for a chassis of `mass` (kg) under `gravity` (m/s^2) on ground of
// friction `groundFriction`. Throws SettingsError when the settings are invalid.
SingleTrackModel singleTrackModel(const VehicleSettings& settings, btScalar mass, btScalar gravity,
                                  btScalar groundFriction = 1);

}  // namespace raycar
