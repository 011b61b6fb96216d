#include "ContactSolver.h"

#include <algorithm>
#include <cmath>

namespace raycar {
namespace {
// On the falling branch of a friction curve 1 + K dt w can approach 0 (or go below: the law
// then has more than one root); the Newton step is kept at most this many times the plain
// fixed-point step.
constexpr btScalar kMinimumNewtonDenominator = 0.25;
}  // namespace

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

void ContactSolver::solve(SolverBody& chassis, std::vector<WheelContact>& contacts,
                          std::vector<SpinCoupling>& couplings, btScalar dt, int iterations,
                          btScalar bumpStopErrorReduction) {
  const size_t count = contacts.size();
  for (SpinCoupling& coupling : couplings) coupling.impulse = 0;
  for (WheelContact& contact : contacts) {
    contact.suspensionImpulse = 0;
    contact.bumpStopImpulse = 0;
    contact.longitudinalImpulse = 0;
    contact.lateralImpulse = 0;
    contact.brakeImpulse = 0;
  }
  // What gravity and the bodies' other forces will add next substep.
  auto addPredicted = [](SolverBody& body, btScalar sign) {
    body.linearVelocity += body.predictedLinearChange * sign;
    body.angularVelocity += body.predictedAngularChange * sign;
  };
  addPredicted(chassis, 1);
  for (SolverBody& ground : groundBodies_) addPredicted(ground, 1);

  // Effective masses of the rows.
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
    longitudinalInverseMass_[i] = inverseMass(contact.longitudinal);
  }

  // Each sweep: loads first (the friction limits scale with them), then every wheel's
  // longitudinal row, then every lateral row. Solving one wheel completely before the next would
  // let a driven wheel's push yaw the chassis before its partner's push cancels the yaw, and the
  // stuck lateral rows would keep that as a left-right fight of internal forces.
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (!contact.active) {
        solveAirborneBrake(contact);
        continue;
      }
      solveSuspension(chassis, contact, i, dt);
      if (contact.bumpStopActive) solveBumpStop(chassis, contact, i, dt, bumpStopErrorReduction);
      setFrictionLimits(contact, dt);
    }
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (contact.active)
        commit(chassis, contact, longitudinalCandidate(chassis, contact, i, dt), contact.lateralImpulse);
    }
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (contact.active)
        commit(chassis, contact, contact.longitudinalImpulse, lateralCandidate(chassis, contact, i, dt));
    }
    for (SpinCoupling& coupling : couplings) solveCoupling(coupling, contacts);
  }

  for (WheelContact& contact : contacts) {
    if (!contact.active) continue;
    const btVector3 velocity = relativeVelocity(chassis, contact);
    contact.forwardSpeed = velocity.dot(contact.longitudinal);
    contact.lateralSpeed = velocity.dot(contact.lateral);
  }
  addPredicted(chassis, -1);
  for (SolverBody& ground : groundBodies_) addPredicted(ground, -1);
}

void ContactSolver::solveSuspension(SolverBody& chassis, WheelContact& contact, size_t index,
                                    btScalar dt) {
  // lambda = (F_spring + c v) dt, v = compression speed after the impulses:
  // v = -(relative velocity . n) / cos, and an impulse d lambda changes it by -w d lambda / cos.
  const btScalar compressionSpeed =
      -relativeVelocity(chassis, contact).dot(contact.normal) / contact.rayCosine;
  const btScalar wanted = (contact.springForce + contact.damping * compressionSpeed) * dt;
  const btScalar denominator =
      1 + contact.damping * dt * normalInverseMass_[index] / contact.rayCosine;
  const btScalar impulse = std::max(
      btScalar(0), contact.suspensionImpulse + (wanted - contact.suspensionImpulse) / denominator);
  applyContactImpulse(chassis, contact, contact.normal * (impulse - contact.suspensionImpulse));
  contact.suspensionImpulse = impulse;
}

void ContactSolver::solveBumpStop(SolverBody& chassis, WheelContact& contact, size_t index,
                                  btScalar dt, btScalar errorReduction) {
  // An inelastic stop: the contact may close at most its remaining gap in one step, and pushes
  // out a fraction of any overlap; the accumulated impulse only pushes.
  const btScalar separationSpeed = relativeVelocity(chassis, contact).dot(contact.normal);
  const btScalar gap = contact.bumpStopGap;
  const btScalar targetSpeed = gap >= 0 ? -gap / dt : -errorReduction * gap / dt;
  const btScalar impulse =
      std::max(btScalar(0), contact.bumpStopImpulse +
                                (targetSpeed - separationSpeed) / normalInverseMass_[index]);
  applyContactImpulse(chassis, contact, contact.normal * (impulse - contact.bumpStopImpulse));
  contact.bumpStopImpulse = impulse;
}

