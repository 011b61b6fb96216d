#include "TopDownView.h"

#include <cmath>

#include "VehiclePalette.h"

namespace raycar::viewer {
namespace {

// A point given in a pose's frame (forward, left; m) on the ground plane.
void place(const PlanarPose& pose, double forward, double left, double& x, double& y) {
  const double c = std::cos(pose.yaw), s = std::sin(pose.yaw);
  x = pose.x + c * forward - s * left;
  y = pose.y + s * forward + c * left;
}

}  // namespace

TopDownView::TopDownView(const LitMeshShader& shader, SceneGeometry& geometry)
    : shader_(shader), geometry_(geometry) {}

void TopDownView::draw(sim::SceneRunner& runner, const FramePose& pose, int widthPixels, int heightPixels,
                       bool showForces) {
  glClearColor(0.30f, 0.32f, 0.30f, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);

  // Camera: on vehicle 1's body centre.
  PixelMapping mapping;
  mapping.pixelsPerMetre = kPixelsPerMetre;
  mapping.widthPixels = widthPixels;
  mapping.heightPixels = heightPixels;
  if (!pose.vehicles.empty() && runner.vehicleCount() > 0) {
    const Footprint& footprint = geometry_.model(runner.vehicle(0).loaded()).footprint;
    place(pose.vehicles[0].planar, footprint.centreForward, footprint.centreLeft, mapping.centreX, mapping.centreY);
  }

  // The ground from straight above, at the same scale.
  shader_.begin(topDownProjection(mapping.centreX, mapping.centreY, kPixelsPerMetre, widthPixels, heightPixels),
                btVector3(0.3f, -0.3f, 1));
  for (const GroundPiece& piece : geometry_.ground())
    shader_.draw(piece.mesh, btTransform::getIdentity(), piece.color, piece.checkerContrast);

  rects_.begin(mapping);
  const sim::Scene& scene = runner.scene();
  if (scene.hasParkingSpace) {  // seed 002's 4 x 8 m space: outlined
    const auto& space = scene.parkingSpace;  // x0, y0, x1, y1
    const double line = 0.12;
    rects_.drawRect((space[0] + space[2]) / 2, (space[1] + space[3]) / 2, space[2] - space[0], space[3] - space[1], 0,
                    Color{1, 0.85f, 0.1f, 0.12f});
    rects_.drawSegment(space[0], space[1], space[2], space[1], line, kParkingSpaceColor);
    rects_.drawSegment(space[2], space[1], space[2], space[3], line, kParkingSpaceColor);
    rects_.drawSegment(space[2], space[3], space[0], space[3], line, kParkingSpaceColor);
    rects_.drawSegment(space[0], space[3], space[0], space[1], line, kParkingSpaceColor);
  }
  for (size_t index = 0; index < pose.vehicles.size() && index < runner.vehicleCount(); ++index)
    drawVehicle(geometry_.model(runner.vehicle(index).loaded()), pose.vehicles[index], vehicleColor(index));
  if (showForces)
    for (const VehiclePose& vehicle : pose.vehicles) drawForces(vehicle);
  glDisable(GL_BLEND);
}

void TopDownView::drawVehicle(const VehicleModel& model, const VehiclePose& pose, const Color& color) const {
  const Footprint& footprint = model.footprint;
  double x, y;
  place(pose.planar, footprint.centreForward, footprint.centreLeft, x, y);
  rects_.drawRect(x, y, footprint.length, footprint.width, pose.planar.yaw, color);
  // Wheels: at their anchors on the drawn body, turned by the drawn steer angle.
  for (size_t w = 0; w < pose.wheels.size(); ++w) {
    const WheelPose& wheel = pose.wheels[w];
    place(pose.planar, wheel.forward, wheel.left, x, y);
    const double radius = w < model.wheelRadii.size() ? model.wheelRadii[w] : 0.35;
    const double width = w < model.wheelWidths.size() ? model.wheelWidths[w] : 0.25;
    rects_.drawRect(x, y, 2 * radius, width, pose.planar.yaw + wheel.steerAngle, kTireColor);
  }
  // Seed 002's kinematic bicycle: the same outline on its rear axle and heading.
  if (pose.hasGhost) {
    place(pose.ghost, footprint.centreForward - footprint.rearAxleForward, footprint.centreLeft, x, y);
    // Outlined, so the car under it keeps its colour.
    const double halfLength = footprint.length / 2, halfWidth = footprint.width / 2;
    double corners[4][2];
    const double signs[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (int k = 0; k < 4; ++k)
      place(PlanarPose{x, y, pose.ghost.yaw}, signs[k][0] * halfLength, signs[k][1] * halfWidth, corners[k][0],
            corners[k][1]);
    for (int k = 0; k < 4; ++k)
      rects_.drawSegment(corners[k][0], corners[k][1], corners[(k + 1) % 4][0], corners[(k + 1) % 4][1], 0.1,
                         kGhostColor);
    rects_.drawRect(pose.ghost.x, pose.ghost.y, 0.3, 0.3, pose.ghost.yaw, Color{1, 1, 1, 0.9f});  // rear axle
  }
}

void TopDownView::drawForces(const VehiclePose& pose) const {
  for (const WheelPose& wheel : pose.wheels) {
    if (!wheel.inContact || wheel.staticLoad <= 0) continue;
    const double metresPerNewton = kForceVectorMetresPerStaticLoad / wheel.staticLoad;
    double x, y;
    place(pose.planar, wheel.forward, wheel.left, x, y);
    const double heading = pose.planar.yaw + wheel.steerAngle;
    const double fx = wheel.longitudinalForceN * metresPerNewton;  // along the wheel's heading
    const double fy = wheel.lateralForceN * metresPerNewton;       // along the wheel's right
    rects_.drawSegment(x, y, x + fx * std::cos(heading), y + fx * std::sin(heading), 0.14, kLongitudinalForceColor);
    rects_.drawSegment(x, y, x + fy * std::sin(heading), y - fy * std::cos(heading), 0.14, kLateralForceColor);
  }
}

}  // namespace raycar::viewer
