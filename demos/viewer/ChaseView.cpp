#include "ChaseView.h"

namespace raycar::viewer {

void ChaseView::attach(const LoadedVehicle& vehicle) {
  camera_.emplace(vehicle.camera);
  axes_ = vehicle.settings.axes;
  // Without an eye_pos helper: behind and above the centre of mass.
  eyeLocal_ = vehicle.hasEye ? vehicle.eyePosition : axes_.forward * -6 + axes_.up * 2.5f;
  placed_ = false;
}

void ChaseView::update(const VehiclePose& pose, double frameSeconds) {
  if (!camera_) return;
  const btTransform& chassis = pose.chassis;
  const btVector3 pivot = chassis * eyeLocal_;
  const btVector3 right = chassis.getBasis() * axes_.right();
  const btVector3 forward = chassis.getBasis() * axes_.forward;
  const btVector3 up = chassis.getBasis() * axes_.up;
  if (!placed_ || !(frameSeconds > 0)) {
    camera_->reset(pivot, btVector3(0, 0, 0));
    placed_ = true;
  } else {
    const btMatrix3x3 basis(right.x(), forward.x(), up.x(), right.y(), forward.y(), up.y(), right.z(),
                            forward.z(), up.z());
    const btVector3 pivotVelocity = (pivot - lastPivot_) / btScalar(frameSeconds);
    camera_->update(pivot, basis, pivotVelocity, btScalar(frameSeconds));
  }
  lastPivot_ = pivot;
  eye_ = camera_->position();
  // Look down over the car at a point just ahead of its centre, so the car sits mid-screen with
  // the road ahead above it.
  target_ = chassis.getOrigin() + forward * 2 - up * 0.3f;
}

Matrix4 ChaseView::view() const { return lookAt(eye_, target_, btVector3(0, 0, 1)); }

}  // namespace raycar::viewer
