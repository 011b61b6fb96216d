#pragma once
// The steering at run time (stage ShapeInput): the bicycle steer angle, the pedal after
// pedal_speed and the steering's pedal cap, and each steered wheel's angle. The laws are in
// raycar/vehicle/Steering.h; this object holds their state from step to step.

#include <vector>

#include "raycar/vehicle/VehicleSettings.h"
#include "vehicle/Wheel.h"

namespace raycar {

class Steering {
 public:
  // Resolves which wheels steer (Wheel::steered) and where the turning centre lies.
  Steering(const SteeringSettings& settings, WheelArray& wheels);

  // Moves the steer angle and pedal one step toward the driver's input (steer, pedal in
  // [-1, 1]) at `forwardSpeed` (m/s), and sets every wheel's steer angle.
  void update(btScalar steerInput, btScalar pedalInput, btScalar forwardSpeed, btScalar dt,
              WheelArray& wheels);

  btScalar angle() const { return angle_; }   // rad, the equivalent bicycle's
  // m: the steered wheels' mean forward position from the turning centre's line (the
  // unsteered wheels' mean; the centre of mass if every wheel steers): the bicycle's wheelbase.
  btScalar wheelbase() const { return steeredAxleForward_ - referenceForward_; }
  btScalar pedal() const { return shapedPedal_; }
  // N m at the steering wheel, > 0 turns it left: the steered wheels' aligning moments (as the
  // last solve left them) through the steering ratio.
  btScalar columnTorque(const WheelArray& wheels) const;

  // The angle stays where the wheels point; the pedal's ramp (pedal_speed) starts again from
  // rest, as a newly built car's does: a pedal still ramping down from full throttle drove a
  // respawned jeep 1.2 m (a newcomer's trial).
  void resetMotion() {
    columnSpeed_ = 0;
    rampedPedal_ = 0;
    shapedPedal_ = 0;
  }
  template <class Archive>
  void transferState(Archive& archive) {  // StateArchive.h
    const btScalar quarterTurn = SIMD_HALF_PI;
    archive.scalar(angle_, -quarterTurn, quarterTurn);
    archive.scalar(columnSpeed_);
    archive.scalar(rampedPedal_, -1, 1);
    archive.scalar(shapedPedal_, -1, 1);
    archive.scalar(ackermannAngle_, -quarterTurn, quarterTurn);
  }

 private:
  // SteeringMode::Torque: the column's angle and speed one step on.
  void turnColumn(btScalar steerInput, btScalar forwardSpeed, btScalar dt,
                  const WheelArray& wheels);

  const SteeringSettings* settings_;  // the vehicle's, which outlive this object
  btScalar angle_ = 0;           // rad, bicycle
  btScalar columnSpeed_ = 0;     // rad/s of the steering wheel (SteeringMode::Torque)
  btScalar rampedPedal_ = 0;     // after pedal_speed
  btScalar shapedPedal_ = 0;     // and after max_steering_pedal
  btScalar ackermannAngle_ = 0;  // rad: angle_ when the wheels' angles were computed
  btScalar referenceForward_ = 0;    // m: the line the turning centre lies on
  btScalar steeredAxleForward_ = 0;  // m: mean forward position of the steered wheels
};

}  // namespace raycar
