#include "FramePose.h"

#include <cmath>

#include "raycar/extras/FixedStepClock.h"

namespace raycar::viewer {
namespace {

btVector3 lerpVector(const btVector3& from, const btVector3& to, double alpha) {
  return from + (to - from) * btScalar(alpha);
}

btQuaternion slerpShortest(const btQuaternion& from, btQuaternion to, double alpha) {
  if (from.dot(to) < 0) to = -to;
  return from.slerp(to, btScalar(alpha));
}

btTransform lerpTransform(const btTransform& from, const btTransform& to, double alpha) {
  return btTransform(slerpShortest(from.getRotation(), to.getRotation(), alpha),
                     lerpVector(from.getOrigin(), to.getOrigin(), alpha));
}

PlanarPose lerpPlanar(const PlanarPose& from, const PlanarPose& to, double alpha) {
  return {lerp(from.x, to.x, alpha), lerp(from.y, to.y, alpha), lerpAngle(from.yaw, to.yaw, alpha)};
}

double yawOf(const btVector3& forward) { return std::atan2(double(forward.y()), double(forward.x())); }

}  // namespace

FramePose capturePose(sim::SceneRunner& runner) {
  FramePose frame;
  frame.vehicles.resize(runner.vehicleCount());
  for (size_t index = 0; index < runner.vehicleCount(); ++index) {
    SpawnedVehicle& spawned = runner.vehicle(index);
    const RaycastVehicle& vehicle = spawned.vehicle();
    const ChassisAxes& axes = vehicle.settings().axes;
    const btVector3 left = -axes.right();
    VehiclePose& pose = frame.vehicles[index];
    pose.chassis = spawned.chassisTransform();
    const btTransform toChassis = pose.chassis.inverse();
    pose.planar = {double(pose.chassis.getOrigin().x()), double(pose.chassis.getOrigin().y()),
                   yawOf(vehicle.worldForward())};
    double contactHeights = 0;
    int contacts = 0;
    pose.wheels.resize(size_t(vehicle.wheelCount()));
    for (int w = 0; w < vehicle.wheelCount(); ++w) {
      const WheelState& state = vehicle.wheelState(w);
      WheelPose& wheel = pose.wheels[size_t(w)];
      wheel.local = toChassis * vehicle.wheelWorldTransform(w);
      wheel.forward = double(wheel.local.getOrigin().dot(axes.forward));
      wheel.left = double(wheel.local.getOrigin().dot(left));
      wheel.steerAngle = double(state.steerAngle);
      wheel.inContact = state.inContact;
      wheel.staticLoad = double(state.staticLoad);
      wheel.longitudinalForceN = double(state.longitudinalForce);
      wheel.lateralForceN = double(state.lateralForce);
      const WheelSettings& settings = vehicle.wheelSettings(w);
      wheel.query = settings.groundQuery;
      if (wheel.query != GroundQueryKind::Ray) {
        const bool sphere = wheel.query == GroundQueryKind::Sphere;
        wheel.queryRadius = double(sphere && settings.queryRadius > 0 ? settings.queryRadius : settings.radius);
        wheel.queryHalfWidth = sphere ? 0 : double(settings.width) / 2;
        // A smaller sphere has its bottom at the wheel's bottom.
        wheel.queryCentre = wheel.local.getOrigin() - axes.up * btScalar(double(settings.radius) - wheel.queryRadius);
        wheel.queryAxle = quatRotate(btQuaternion(axes.up, state.steerAngle), axes.right());
        wheel.queryUp = axes.up;
      }
      if (state.inContact) {
        wheel.contact = toChassis * state.contactPoint;
        const btQuaternion steer(axes.up, state.steerAngle);
        wheel.longitudinalForce = quatRotate(steer, axes.forward) * state.longitudinalForce;
        wheel.lateralForce = quatRotate(steer, axes.right()) * state.lateralForce;
        contactHeights += double(state.contactPoint.z());
        ++contacts;
      }
    }
    pose.groundHeight = contacts ? contactHeights / contacts : double(pose.chassis.getOrigin().z()) - 0.5;
    const auto& parts = spawned.suspensionPoses();
    pose.suspensions.resize(parts.size());
    for (size_t k = 0; k < parts.size(); ++k) {
      SuspensionPartPose& part = pose.suspensions[k];
      part.local = toChassis * parts[k].transform;
      part.restStart = parts[k].restStart;
      part.restAxis = parts[k].restAxis;
      part.stretch = double(parts[k].stretch);
    }
    if (const KinematicBicycle* ghost = runner.ghost(index)) {
      pose.hasGhost = true;
      pose.ghost = {double(ghost->state().x), double(ghost->state().y), double(ghost->state().heading)};
      pose.ghostSteer = double(ghost->state().steer);
    }
  }
  return frame;
}

FramePose interpolatePose(const FramePose& previous, const FramePose& current, double alpha) {
  if (previous.vehicles.size() != current.vehicles.size()) return current;
  FramePose frame = current;
  for (size_t index = 0; index < current.vehicles.size(); ++index) {
    const VehiclePose& from = previous.vehicles[index];
    const VehiclePose& to = current.vehicles[index];
    if (from.wheels.size() != to.wheels.size() || from.suspensions.size() != to.suspensions.size()) continue;
    VehiclePose& drawn = frame.vehicles[index];
    drawn.chassis = lerpTransform(from.chassis, to.chassis, alpha);
    drawn.planar = lerpPlanar(from.planar, to.planar, alpha);
    drawn.groundHeight = lerp(from.groundHeight, to.groundHeight, alpha);
    for (size_t w = 0; w < to.wheels.size(); ++w) {
      const WheelPose& a = from.wheels[w];
      const WheelPose& b = to.wheels[w];
      WheelPose& wheel = drawn.wheels[w];
      wheel.local = lerpTransform(a.local, b.local, alpha);
      wheel.forward = lerp(a.forward, b.forward, alpha);
      wheel.left = lerp(a.left, b.left, alpha);
      wheel.steerAngle = lerp(a.steerAngle, b.steerAngle, alpha);
      wheel.queryCentre = lerpVector(a.queryCentre, b.queryCentre, alpha);
      if (a.inContact && b.inContact) {
        wheel.contact = lerpVector(a.contact, b.contact, alpha);
        wheel.longitudinalForce = lerpVector(a.longitudinalForce, b.longitudinalForce, alpha);
        wheel.lateralForce = lerpVector(a.lateralForce, b.lateralForce, alpha);
        wheel.longitudinalForceN = lerp(a.longitudinalForceN, b.longitudinalForceN, alpha);
        wheel.lateralForceN = lerp(a.lateralForceN, b.lateralForceN, alpha);
      }
    }
    for (size_t k = 0; k < to.suspensions.size(); ++k) {
      SuspensionPartPose& part = drawn.suspensions[k];
      part.local = lerpTransform(from.suspensions[k].local, to.suspensions[k].local, alpha);
      part.stretch = lerp(from.suspensions[k].stretch, to.suspensions[k].stretch, alpha);
    }
    if (from.hasGhost && to.hasGhost) {
      drawn.ghost = lerpPlanar(from.ghost, to.ghost, alpha);
      drawn.ghostSteer = lerp(from.ghostSteer, to.ghostSteer, alpha);
    }
  }
  return frame;
}

btMatrix3x3 suspensionStretch(const SuspensionPartPose& part) {
  const btVector3& a = part.restAxis;
  const btScalar k = btScalar(part.stretch - 1);
  return btMatrix3x3(1 + k * a.x() * a.x(), k * a.x() * a.y(), k * a.x() * a.z(),
                     k * a.y() * a.x(), 1 + k * a.y() * a.y(), k * a.y() * a.z(),
                     k * a.z() * a.x(), k * a.z() * a.y(), 1 + k * a.z() * a.z());
}

}  // namespace raycar::viewer
