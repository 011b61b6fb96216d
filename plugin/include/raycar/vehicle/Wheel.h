#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// A wheel: what a designer tunes (WheelSettings) and what changes every step (WheelState).
// Directions are in the chassis body's frame, whose axes VehicleSettings::axes names.

#include <LinearMath/btVector3.h>

#include "raycar/tire/Tire.h"

class btCollisionObject;

namespace raycar {

// Which wheels the steering turns (seed 001: those ahead of the centre of mass).
enum class SteerMode { Automatic, Steered, Fixed };

// How a wheel finds the ground under it (stage 2 of the step). A ray sees the ground only under
// the wheel's centre line: it drops into any gap and climbs a kerb in one step when its line
// crosses the edge. A sphere or cylinder is swept along the suspension axis and touches the
// ground where the wheel would: it rolls over kerb edges, spans gaps narrower than itself and
// ignores walls steeper than maxSlope.
enum class GroundQueryKind {
  Ray,       // one ray from the suspension top over len_max + radius (cached, WheelQuerySettings)
  Sphere,    // a sphere of queryRadius whose bottom is the wheel's bottom
  Cylinder,  // the wheel itself: radius and width, turned with the steering
};

struct WheelSettings {
  // Suspension top (pivot), chassis body space (m). The wheel centre hangs below it along the
  // chassis down axis, at the current suspension length.
  btVector3 attachmentPoint{0, 0, 0};
  btScalar radius = 0.35;               // m
  btScalar width = 0.25;                // m (rendering and debug drawing)
  btScalar suspensionMaxLength = 0.3;   // len_max (m): relaxed spring length
  btScalar suspensionRestLength = 0.2;  // len_initial (m): length under the static load
  btScalar stiffness = 0;       // N/m; 0: chosen so that the static load gives len_initial
  btScalar damping = -0.8;      // N s/m; <= 0: that fraction (sign dropped) of critical damping
  btScalar spinInertia = 1.0;   // kg m^2: wheel, tire, hub and brake disc about the axle
  bool driving = false;         // receives drive torque (informational until the powertrain)
  int axle = 0;                 // wheels sharing an axle share an anti-roll bar
  // This wheel's axle's anti-roll bar, a fraction of stiffness like VehicleSettings::stabilizer
  // (which it replaces for the axle: a front-driven car balanced with a stiffer rear bar); < 0:
  // the vehicle's. The wheels of one axle give the same.
  btScalar stabilizer = -1;
  bool canBrake = true;         // the handbrake locks this wheel
  // Automatic: steered when ahead of the centre of mass. The setting as given: a loaded script's
  // wheels keep Automatic; RaycastVehicle::isSteered(wheel) says which wheels steer.
  SteerMode steering = SteerMode::Automatic;
  btScalar minFriction = 0;     // lower clamp of (tire + ground) / 2
  btScalar maxFriction = 100;   // upper clamp of (tire + ground) / 2
  int surfaceId = 0;            // the tire's surface: its row in the game's SurfaceTable
  GroundQueryKind groundQuery = GroundQueryKind::Ray;
  btScalar queryRadius = 0;     // m, Sphere only: 0 is the wheel's radius; at most the radius
  // deg, Sphere and Cylinder: a contact whose normal leans further than this from the chassis'
  // up axis is not ground. 80: a wall (90) is never ground, while the edge of a kerb, whose
  // normal leans acos(1 - h / R) from up at first touch, is climbed up to h = 0.83 R.
  btScalar maxSlope = 80;
  // Steering axis (steered wheels): its caster angle (deg, > 0 leans the axis' top rearward) and
  // its mechanical trail (m: the axis meets the ground this far ahead of the contact's centre;
  // an axis through the wheel's centre has R tan(caster)). With the tire's pneumatic trail they
  // make the aligning moment about the axis, -(t_pneumatic + t_mechanical) Fy cos(caster),
  // that a driver feels (WheelState::aligningMoment, RaycastVehicle::steeringTorque).
  btScalar casterAngle = 0;
  btScalar mechanicalTrail = 0;
  // Camber (deg, > 0 leans the wheel's top away from the car's centre line): static at the rest
  // length, changing by camberGain (deg per m of compression past rest, usually < 0: a
  // wishbone leans the top in as the wheel rises). The wheel also leans with the body as it
  // rolls. The tire's camber stiffness turns the camber against the ground into camber thrust.
  btScalar staticCamber = 0;
  btScalar camberGain = 0;
  TireSettings tire;
};

struct WheelState {
  // Ground query
  bool inContact = false;
  btVector3 contactPoint{0, 0, 0};   // world (m); the ray's end when airborne
  btVector3 contactNormal{0, 0, 0};  // world, unit; zero when airborne
  // The object the last ray pass hit (null when airborne). Not owned, and not refreshed while the
  // chassis sleeps: do not dereference it after that object has left the world.
  const btCollisionObject* groundObject = nullptr;
  int groundMaterial = 0;  // the ground's material in the vehicle's SurfaceTable (0 without one)
  // Suspension
  btScalar suspensionLength = 0;       // m, in [0, len_max]
  btScalar suspensionCompression = 0;  // len_max - length (m)
  btScalar compressionSpeed = 0;       // m/s, > 0 while compressing
  // N (>= 0): spring + damper + anti-roll + bump stop, as the step's solve settled it
  btScalar normalLoad = 0;
  btScalar staticLoad = 0;             // N: this wheel's share of the weight at rest; 0 where the
                                       // wheels alone cannot hold the vehicle up (one axle: a trailer)
  // (The stiffness and damping in use, after automatic tuning: RaycastVehicle::wheelSettings.)
  // Tire
  btScalar friction = 0;               // mu used this step, after all modifiers
  btScalar slipRatio = 0;              // s (dimensionless)
  btScalar slipAngle = 0;              // alpha (rad); > 0 when the contact slides to the right
  btScalar longitudinalForce = 0;      // Fx (N) on the chassis along the wheel's forward
  btScalar lateralForce = 0;           // Fy (N) on the chassis along the wheel's right
  btScalar utilization = 0;            // sqrt((Fx/Fx_lim)^2 + (Fy/Fy_lim)^2), 1 at the limit
  // N m about the steering axis, > 0 turns the wheel left: the lateral force acting behind the
  // axis by the pneumatic and mechanical trails (WheelSettings::mechanicalTrail). 0 for a wheel
  // that does not steer and for one in the air.
  btScalar aligningMoment = 0;
  // rad against the contact normal, > 0 when the top leans away from the car's centre line:
  // static camber + gain x compression + body roll. 0 for a wheel without camber settings whose
  // tire has no camber stiffness (it is not computed), and in the air.
  btScalar camber = 0;
  // C, the tire's thermal node (TireThermalSettings; the ambient temperature when it is off)
  btScalar tireTemperature = 20;
  btScalar slidingPower = 0;           // W: |Fx sx| + |Fy sy|, the heat the contact made this step
  bool sliding = false;                // contact slides faster than slip_threshold
  // Rotation
  btScalar angularSpeed = 0;           // rad/s, > 0 when rolling forward
  btScalar rotationAngle = 0;          // rad, in (-pi, pi], for rendering
  btScalar steerAngle = 0;             // rad, > 0 turns left (steering plus setSteerAngle)
  // Torques of this step (powertrain and brakes plus the per-wheel inputs)
  btScalar driveTorque = 0;            // N m at the wheel
  btScalar brakeTorque = 0;            // N m: footbrake, engine braking, axle friction
  bool locked = false;                 // held by the handbrake
};

}  // namespace raycar
