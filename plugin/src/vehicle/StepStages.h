#pragma once
// The stages of one vehicle step, named once, in order (DESIGN.md's per-step pipeline), and the
// one executor that runs them. RaycastVehicle runs a whole step at once; VehicleGroup runs each
// vehicle as far as a worker thread may take it, then finishes the rest on its own thread.

#include "vehicle/VehicleRuntime.h"

namespace raycar {

enum class StepStage : char {
  Begin,            // skip a step that cannot or need not run (no world, dt <= 0, NaN, asleep)
  ShapeInput,       // 1. pedal speed and cap, steering rate and relaxation, Ackermann angles
  QueryNearby,      // 2. each wheel's ground query from the objects near the car (any thread)
  QueryWorld,       //    the wheels left over, through the world (main thread)
  ApplyGround,      //    the hits into the wheels: contact, suspension length
  Suspension,       // 3. compression, compression speed, spring and anti-roll, load estimate
  MeasureContacts,  // 4. contact frames and velocities relative to the ground, friction
  StabilityControl, // 5. ESC: one wheel's brake for the yaw moment the yaw rate lacks
  Drivetrain,       //    powertrain, differentials, brakes (pedal and ESC) and assists ->
                    //    wheel torques
  DriveSpin,        // 6. drive torque into wheel spin
  Solve,            // 7. aero, suspension, bump stops, brakes, differentials, tire friction:
                    //    impulses on the chassis, dynamic ground and wheels
  FollowWheels,     //    an engaged engine turns with the wheels the solve left
  WheelRotation,    // 8. rotation angle for rendering
  Done,
};

// What the caller of runStages may do.
struct StepContext {
  btCollisionWorld* world = nullptr;
  btScalar dt = 0;                       // s
  bool mainThread = true;                // may run the world's own queries (QueryWorld)
  bool mayTouchDynamicBodies = true;     // may read and push dynamic bodies under the wheels
  NearbyBatchSlot nearby;                // the car's objects gathered with others', if any
};

// Runs `vehicle`'s stages from `next` on. Stops before a stage the caller may not run - QueryWorld
// off the main thread, or (without mayTouchDynamicBodies) Suspension while a wheel stands on a
// dynamic body, whose velocity it reads and the solve changes, and Begin for a sleeping car on a
// dynamic body (whether that body moves decides whether it wakes) - and returns that stage to
// resume at; Done once the step is finished (or skipped).
StepStage runStages(VehicleRuntime& vehicle, StepStage next, const StepContext& context);

}  // namespace raycar
