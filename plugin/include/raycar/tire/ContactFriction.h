#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// The friction coefficient a wheel's contact uses, decided here and nowhere else:
//   surface  = clamp((tire + ground) / 2, min_friction, max_friction)     seed 001
//              (the game's SurfaceTable pair in place of (tire + ground) / 2 where it has one),
//              x the game's grip scale
//   loaded   = surface x (1 - k_load (N / N_ref - 1)), >= 0                seed 004 (Tire.h)
//   coulomb  = loaded, x dyn_friction_ratio while a Coulomb tire slides,   seed 001
//              and for a handbraked wheel min(that x 0.85, max_braking_friction), at least
//              what its locked slip-curve tire slides with (TireModel::lockedSlideShare)
// The tire's force laws use `loaded` (a handbraked wheel's capped at max_braking_friction);
// rows solved as Coulomb friction (static rows, the handbrake's box while it holds a wheel that
// barely moves) use `coulomb`. dyn_friction_ratio has one meaning: how a tire model without
// sliding friction of its own (a Coulomb tire, such as seed 000's linear tire) goes from static
// to sliding friction; such a tire uses `coulomb` for everything. Slip curves carry their own
// fall from peak to sliding friction, so the ratio leaves them alone: applied on top, it would
// count the fall twice (a locked slip-curve tire already sits on the curve's sliding tail).

#include <LinearMath/btScalar.h>

namespace raycar {

// CryEngine's friction modifiers (seed 001), applied after (tire + ground) / 2 is clamped.
struct FrictionRules {
  btScalar slipThreshold = 0.05;        // m/s: a contact sliding faster than this is slipping
  btScalar dynamicFrictionRatio = 1.0;  // Coulomb tires' friction factor while slipping (dyn_friction_ratio)
  btScalar handbrakeFrictionScale = 0.85;  // handbraked wheels held in the box: friction x this, per direction
  btScalar maxBrakingFriction = 100;    // cap on a handbraked wheel's friction
};

// What one contact's friction depends on, besides the rules.
struct FrictionInputs {
  btScalar tireFriction = 1;     // the tire's own coefficient (TireSettings::friction)
  btScalar groundFriction = 1;   // the ground object's (btCollisionObject::getFriction)
  // The game's SurfaceTable entry for this tire surface on this ground material, which replaces
  // (tire + ground) / 2; < 0: the table names no such pair (or there is no table).
  btScalar pairFriction = -1;
  btScalar minFriction = 0;      // the wheel's clamp (WheelSettings)
  btScalar maxFriction = 100;
  btScalar loadSensitivity = 0;  // k_load
  btScalar normalLoad = 0;       // N
  btScalar referenceLoad = 0;    // N_ref (N); 0: no load sensitivity
  bool sliding = false;          // faster than slipThreshold
  bool locked = false;           // held by the handbrake
  bool tireSlides = true;        // the tire model falls to sliding friction itself
  btScalar lockedSlideShare = 1;  // TireModel::lockedSlideShare: a locked wheel's slide / peak
  // The game's run-time grip scale of this wheel (RaycastVehicle::setGripScale: drift modes,
  // puddles), applied after the clamp: a wet patch halves grip even at min_friction.
  btScalar gripScale = 1;
  // The tire's temperature's grip factor (TireTemperature.h), applied with the grip scale.
  btScalar temperatureScale = 1;
};

struct ContactFriction {
  btScalar surface = 0;  // before load sensitivity
  btScalar tire = 0;     // what the tire's force laws use
  btScalar coulomb = 0;  // what static rows and the handbrake's box use
  // The coefficient a driver would call "the" friction of the contact (WheelState::friction):
  // the box's for a handbraked wheel it holds, else the laws'.
  btScalar shown(bool inBox) const { return inBox ? coulomb : tire; }
};

// (tire + ground) / 2 within the wheel's clamp.
btScalar surfaceFriction(btScalar tireFriction, btScalar groundFriction, btScalar minFriction,
                         btScalar maxFriction);
// `surface` at normal load N (N) with load sensitivity k_load against N_ref.
btScalar loadedFriction(btScalar surface, btScalar loadSensitivity, btScalar normalLoad,
                        btScalar referenceLoad);
ContactFriction contactFriction(const FrictionInputs& inputs, const FrictionRules& rules);

}  // namespace raycar
