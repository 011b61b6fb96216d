// raycar-demo: a headless drive on flat ground. A sedan-sized car drops onto the ground, settles
// on its springs, accelerates, brakes to a stop, then drives a steady circle, and prints what
// each phase measured next to what physics predicts.

#include <btBulletDynamicsCommon.h>
#include <raycar/raycar.h>

#include <cmath>
#include <cstdio>
#include <memory>

namespace {

constexpr btScalar kStep = 1.0f / 120;   // s
constexpr btScalar kGravity = 9.81f;     // m/s^2
constexpr btScalar kMass = 1400;         // kg
constexpr btScalar kWheelbase = 2.7f;    // m
constexpr btScalar kTrack = 1.6f;        // m
constexpr btScalar kRadius = 0.32f;      // m
constexpr btScalar kFriction = 1.0f;     // tire and road

struct Demo {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btStaticPlaneShape groundShape{btVector3(0, 1, 0), 0};
  btRigidBody ground{0, nullptr, &groundShape};
  btBoxShape chassisShape{btVector3(0.9f, 0.3f, 2.3f)};
  std::unique_ptr<btDefaultMotionState> motion;
  std::unique_ptr<btRigidBody> chassis;
  std::unique_ptr<raycar::RaycastVehicle> car;
  double time = 0;

  Demo() {
    world.setGravity(btVector3(0, -kGravity, 0));
    ground.setFriction(kFriction);
    world.addRigidBody(&ground);
    btVector3 inertia;
    chassisShape.calculateLocalInertia(kMass, inertia);
    motion = std::make_unique<btDefaultMotionState>(
        btTransform(btQuaternion::getIdentity(), btVector3(0, 1.2f, 0)));  // 0.6 m above rest
    chassis = std::make_unique<btRigidBody>(kMass, motion.get(), &chassisShape, inertia);
    chassis->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(chassis.get());

    raycar::VehicleSettings settings;  // Y up, Z forward
    settings.stabilizer = 0.3f;
    settings.aero.dragArea = 0.65f;
    for (int i = 0; i < 4; ++i) {
      raycar::WheelSettings wheel;
      const btScalar right = i % 2 ? kTrack / 2 : -kTrack / 2;
      const btScalar forward = i < 2 ? kWheelbase / 2 : -kWheelbase / 2;
      // In a Y-up, Z-forward car, right is -x.
      wheel.attachmentPoint = btVector3(-right, -0.1f, forward);
      wheel.radius = kRadius;
      wheel.suspensionMaxLength = 0.3f;
      wheel.suspensionRestLength = 0.22f;  // stiffness 0: chosen to rest here
      wheel.damping = -0.8f;
      wheel.axle = i < 2 ? 0 : 1;
      wheel.driving = i >= 2;
      wheel.steering = i < 2 ? raycar::SteerMode::Steered : raycar::SteerMode::Fixed;
      wheel.canBrake = i >= 2;
      wheel.tire.friction = kFriction;
      settings.wheels.push_back(wheel);
    }
    car = std::make_unique<raycar::RaycastVehicle>(*chassis, settings);
    world.addAction(car.get());
  }
  ~Demo() {
    world.removeAction(car.get());
    world.removeRigidBody(chassis.get());
    world.removeRigidBody(&ground);
  }
  void step() {
    world.stepSimulation(kStep, 1, kStep);
    time += kStep;
  }
  btVector3 position() const { return chassis->getCenterOfMassPosition(); }
  double speed() const { return car->forwardSpeed(); }
  void drive(btScalar torque) {
    car->setDriveTorque(2, torque);
    car->setDriveTorque(3, torque);
  }
  void brake(btScalar torque) {
    for (int i = 0; i < 4; ++i) car->setBrakeTorque(i, i < 2 ? torque * 1.5f : torque);
  }
};

}  // namespace

