// Driving: acceleration, turning radius, braking distance, coasting, wheel spin and brakes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {


struct FlatScene {
  TestWorld world;
  TestCar car;
  explicit FlatScene(const CarSpec& spec, btScalar groundFriction = 1, const VehicleSettings* settings = nullptr) {
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), groundFriction);
    car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)), settings);
    run(1);  // settle on the springs
  }
  void run(btScalar seconds) {
    for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) world.step(kStep);
  }
  btScalar speed() const { return car.vehicle->forwardSpeed(); }
  btVector3 position() const { return car.chassis->getCenterOfMassPosition(); }
};

}  // namespace

TEST_CASE("driving torque accelerates the car at sum(T) / R / (m + sum(I) / R^2)") {
  CarSpec spec;
  FlatScene scene(spec);
  const btScalar torque = 300;  // N m on each rear wheel, well inside the friction limit
  scene.car.vehicle->setDriveTorque(2, torque);
  scene.car.vehicle->setDriveTorque(3, torque);
  scene.run(0.5f);
  const btScalar v0 = scene.speed();
  scene.run(2);
  const double effectiveMass = spec.mass + 4 * spec.spinInertia / (spec.radius * spec.radius);
  const double expected = 2 * torque / spec.radius / effectiveMass;
  INFO("acceleration " << (scene.speed() - v0) / 2 << " m/s^2, expected " << expected);
  CHECK((scene.speed() - v0) / 2 == within(expected, 0.02));
}

TEST_CASE("a steady turn at 2-3 m/s has the radius wheelbase / tan(steer) within 3%") {
  // Ackermann angles for a rear-axle-centre radius R: tan(inner) = L / (R - t/2),
  // tan(outer) = L / (R + t/2); the equivalent bicycle steer is atan(L / R).
  for (TireModelKind model : {TireModelKind::SlipCurves, TireModelKind::LinearSideFriction}) {
    CarSpec spec;
    spec.tireModel = model;
    FlatScene scene(spec);
    const btScalar steer = btScalar(0.3);  // rad, bicycle equivalent
    const btScalar radius = spec.wheelbase / std::tan(steer);
    RaycastVehicle& vehicle = *scene.car.vehicle;
    vehicle.setSteerAngle(0, std::atan(spec.wheelbase / (radius - spec.track / 2)));  // inner, left
    vehicle.setSteerAngle(1, std::atan(spec.wheelbase / (radius + spec.track / 2)));
    const btVector3 rearAxleCentre =
        carToLocal(spec.axes, 0, spec.radius + spec.lenInitial - spec.centerOfMassHeight,
                   -spec.wheelbase / 2);
    double radiusSum = 0;
    int samples = 0;
    for (int i = 0; i < int(12 / kStep); ++i) {
      const btScalar torque = std::clamp(400 * (2.5f - scene.speed()), btScalar(-200), btScalar(400));
      vehicle.setDriveTorque(2, torque);
      vehicle.setDriveTorque(3, torque);
      scene.world.step(kStep);
      if (i * kStep < 6) continue;  // reach the steady state first
      const btTransform& transform = scene.car.chassis->getWorldTransform();
      const btVector3 arm = transform.getBasis() * rearAxleCentre;
      const btScalar pointSpeed = scene.car.chassis->getVelocityInLocalPoint(arm).length();
      const btScalar yawRate = scene.car.chassis->getAngularVelocity().dot(vehicle.worldUp());
      radiusSum += pointSpeed / std::fabs(yawRate);
      ++samples;
    }
    const double measured = radiusSum / samples;
    INFO("tire model " << int(model) << ": radius " << measured << " m, expected " << radius
                       << " m at " << scene.speed() << " m/s");
    CHECK(scene.speed() == within(2.5, 0.05));
    CHECK(measured == within(radius, 0.03));
  }
}

namespace {
// Locked-wheel stop from 20 m/s; returns the distance travelled.
double lockedWheelStop(const CarSpec& spec, btScalar groundFriction) {
  FlatScene scene(spec, groundFriction);
  const btScalar initialSpeed = 20;
  scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * initialSpeed);
  for (int i = 0; i < 4; ++i) scene.car.vehicle->setBrakeTorque(i, 6000);  // >> mu N R
  const btVector3 start = scene.position();
  for (int i = 0; i < int(10 / kStep) && scene.speed() > 0.001f; ++i) scene.world.step(kStep);
  for (int i = 0; i < 4; ++i) CHECK(scene.car.vehicle->wheelState(i).angularSpeed == 0);
  return (scene.position() - start).length();
}
}  // namespace

