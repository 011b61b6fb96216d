#include "WorldView.h"

#include <cmath>

#include "VehiclePalette.h"

namespace raycar::viewer {
namespace {
const btVector3 kTowardsSun(0.35f, -0.45f, 0.82f);
constexpr float kFieldOfView = 1.0f;  // rad, vertical (57 deg)
}  // namespace

WorldView::WorldView(const LitMeshShader& shader, SceneGeometry& geometry)
    : shader_(shader), geometry_(geometry), cube_(GpuMesh::unitCube()) {}

void WorldView::draw(sim::SceneRunner& runner, const FramePose& pose, const Matrix4& view, int widthPixels,
                     int heightPixels, bool showForces) {
  glClearColor(0.62f, 0.75f, 0.88f, 1);  // sky
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  const Matrix4 projection = perspective(kFieldOfView, float(widthPixels) / float(std::max(heightPixels, 1)), 0.1f, 1500);
  shader_.begin(projection * view, kTowardsSun);
  for (const GroundPiece& piece : geometry_.ground())
    shader_.draw(piece.mesh, btTransform::getIdentity(), piece.color, piece.checkerContrast);
  for (size_t index = 0; index < pose.vehicles.size() && index < runner.vehicleCount(); ++index)
    drawVehicle(geometry_.model(runner.vehicle(index).loaded()), pose.vehicles[index], vehicleColor(index));
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  for (size_t index = 0; index < pose.vehicles.size() && index < runner.vehicleCount(); ++index)
    if (pose.vehicles[index].hasGhost) drawGhost(geometry_.model(runner.vehicle(index).loaded()), pose.vehicles[index]);
  glDisable(GL_BLEND);
  if (showForces) {
    glDisable(GL_DEPTH_TEST);  // gizmos: visible through the car
    for (const VehiclePose& vehicle : pose.vehicles) drawForces(vehicle);
    glEnable(GL_DEPTH_TEST);
  }
}

void WorldView::drawVehicle(const VehicleModel& model, const VehiclePose& pose, const Color& color) const {
  for (size_t part = 0; part < model.parts.size(); ++part)
    shader_.draw(model.parts[part], pose.chassis, part == 0 ? color : darker(color, 0.75f));
  for (size_t wheel = 0; wheel < model.wheels.size() && wheel < pose.wheels.size(); ++wheel)
    shader_.draw(model.wheels[wheel], pose.chassis * pose.wheels[wheel].local, kTireColor);
  for (size_t part = 0; part < model.suspensions.size() && part < pose.suspensions.size(); ++part) {
    // rest point p -> chassis * local * (S (p - restStart))
    const SuspensionPartPose& suspension = pose.suspensions[part];
    const btTransform rigid = pose.chassis * suspension.local;
    const btMatrix3x3 stretch = suspensionStretch(suspension);
    const btMatrix3x3 basis = rigid.getBasis() * stretch;
    const btVector3 origin = rigid * (stretch * -suspension.restStart);
    const btMatrix3x3 normalBasis = rigid.getBasis() * stretch.inverse();  // (R S)^-T, S symmetric
    shader_.draw(model.suspensions[part], Matrix4::affine(basis, origin), normalBasis, kSuspensionColor);
  }
}

void WorldView::drawGhost(const VehicleModel& model, const VehiclePose& pose) const {
  // Seed 002's bicycle: its rear axle centre and heading carry the vehicle's outline, flat on the
  // ground.
  const Footprint& footprint = model.footprint;
  const double ahead = footprint.centreForward - footprint.rearAxleForward;
  const double c = std::cos(pose.ghost.yaw), s = std::sin(pose.ghost.yaw);
  const btVector3 centre(btScalar(pose.ghost.x + c * ahead - s * footprint.centreLeft),
                         btScalar(pose.ghost.y + s * ahead + c * footprint.centreLeft),
                         btScalar(pose.groundHeight + 0.04));
  const btMatrix3x3 rotation(btQuaternion(btVector3(0, 0, 1), btScalar(pose.ghost.yaw)));
  const btMatrix3x3 scale = btMatrix3x3::getIdentity().scaled(
      btVector3(btScalar(footprint.length), btScalar(footprint.width), 0.05f));
  shader_.draw(cube_, Matrix4::affine(rotation * scale, centre), rotation, Color{1, 1, 1, 0.35f});
}

void WorldView::drawForces(const VehiclePose& pose) const {
  for (const WheelPose& wheel : pose.wheels) {
    if (!wheel.inContact || wheel.staticLoad <= 0) continue;
    const double metresPerNewton = kForceVectorMetresPerStaticLoad / wheel.staticLoad;
    const btVector3 start = pose.chassis * wheel.contact + btVector3(0, 0, 0.06f);
    const btMatrix3x3& basis = pose.chassis.getBasis();
    drawBar(start, start + basis * wheel.longitudinalForce * btScalar(metresPerNewton), 0.07, kLongitudinalForceColor);
    drawBar(start, start + basis * wheel.lateralForce * btScalar(metresPerNewton), 0.07, kLateralForceColor);
  }
  for (const WheelPose& wheel : pose.wheels) drawQueryShape(pose.chassis, wheel);
}

void WorldView::drawQueryShape(const btTransform& chassis, const WheelPose& wheel) const {
  if (wheel.query == GroundQueryKind::Ray) return;
  const btMatrix3x3& basis = chassis.getBasis();
  const btVector3 centre = chassis * wheel.queryCentre;
  const btVector3 axle = basis * wheel.queryAxle, up = basis * wheel.queryUp, ahead = up.cross(axle);
  const btScalar radius = btScalar(wheel.queryRadius);
  constexpr int kSegments = 24;
  constexpr double kThickness = 0.012;  // m
  // A circle of `radius` about `middle` in the plane of the unit vectors u and v.
  auto circle = [&](const btVector3& middle, const btVector3& u, const btVector3& v) {
    for (int i = 0; i < kSegments; ++i) {
      const btScalar a = btScalar(SIMD_2_PI * i / kSegments), b = btScalar(SIMD_2_PI * (i + 1) / kSegments);
      drawBar(middle + (u * std::cos(a) + v * std::sin(a)) * radius,
              middle + (u * std::cos(b) + v * std::sin(b)) * radius, kThickness, kQueryShapeColor);
    }
  };
  if (wheel.query == GroundQueryKind::Sphere) {  // three great circles
    circle(centre, up, ahead);
    circle(centre, up, axle);
    circle(centre, axle, ahead);
    return;
  }
  const btVector3 halfWidth = axle * btScalar(wheel.queryHalfWidth);
  circle(centre - halfWidth, up, ahead);  // the rims
  circle(centre + halfWidth, up, ahead);
  for (const btVector3& spoke : {up, -up, ahead, -ahead})  // the tread's lines
    drawBar(centre - halfWidth + spoke * radius, centre + halfWidth + spoke * radius, kThickness, kQueryShapeColor);
}

void WorldView::drawBar(const btVector3& from, const btVector3& to, double thickness, const Color& color) const {
  const btVector3 span = to - from;
  const btScalar length = span.length();
  if (length < btScalar(1e-3)) return;
  const btVector3 along = span / length;
  btVector3 across = along.cross(btVector3(0, 0, 1));
  if (across.length2() < btScalar(1e-6)) across = along.cross(btVector3(1, 0, 0));
  across.normalize();
  const btVector3 third = along.cross(across);
  const btMatrix3x3 rotation(along.x(), across.x(), third.x(), along.y(), across.y(), third.y(), along.z(),
                             across.z(), third.z());
  const btMatrix3x3 scale =
      btMatrix3x3::getIdentity().scaled(btVector3(length, btScalar(thickness), btScalar(thickness)));
  shader_.draw(cube_, Matrix4::affine(rotation * scale, from + span / 2), rotation, color);
}

}  // namespace raycar::viewer
