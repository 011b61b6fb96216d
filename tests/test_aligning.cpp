// Aligning moment and steering feel: the pneumatic trail (TireSettings::pneumaticTrail), the
// steering axis' caster and mechanical trail (WheelSettings), the column torque a force-feedback
// wheel reads (RaycastVehicle::steeringTorque) and the torque steering mode (SteeringMode).
#include <doctest/doctest.h>

#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {

constexpr btScalar kPneumaticTrail = 0.04f;   // m, a passenger tire's
constexpr btScalar kMechanicalTrail = 0.02f;  // m
constexpr btScalar kCasterDegrees = 6;

// The reference car with trails on its front (steered) wheels.
VehicleSettings trailedCar(btScalar pneumaticTrail = kPneumaticTrail,
                           btScalar mechanicalTrail = kMechanicalTrail) {
  VehicleSettings settings = makeCarSettings(CarSpec{});
  for (int wheel = 0; wheel < 2; ++wheel) {
    settings.wheels[size_t(wheel)].tire.pneumaticTrail = pneumaticTrail;
    settings.wheels[size_t(wheel)].mechanicalTrail = mechanicalTrail;
    settings.wheels[size_t(wheel)].casterAngle = kCasterDegrees;
  }
  return settings;
}

struct Drive {
  TestWorld world;
  TestCar car;
  btScalar step = kStep;
  explicit Drive(const VehicleSettings& settings, btScalar speed, btScalar fixedStep = kStep) : step(fixedStep) {
    world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
    car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(CarSpec{}), 0)),
                 &settings);
    for (int i = 0; i < 60; ++i) world.step(kStep);
    car.chassis->setLinearVelocity(car.vehicle->worldForward() * speed);
  }
  void run(btScalar seconds, btScalar steer) {
    DriverInput input;
    input.steer = steer;
    for (int i = 0; i < int(std::lround(seconds / step)); ++i) {
      car.vehicle->setInput(input);
      world.step(step);
    }
  }
};

}  // namespace

TEST_CASE("the aligning moment at small slip is -(t_pneumatic + t_mechanical) Fy cos(caster), restoring, and reaches the column through the ratio") {
  // A gentle steady turn at 15 m/s: front slip angles well under a degree, where the pneumatic
  // trail has fallen by |alpha| / alpha_peak of itself (alpha_peak 10.2 deg for the default
  // curve, over 10 deg); that fall is the budget (3.6% here), plus float rounding.
  Drive drive(trailedCar(), 15);
  drive.run(3, 0.03f);
  const RaycastVehicle& vehicle = *drive.car.vehicle;
  btScalar moments = 0;
  for (int wheel = 0; wheel < 2; ++wheel) {
    CAPTURE(wheel);
    const WheelState& state = vehicle.wheelState(wheel);
    CAPTURE(state.slipAngle);
    REQUIRE(std::fabs(state.slipAngle) > 0.001);
    REQUIRE(std::fabs(state.slipAngle) < 0.02);
    const double smallSlip =
        (kPneumaticTrail + kMechanicalTrail) * state.lateralForce * std::cos(kCasterDegrees * SIMD_RADS_PER_DEG);
    const double budget = kPneumaticTrail * std::fabs(state.slipAngle) / (10 * SIMD_RADS_PER_DEG) /
                          (kPneumaticTrail + kMechanicalTrail);
    CHECK(state.aligningMoment == within(smallSlip, budget + 1e-5));
    // A left turn: the contact slides right (alpha > 0), the force pushes left, and the moment
    // turns the wheel right, back toward its path.
    CHECK(state.slipAngle > 0);
    CHECK(state.aligningMoment < 0);
    moments += state.aligningMoment;
  }
  for (int wheel = 2; wheel < 4; ++wheel) CHECK(vehicle.wheelState(wheel).aligningMoment == 0);  // not steered
  CHECK(vehicle.steeringTorque() == within(moments / vehicle.settings().steering.steeringRatio, 1e-6));
}

