#pragma once
// Aerodynamics at run time (stage Aero): drag and downforce on the chassis as the solve sees it,
// before the wheels' rows. The laws are in raycar/vehicle/Aero.h.

#include <vector>

#include "raycar/vehicle/VehicleSettings.h"
#include "solver/ContactSolver.h"
#include "vehicle/Wheel.h"

namespace raycar {

class Aero {
 public:
  // Finds the front-most and rear-most wheels, between which the downforce acts.
  Aero(const AeroSettings& settings, const WheelArray& wheels);

  // Drag at the centre of mass and downforce between the axles by its front share (seed 004,
  // step 9), as impulses over `dt` on `chassis`. worldForward and worldUp: the chassis' axes.
  void apply(SolverBody& chassis, const btVector3& worldForward, const btVector3& worldUp,
             btScalar dt) const;

 private:
  const AeroSettings* settings_;   // the vehicle's, which outlive this object
  btScalar frontAxleForward_ = 0;  // m, chassis forward coordinate of the front-most wheel
  btScalar rearAxleForward_ = 0;   // m, of the rear-most wheel
};

}  // namespace raycar
