#include "ContactSolver.h"

#include <algorithm>
#include <cmath>

namespace raycar {

void SolverBody::load(btRigidBody* rigidBody, btScalar dt) {
  body = rigidBody;
  linearVelocity = rigidBody->getLinearVelocity();
  angularVelocity = rigidBody->getAngularVelocity();
  inverseMass = rigidBody->getInvMass();
  inverseInertia = rigidBody->getInvInertiaTensorWorld();
  centerOfMass = rigidBody->getCenterOfMassPosition();
  // Forces stay on a body through all substeps of one stepSimulation (gravity is applied once,
  // before them), so what they will add in the next substep is known now.
  predictedLinearChange = rigidBody->getTotalForce() * (inverseMass * dt);
  predictedAngularChange = inverseInertia * rigidBody->getTotalTorque() * dt;
}

void ContactSolver::reserve(size_t wheelCount) {
  groundBodies_.reserve(wheelCount);
  longitudinalInverseMass_.assign(wheelCount, 0);
  lateralInverseMass_.assign(wheelCount, 0);
  normalInverseMass_.assign(wheelCount, 0);
}

btVector3 ContactSolver::relativeVelocity(const SolverBody& chassis,
                                          const WheelContact& contact) const {
  const btVector3 ground = contact.groundBody >= 0
                               ? groundBodies_[contact.groundBody].velocityAt(contact.groundArm)
                               : contact.groundVelocity;
  return chassis.velocityAt(contact.chassisArm) - ground;
}

void ContactSolver::applyContactImpulse(SolverBody& chassis, WheelContact& contact,
                                        const btVector3& impulse) {
  chassis.applyImpulse(impulse, contact.chassisArm);
  if (contact.groundBody >= 0)
    groundBodies_[contact.groundBody].applyImpulse(-impulse, contact.groundArm);
}

void ContactSolver::solve(SolverBody& chassis, std::vector<WheelContact>& contacts, btScalar dt,
                          int iterations, btScalar bumpStopErrorReduction) {
  const size_t count = contacts.size();
  // 1. Suspension forces, explicit: they depend on position and on velocity measured before.
  for (WheelContact& contact : contacts) {
    contact.normalImpulse = 0;
    contact.longitudinalImpulse = 0;
    contact.lateralImpulse = 0;
    contact.brakeImpulse = 0;
    if (!contact.active) continue;
    contact.normalImpulse = contact.springImpulse;
    applyContactImpulse(chassis, contact, contact.normal * contact.springImpulse);
  }
  // 2. What gravity and the bodies' other forces will add next substep.
  auto addPredicted = [](SolverBody& body, btScalar sign) {
    body.linearVelocity += body.predictedLinearChange * sign;
    body.angularVelocity += body.predictedAngularChange * sign;
  };
  addPredicted(chassis, 1);
  for (SolverBody& ground : groundBodies_) addPredicted(ground, 1);

  // 3. Effective masses of the rows.
  for (size_t i = 0; i < count; ++i) {
    const WheelContact& contact = contacts[i];
    if (!contact.active) continue;
    auto inverseMass = [&](const btVector3& direction) {
      btScalar value = chassis.inverseEffectiveMass(direction, contact.chassisArm);
      if (contact.groundBody >= 0)
        value += groundBodies_[contact.groundBody].inverseEffectiveMass(direction, contact.groundArm);
      return value;
    };
    normalInverseMass_[i] = inverseMass(contact.normal);
    lateralInverseMass_[i] = inverseMass(contact.lateral);
    longitudinalInverseMass_[i] = inverseMass(contact.longitudinal) +
                                  contact.radius * contact.radius * contact.inverseSpinInertia;
  }

  // 4. Bump stops first: their impulse adds to the load the friction limits scale with.
  solveBumpStops(chassis, contacts, dt, bumpStopErrorReduction);
  for (WheelContact& contact : contacts)
    if (contact.active) setFrictionLimits(contact, dt);

  // 5. Brakes and friction, swept over the wheels.
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      solveBrake(contact);
      if (contact.active) solveFriction(chassis, contact, dt, i);
    }
  }

  addPredicted(chassis, -1);
  for (SolverBody& ground : groundBodies_) addPredicted(ground, -1);
}

void ContactSolver::solveBumpStops(SolverBody& chassis, std::vector<WheelContact>& contacts,
                                   btScalar dt, btScalar errorReduction) {
  bool any = false;
  for (const WheelContact& contact : contacts) any = any || (contact.active && contact.bumpStop);
  if (!any) return;
  // An inelastic stop: the contact may not approach the ground faster than it pushes the
  // overlap out; the accumulated impulse only pushes.
  const int bumpIterations = 4;
  for (int iteration = 0; iteration < bumpIterations; ++iteration) {
    for (size_t i = 0; i < contacts.size(); ++i) {
      WheelContact& contact = contacts[i];
      if (!contact.active || !contact.bumpStop) continue;
      const btScalar separationSpeed = relativeVelocity(chassis, contact).dot(contact.normal);
      const btScalar targetSpeed = errorReduction * contact.bumpStopDepth / dt;
      const btScalar bump = contact.normalImpulse - contact.springImpulse;
      const btScalar newBump =
          std::max(btScalar(0), bump + (targetSpeed - separationSpeed) / normalInverseMass_[i]);
      applyContactImpulse(chassis, contact, contact.normal * (newBump - bump));
      contact.normalImpulse = contact.springImpulse + newBump;
    }
  }
}

