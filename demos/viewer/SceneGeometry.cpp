#include "SceneGeometry.h"

#include <algorithm>
#include <cmath>

#include "raycar/io/ObjModel.h"

namespace raycar::viewer {
namespace {

const Color kAsphalt{0.46f, 0.47f, 0.49f, 1};
const Color kGrass{0.38f, 0.52f, 0.30f, 1};
const Color kKerb{0.80f, 0.77f, 0.70f, 1};
constexpr float kChecker = 0.10f;
constexpr double kDegree = 3.14159265358979323846 / 180;

// A ray that sees only static objects: the ground, not the cars standing on it.
struct StaticOnlyRay : btCollisionWorld::ClosestRayResultCallback {
  using ClosestRayResultCallback::ClosestRayResultCallback;
  bool needsCollision(btBroadphaseProxy* proxy) const override {
    const auto* object = static_cast<const btCollisionObject*>(proxy->m_clientObject);
    return object->isStaticObject() && ClosestRayResultCallback::needsCollision(proxy);
  }
};

GroundPiece quad(const btVector3& a, const btVector3& b, const btVector3& c, const btVector3& d, const Color& color) {
  return GroundPiece{GpuMesh({a, b, c, d}, {{0, 1, 2}, {0, 2, 3}}), color, kChecker};
}

}  // namespace

SceneGeometry::SceneGeometry(sim::SceneRunner& runner) { buildGround(runner); }

void SceneGeometry::buildGround(sim::SceneRunner& runner) {
  const sim::Scene& scene = runner.scene();
  btVector3 centre(0, 0, 0);
  if (runner.vehicleCount() > 0) centre = runner.vehicle(0).chassisTransform().getOrigin();
  const btScalar half = 1000;  // m: to the far plane and beyond
  const btScalar x0 = centre.x() - half, x1 = centre.x() + half;
  const btScalar y0 = centre.y() - half, y1 = centre.y() + half;
  switch (scene.ground) {
    case sim::GroundType::Plane:
      ground_.push_back(quad({x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}, {x0, y1, 0}, kAsphalt));
      break;
    case sim::GroundType::Incline: {
      // Rising along +y: the plane through the origin with normal (0, -sin, cos).
      const btScalar rise = btScalar(std::tan(scene.slopeDegrees * kDegree));
      ground_.push_back(quad({x0, y0, y0 * rise}, {x1, y0, y0 * rise}, {x1, y1, y1 * rise}, {x0, y1, y1 * rise},
                             kAsphalt));
      break;
    }
    case sim::GroundType::Track: {
      const ObjModel track = loadObjModel(scene.trackObj);
      for (const ObjObject& object : track.objects) {
        if (object.triangles.empty()) continue;
        btScalar low = BT_LARGE_FLOAT, high = -BT_LARGE_FLOAT;
        for (const btVector3& v : object.vertices) {
          low = std::min(low, v.z());
          high = std::max(high, v.z());
        }
        const bool surface = object.name == "ground";
        const Color color = !surface ? kKerb : high - low > 1 ? kGrass : kAsphalt;
        ground_.push_back(GroundPiece{GpuMesh(object.vertices, object.triangles), color, surface ? kChecker : 0});
      }
      break;
    }
    case sim::GroundType::Heightfield: {
      // The same samples SceneRunner builds its height field from, each found by a ray against
      // the static ground, so the picture is the collision surface itself.
      const int samples = int(std::lround(scene.heightfieldSize / scene.heightfieldCell)) + 1;
      std::vector<btVector3> vertices;
      vertices.reserve(size_t(samples) * size_t(samples));
      for (int j = 0; j < samples; ++j)
        for (int i = 0; i < samples; ++i) {
          const btScalar x = btScalar(-scene.heightfieldSize / 2 + i * scene.heightfieldCell);
          const btScalar y = btScalar(-scene.heightfieldSize / 2 + j * scene.heightfieldCell);
          StaticOnlyRay ray(btVector3(x, y, 1000), btVector3(x, y, -1000));
          runner.world().rayTest(ray.m_rayFromWorld, ray.m_rayToWorld, ray);
          vertices.emplace_back(x, y, ray.hasHit() ? ray.m_hitPointWorld.z() : 0);
        }
      std::vector<std::array<int, 3>> triangles;
      for (int j = 0; j + 1 < samples; ++j)
        for (int i = 0; i + 1 < samples; ++i) {
          const int a = j * samples + i, b = a + 1, c = a + samples + 1, d = a + samples;
          triangles.push_back({a, b, c});
          triangles.push_back({a, c, d});
        }
      ground_.push_back(GroundPiece{GpuMesh(vertices, triangles), kGrass, kChecker});
      break;
    }
  }
}

Footprint footprintOf(const LoadedVehicle& vehicle) {
  const ChassisAxes& axes = vehicle.settings.axes;
  const btVector3 left = -axes.right();
  const std::vector<MeshPart>& parts = vehicle.visualParts.empty() ? vehicle.collisionHulls : vehicle.visualParts;
  double forwardLow = 1e30, forwardHigh = -1e30, leftLow = 1e30, leftHigh = -1e30;
  for (const MeshPart& part : parts)
    for (const btVector3& v : part.vertices) {
      forwardLow = std::min(forwardLow, double(v.dot(axes.forward)));
      forwardHigh = std::max(forwardHigh, double(v.dot(axes.forward)));
      leftLow = std::min(leftLow, double(v.dot(left)));
      leftHigh = std::max(leftHigh, double(v.dot(left)));
    }
  Footprint footprint;
  if (forwardHigh > forwardLow && leftHigh > leftLow) {
    footprint.length = forwardHigh - forwardLow;
    footprint.width = leftHigh - leftLow;
    footprint.centreForward = (forwardHigh + forwardLow) / 2;
    footprint.centreLeft = (leftHigh + leftLow) / 2;
  }
  double rear = 1e30;
  for (const WheelSettings& wheel : vehicle.settings.wheels)
    rear = std::min(rear, double(wheel.attachmentPoint.dot(axes.forward)));
  if (rear < 1e29) footprint.rearAxleForward = rear;
  return footprint;
}

const VehicleModel& SceneGeometry::model(const LoadedVehicle& vehicle) {
  auto found = models_.find(vehicle.scriptPath);
  if (found != models_.end()) return *found->second;
  auto model = std::make_unique<VehicleModel>();
  for (const MeshPart& part : vehicle.visualParts) model->parts.emplace_back(part.vertices, part.triangles);
  for (const MeshPart& wheel : vehicle.wheelMeshes) model->wheels.emplace_back(wheel.vertices, wheel.triangles);
  for (const SuspensionPart& part : vehicle.suspensions)
    model->suspensions.emplace_back(part.mesh.vertices, part.mesh.triangles);
  for (const WheelSettings& wheel : vehicle.settings.wheels) {
    model->wheelRadii.push_back(double(wheel.radius));
    model->wheelWidths.push_back(double(wheel.width));
  }
  model->footprint = footprintOf(vehicle);
  return *models_.emplace(vehicle.scriptPath, std::move(model)).first->second;
}

}  // namespace raycar::viewer