TEST_CASE("braking with locked wheels from 20 m/s on mu 0.8 stops in v^2 / (2 mu g) within 5%") {
  // Coulomb tire (seed 000 model): sliding friction is mu itself.
  CarSpec coulomb;
  coulomb.tireModel = TireModelKind::LinearSideFriction;
  coulomb.tireFriction = 0.8f;
  const double coulombDistance = lockedWheelStop(coulomb, 0.8f);
  const double expected = 20.0 * 20.0 / (2 * 0.8 * kGravity);
  INFO("Coulomb tire: " << coulombDistance << " m, expected " << expected << " m");
  CHECK(coulombDistance == within(expected, 0.05));

  // Slip-curve tire: a locked wheel (s = -1) slides at mu times the curve's value there.
  CarSpec curves;
  curves.tireFriction = 0.8f;
  const double slideMu = 0.8 * std::fabs(FrictionCurve(defaultLongitudinalCurve()).evaluate(-1).value);
  const double curveDistance = lockedWheelStop(curves, 0.8f);
  const double expectedCurve = 20.0 * 20.0 / (2 * slideMu * kGravity);
  INFO("slip-curve tire: " << curveDistance << " m, expected " << expectedCurve << " m");
  CHECK(curveDistance == within(expectedCurve, 0.05));
}

TEST_CASE("coasting deceleration matches (1/2 rho CdA v^2 + Crr m g) / m within 3%") {
  CarSpec spec;
  spec.aero.dragArea = 0.7f;
  spec.aero.airDensity = 1.225f;
  spec.aero.rollingResistance = 0.012f;
  FlatScene scene(spec);
  scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * 30);
  scene.run(1);  // the wheels spin up to rolling speed
  // Rolling wheels store energy too: the exact deceleration divides by m + sum(I) / R^2.
  const double effectiveMass = spec.mass + 4 * spec.spinInertia / (spec.radius * spec.radius);
  for (int window = 0; window < 3; ++window) {
    const double before = scene.speed();
    scene.run(1);
    const double after = scene.speed();
    const double mean = (before + after) / 2;
    const double resistance = 0.5 * 1.225 * 0.7 * mean * mean + 0.012 * spec.mass * kGravity;
    const double measured = before - after;  // over 1 s
    INFO("at " << mean << " m/s: " << measured << " m/s^2, expected " << resistance / spec.mass);
    CHECK(measured == within(resistance / spec.mass, 0.03));
    CHECK(measured == within(resistance / effectiveMass, 0.01));
    scene.run(2);
  }
}

TEST_CASE("a brake stops a spinning wheel at zero and never reverses it, the handbrake locks") {
  TestWorld world;
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, 100, 0)));
  RaycastVehicle& vehicle = *car.vehicle;
  vehicle.setDriveTorque(2, 80);  // rear left, airborne: w = T t / I
  for (int i = 0; i < 60; ++i) world.step(kStep);
  const btScalar spin = vehicle.wheelState(2).angularSpeed;
  CHECK(spin == within(80 * 0.5 / spec.spinInertia, 1e-4));
  vehicle.setDriveTorque(2, 0);
  vehicle.setBrakeTorque(2, 20);
  // Decelerates at 20 / 0.8 = 25 rad/s^2: 50 rad/s stops after 2 s, then stays at exactly 0.
  for (int i = 0; i < 120; ++i) world.step(kStep);
  CHECK(vehicle.wheelState(2).angularSpeed == within(spin - 25 * 1.0, 1e-3));
  for (int i = 0; i < 240; ++i) {
    world.step(kStep);
    CHECK(vehicle.wheelState(2).angularSpeed >= 0);
  }
  CHECK(vehicle.wheelState(2).angularSpeed == 0);
  // The handbrake locks a can_brake wheel even against drive torque.
  vehicle.setBrakeTorque(2, 0);
  vehicle.setDriveTorque(2, 300);
  vehicle.setHandbrake(true);
  for (int i = 0; i < 30; ++i) world.step(kStep);
  CHECK(vehicle.wheelState(2).angularSpeed == 0);
  CHECK(vehicle.wheelState(2).locked);
}

