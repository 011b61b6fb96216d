#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Static wheel loads: how a vehicle's weight splits between its wheels at rest on flat ground.
//
// With more than three wheels the split is statically indeterminate: force balance and moment
// balance about the centre of mass give three equations (sum N_i = W, sum N_i x_i = 0,
// sum N_i y_i = 0) for n unknowns, and the springs decide the rest. With automatic spring rates
// (any wheel's stiffness 0) raycar takes the minimum-norm solution, N = A^T (A A^T)^+ b, the
// most even split that balances: what equal springs at equal compression carry, and the rates
// are then drawn from it. Automatic stiffness and the tire's reference load both start there.
// With every wheel's rate given, the split is what those springs carry with the chassis resting
// on them on flat ground, tilted as their rates and lengths tilt it (a rigid body on springs):
// N_i = k_i (reach_i - h + a x_i + b y_i), the plane (h, a, b) found from the same three
// equations, the moments taken about where the contacts stand across the tilted ground's normal. A 3-axle truck on 60 kN/m front
// and 50 kN/m rear springs rests on 6,727 / 4,485 / 4,485 N a wheel, where the even split says
// 6,641 / 4,830 / 4,226 N. The springs decide while every wheel's compression stays within its
// travel; springs too soft for the car (on their bump stops) or a wheel that would hang keep the
// even split, and a chassis so tall on its springs that it would tip over on them the level one. Anti-roll bars carry nothing at rest unless the chassis leans; they are left out.

#include <LinearMath/btScalar.h>

#include <vector>

namespace raycar {

struct SupportPoint {
  btScalar forward = 0;  // m, from the centre of mass along the chassis forward axis
  btScalar right = 0;    // m, from the centre of mass along the chassis right axis
  btScalar stiffness = 0;  // N/m, the wheel's spring rate; 0: automatic (the even split)
  // m: how far below the centre of mass (along the chassis down) the tire's bottom reaches with
  // the spring relaxed: len_max + radius - the attachment point's height. Read with `stiffness`.
  btScalar reach = 0;
  btScalar travel = 0;  // m: len_max, the spring's compression from relaxed to the bump stop
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