void ContactSolver::setFrictionLimits(WheelContact& contact, btScalar dt) {
  contact.tireContact.normalLoad = contact.normalImpulse() / dt;
  const btScalar longitudinalPeak = contact.tire->peakLongitudinalForce(contact.tireContact) * dt;
  if (contact.boxFriction) {
    // Seed 001: the same limit in both directions (isotropic).
    contact.longitudinalLimit = contact.lateralLimit = longitudinalPeak * contact.coulombScale;
    return;
  }
  contact.longitudinalLimit = longitudinalPeak;
  contact.lateralLimit = contact.tire->peakLateralForce(contact.tireContact) * dt;
  // Static rows slide at the dynamic friction; the tire's laws carry their own.
  if (contact.staticLongitudinal) contact.longitudinalLimit *= contact.coulombScale;
  if (contact.staticLateral) contact.lateralLimit *= contact.coulombScale;
}

void ContactSolver::solveCoupling(SpinCoupling& coupling, std::vector<WheelContact>& contacts) {
  WheelContact& a = contacts[coupling.wheelA];
  WheelContact& b = contacts[coupling.wheelB];
  const btScalar inverseInertia = a.inverseSpinInertia + b.inverseSpinInertia;
  if (inverseInertia == 0) return;  // both held by the handbrake
  const btScalar wanted = coupling.impulse - (a.angularSpeed - b.angularSpeed) / inverseInertia;
  const btScalar limited = std::clamp(wanted, -coupling.limit, coupling.limit);
  const btScalar change = limited - coupling.impulse;
  a.angularSpeed += change * a.inverseSpinInertia;
  b.angularSpeed -= change * b.inverseSpinInertia;
  coupling.impulse = limited;
}

void ContactSolver::solveAirborneBrake(WheelContact& contact) {
  if (contact.inverseSpinInertia == 0) return;
  // The brake stops the wheel at zero and never pushes it past.
  const btScalar spinFree = freeSpin(contact);
  const btScalar needed = -spinFree / contact.inverseSpinInertia;
  if (std::fabs(needed) <= contact.brakeImpulseLimit) {
    contact.brakeImpulse = needed;
    contact.angularSpeed = 0;
  } else {
    contact.brakeImpulse = std::copysign(contact.brakeImpulseLimit, needed);
    contact.angularSpeed = spinFree + contact.brakeImpulse * contact.inverseSpinInertia;
  }
}

btScalar ContactSolver::rowStep(const FrictionLaw& law, bool sticks, btScalar impulse,
                                btScalar slip, btScalar inverseMass, btScalar dt) const {
  // Static friction removes the slip. The tire's law takes a Newton step on lambda = F(u) dt,
  // d lambda = (F dt - lambda) / (1 + K dt w), with K < 0 on the curve's falling branch (the
  // denominator is kept positive there); the step stops at zero slip, never past it.
  const btScalar stick = -slip / inverseMass;
  if (sticks || law.sticks) return stick;
  const btScalar denominator =
      std::max(1 + law.stiffness * dt * inverseMass, kMinimumNewtonDenominator);
  const btScalar newton = (law.force * dt - impulse) / denominator;
  return slip > 0 ? std::max(newton, stick) : std::min(newton, stick);
}

btScalar ContactSolver::freeSpin(const WheelContact& contact) const {
  return contact.angularSpeed - contact.brakeImpulse * contact.inverseSpinInertia +
         contact.longitudinalImpulse * contact.radius * contact.inverseSpinInertia;
}

