#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Static wheel loads: how a vehicle's weight splits between its wheels at rest on flat ground.
//
// With more than three wheels the split is statically indeterminate: force balance and moment
// balance about the centre of mass give three equations (sum N_i = W, sum N_i x_i = 0,
// sum N_i y_i = 0) for n unknowns. raycar takes the minimum-norm solution,
// N = A^T (A A^T)^+ b, the most even split that balances, which is what equal springs at equal
// compression would carry. Automatic stiffness and the tire's reference load both start here.

#include <LinearMath/btScalar.h>

#include <vector>

namespace raycar {

struct SupportPoint {
  btScalar forward = 0;  // m, from the centre of mass along the chassis forward axis
  btScalar right = 0;    // m, from the centre of mass along the chassis right axis
};

struct VehicleSettings;

// Where each wheel's suspension is mounted, from the centre of mass along the settings' forward
// and right axes (the chassis frame is the centre-of-mass frame), in wheel order.
std::vector<SupportPoint> supportPoints(const VehicleSettings& settings);

// Whether the settings' automatic rules need the static loads: a stiffness of 0, a damping
// <= 0 (a share of critical), or a load-sensitive tire whose reference load is 0.
bool needsStaticLoads(const VehicleSettings& settings);

// Loads (N) in the order of `points`. Throws SettingsError when the points cannot carry `weight`
// without a negative load (centre of mass outside their support) or cannot balance it at all.
std::vector<btScalar> staticWheelLoads(const std::vector<SupportPoint>& points, btScalar weight);

}  // namespace raycar
