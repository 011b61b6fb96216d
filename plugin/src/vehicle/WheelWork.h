#pragma once
// RaycastVehicle's per-wheel working data that WheelState does not show. One array of these
// instead of one array per quantity: a step then reads one place per wheel, which matters when a
// thousand cars each come round once per step and nothing of theirs is still in the cache.

#include <LinearMath/btVector3.h>

#include "ground/WheelRaycast.h"

namespace raycar {

struct WheelWork {
  // Fixed at construction
  btScalar referenceLoad = 0;  // N, for load sensitivity
  btScalar rayLength = 0;      // m: len_max + radius
  bool steered = false;        // SteerMode resolved
  bool front = false;          // ahead of the centre of mass (brake bias)
  int axleSlot = 0;            // index of its axle in RaycastVehicle's per-axle arrays
  // Per-wheel inputs, held until changed
  btScalar directDrive = 0;    // N m
  btScalar directBrake = 0;    // N m
  btScalar directSteer = 0;    // rad
  // This step
  btVector3 rayFrom{0, 0, 0};  // world
  btVector3 rayTo{0, 0, 0};
  WheelRayHit rayHit;
  bool rayPending = false;     // needs a full rayTest
  btScalar lengthToContact = 0;  // m: hit distance - radius, < 0 past full travel
  btScalar rayCosine = 1;      // -down . normal, held >= 0.1
  btVector3 groundVelocity{0, 0, 0};  // m/s, the ground's velocity at the contact
  btScalar springForce = 0;    // N, k x + anti-roll
  btScalar geometricSteer = 0;  // rad: the steering's angle for this wheel (Ackermann)
  // rad/s: the spin at which the engine, through the present gear, reaches its max rpm and has
  // no torque left; the drive torque does not spin the wheel past it. Infinite when the engine
  // does not drive this wheel.
  btScalar engineSpinLimit = 0;
  // The friction before load sensitivity (surface mixing and clamps), and the load the last
  // step's solve settled on (N): the assists' feed-forward reads the tire law with them.
  btScalar baseFriction = 0;
  btScalar solvedLoad = 0;
  // The assists' integral terms (N m): what the feed-forward and the spin feedback miss in a
  // steady stop or launch (the wheel's own deceleration with the car, the slip the car's speed
  // change within a step adds). Zero while the assist is idle.
  btScalar antiLockIntegral = 0;
  btScalar tractionIntegral = 0;
  // cos and sin of the wheel's steer angle, recomputed only when the angle changes
  btScalar trigSteer = 0;
  btScalar steerCos = 1;
  btScalar steerSin = 0;
};

}  // namespace raycar