int main() {
  Demo demo;
  raycar::RaycastVehicle& car = *demo.car;
  std::printf("raycar demo: %.0f kg car, wheelbase %.2f m, track %.2f m, step 1/%d s\n\n",
              double(kMass), double(kWheelbase), double(kTrack), int(std::lround(1 / kStep)));

  // 1. Drop and settle.
  for (int i = 0; i < int(3 / kStep); ++i) demo.step();
  std::printf("1. drop from 0.6 m and settle (3 s)\n");
  for (int i = 0; i < car.wheelCount(); ++i) {
    const raycar::WheelState& wheel = car.wheelState(i);
    std::printf("   wheel %d: spring %.3f m (len_initial 0.220), load %6.0f N (static %6.0f N), k %.0f N/m\n",
                i + 1, double(wheel.suspensionLength), double(wheel.normalLoad),
                double(wheel.staticLoad), double(wheel.stiffness));
  }

  // 2. Accelerate: 900 N m on each rear wheel until 25 m/s.
  const double startTime = demo.time;
  double time20 = -1;
  demo.drive(900);
  while (demo.speed() < 25 && demo.time - startTime < 30) {
    demo.step();
    if (time20 < 0 && demo.speed() >= 20) time20 = demo.time - startTime;
  }
  demo.drive(0);
  std::printf("\n2. accelerate with 900 N m per rear wheel\n");
  std::printf("   0-20 m/s in %.2f s, 0-25 m/s in %.2f s; rear slip ratio now %.3f\n", time20,
              demo.time - startTime, double(car.wheelState(2).slipRatio));

  // 3. Brake to a stop: 900 N m front, 600 N m rear (front bias), below the wheels' grip, so
  // the brake torque alone sets the deceleration: sum(T) / R over the car's mass plus the
  // wheels' rotational inertia, sum(I) / R^2.
  const btVector3 brakeStart = demo.position();
  const double brakeSpeed = demo.speed();
  const double brakeStartTime = demo.time;
  demo.brake(600);
  while (demo.speed() > 0.01 && demo.time - brakeStartTime < 20) demo.step();
  const double brakeDistance = (demo.position() - brakeStart).length();
  const double brakeForce = (2 * 900 + 2 * 600) / kRadius;  // N
  const double effectiveMass = kMass + 4 * 1.0 / (kRadius * kRadius);  // spin inertia 1 kg m^2
  std::printf("\n3. brake from %.1f m/s with 900/600 N m front/rear\n", brakeSpeed);
  std::printf("   stopped in %.1f m and %.2f s; brake torque predicts %.1f m (drag helps a little)\n",
              brakeDistance, demo.time - brakeStartTime,
              brakeSpeed * brakeSpeed * effectiveMass / (2 * brakeForce));
  demo.brake(0);

  // 4. Steady circle at 5 m/s with 0.2 rad of (parallel) steering.
  const btScalar steer = 0.2f;
  car.setSteerAngle(0, steer);
  car.setSteerAngle(1, steer);
  double radiusSum = 0;
  int samples = 0;
  const double circleStart = demo.time;
  while (demo.time - circleStart < 15) {
    demo.drive(std::fmax(-300.0f, std::fmin(600.0f, btScalar(400 * (5 - demo.speed())))));
    demo.step();
    if (demo.time - circleStart > 8) {
      const btScalar yawRate = demo.chassis->getAngularVelocity().dot(car.worldUp());
      radiusSum += demo.speed() / std::fabs(yawRate);
      ++samples;
    }
  }
  std::printf("\n4. steady circle at %.2f m/s, steer %.2f rad\n", demo.speed(), double(steer));
  std::printf("   radius %.2f m; kinematic wheelbase / tan(steer) = %.2f m\n", radiusSum / samples,
              kWheelbase / std::tan(steer));
  std::printf("   front slip angles %.4f / %.4f rad, lateral forces %.0f / %.0f N\n",
              double(car.wheelState(0).slipAngle), double(car.wheelState(1).slipAngle),
              double(car.wheelState(0).lateralForce), double(car.wheelState(1).lateralForce));
  std::printf("\ntotal simulated time %.1f s\n", demo.time);
  return 0;
}