btScalar ContactSolver::longitudinalCandidate(const SolverBody& chassis,
                                              const WheelContact& contact, size_t index,
                                              btScalar dt) const {
  const btVector3 velocity = relativeVelocity(chassis, contact);
  const btScalar forwardSpeed = velocity.dot(contact.longitudinal);
  const btScalar lateralSlip = velocity.dot(contact.lateral);
  const btScalar chassisMass = longitudinalInverseMass_[index];
  const btScalar radius = contact.radius;
  const btScalar inverseInertia = contact.inverseSpinInertia;
  const bool sticks = contact.boxFriction || contact.staticLongitudinal;
  auto candidate = [&](btScalar slip, btScalar inverseMass) {
    const FrictionLaw law =
        sticks ? FrictionLaw{} : contact.tire->longitudinal(contact.tireContact, slip, lateralSlip);
    return contact.longitudinalImpulse +
           rowStep(law, sticks, contact.longitudinalImpulse, slip, inverseMass, dt);
  };
  // First try the wheel held still by its brake (or locked by the handbrake): the row then sees
  // the chassis alone. A wheel without brake torque is never held.
  if (inverseInertia == 0) return candidate(forwardSpeed, chassisMass);
  const btScalar spinFree = freeSpin(contact);
  if (contact.brakeImpulseLimit > 0) {
    const btScalar held = candidate(forwardSpeed, chassisMass);
    const btScalar holdingBrake = held * radius - spinFree / inverseInertia;
    if (std::fabs(holdingBrake) <= contact.brakeImpulseLimit) return held;
  }
  // The brake cannot hold it: the wheel turns against the brake at the brake's limit, which
  // opposes the spin the wheel would have without it.
  const btScalar spinWithoutBrake = spinFree - contact.longitudinalImpulse * radius * inverseInertia;
  const btScalar brake = -std::copysign(contact.brakeImpulseLimit, spinWithoutBrake);
  const btScalar spin = spinWithoutBrake + brake * inverseInertia;
  return candidate(forwardSpeed - radius * spin, chassisMass + radius * radius * inverseInertia);
}

btScalar ContactSolver::lateralCandidate(const SolverBody& chassis, const WheelContact& contact,
                                         size_t index, btScalar dt) const {
  const btVector3 velocity = relativeVelocity(chassis, contact);
  const btScalar slip = velocity.dot(contact.lateral);
  const btScalar longitudinalSlip =
      velocity.dot(contact.longitudinal) - contact.radius * contact.angularSpeed;
  const bool sticks = contact.boxFriction || contact.staticLateral;
  const FrictionLaw law =
      sticks ? FrictionLaw{} : contact.tire->lateral(contact.tireContact, slip, longitudinalSlip);
  return contact.lateralImpulse +
         rowStep(law, sticks, contact.lateralImpulse, slip, lateralInverseMass_[index], dt);
}

void ContactSolver::commit(SolverBody& chassis, WheelContact& contact, btScalar longitudinal,
                           btScalar lateral) {
  if (contact.boxFriction) {
    // Seed 001's handbrake: each direction on its own, each at the (x 0.85) limit.
    longitudinal = std::clamp(longitudinal, -contact.longitudinalLimit, contact.longitudinalLimit);
    lateral = std::clamp(lateral, -contact.lateralLimit, contact.lateralLimit);
  } else if (contact.longitudinalLimit <= 0 || contact.lateralLimit <= 0) {
    longitudinal = 0;
    lateral = 0;
  } else {
    // Friction ellipse (seed 004, step 5): scale both onto the boundary when outside.
    const btScalar x = longitudinal / contact.longitudinalLimit;
    const btScalar y = lateral / contact.lateralLimit;
    const btScalar ellipse = x * x + y * y;
    if (ellipse > 1) {
      const btScalar scale = 1 / std::sqrt(ellipse);
      longitudinal *= scale;
      lateral *= scale;
    }
  }
  // The wheel's spin and brake for the new friction impulse.
  const btScalar inverseInertia = contact.inverseSpinInertia;
  if (inverseInertia > 0) {
    const btScalar spinFree = freeSpin(contact);
    const btScalar needed = longitudinal * contact.radius - spinFree / inverseInertia;
    if (std::fabs(needed) <= contact.brakeImpulseLimit) {
      contact.brakeImpulse = needed;
      contact.angularSpeed = 0;
    } else {
      contact.brakeImpulse = std::copysign(contact.brakeImpulseLimit, needed);
      // The ground pushes the tire forward; on the wheel that is a torque against forward spin.
      contact.angularSpeed =
          spinFree + (contact.brakeImpulse - longitudinal * contact.radius) * inverseInertia;
    }
  }
  applyContactImpulse(chassis, contact,
                      contact.longitudinal * (longitudinal - contact.longitudinalImpulse) +
                          contact.lateral * (lateral - contact.lateralImpulse));
  contact.longitudinalImpulse = longitudinal;
  contact.lateralImpulse = lateral;
}

}  // namespace raycar
