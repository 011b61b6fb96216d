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
  if (!inputs.tireSlides) friction.tire = friction.coulomb;
  if (inputs.locked) {
    // max_braking_friction caps a handbraked wheel however it grips: held in seed 001's box or
    // sliding on its laws. The 0.85 is the box's own, which lets each direction reach its limit
    // on its own (1.41 times the limit together, the seed says); a slide on the ellipse has none.
    friction.tire = std::min(friction.tire, rules.maxBrakingFriction);
    friction.coulomb =
        std::min(friction.coulomb * rules.handbrakeFrictionScale, rules.maxBrakingFriction);
  }
  return friction;
}

}  // namespace raycar