TEST_CASE("the tire's aligning moment t(alpha) Fy(alpha) peaks before the lateral force does and is gone past its peak") {
  // The slip-curve tire at 4000 N and friction 1, swept in slip angle: the trail falls linearly
  // to zero at the lateral curve's peak, so Mz = t0 (1 - alpha / alpha_p) Fy peaks first (at
  // about half of alpha_p for a force still near-linear there).
  TireSettings settings;
  settings.pneumaticTrail = kPneumaticTrail;
  const auto tire = makeTireModel(settings);
  TireContact contact;
  contact.normalLoad = 4000;
  contact.friction = 1;
  contact.forwardSpeed = 20;
  double forcePeak = 0, momentPeak = 0, forcePeakSlip = 0, momentPeakSlip = 0;
  for (double degrees = 0.05; degrees < 40; degrees += 0.05) {
    const btScalar lateralSlip = btScalar((20 + settings.slipAngleEpsilon) * std::tan(degrees * SIMD_RADS_PER_DEG));
    const btScalar alpha = slipAngle(20, lateralSlip, settings.slipAngleEpsilon);
    const double force = tire->lateral(contact, lateralSlip, 0).force;  // on the chassis, along right: < 0
    const double moment = settings.pneumaticTrail * tire->pneumaticTrailFactor(alpha) * force;
    CHECK(moment <= 0);  // restoring for alpha > 0
    if (-force > forcePeak) forcePeak = -force, forcePeakSlip = degrees;
    if (-moment > momentPeak) momentPeak = -moment, momentPeakSlip = degrees;
    if (degrees > forcePeakSlip + 0.1 && forcePeakSlip > 1) CHECK(moment == 0);
  }
  CAPTURE(forcePeakSlip);
  CAPTURE(momentPeakSlip);
  CHECK(forcePeakSlip == within(10.2, 0.02));
  CHECK(momentPeakSlip < 0.7 * forcePeakSlip);
  CHECK(momentPeakSlip > 0.3 * forcePeakSlip);
}

TEST_CASE("torque steering: a held wheel's torque balances the aligning torque, released at speed it returns to the centre") {
  // SteeringMode::Torque at 20 m/s, stepped at 1/120 s and at 1/30 s. The driver holds 2 N m
  // (input 0.2 of 10 N m): the column settles where the aligning torque at the column cancels
  // it (budget 2%: the car still slows and settles into its circle). Released, the wheel centres
  // by itself: the aligning moment turns the wheels toward the path against the column's
  // inertia and damping.
  VehicleSettings settings = trailedCar();
  settings.steering.mode = SteeringMode::Torque;
  for (const btScalar step : {kStep, btScalar(1.0 / 30)}) {
    CAPTURE(step);
    Drive drive(settings, 20, step);
    drive.run(3, 0.2f);
    const RaycastVehicle& vehicle = *drive.car.vehicle;
    const btScalar held = vehicle.steerAngle();
    CAPTURE(held);
    CHECK(held > 0.002);
    CHECK(vehicle.steeringTorque() == within(-2.0, 0.02));
    // Released: the wheel swings back through the centre and settles in the car's hands-free
    // mode (measured: about 1 Hz, each half-second's largest angle a third of the one before; the
    // wheel's own mode, ~21 rad/s at the column, is damped within a tenth of a second).
    double largest[3] = {0, 0, 0};
    for (int i = 0; i < int(std::lround(1.5f / step)); ++i) {
      drive.run(step, 0);
      double& window = largest[std::min(2, int(i * step / 0.5f))];
      window = std::max(window, double(std::fabs(vehicle.steerAngle())));
    }
    CAPTURE(largest[0]);
    CAPTURE(largest[1]);
    CAPTURE(largest[2]);
    CHECK(largest[1] < 0.5 * largest[0]);
    CHECK(largest[2] < 0.5 * largest[1]);
    CHECK(std::fabs(vehicle.steerAngle()) < 0.1 * held);
  }

  // Without trails nothing turns the wheel back: a brief push leaves it where it went.
  VehicleSettings untrailed = trailedCar(0, 0);
  untrailed.steering.mode = SteeringMode::Torque;
  Drive loose(untrailed, 20);
  loose.run(0.1f, 0.2f);
  loose.run(0.5f, 0);
  const btScalar pushed = loose.car.vehicle->steerAngle();
  CHECK(pushed > 0.002);
  CHECK(loose.car.vehicle->steeringTorque() == 0);
  loose.run(1.5f, 0);
  // What is left of the column's motion after 0.5 s of damping (its speed falls by
  // 1 + dt c / I = 1.13 a step) moves it less than a thousandth further.
  CHECK(loose.car.vehicle->steerAngle() == within(pushed, 1e-3));
}
