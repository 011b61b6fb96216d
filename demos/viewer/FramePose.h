#pragma once
// What the viewer draws, captured after each fixed step and interpolated once per frame (seed
// 002): every car, wheel, suspension part, contact force and ghost comes from one FramePose, so
// nothing drifts against anything else between steps.
//
// Two forms of the same pose:
// - planar (seed 002, for the top-down view): the chassis' position and yaw on the ground plane
//   and each wheel's steer angle, interpolated with lerp and lerpAngle; wheels are placed from
//   the drawn chassis pose and their anchors;
// - spatial (for the 3-D view): the chassis transform (lerp and quaternion slerp) and each part's
//   transform relative to the chassis.
// The viewer only reads vehicle state here; physics stays in SceneRunner.

#include <LinearMath/btTransform.h>

#include <vector>

#include "SceneRunner.h"

namespace raycar::viewer {

struct PlanarPose {
  double x = 0, y = 0;  // m, world
  double yaw = 0;       // rad, counter-clockwise from +x
};

struct WheelPose {
  btTransform local = btTransform::getIdentity();  // wheel in the chassis frame: travel, steer, spin
  double forward = 0, left = 0;  // m: the wheel centre's anchor in the chassis (planar view)
  double steerAngle = 0;         // rad, > 0 left
  bool inContact = false;
  btVector3 contact{0, 0, 0};             // contact point, chassis frame (m)
  btVector3 longitudinalForce{0, 0, 0};   // Fx along the wheel's forward, chassis frame (N)
  btVector3 lateralForce{0, 0, 0};        // Fy along the wheel's right, chassis frame (N)
  double longitudinalForceN = 0;          // Fx (N), signed
  double lateralForceN = 0;               // Fy (N), signed, > 0 to the wheel's right
  double staticLoad = 0;                  // N
  // The wheel's ground query (WheelSettings::groundQuery): a ray draws nothing; a sphere or a
  // cylinder is drawn where it is cast from, the wheel's place (chassis frame).
  GroundQueryKind query = GroundQueryKind::Ray;
  btVector3 queryCentre{0, 0, 0};  // the shape's centre (m)
  btVector3 queryAxle{1, 0, 0};    // unit: the axle, turned with the steering
  btVector3 queryUp{0, 0, 1};      // unit: the chassis' up
  double queryRadius = 0;          // m
  double queryHalfWidth = 0;       // m, cylinder
};

struct SuspensionPartPose {
  btTransform local = btTransform::getIdentity();  // rest chassis frame -> chassis frame
  btVector3 restStart{0, 0, 0};
  btVector3 restAxis{0, 0, 1};
  double stretch = 1;
};

struct VehiclePose {
  btTransform chassis = btTransform::getIdentity();  // world
  PlanarPose planar;                                 // the chassis origin and heading
  std::vector<WheelPose> wheels;
  std::vector<SuspensionPartPose> suspensions;
  bool hasGhost = false;
  PlanarPose ghost;        // seed 002's bicycle: rear axle centre and heading
  double ghostSteer = 0;   // rad
  double groundHeight = 0; // m: mean height of the contacts (where a ghost is drawn in 3-D)
};

struct FramePose {
  std::vector<VehiclePose> vehicles;
};

// The state of every vehicle now.
FramePose capturePose(sim::SceneRunner& runner);

// The pose a fraction alpha in [0, 1] of the way from `previous` to `current`. Vehicles or wheels
// that differ in number (a vehicle was just respawned) take `current` as it is.
FramePose interpolatePose(const FramePose& previous, const FramePose& current, double alpha);

// A suspension part's stretch along its rest axis a: I + (stretch - 1) a a^T. A rest point p
// (chassis frame) is drawn at chassis * local * (stretch (p - restStart)).
btMatrix3x3 suspensionStretch(const SuspensionPartPose& part);

}  // namespace raycar::viewer
