#include "raycar/vehicle/Differential.h"

#include <cmath>
#include <limits>

namespace raycar {

btScalar differentialLockingTorque(const DifferentialSettings& differential,
                                   btScalar axleInputTorque) {
  switch (differential.type) {
    case DifferentialType::Open:
      return 0;
    case DifferentialType::Locked:
      return std::numeric_limits<btScalar>::infinity();
    case DifferentialType::LimitedSlip:
      return differential.preloadTorque +
             differential.lockingCoefficient * std::fabs(axleInputTorque);
    case DifferentialType::Torsen:
      return 0;  // set each step from the faster wheel's traction (Drivetrain::update)
  }
  return 0;
}

}  // namespace raycar
