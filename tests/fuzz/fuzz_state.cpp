// libFuzzer target: any bytes as a saved vehicle state. restoreState must either restore or throw
// raycar::StateError, changing nothing then; a restored vehicle must then step without a crash,
// a sanitizer report or a NaN in the chassis. Odd first bytes take the rest as the payload's
// fields, keep the initial state's layout record at its end and seal it with a correct header
// and checksum, so the fuzzer reaches the value checks and the step, not only the header's and
// the layout's. Even first bytes reach those checks too, the layout record among them.
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "raycar/Error.h"
#include "raycar/vehicle/RaycastVehicle.h"

namespace {

struct Scene {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btStaticPlaneShape groundShape{btVector3(0, 0, 1), 0};
  btRigidBody ground{0, nullptr, &groundShape};
  btBoxShape chassisShape{btVector3(0.9f, 2.1f, 0.3f)};
  std::unique_ptr<btRigidBody> chassis;
  std::unique_ptr<raycar::RaycastVehicle> vehicle;
  std::vector<std::uint8_t> initial;

  Scene() {
    world.setGravity(btVector3(0, 0, -9.81f));
    world.addRigidBody(&ground);
    btVector3 inertia;
    chassisShape.calculateLocalInertia(1200, inertia);
    chassis = std::make_unique<btRigidBody>(1200, nullptr, &chassisShape, inertia);
    chassis->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 0, 0.6f)));
    chassis->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(chassis.get());
    raycar::VehicleSettings settings;
    settings.axes.up = btVector3(0, 0, 1);
    settings.axes.forward = btVector3(0, 1, 0);
    for (int i = 0; i < 4; ++i) {
      raycar::WheelSettings wheel;
      wheel.attachmentPoint = btVector3(i % 2 ? 0.8f : -0.8f, i < 2 ? 1.3f : -1.3f, 0);
      wheel.radius = 0.33f;
      wheel.axle = i / 2;
      wheel.driving = i >= 2;
      settings.wheels.push_back(wheel);
    }
    settings.engine.inertia = 0.15f;  // the clutch's states too
    vehicle = std::make_unique<raycar::RaycastVehicle>(*chassis, settings);
    world.addAction(vehicle.get());
    initial = vehicle->saveState();
  }
};

std::uint32_t fnv(const std::uint8_t* data, size_t size) {
  std::uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  return hash;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  static Scene scene;
  std::vector<std::uint8_t> buffer(data, data + size);
  if (size > 0 && (data[0] & 1) != 0) {
    // The initial state's header and layout record around the input's fields, padded or cut to
    // their length.
    const size_t header = 24;  // the format's header (plugin/src/io/StateArchive.h)
    std::uint32_t layoutWords = 0;  // the payload ends with the layout's words and their count
    std::memcpy(&layoutWords, scene.initial.data() + scene.initial.size() - 4, 4);
    const size_t fieldsEnd = scene.initial.size() - 4 * (size_t(layoutWords) + 1);
    buffer.assign(scene.initial.begin(), scene.initial.end());
    for (size_t i = header; i < fieldsEnd; ++i)
      buffer[i] = i - header + 1 < size ? data[i - header + 1] : scene.initial[i];
    const std::uint32_t hash = fnv(buffer.data() + header, buffer.size() - header);
    std::memcpy(buffer.data() + 16, &hash, 4);
  }
  const btTransform pose(btQuaternion::getIdentity(), btVector3(0, 0, 0.6f));
  scene.chassis->setCenterOfMassTransform(pose);
  scene.chassis->setLinearVelocity(btVector3(0, 0, 0));
  scene.chassis->setAngularVelocity(btVector3(0, 0, 0));
  scene.vehicle->restoreState(scene.initial.data(), scene.initial.size());
  try {
    scene.vehicle->restoreState(buffer.data(), buffer.size());
  } catch (const raycar::StateError&) {
    if (scene.vehicle->saveState() != scene.initial) std::abort();  // a refusal changed it
    return 0;
  }
  for (int i = 0; i < 10; ++i) scene.world.stepSimulation(1.0f / 60, 0);
  const btVector3 position = scene.chassis->getCenterOfMassPosition();
  if (!std::isfinite(position.x() + position.y() + position.z()) ||
      !std::isfinite(scene.chassis->getLinearVelocity().length()))
    std::abort();
  return 0;
}