TEST_CASE("in a power slide the reported tire forces stay on the friction ellipse, and reach it") {
  // Checked from the telemetry alone: (Fx / (mu peak_x N))^2 + (Fy / (mu peak_y N))^2 <= 1 with
  // the curves' own peaks, independent of the solver's limits.
  CarSpec spec;
  FlatScene scene(spec);
  RaycastVehicle& vehicle = *scene.car.vehicle;
  const double peakX = FrictionCurve(defaultLongitudinalCurve()).peak();
  const double peakY = FrictionCurve(defaultLateralCurve()).peak();
  scene.car.chassis->setLinearVelocity(vehicle.worldForward() * 12);
  scene.run(0.5f);
  vehicle.setSteerAngle(0, 0.35f);
  vehicle.setSteerAngle(1, 0.35f);
  vehicle.setDriveTorque(2, 1500);
  vehicle.setDriveTorque(3, 1500);
  double largestRear = 0, largest = 0;
  for (int i = 0; i < int(2 / kStep); ++i) {
    scene.world.step(kStep);
    for (int w = 0; w < 4; ++w) {
      const WheelState& wheel = vehicle.wheelState(w);
      REQUIRE(wheel.inContact);
      const double x = wheel.longitudinalForce / (wheel.friction * peakX * wheel.normalLoad);
      const double y = wheel.lateralForce / (wheel.friction * peakY * wheel.normalLoad);
      const double used = std::sqrt(x * x + y * y);
      largest = std::max(largest, used);
      if (w >= 2) largestRear = std::max(largestRear, used);
    }
  }
  CHECK(largest <= 1.0 + 1e-4);
  CHECK(largestRear > 0.99);
  CHECK(std::fabs(vehicle.wheelState(2).slipAngle) > 0.05);  // the rear is sliding sideways
}

TEST_CASE("a wheel spinning up past the peak pushes with the curve's value: Fx = mu N mu_x(s)") {
  // At 20 m/s, 1300 N m per rear wheel is more than the peak grip carries, so the wheel spins up
  // through the curve's falling branch (where the Newton step has a negative slope). At every
  // step on that branch the solved force equals the curve at the solved slip.
  CarSpec spec;
  FlatScene scene(spec);
  RaycastVehicle& vehicle = *scene.car.vehicle;
  const FrictionCurve curve(defaultLongitudinalCurve());
  scene.car.chassis->setLinearVelocity(vehicle.worldForward() * 20);
  scene.run(0.5f);
  vehicle.setDriveTorque(2, 1300);
  vehicle.setDriveTorque(3, 1300);
  int samples = 0;
  for (int i = 0; i < int(1 / kStep); ++i) {
    scene.world.step(kStep);
    const WheelState& wheel = vehicle.wheelState(2);
    if (wheel.slipRatio < 0.15 || wheel.slipRatio > 1.4) continue;
    ++samples;
    const double expected = wheel.friction * wheel.normalLoad * curve.evaluate(wheel.slipRatio).value;
    INFO("s " << wheel.slipRatio << ": Fx " << wheel.longitudinalForce << " N, curve " << expected << " N");
    CHECK(wheel.longitudinalForce == within(expected, 0.02));
  }
  CHECK(samples >= 5);
}

