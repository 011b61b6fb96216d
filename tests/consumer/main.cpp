// The smallest game: one flat world, one car, one second of driving. Exits 0 when the car
// stands on its wheels and has moved forward.
#include <btBulletDynamicsCommon.h>
#include <raycar/raycar.h>

#include <cstdio>

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -9.81f, 0));

  btStaticPlaneShape groundShape(btVector3(0, 1, 0), 0);
  btRigidBody ground(0, nullptr, &groundShape);
  world.addRigidBody(&ground);

  btBoxShape chassisShape(btVector3(0.9f, 0.25f, 2.1f));
  btVector3 inertia;
  chassisShape.calculateLocalInertia(1200, inertia);
  btDefaultMotionState motion(btTransform(btQuaternion::getIdentity(), btVector3(0, 0.6f, 0)));
  btRigidBody chassis(1200, &motion, &chassisShape, inertia);
  chassis.setActivationState(DISABLE_DEACTIVATION);
  world.addRigidBody(&chassis);

  raycar::VehicleSettings settings;  // Y up, Z forward by default
  for (int i = 0; i < 4; ++i) {
    raycar::WheelSettings wheel;
    wheel.attachmentPoint = btVector3(i % 2 ? -0.8f : 0.8f, -0.02f, i < 2 ? 1.3f : -1.3f);
    wheel.radius = 0.33f;
    wheel.axle = i < 2 ? 0 : 1;
    wheel.driving = i >= 2;
    settings.wheels.push_back(wheel);
  }
  raycar::RaycastVehicle car(chassis, settings);
  world.addAction(&car);
  for (int step = 0; step < 120; ++step) {
    for (int wheel = 2; wheel < 4; ++wheel) car.setDriveTorque(wheel, 300);
    world.stepSimulation(1.0f / 120, 1, 1.0f / 120);
  }
  const btVector3 position = chassis.getCenterOfMassPosition();
  std::printf("consumer: chassis at (%.3f, %.3f, %.3f)\n", position.x(), position.y(), position.z());
  world.removeAction(&car);
  world.removeRigidBody(&chassis);
  world.removeRigidBody(&ground);
  return car.wheelState(0).inContact && position.z() > 0.1f ? 0 : 1;
}
