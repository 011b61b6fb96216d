#pragma once
// A root of a continuous function within a bracket, by regula falsi with the Illinois rule.
//
// Plain regula falsi keeps one end of the bracket fixed when the function curves, and creeps to
// the root from the other side in ever smaller steps; halving the value kept at the end that
// stayed (the Illinois rule) moves that end too, so the bracket shrinks from both sides, and a
// smooth function is met to within a tolerance in a few evaluations. The drive's fall with the
// engine's torque curve (Drivetrain::takeDriveTorqueFall) and the driving wheels'
// counter-rotation (ContactSolver::solveCounterRotation) share it.

#include <LinearMath/btScalar.h>

#include <cmath>

namespace raycar {

// f(low) = lowValue and f(high) = highValue of opposite signs (either way round). Returns the
// last estimate: the first whose |f| <= tolerance, or the one the last of `iterations` took.
template <class Function>
btScalar illinoisRoot(const Function& f, btScalar low, btScalar lowValue, btScalar high, btScalar highValue,
                      btScalar tolerance, int iterations) {
  btScalar estimate = high;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    estimate = (low * highValue - high * lowValue) / (highValue - lowValue);
    const btScalar value = f(estimate);
    if (std::fabs(value) <= tolerance) break;
    if ((value > 0) == (lowValue > 0)) {
      low = estimate;
      lowValue = value;
      highValue *= btScalar(0.5);
    } else {
      high = estimate;
      highValue = value;
      lowValue *= btScalar(0.5);
    }
  }
  return estimate;
}

}  // namespace raycar
