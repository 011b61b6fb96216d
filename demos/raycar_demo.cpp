// raycar-demo: a headless drive on flat ground. A sedan-sized car drops onto the ground, settles
// on its springs, launches through its gears, brakes to a stop with ABS, drives a steady circle,
// and backs up, and prints what each phase measured next to what physics predicts.

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
    settings.engine.power = 110000;  // W
    settings.engine.maxRpm = 6500;
    settings.gearbox.shiftUpRpm = 5800;
    settings.gearbox.shiftDownRpm = 2500;
    settings.brakes.brakeTorque = 3000;
    settings.assists.abs = true;
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
  void run(double seconds, const raycar::DriverInput& input) {
    for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) {
      car->setInput(input);
      step();
    }
  }
};

}  // namespace

int main() {
  Demo demo;
  raycar::RaycastVehicle& car = *demo.car;
  const raycar::VehicleSettings& settings = car.settings();
  std::printf("raycar demo: %.0f kg car, wheelbase %.2f m, track %.2f m, %.0f kW, step 1/%d s\n\n",
              double(kMass), double(kWheelbase), double(kTrack), double(settings.engine.power / 1000),
              int(std::lround(1 / kStep)));

  // 1. Drop and settle.
  demo.run(3, raycar::DriverInput{});
  std::printf("1. drop from 0.6 m and settle (3 s)\n");
  for (int i = 0; i < car.wheelCount(); ++i) {
    const raycar::WheelState& wheel = car.wheelState(i);
    std::printf("   wheel %d: spring %.3f m (len_initial 0.220), load %6.0f N (static %6.0f N), k %.0f N/m\n",
                i + 1, double(wheel.suspensionLength), double(wheel.normalLoad),
                double(wheel.staticLoad), double(car.wheelSettings(i).stiffness));
  }

  // 2. Full throttle to 100 km/h through the automatic gearbox.
  raycar::DriverInput flatOut;
  flatOut.pedal = 1;
  const double launch = demo.time;
  std::printf("\n2. full throttle from standstill\n");
  int gear = car.powertrain().gear;
  while (demo.speed() < 100 / 3.6 && demo.time - launch < 30) {
    demo.run(kStep, flatOut);
    if (car.powertrain().gear != gear) {
      gear = car.powertrain().gear;
      std::printf("   %5.2f s: gear %d at %5.1f km/h\n", demo.time - launch, gear - 1, demo.speed() * 3.6);
    }
  }
  std::printf("   0-100 km/h in %.2f s; engine %.0f rpm, rear slip ratio %.3f\n", demo.time - launch,
              double(car.powertrain().engineRpm), double(car.wheelState(2).slipRatio));

  // 3. Full braking with ABS from 100 km/h.
  raycar::DriverInput brake;
  brake.brake = 1;
  const btVector3 brakeStart = demo.position();
  const double brakeSpeed = demo.speed();
  const double brakeStartTime = demo.time;
  while (demo.speed() > 0.05 && demo.time - brakeStartTime < 20) demo.run(kStep, brake);
  const double peakMu = kFriction * raycar::FrictionCurve(raycar::defaultLongitudinalCurve()).peak();
  std::printf("\n3. full brake with ABS from %.1f km/h\n", brakeSpeed * 3.6);
  std::printf("   stopped in %.1f m and %.2f s; at the tire's peak friction: %.1f m (v^2 / (2 mu g))\n",
              (demo.position() - brakeStart).length(), demo.time - brakeStartTime,
              brakeSpeed * brakeSpeed / (2 * peakMu * kGravity));

  // 4. A steady circle at 6 m/s with half steering input.
  double radiusSum = 0;
  int samples = 0;
  const double circleStart = demo.time;
  while (demo.time - circleStart < 15) {
    raycar::DriverInput cruise;
    cruise.steer = 0.5f;
    cruise.pedal = std::fmin(1.0f, std::fmax(0.0f, btScalar(0.3f * (6 - demo.speed()) + 0.1f)));
    demo.run(kStep, cruise);
    if (demo.time - circleStart > 8) {
      const btScalar yawRate = demo.chassis->getAngularVelocity().dot(car.worldUp());
      radiusSum += demo.speed() / std::fabs(yawRate);
      ++samples;
    }
  }
  const double steer = car.steerAngle();
  std::printf("\n4. steady circle at %.2f m/s, half steering input (bicycle steer %.3f rad, Ackermann)\n",
              demo.speed(), steer);
  std::printf("   centre-of-mass radius %.2f m; kinematic sqrt((L / tan(steer))^2 + (L/2)^2) = %.2f m\n",
              radiusSum / samples,
              std::sqrt(std::pow(kWheelbase / std::tan(steer), 2) + std::pow(kWheelbase / 2, 2)));
  std::printf("   front wheel angles %.3f / %.3f rad; rear wheel spins %.2f / %.2f rad/s (open differential)\n",
              double(car.wheelState(0).steerAngle), double(car.wheelState(1).steerAngle),
              double(car.wheelState(2).angularSpeed), double(car.wheelState(3).angularSpeed));

  // 5. 'Back': brakes while rolling forward, then reverses.
  raycar::DriverInput back;
  back.pedal = -1;
  const double backStart = demo.time;
  double reverseAt = -1;
  while (demo.time - backStart < 6) {
    demo.run(kStep, back);
    if (reverseAt < 0 && car.powertrain().gear == raycar::kReverseGear) reverseAt = demo.time - backStart;
  }
  std::printf("\n5. pedal -1 ('back') while rolling forward\n");
  std::printf("   braked, engaged reverse after %.2f s, now %.2f m/s\n", reverseAt, demo.speed());
  std::printf("\ntotal simulated time %.1f s; %d gear changes\n", demo.time, car.powertrain().shifts);
  return 0;
}
