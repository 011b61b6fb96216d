#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Steering (seed 001's parameters, seed 004's Ackermann geometry) and the pedal shaping that
// depends on it.
//
// The steering state is one angle, the steer of an equivalent bicycle's front wheel. It moves
// toward steer x max steer at steer_speed, which varies from steer_speed at the centre to
// steer_speed x steer_speed_valScale at full lock (quadratically in the lock fraction) and never
// below steer_speed_min; with no steering input it relaxes to the centre at
// steer_relaxation_v0 + steer_relaxation_kv x speed. The maximum is max_steer, or
// max_steer_v0 + max_steer_kv x speed when max_steer_v0 > 0.
// Each steered wheel then gets its own angle: with Ackermann geometry every wheel's axis points at
// one turning centre on the line of the unsteered wheels (the inner wheel steers more:
// cot(outer) - cot(inner) = track / wheelbase); without it, every steered wheel takes the bicycle
// angle.

#include <LinearMath/btScalar.h>


namespace raycar {

enum class SteeringMode { Angle, Torque };

struct SteeringSettings {
  btScalar maxSteer = 30;            // max_steer (deg)
  btScalar maxSteerV0 = 0;           // max_steer_v0 (deg); > 0 replaces max_steer with v0 + kv v
  btScalar maxSteerKv = 0;           // max_steer_kv (deg per m/s)
  btScalar steerSpeed = 120;         // steer_speed (deg/s)
  btScalar steerSpeedValScale = 1;   // steer_speed_valScale: factor on steer_speed at full lock
  btScalar steerSpeedMin = 0;        // steer_speed_min (deg/s)
  btScalar steerRelaxationV0 = 120;  // steer_relaxation_v0 (deg/s)
  btScalar steerRelaxationKv = 0;    // steer_relaxation_kv (deg/s per m/s)
  btScalar maxSteeringPedal = 1;     // max_steering_pedal: pedal cap at full lock, [0, 1]
  btScalar pedalLimitSpeed = 10;     // pedal_limit_speed (m/s): the cap applies above it
  btScalar pedalSpeed = 0;           // pedal_speed (1/s): pedal change rate; 0: immediate
  bool ackermann = true;
  // The steering column: the steering wheel turns `steeringRatio` times the road wheels (the
  // bicycle angle), and the column feels the steered wheels' aligning moments divided by it
  // (RaycastVehicle::steeringTorque, for force feedback).
  btScalar steeringRatio = 15;
  // Angle (default): the driver's steer input sets the angle, through the rates above (seed
  // 001). Torque: the input is the driver's torque on the steering wheel, input x
  // maxDriverTorque, and the column turns against the aligning moments, its inertia and its
  // damping; a released wheel at speed returns to the centre by itself.
  SteeringMode mode = SteeringMode::Angle;
  btScalar columnInertia = 0.05;    // kg m^2 at the steering wheel (wheel, column, rack and road wheels)
  btScalar columnDamping = 0.8;     // N m s/rad at the steering wheel
  btScalar maxDriverTorque = 10;    // N m at the steering wheel for input 1
};


// Largest steer angle (rad) at `speed` (m/s), within (0, 89 deg].
btScalar maxSteerAngle(const SteeringSettings& steering, btScalar speed);

// Moves the bicycle steer angle (rad) one step toward the input in [-1, 1].
btScalar updateSteerAngle(const SteeringSettings& steering, btScalar angle, btScalar input,
                          btScalar speed, btScalar dt);

// One wheel's angle (rad) for bicycle angle `steer`. forwardFromReference (m): the wheel ahead of
// the turning centre's line; referenceToSteeredAxle (m): the steered axle's distance from that
// line (the wheelbase); left (m): the wheel's offset to the left of the centre line.
btScalar ackermannWheelAngle(btScalar steer, btScalar forwardFromReference,
                             btScalar referenceToSteeredAxle, btScalar left);

// pedal_speed: the pedal moves from `current` toward `requested` at that rate (1/s).
btScalar rampPedal(const SteeringSettings& steering, btScalar current, btScalar requested,
                   btScalar dt);
// max_steering_pedal: above pedal_limit_speed (m/s) |pedal| is capped at
// lerp(1, max_steering_pedal, lockFraction), lockFraction = |steer| / max steer.
btScalar capPedal(const SteeringSettings& steering, btScalar pedal, btScalar lockFraction,
                  btScalar speed);

}  // namespace raycar
