#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// A Bullet rigid body's evolving state, for saving a vehicle's chassis beside
// RaycastVehicle::saveState (rollback, replays). What a step reads of a body: its transform, its
// velocities, the interpolation pose and velocities Bullet integrates from, and its sleep: the
// time it has rested, its activation state and its sleeping thresholds (a parked car raises its
// chassis' linear threshold while it falls asleep: README, "Sleeping"). Forces are cleared every
// step and need no saving.
//
// Restore with setCenterOfMassTransform, not setWorldTransform: it also turns the world inverse
// inertia tensor, which the next step reads before Bullet updates it. Contacts between bodies
// (Bullet's manifolds and pair cache) are the world's state and are not saved: a body restored
// while touching another may take a different first step.

#include <BulletDynamics/Dynamics/btRigidBody.h>

namespace raycar {

struct RigidBodyState {
  btTransform transform = btTransform::getIdentity();
  btTransform interpolationTransform = btTransform::getIdentity();
  btVector3 linearVelocity{0, 0, 0};                  // m/s
  btVector3 angularVelocity{0, 0, 0};                 // rad/s
  btVector3 interpolationLinearVelocity{0, 0, 0};     // m/s
  btVector3 interpolationAngularVelocity{0, 0, 0};    // rad/s
  btScalar deactivationTime = 0;                      // s at rest
  int activationState = ACTIVE_TAG;
  btScalar linearSleepingThreshold = btScalar(0.8);   // m/s (Bullet's defaults)
  btScalar angularSleepingThreshold = btScalar(1.0);  // rad/s

  RigidBodyState() = default;
  explicit RigidBodyState(const btRigidBody& body)
      : transform(body.getWorldTransform()),
        interpolationTransform(body.getInterpolationWorldTransform()),
        linearVelocity(body.getLinearVelocity()),
        angularVelocity(body.getAngularVelocity()),
        interpolationLinearVelocity(body.getInterpolationLinearVelocity()),
        interpolationAngularVelocity(body.getInterpolationAngularVelocity()),
        deactivationTime(body.getDeactivationTime()),
        activationState(body.getActivationState()),
        linearSleepingThreshold(body.getLinearSleepingThreshold()),
        angularSleepingThreshold(body.getAngularSleepingThreshold()) {}

  void restore(btRigidBody& body) const {
    body.setCenterOfMassTransform(transform);
    body.setInterpolationWorldTransform(interpolationTransform);
    body.setLinearVelocity(linearVelocity);
    body.setAngularVelocity(angularVelocity);
    body.setInterpolationLinearVelocity(interpolationLinearVelocity);
    body.setInterpolationAngularVelocity(interpolationAngularVelocity);
    body.setDeactivationTime(deactivationTime);
    body.forceActivationState(activationState);
    body.setSleepingThresholds(linearSleepingThreshold, angularSleepingThreshold);
  }
};

}  // namespace raycar
