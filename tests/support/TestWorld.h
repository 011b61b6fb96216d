#pragma once
// A small Bullet world and a reference car for the physics tests.
//
// The reference car is a 1200 kg box chassis on four wheels with a 2.6 m wheelbase and 1.6 m
// track. Its geometry is given in "car coordinates" (right, up, forward) and mapped onto the
// chassis axes of the world under test, so the same car exists in a Y-up and a Z-up world.

#include <btBulletDynamicsCommon.h>

#include <functional>
#include <memory>
#include <vector>

#include "raycar/vehicle/RaycastVehicle.h"

namespace raycar::test {

// The fixed step the physics tests take (s) and the gravity they use (m/s^2), unless a test says
// otherwise.
constexpr btScalar kStep = 1.0f / 120;
constexpr btScalar kGravity = 9.81f;

// (right, up, forward) in metres, mapped through the chassis axes.
btVector3 carToLocal(const ChassisAxes& axes, btScalar right, btScalar up, btScalar forward);

// The broadphase a test world sorts its objects with: Bullet's default dynamic tree, or sweep and
// prune (btAxisSweep3 over +-1 km), which, unlike the tree, gives a removed object's proxy
// number to the next object added.
enum class Broadphase { DynamicTree, SweepAndPrune };

class TestWorld {
 public:
  explicit TestWorld(const btVector3& gravity = btVector3(0, -9.81f, 0),
                     Broadphase broadphase = Broadphase::DynamicTree);
  ~TestWorld();

  btDiscreteDynamicsWorld& world() { return *world_; }
  // An infinite static plane through `point` with normal `normal`.
  btRigidBody* addStaticPlane(const btVector3& normal, const btVector3& point, btScalar friction);
  // A box; mass 0 makes it static. Kinematic when `kinematic` is set.
  btRigidBody* addBox(btScalar mass, const btVector3& halfExtents, const btTransform& transform,
                      btScalar friction, bool kinematic = false);
  // A static btBvhTriangleMeshShape of hills (Y up in its own frame): `size` m square, `cell` m
  // cells, heights up to about 0.6 m, placed at `transform`.
  btRigidBody* addHillMesh(btScalar size, btScalar cell, const btTransform& transform,
                           btScalar friction);
  // A static btBvhTriangleMeshShape over a `size` m square of `cell` m cells (Y up in its own
  // frame) at heights height(x, z). Cell (row, column), its corner at x = -size / 2 + column
  // cell, z = -size / 2 + row cell, holds triangles 2 (row cells + column) and the one after.
  btRigidBody* addGridMesh(btScalar size, btScalar cell, const btTransform& transform,
                           btScalar friction, const std::function<btScalar(btScalar, btScalar)>& height);
  // Fixed step of dt, one substep.
  void step(btScalar dt) { world_->stepSimulation(dt, 1, dt); }

 private:
  btRigidBody* addBody(btScalar mass, btCollisionShape* shape, const btTransform& transform,
                       btScalar friction);
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btMotionState>> motionStates_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<btActionInterface*> actions_;
  std::vector<std::vector<btScalar>> meshVertices_;
  std::vector<std::vector<int>> meshIndices_;
  std::vector<std::unique_ptr<btTriangleIndexVertexArray>> meshes_;
};

struct CarSpec {
  ChassisAxes axes;                 // the chassis' local axes
  btScalar mass = 1200;             // kg
  btScalar wheelbase = 2.6;         // m
  btScalar track = 1.6;             // m
  btScalar centerOfMassForward = 0;  // m ahead of mid-wheelbase
  btScalar centerOfMassHeight = 0.55;  // m above ground at rest (len_initial)
  btScalar radius = 0.33;           // m
  btScalar lenMax = 0.3;            // m
  btScalar lenInitial = 0.2;        // m
  btScalar stiffness = 0;           // N/m, 0 = automatic
  btScalar damping = -1;            // critical
  btScalar spinInertia = 0.8;       // kg m^2
  btScalar tireFriction = 1.0;
  TireModelKind tireModel = TireModelKind::SlipCurves;
  btScalar loadSensitivity = 0;
  bool rearHandbrakeOnly = true;    // otherwise the handbrake locks all four wheels
  AeroSettings aero = [] {
    AeroSettings none;
    none.dragArea = 0;
    none.rollingResistance = 0;
    return none;
  }();
};

// Wheel order: 0 front left, 1 front right, 2 rear left, 3 rear right.
VehicleSettings makeCarSettings(const CarSpec& spec);

struct TestCar {
  btRigidBody* chassis = nullptr;
  std::unique_ptr<RaycastVehicle> vehicle;
};

// Adds the chassis body (box) at `transform` (its centre of mass), then the vehicle as an action.
TestCar addCar(TestWorld& world, const CarSpec& spec, const btTransform& transform,
               const VehicleSettings* settingsOverride = nullptr);

// What the test car's locked tire slides with, as a share of its contact's friction: its
// longitudinal Magic Formula at slip ratio 1 over the curve's peak D (the default curve's 0.82).
// A locked wheel that slides is on its laws like any tire; seed 001's box holds it only while
// its contact barely moves.
double lockedSlideShare(const CarSpec& spec);

// Chassis height above ground at which all springs are exactly at len_max (wheels just touch).
btScalar touchdownHeight(const CarSpec& spec);
// Chassis height above ground with all springs at len_initial.
inline btScalar restHeight(const CarSpec& spec) { return spec.centerOfMassHeight; }

}  // namespace raycar::test
