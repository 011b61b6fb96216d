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

// Open: equal torques, free speeds. Locked: equal speeds. LimitedSlip: a clutch pack resisting
// the speed difference: the two wheels' torques differ by at most the locking torque, preload +
// coefficient x input torque. Torsen: torque biasing, the slower wheel's torque exceeds the
// faster one's by at most (torqueBiasRatio - 1) times what the faster wheel's ground takes (in a
// steady spin: the slower wheel's torque is at most torqueBiasRatio times the faster one's), so
// with a wheel in the air it passes nothing across (acts open).
enum class DifferentialType { Open, Locked, LimitedSlip, Torsen };

struct DifferentialSettings {
  int axle = 0;                          // the axle (WheelSettings::axle) it drives
  DifferentialType type = DifferentialType::Open;
  btScalar torqueShare = -1;             // [0, 1] of the drive torque; [-1, 0): by driving-wheel count
  btScalar preloadTorque = 50;           // LimitedSlip (N m): locking torque (the most the two
                                         // wheels' torques differ by) with no input torque
  btScalar lockingCoefficient = 0.5;     // LimitedSlip: extra locking torque per N m of input
  btScalar torqueBiasRatio = 3;          // Torsen (>= 1): the slower wheel's torque at most this
                                         // times the faster one's
};

// Locking torque (N m): the most the torques of a differential's two wheels may differ by;
// infinite when locked.
btScalar differentialLockingTorque(const DifferentialSettings& differential,
                                   btScalar axleInputTorque);

}  // namespace raycar
