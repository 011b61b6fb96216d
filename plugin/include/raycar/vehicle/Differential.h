#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Differentials: how the drive torque reaches the driving wheels (seed 004).
//
// The drive torque is split between the driven axles by their torque shares (a front/rear split
// for 4WD; two rear axles for a 6x4 truck), then evenly between an axle's driving wheels. That
// even split is what an open differential does. A locked differential also forces its wheels to
// turn at the same speed, and a limited-slip (clutch-pack) one resists a speed difference with up
// to preload + lockingCoefficient x |axle input torque|. Both are solved as velocity rows between
// the wheels' spins in the contact solve (ContactSolver), so locking is exact and cannot
// oscillate.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

namespace raycar {

enum class DifferentialType { Open, Locked, LimitedSlip };

struct DifferentialSettings {
  int axle = 0;                          // the axle (WheelSettings::axle) it drives
  DifferentialType type = DifferentialType::Open;
  btScalar torqueShare = -1;             // [0, 1] of the drive torque; [-1, 0): by driving-wheel count
  btScalar preloadTorque = 50;           // LimitedSlip (N m): locking torque with no input torque
  btScalar lockingCoefficient = 0.5;     // LimitedSlip: extra locking torque per N m of input
};

// Locking torque (N m) a differential can transmit between its wheels; infinite when locked.
btScalar differentialLockingTorque(const DifferentialSettings& differential,
                                   btScalar axleInputTorque);

}  // namespace raycar
