#include "TestWorld.h"

#include <cmath>

namespace raycar::test {

btVector3 carToLocal(const ChassisAxes& axes, btScalar right, btScalar up, btScalar forward) {
  return axes.right() * right + axes.up * up + axes.forward * forward;
}

namespace {
std::unique_ptr<btBroadphaseInterface> makeBroadphase(Broadphase kind) {
  if (kind == Broadphase::SweepAndPrune)
    return std::make_unique<btAxisSweep3>(btVector3(-1000, -1000, -1000), btVector3(1000, 1000, 1000));
  return std::make_unique<btDbvtBroadphase>();
}
}  // namespace

TestWorld::TestWorld(const btVector3& gravity, Broadphase broadphase)
    : configuration_(std::make_unique<btDefaultCollisionConfiguration>()),
      dispatcher_(std::make_unique<btCollisionDispatcher>(configuration_.get())),
      broadphase_(makeBroadphase(broadphase)),
      solver_(std::make_unique<btSequentialImpulseConstraintSolver>()),
      world_(std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                       solver_.get(), configuration_.get())) {
  world_->setGravity(gravity);
}

TestWorld::~TestWorld() {
  for (int i = world_->getNumCollisionObjects() - 1; i >= 0; --i)
    world_->removeCollisionObject(world_->getCollisionObjectArray()[i]);
}

btRigidBody* TestWorld::addBody(btScalar mass, btCollisionShape* shape,
                                const btTransform& transform, btScalar friction) {
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia(mass, inertia);
  motionStates_.push_back(std::make_unique<btDefaultMotionState>(transform));
  btRigidBody::btRigidBodyConstructionInfo info(mass, motionStates_.back().get(), shape, inertia);
  info.m_friction = friction;
  bodies_.push_back(std::make_unique<btRigidBody>(info));
  btRigidBody* body = bodies_.back().get();
  world_->addRigidBody(body);
  return body;
}

btRigidBody* TestWorld::addStaticPlane(const btVector3& normal, const btVector3& point,
                                       btScalar friction) {
  shapes_.push_back(std::make_unique<btStaticPlaneShape>(normal.normalized(),
                                                         normal.normalized().dot(point)));
  return addBody(0, shapes_.back().get(), btTransform::getIdentity(), friction);
}

btRigidBody* TestWorld::addBox(btScalar mass, const btVector3& halfExtents,
                               const btTransform& transform, btScalar friction, bool kinematic) {
  shapes_.push_back(std::make_unique<btBoxShape>(halfExtents));
  btRigidBody* body = addBody(mass, shapes_.back().get(), transform, friction);
  if (kinematic) {
    body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    body->setActivationState(DISABLE_DEACTIVATION);
  }
  return body;
}

btRigidBody* TestWorld::addHillMesh(btScalar size, btScalar cell, const btTransform& transform,
                                    btScalar friction) {
  return addGridMesh(size, cell, transform, friction, [](btScalar x, btScalar z) {
    return 0.4f * std::sin(x * 0.37f) * std::cos(z * 0.29f) + 0.2f * std::sin(x + z);
  });
}

btRigidBody* TestWorld::addGridMesh(btScalar size, btScalar cell, const btTransform& transform,
                                    btScalar friction,
                                    const std::function<btScalar(btScalar, btScalar)>& height) {
  const int cells = int(std::lround(size / cell));
  const int side = cells + 1;
  std::vector<btScalar>& vertices = meshVertices_.emplace_back();
  std::vector<int>& indices = meshIndices_.emplace_back();
  for (int row = 0; row < side; ++row) {
    for (int column = 0; column < side; ++column) {
      const btScalar x = -size / 2 + column * cell, z = -size / 2 + row * cell;
      vertices.push_back(x);
      vertices.push_back(height(x, z));
      vertices.push_back(z);
    }
  }
  for (int row = 0; row < cells; ++row) {
    for (int column = 0; column < cells; ++column) {
      const int a = row * side + column, b = a + 1, c = a + side, d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});  // normals up
    }
  }
  meshes_.push_back(std::make_unique<btTriangleIndexVertexArray>(
      int(indices.size() / 3), indices.data(), int(3 * sizeof(int)), side * side, vertices.data(),
      int(3 * sizeof(btScalar))));
  shapes_.push_back(std::make_unique<btBvhTriangleMeshShape>(meshes_.back().get(), true));
  return addBody(0, shapes_.back().get(), transform, friction);
}

btScalar touchdownHeight(const CarSpec& spec) {
  return spec.centerOfMassHeight + (spec.lenMax - spec.lenInitial);
}

VehicleSettings makeCarSettings(const CarSpec& spec) {
  VehicleSettings settings;
  settings.axes = spec.axes;
  settings.aero = spec.aero;
  // Attachment height above the centre of mass that puts the chassis at centerOfMassHeight when
  // every spring is at len_initial.
  const btScalar attachmentUp = spec.radius + spec.lenInitial - spec.centerOfMassHeight;
  const btScalar halfBase = spec.wheelbase / 2, halfTrack = spec.track / 2;
  const btScalar forwardOfWheel[4] = {halfBase, halfBase, -halfBase, -halfBase};
  const btScalar rightOfWheel[4] = {-halfTrack, halfTrack, -halfTrack, halfTrack};
  for (int i = 0; i < 4; ++i) {
    WheelSettings wheel;
    wheel.attachmentPoint = carToLocal(spec.axes, rightOfWheel[i], attachmentUp,
                                       forwardOfWheel[i] - spec.centerOfMassForward);
    wheel.radius = spec.radius;
    wheel.suspensionMaxLength = spec.lenMax;
    wheel.suspensionRestLength = spec.lenInitial;
    wheel.stiffness = spec.stiffness;
    wheel.damping = spec.damping;
    wheel.spinInertia = spec.spinInertia;
    wheel.axle = i < 2 ? 0 : 1;
    wheel.driving = i >= 2;
    wheel.steering = i < 2 ? SteerMode::Steered : SteerMode::Fixed;
    wheel.canBrake = spec.rearHandbrakeOnly ? i >= 2 : true;
    wheel.tire.model = spec.tireModel;
    wheel.tire.friction = spec.tireFriction;
    wheel.tire.loadSensitivity = spec.loadSensitivity;
    settings.wheels.push_back(wheel);
  }
  return settings;
}

TestCar addCar(TestWorld& world, const CarSpec& spec, const btTransform& transform,
               const VehicleSettings* settingsOverride) {
  const btVector3 halfExtents = carToLocal(spec.axes, 0.9f, 0.25f, 2.1f).absolute();
  TestCar car;
  car.chassis = world.addBox(spec.mass, halfExtents, transform, 0.5f);
  car.chassis->setActivationState(DISABLE_DEACTIVATION);
  car.vehicle = std::make_unique<RaycastVehicle>(
      *car.chassis, settingsOverride ? *settingsOverride : makeCarSettings(spec));
  world.world().addAction(car.vehicle.get());
  return car;
}

double lockedSlideShare(const CarSpec& spec) {
  const VehicleSettings settings = makeCarSettings(spec);  // kept: the curve is read from it
  const MagicFormula& curve = settings.wheels.front().tire.longitudinalCurve.magicFormula;
  const double bx = curve.stiffnessB;  // B x at x = 1
  const double value =
      curve.peakD * std::sin(curve.shapeC * std::atan(bx - curve.curvatureE * (bx - std::atan(bx))));
  return value / curve.peakD;
}

}  // namespace raycar::test
