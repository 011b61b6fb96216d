#include "raycar/tire/ContactFriction.h"

#include <algorithm>

#include "raycar/tire/Tire.h"

namespace raycar {

btScalar surfaceFriction(btScalar tireFriction, btScalar groundFriction, btScalar minFriction,
                         btScalar maxFriction) {
  return std::clamp((tireFriction + groundFriction) / 2, minFriction, maxFriction);
}

btScalar loadedFriction(btScalar surface, btScalar loadSensitivity, btScalar normalLoad,
                        btScalar referenceLoad) {
  return surface * loadSensitivityFactor(loadSensitivity, normalLoad, referenceLoad);
}

ContactFriction contactFriction(const FrictionInputs& inputs, const FrictionRules& rules) {
  ContactFriction friction;
  const btScalar mixed = inputs.pairFriction >= 0
                            ? std::clamp(inputs.pairFriction, inputs.minFriction, inputs.maxFriction)
                            : surfaceFriction(inputs.tireFriction, inputs.groundFriction,
                                              inputs.minFriction, inputs.maxFriction);
  friction.surface = mixed * inputs.gripScale * inputs.temperatureScale;
  friction.tire = loadedFriction(friction.surface, inputs.loadSensitivity, inputs.normalLoad,
                                 inputs.referenceLoad);
  friction.coulomb = friction.tire;
  if (inputs.sliding && !inputs.tireSlides) friction.coulomb *= rules.dynamicFrictionRatio;
  if (inputs.locked) {
    // Seed 001's box holds a handbraked wheel at 0.85 of its friction in each direction (each
    // reaching its limit on its own: 1.41 times the limit together, the seed says), capped at
    // max_braking_friction.
    friction.coulomb =
        std::min(friction.coulomb * rules.handbrakeFrictionScale, rules.maxBrakingFriction);
    if (inputs.tireSlides) {
      // A locked slip-curve tire slides on its laws, capped alike; its hold stays at least its
      // slide (what its curves keep when locked, TireModel::lockedSlideShare): a hold below the
      // slide let a parked car on a slope between the two slide past stickSpeed, brake on its
      // laws, fall back into the box and creep down at 0.5 m/s (a review's finding: a curve
      // keeping 0.94 of its peak locked, or a Coulomb tire slid whole).
      friction.tire = std::min(friction.tire, rules.maxBrakingFriction);
      friction.coulomb = std::max(friction.coulomb, friction.tire * inputs.lockedSlideShare);
    }
  }
  // A Coulomb tire, locked or not, slides at its Coulomb friction.
  if (!inputs.tireSlides) friction.tire = friction.coulomb;
  return friction;
}

}  // namespace raycar