TEST_CASE("dyn_friction_ratio scales a sliding Coulomb tire's friction and leaves slip curves alone") {
  // Coulomb tire, locked wheels at mu 0.8 and ratio 0.7: the stop takes v^2 / (2 0.8 0.7 g).
  CarSpec coulomb;
  coulomb.tireModel = TireModelKind::LinearSideFriction;
  coulomb.tireFriction = 0.8f;
  VehicleSettings settings = makeCarSettings(coulomb);
  settings.friction.dynamicFrictionRatio = 0.7f;
  {
    FlatScene scene(coulomb, 0.8f, &settings);
    scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * 20);
    for (int w = 0; w < 4; ++w) scene.car.vehicle->setBrakeTorque(w, 6000);
    const btVector3 start = scene.position();
    for (int i = 0; i < 1200 && scene.speed() > 0.001f; ++i) scene.world.step(kStep);
    const double distance = (scene.position() - start).length();
    CHECK(distance == within(20.0 * 20.0 / (2 * 0.8 * 0.7 * kGravity), 0.05));
  }
  // Slip curves: moderate traction needs some slip, which must not count as sliding.
  CarSpec curves;
  VehicleSettings curveSettings = makeCarSettings(curves);
  curveSettings.friction.dynamicFrictionRatio = 0.7f;
  FlatScene scene(curves, 1, &curveSettings);
  scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * 15);
  scene.car.vehicle->setDriveTorque(2, 120);
  scene.car.vehicle->setDriveTorque(3, 120);
  scene.run(1);
  CHECK(scene.car.vehicle->wheelState(2).friction == within(1.0, 1e-4));
  // Nor a locked slip-curve tire's: it already slides on the curve's tail, and the ratio must not
  // count that fall twice. A handbrake stop from 20 m/s is the same, bit for bit, at any ratio.
  auto handbrakeStop = [&](btScalar ratio) {
    VehicleSettings settings = makeCarSettings(curves);
    settings.friction.dynamicFrictionRatio = ratio;
    FlatScene stop(curves, 0.8f, &settings);
    stop.car.chassis->setLinearVelocity(stop.car.vehicle->worldForward() * 20);
    stop.car.vehicle->setHandbrake(true);
    const btVector3 start = stop.position();
    for (int i = 0; i < 1200 && stop.speed() > 0.001f; ++i) stop.world.step(kStep);
    return double((stop.position() - start).length());
  };
  const double full = handbrakeStop(1);
  CHECK(full > 20);  // it slid: the handbrake locks the rear wheels, about 61 m at ratio 1
  CHECK(handbrakeStop(0.7f) == full);
}

TEST_CASE("downforce 1/2 rho ClA v^2 adds to the wheel loads, split by its front share") {
  CarSpec spec;
  spec.aero.downforceArea = 1.5f;  // Cl A, m^2
  spec.aero.downforceFrontShare = 0.7f;
  FlatScene scene(spec);
  RaycastVehicle& vehicle = *scene.car.vehicle;
  double staticFront = 0, staticRear = 0;
  for (int w = 0; w < 4; ++w) (w < 2 ? staticFront : staticRear) += vehicle.wheelState(w).normalLoad;
  // Roll at a steady 30 m/s (no drag, no rolling resistance) long enough for the springs to settle.
  scene.car.chassis->setLinearVelocity(vehicle.worldForward() * 30);
  scene.run(3);
  const double speed = vehicle.forwardSpeed();
  const double downforce = 0.5 * 1.225 * 1.5 * speed * speed;
  double front = 0, rear = 0;
  for (int w = 0; w < 4; ++w) (w < 2 ? front : rear) += vehicle.wheelState(w).normalLoad;
  INFO("at " << speed << " m/s: downforce " << downforce << " N; front +" << front - staticFront
             << " N, rear +" << rear - staticRear << " N");
  CHECK(front + rear == within(spec.mass * kGravity + downforce, 0.01));
  CHECK(front - staticFront == within(0.7 * downforce, 0.03));
  CHECK(rear - staticRear == within(0.3 * downforce, 0.03));
}

