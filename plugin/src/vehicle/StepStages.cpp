#include "vehicle/StepStages.h"

#include <cmath>

namespace raycar {

StepStage runStages(VehicleRuntime& vehicle, StepStage next, const StepContext& context) {
  const btScalar dt = context.dt;
  switch (next) {
    case StepStage::Begin:
      // A call that is no step at all (no world, dt <= 0 or not finite) changes nothing.
      if (context.world == nullptr || !(dt > 0) || !std::isfinite(dt)) return StepStage::Done;
      // Bullet read the last step's raised sleeping threshold (if any) when that step ended.
      vehicle.putBackSleepThreshold();
      switch (vehicle.beginStep(*context.world, context.mayTouchDynamicBodies)) {
        case VehicleRuntime::Start::Skip:
          // A step the chassis went through without a solve (asleep, out of the world, or its
          // state not finite) leaves nothing to compare the next step with.
          vehicle.solver.forgetExpectedVelocity();
          return StepStage::Done;
        case VehicleRuntime::Start::OnMainThread:  // asleep on a dynamic body
          return StepStage::Begin;
        case VehicleRuntime::Start::Step:
          break;
      }
      [[fallthrough]];
    case StepStage::ShapeInput:
      vehicle.shapeInput(dt);
      [[fallthrough]];
    case StepStage::QueryNearby:
      vehicle.queryNearbyGround(*context.world, !context.mainThread, context.nearby);
      [[fallthrough]];
    case StepStage::QueryWorld:
      if (vehicle.groundPending()) {
        if (!context.mainThread) return StepStage::QueryWorld;
        vehicle.queryWorldGround(*context.world);
      }
      [[fallthrough]];
    case StepStage::ApplyGround:
      vehicle.applyGroundHits();
      [[fallthrough]];
    case StepStage::Suspension:
      if (!context.mayTouchDynamicBodies && vehicle.standsOnDynamicBody())
        return StepStage::Suspension;
      vehicle.updateSuspension();
      [[fallthrough]];
    case StepStage::MeasureContacts:
      vehicle.measureContacts(dt);
      [[fallthrough]];
    case StepStage::StabilityControl:
      vehicle.controlStability();
      [[fallthrough]];
    case StepStage::Drivetrain:
      vehicle.updateDrivetrain(dt);
      [[fallthrough]];
    case StepStage::DriveSpin:
      vehicle.spinUpWheels(dt);
      [[fallthrough]];
    case StepStage::Solve:
      vehicle.solveContacts(dt);
      [[fallthrough]];
    case StepStage::FollowWheels:
      vehicle.followWheels(dt);
      [[fallthrough]];
    case StepStage::WheelRotation:
      vehicle.rotateWheels(dt);
      [[fallthrough]];
    case StepStage::Done:
      break;
  }
  return StepStage::Done;
}

}  // namespace raycar
