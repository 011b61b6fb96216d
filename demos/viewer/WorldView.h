#pragma once
// The 3-D view: the ground, every vehicle (visual hull parts on the interpolated chassis
// transform, wheels, suspension parts), the bicycle ghost, and the tire force vectors at each
// contact (Fx blue, Fy green), seen from the chase camera.

#include "FramePose.h"
#include "LitMeshShader.h"
#include "SceneGeometry.h"

namespace raycar::viewer {

class WorldView {
 public:
  WorldView(const LitMeshShader& shader, SceneGeometry& geometry);
  // Draws `pose` into the current viewport (widthPixels x heightPixels) as `view` sees it.
  void draw(sim::SceneRunner& runner, const FramePose& pose, const Matrix4& view, int widthPixels,
            int heightPixels, bool showForces);

 private:
  void drawVehicle(const VehicleModel& model, const VehiclePose& pose, const Color& color) const;
  void drawGhost(const VehicleModel& model, const VehiclePose& pose) const;
  void drawForces(const VehiclePose& pose) const;
  // A wheel's sphere or cylinder cast, as wire circles (nothing for a ray).
  void drawQueryShape(const btTransform& chassis, const WheelPose& wheel) const;
  void drawBar(const btVector3& from, const btVector3& to, double thickness, const Color& color) const;

  const LitMeshShader& shader_;
  SceneGeometry& geometry_;
  GpuMesh cube_;
};

}  // namespace raycar::viewer