void ContactSolver::setFrictionLimits(WheelContact& contact, btScalar dt) {
  contact.tireContact.normalLoad = std::max(btScalar(0), contact.normalImpulse / dt);
  if (contact.boxFriction) {
    const btScalar limit = contact.tireContact.friction * contact.tireContact.normalLoad * dt;
    contact.longitudinalLimit = limit;
    contact.lateralLimit = limit;
  } else {
    contact.longitudinalLimit = contact.tire->peakLongitudinalForce(contact.tireContact) * dt;
    contact.lateralLimit = contact.tire->peakLateralForce(contact.tireContact) * dt;
  }
}

void ContactSolver::solveBrake(WheelContact& contact) {
  if (contact.inverseSpinInertia == 0 || contact.brakeImpulseLimit <= 0) return;
  // Target w = 0; the clamp keeps the brake from ever pushing the wheel past standstill.
  const btScalar wanted = contact.brakeImpulse - contact.angularSpeed / contact.inverseSpinInertia;
  const btScalar limited =
      std::clamp(wanted, -contact.brakeImpulseLimit, contact.brakeImpulseLimit);
  contact.angularSpeed += (limited - contact.brakeImpulse) * contact.inverseSpinInertia;
  contact.brakeImpulse = limited;
}

void ContactSolver::solveFriction(SolverBody& chassis, WheelContact& contact, btScalar dt,
                                  size_t index) {
  const btVector3 velocity = relativeVelocity(chassis, contact);
  const btScalar longitudinalSlip =
      velocity.dot(contact.longitudinal) - contact.radius * contact.angularSpeed;
  const btScalar lateralSlip = velocity.dot(contact.lateral);
  const btScalar longitudinalMass = longitudinalInverseMass_[index];
  const btScalar lateralMass = lateralInverseMass_[index];
  // Impulse changes that would stop the slip outright (static friction).
  const btScalar stickLongitudinal = -longitudinalSlip / longitudinalMass;
  const btScalar stickLateral = -lateralSlip / lateralMass;

  btScalar longitudinal, lateral;
  if (contact.boxFriction) {
    longitudinal = std::clamp(contact.longitudinalImpulse + stickLongitudinal,
                              -contact.longitudinalLimit, contact.longitudinalLimit);
    lateral = std::clamp(contact.lateralImpulse + stickLateral, -contact.lateralLimit,
                         contact.lateralLimit);
  } else {
    // Newton step on lambda = F(u) dt: d lambda = (F dt - lambda) / (1 + K dt w).
    auto lawStep = [&](const FrictionLaw& law, btScalar impulse, btScalar inverseMass,
                       btScalar stickStep) {
      if (law.sticks) return stickStep;
      return (law.force * dt - impulse) / (1 + law.stiffness * dt * inverseMass);
    };
    const FrictionLaw longitudinalLaw = contact.tire->longitudinal(contact.tireContact, longitudinalSlip);
    const FrictionLaw lateralLaw = contact.tire->lateral(contact.tireContact, lateralSlip);
    const btScalar stick = contact.stickWeight;
    longitudinal = contact.longitudinalImpulse +
                   stick * stickLongitudinal +
                   (1 - stick) * lawStep(longitudinalLaw, contact.longitudinalImpulse,
                                         longitudinalMass, stickLongitudinal);
    lateral = contact.lateralImpulse + stick * stickLateral +
              (1 - stick) * lawStep(lateralLaw, contact.lateralImpulse, lateralMass, stickLateral);
    // Friction ellipse (seed 004, step 5): scale both onto the boundary when outside.
    const btScalar longitudinalLimit = contact.longitudinalLimit;
    const btScalar lateralLimit = contact.lateralLimit;
    if (longitudinalLimit <= 0 || lateralLimit <= 0) {
      longitudinal = 0;
      lateral = 0;
    } else {
      const btScalar x = longitudinal / longitudinalLimit;
      const btScalar y = lateral / lateralLimit;
      const btScalar ellipse = x * x + y * y;
      if (ellipse > 1) {
        const btScalar scale = 1 / std::sqrt(ellipse);
        longitudinal *= scale;
        lateral *= scale;
      }
    }
  }
  const btScalar longitudinalChange = longitudinal - contact.longitudinalImpulse;
  const btScalar lateralChange = lateral - contact.lateralImpulse;
  applyContactImpulse(chassis, contact,
                      contact.longitudinal * longitudinalChange + contact.lateral * lateralChange);
  // The ground pushes the tire forward; on the wheel that is a torque against forward spin.
  contact.angularSpeed -= longitudinalChange * contact.radius * contact.inverseSpinInertia;
  contact.longitudinalImpulse = longitudinal;
  contact.lateralImpulse = lateral;
}

}  // namespace raycar