TEST_CASE("a game's grip scale: a four-wheel locked slide stops in v^2 / (2 g mu s), split grip yaws a braking car toward the grippy side") {
  // All four wheels locked by the handbrake from 15 m/s on flat ground: the friction mu the
  // sliding wheels report (tire and ground mean) times the grip scale s, times what the locked
  // tire's curve keeps of its peak (lockedSlideShare, 0.82), decelerates the car, so it stops in
  // v^2 / (2 g mu s share). Budget 2%: the speed lost while the springs settle into the slide,
  // the last 0.5 m/s, where seed 001's box holds the wheels at 0.85 mu, and the last step.
  CarSpec spec;
  spec.rearHandbrakeOnly = false;
  auto slide = [&](btScalar scale, double& reportedFriction) {
    FlatScene scene(spec);
    for (int wheel = 0; wheel < 4; ++wheel) scene.car.vehicle->setGripScale(wheel, scale);
    scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * 15);
    scene.car.vehicle->setHandbrake(true);
    const btVector3 start = scene.position();
    scene.world.step(kStep);
    reportedFriction = scene.car.vehicle->wheelState(0).friction;
    for (int i = 0; i < 3000 && scene.speed() > 0.001f; ++i) scene.world.step(kStep);
    return double((scene.position() - start).length());
  };
  for (const btScalar scale : {1.0f, 0.5f, 0.25f}) {
    CAPTURE(scale);
    double friction = 0;
    const double distance = slide(scale, friction);
    CAPTURE(friction);
    CHECK(friction == within(scale, 1e-6));  // the tire and ground's 1: the box's 0.85 is not the slide's
    CHECK(distance == within(15.0 * 15.0 / (2 * kGravity * friction * lockedSlideShare(spec)), 0.02));
    double unscaled = 0;
    slide(1, unscaled);
    CHECK(friction == within(unscaled * scale, 1e-6));
  }
  CarSpec braking;
  FlatScene split(braking);
  RaycastVehicle& vehicle = *split.car.vehicle;
  // The left wheels (0, 2) on a wet patch: a third of the grip.
  vehicle.setGripScale(0, 0.3f);
  vehicle.setGripScale(2, 0.3f);
  CHECK(vehicle.gripScale(0) == 0.3f);
  CHECK_THROWS_AS(vehicle.setGripScale(1, -1), InputError);
  CHECK_THROWS_AS(vehicle.setGripScale(1, NAN), InputError);
  CHECK_THROWS_AS(vehicle.setGripScale(4, 1), InputError);
  const btVector3 right = vehicle.worldRight();
  split.car.chassis->setLinearVelocity(vehicle.worldForward() * 20);
  DriverInput input;
  input.brake = 1;
  for (int i = 0; i < int(2 / kStep); ++i) {
    vehicle.setInput(input);
    split.world.step(kStep);
  }
  // The right wheels brake harder: the nose turns right, toward the grippy side.
  const double turned = std::asin(double(vehicle.worldForward().dot(right)));
  CAPTURE(turned);
  CHECK(turned > 2 * SIMD_PI / 180);
}

TEST_CASE("a handbraked wheel that slides grips within its friction ellipse: the handbrake turns the car") {
  // Seed 001's independent box gave a locked wheel 0.85 mu N along and across at once, up to
  // 1.2 mu N in all: a handbraked rear axle braked and still held its side, and at 50 km/h on
  // full lock the handbrake turned a sedan less than the steering alone. A locked wheel that
  // slides is a sliding tire: its force stays within mu N (the ellipse; the test car's tires
  // have no load sensitivity), budget 1% (the load the wheel reports is the one solved), so the
  // braking takes the side grip with it and the rear steps out: the car turns further than on
  // the steering alone (the box's rear held its side and turned it less).
  CarSpec spec;  // the handbrake locks the rear wheels
  auto turn = [&](bool handbrake, double& largestShare) {
    FlatScene scene(spec);
    RaycastVehicle& vehicle = *scene.car.vehicle;
    scene.car.chassis->setLinearVelocity(vehicle.worldForward() * 14);
    scene.run(0.5f);  // the wheels roll up to the road
    const btQuaternion start = scene.car.chassis->getOrientation();
    DriverInput input;
    input.steer = 1;
    input.handbrake = handbrake;
    largestShare = 0;
    for (int i = 0; i < int(0.8f / kStep); ++i) {
      vehicle.setInput(input);
      scene.world.step(kStep);
      for (int wheel : {2, 3}) {
        const WheelState& state = vehicle.wheelState(wheel);
        if (!state.inContact) continue;
        const double force = std::hypot(state.longitudinalForce, state.lateralForce);
        largestShare = std::max(largestShare, force / (state.friction * state.normalLoad));
      }
    }
    return double(start.angleShortestPath(scene.car.chassis->getOrientation()));  // rad
  };
  double share = 0, unused = 0;
  const double withHandbrake = turn(true, share);
  const double steeringAlone = turn(false, unused);
  CAPTURE(share);
  CAPTURE(withHandbrake);
  CAPTURE(steeringAlone);
  CHECK(share <= 1.01);
  CHECK(withHandbrake > steeringAlone);
}

