#pragma once
// The suspension at run time (stages Suspension and, for its rows, PrepareSolve): lengths,
// compression speeds, spring and anti-roll forces, the load estimate, and the suspension and
// bump stop rows' inputs for the contact solve. The laws are in raycar/vehicle/Suspension.h.

#include <vector>

#include "raycar/vehicle/VehicleSettings.h"
#include "vehicle/Wheel.h"

namespace raycar {

// The velocity (m/s) of `object` at the world point `point`: a rigid body's, dynamic or
// kinematic (Bullet gives a kinematic body the velocity of its motion state's move); 0 for
// anything else.
btVector3 groundVelocityAt(const btCollisionObject* object, const btVector3& point);

class Suspension {
 public:
  // Numbers the axles (Wheel::axleSlot), each distinct axle number once, in order of appearance.
  Suspension(const VehicleSettings& settings, WheelArray& wheels);

  // After the ground query: compression, compression speed, spring force and load estimate of
  // every wheel, from the chassis' pose and velocity.
  void update(const btRigidBody& chassis, WheelArray& wheels);
  // The suspension and bump stop rows of each touching wheel's contact.
  void prepareContacts(WheelArray& wheels, btScalar dt) const;

 private:
  const VehicleSettings* settings_;  // the vehicle's, which outlive this object
  std::vector<int> axleWheelCounts_;          // per axle slot
  std::vector<btScalar> axleCompressionSums_;  // m, per axle slot, this step
};

}  // namespace raycar
