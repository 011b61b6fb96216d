#pragma once
// The stability control at run time (stage StabilityControl, before the drivetrain's brakes):
// reads the chassis' yaw rate and the wheels, asks for one wheel's brake torque, which the
// brakes apply with the pedal's through ABS (Drivetrain::update). The law is in
// raycar/vehicle/StabilityControl.h.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <climits>
#include <vector>

#include "raycar/vehicle/StabilityControl.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "vehicle/Wheel.h"

namespace raycar {

class StabilityControl {
 public:
  // wheelbase: the steering's (Steering::wheelbase, m); the controller rests at 0 or less.
  StabilityControl(const AssistSettings& settings, btScalar wheelbase)
      : settings_(&settings), wheelbase_(wheelbase) {}

  // One step: forwardSpeed (m/s) along the chassis' forward axis, up its up axis (world).
  void update(const btRigidBody& chassis, const btVector3& up, btScalar forwardSpeed,
              const WheelArray& wheels);

  const StabilityControlState& state() const { return state_; }
  void resetMotion() { state_ = StabilityControlState{}; }
  template <class Archive>
  void transferState(Archive& archive) {  // StateArchive.h (what it did in the last step)
    archive.flag(state_.active);
    for (btScalar* value : {&state_.referenceYawRate, &state_.yawRate, &state_.yawMoment,
                            &state_.brakeTorque})
      archive.scalar(*value);
    archive.integer(state_.brakedWheel, -1, INT_MAX);
  }

 private:
  const AssistSettings* settings_;  // the vehicle's, which outlive this object
  btScalar wheelbase_ = 0;          // m; 0: nothing steers, the controller rests
  StabilityControlState state_;
};

}  // namespace raycar