TEST_CASE("stability control leaves a chassis whose yaw the game locked alone") {
  // A chassis on setAngularFactor(1, 0, 1) cannot yaw: its yaw rate stays 0 whatever the
  // reference, so the controller has nothing to correct. Before, it read the unscaled inertia
  // and braked a wheel in every step of a full-lock run at 20 m/s.
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  settings.assists.stabilityControl = true;
  for (const bool yawLocked : {true, false}) {
    CAPTURE(yawLocked);
    FlatScene scene(spec, 1, &settings);
    if (yawLocked) scene.car.chassis->setAngularFactor(btVector3(1, 0, 1));
    scene.car.chassis->setLinearVelocity(scene.car.vehicle->worldForward() * 20);
    DriverInput input;
    input.steer = 1;
    int brakingSteps = 0;
    for (int i = 0; i < int(1 / kStep); ++i) {
      scene.car.vehicle->setInput(input);
      scene.world.step(kStep);
      if (scene.car.vehicle->stabilityControl().active) ++brakingSteps;
    }
    // Free to yaw, the same run at the limit asks the controller to brake (so the locked case
    // is not a run it would have left alone anyway).
    if (yawLocked) CHECK(brakingSteps == 0);
    else CHECK(brakingSteps > 0);
  }
}

TEST_CASE("Bullet's angular and linear factors hold for the chassis as for any body") {
  // A game locks roll and pitch with setAngularFactor(0, 1, 0) (an arcade car that cannot tip),
  // or an axis of travel with setLinearFactor; Bullet's own impulses honour the factors, and so
  // must the wheels'. A zero factor is exact: nothing can turn or move the chassis about or along
  // that axis, so the tilt and the locked coordinate stay what they were to rounding (1e-5).
  // Before, the solve ignored them: a locked car rolled 3.8 deg in a full-lock launch, and one
  // locked in place (every factor 0) was lifted from 0.64 to 1.45 m by its springs.
  CarSpec spec;
  DriverInput input;
  input.pedal = 1;  // drive torque through setDriveTorque below: the test car has no engine
  input.steer = 1;
  auto drive = [&](const btVector3& angularFactor, const btVector3& linearFactor, btScalar& largestTilt,
                   btVector3& moved) {
    FlatScene scene(spec);
    scene.car.chassis->setAngularFactor(angularFactor);
    scene.car.chassis->setLinearFactor(linearFactor);
    // The factors scale what moves the body, not the velocity it has: a game locking an axis
    // zeroes the velocity along it too (the settled car's vertical g dt, which the next step's
    // gravity would have taken back, would carry it up 0.24 m in 3 s).
    scene.car.chassis->setLinearVelocity(scene.car.chassis->getLinearVelocity() * linearFactor);
    scene.car.chassis->setAngularVelocity(scene.car.chassis->getAngularVelocity() * angularFactor);
    const btVector3 start = scene.position();
    largestTilt = 0;
    for (int i = 0; i < int(3 / kStep); ++i) {
      scene.car.vehicle->setInput(input);
      for (int wheel : {2, 3}) scene.car.vehicle->setDriveTorque(wheel, 600);
      scene.world.step(kStep);
      const btVector3 up = scene.car.vehicle->worldUp();
      largestTilt = std::max(largestTilt, btScalar(std::atan2(std::hypot(up.x(), up.z()), up.y())));
    }
    moved = scene.position() - start;
    return scene.car.chassis->getAngularVelocity().y();
  };
  btScalar tilt = 0;
  btVector3 moved;
  const btScalar yawRate = drive(btVector3(0, 1, 0), btVector3(1, 1, 1), tilt, moved);
  CAPTURE(tilt);
  CHECK(tilt < 1e-5);
  CHECK(std::fabs(yawRate) > 0.1);  // it still turns about the free axis
  CHECK(moved.length() > 5);
  // Free to roll, the same car leans in the turn: the locked case is not a car that never would.
  drive(btVector3(1, 1, 1), btVector3(1, 1, 1), tilt, moved);
  CHECK(tilt > 0.01);
  // Travel along world z locked (the car's forward): it may not go forward, only sideways.
  drive(btVector3(1, 1, 1), btVector3(1, 1, 0), tilt, moved);
  CAPTURE(moved.z());
  CHECK(std::fabs(moved.z()) < 1e-5);
  // Locked in place: it stays where it was.
  drive(btVector3(0, 0, 0), btVector3(0, 0, 0), tilt, moved);
  CAPTURE(moved.length());
  CHECK(moved.length() < 1e-5);
  CHECK(tilt < 1e-5);
}
