#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Everything a designer tunes for one vehicle. Plain data with a default for every field; the
// vehicle validates it once, at construction (validateVehicleSettings lists every problem).

#include <LinearMath/btVector3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "raycar/tire/ContactFriction.h"
#include "raycar/vehicle/Aero.h"
#include "raycar/vehicle/Brakes.h"
#include "raycar/vehicle/Differential.h"
#include "raycar/vehicle/Engine.h"
#include "raycar/vehicle/Gearbox.h"
#include "raycar/vehicle/Steering.h"
#include "raycar/vehicle/Wheel.h"

namespace raycar {

// The chassis body's own axes (unit vectors in its local frame). Bullet scenes are usually Y up;
// CryEngine models are Z up, Y forward. right = forward x up.
struct ChassisAxes {
  btVector3 up{0, 1, 0};
  btVector3 forward{0, 0, 1};
  btVector3 right() const { return forward.cross(up); }
};

// The velocity-level contact solve (ContactSolver.cpp).
struct ContactSolverSettings {
  int iterations = 8;          // at most this many Gauss-Seidel sweeps over the wheels per step
  // N: the sweeps stop once every row's force is estimated within this of where further
  // sweeps would take it (SolveReport::estimatedError), not once the last sweep changed no row
  // by more than this: that change may be up to 19 times this; each step starts from the last
  // step's impulses
  btScalar tolerance = 1;
  btScalar stickSpeed = 0.5;   // m/s: below this contact speed the tire is static friction
  btScalar bumpStopErrorReduction = 0.2;  // fraction of a bump stop's overlap removed per step
  // m/s: the fastest a bump stop pushes an overlap out. A car spawned with a wheel deep in the
  // ground (or a 10 m wheel on a 0.3 m one's mounting) comes out at this speed instead of being
  // fired out at errorReduction x overlap / dt (240 m/s for 10 m at 120 Hz). The stop only
  // pushes, so the car keeps this speed once out: 5 m/s lifts it up to v^2 / 2g = 1.3 m.
  btScalar bumpStopMaxRecoverySpeed = 5;
  bool implicitDamper = true;  // integration_type 1; false (0): the damper uses the speed measured
                               // before the step, as seed 000 does (unstable for stiff dampers)
};

// What the contact solve did in the last step (RaycastVehicle::solveReport): how many sweeps it
// ran and how far from converged it stopped.
struct SolveReport {
  int sweeps = 0;          // Gauss-Seidel sweeps run, at most ContactSolverSettings::iterations
  btScalar residual = 0;   // N: the largest change the last sweep made to any row's force,
                           // from where it began to where it left the row (impulse change / dt)
  // N: how far the rows' forces are estimated to be from converged: d x rho / (1 - rho), rho
  // the ratio of the largest single moves of a row within the last two sweeps (the sweeps
  // contract) but at least 0.05, taken as d itself when rho >= 1/2 or after one sweep; d the
  // larger of the residual and the last sweep's largest move, or the residual alone where the
  // moves repeat (rho >= 0.95: rows moved and moved back alike in every sweep). A guess, not a
  // bound: test_solver_residual.cpp measures the forces against converged solves.
  btScalar estimatedError = 0;
  bool converged = true;   // estimatedError <= tolerance; false: stopped at `iterations`
};

// The wheels' ground queries (stage 2 of the step, RaycastVehicle.h). With `cache` on, each wheel keeps the few
// triangles of static and moving btBvhTriangleMeshShape ground around its ray and answers its ray
// from them, bitwise what btCollisionWorld::rayTest would answer (MeshRayCache.h says why); other
// objects near the car are found through the broadphase every step and tested exactly.
struct WheelQuerySettings {
  bool cache = true;
  btScalar margin = 0.3;       // m: how far around its ray a wheel's cached region reaches
  btScalar lookahead = 0.1;    // s: the region also covers where the wheel's velocity takes it
  // Per wheel and mesh (twice this for a sphere or cylinder wheel); a denser region is gathered
  // smaller.
  int maxCachedTriangles = 16;
};

struct VehicleSettings {
  ChassisAxes axes;
  std::vector<WheelSettings> wheels;
  btScalar stabilizer = 0;  // anti-roll, a fraction of stiffness (CryEngine `stabilizer`, 0..2.5)
  FrictionRules friction;
  AeroSettings aero;
  EngineSettings engine;
  GearboxSettings gearbox;
  // One per driven axle; empty: an open differential on every axle with driving wheels, torque
  // shared by driving-wheel count.
  std::vector<DifferentialSettings> differentials;
  BrakeSettings brakes;
  AssistSettings assists;
  SteeringSettings steering;
  ContactSolverSettings solver;
  WheelQuerySettings wheelQuery;
};

// Every problem with the settings, each naming the wheel or group it concerns and the member that
// decides it; empty when valid.
std::vector<SettingsProblem> checkVehicleSettings(const VehicleSettings& settings);
// Their texts ("wheel 2: maxFriction (max_friction) must be >= minFriction (min_friction)").
std::vector<std::string> validateVehicleSettings(const VehicleSettings& settings);

// A number naming a vehicle's layout: FNV-1a over its wheel count, each wheel's axle and whether
// it drives, steers and has the handbrake, its gear count and its differentials' axles and
// types. A saved state is a state of one layout (a gear index, which wheel spins and steers), so
// it records this and a vehicle of another layout refuses it; tuning springs, tires, radii,
// ride height, ratios, the engine or the solve keeps the layout, and a state restores across
// such a change.
std::uint32_t layoutFingerprint(const VehicleSettings& settings);

}  // namespace raycar
