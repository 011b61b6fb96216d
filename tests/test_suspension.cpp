// Suspension: static sag, automatic stiffness, critical damping, anti-roll, bump stop, flight.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "TestWorld.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {


struct FlatGround {
  TestWorld world;
  FlatGround() { world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1); }
};

btTransform at(btScalar height) { return btTransform(btQuaternion::getIdentity(), btVector3(0, height, 0)); }

void run(TestWorld& world, btScalar seconds) {
  for (int i = 0; i < int(std::lround(seconds / kStep)); ++i) world.step(kStep);
}

}  // namespace

TEST_CASE("static sag equals m g / k per wheel within 1%") {
  // Explicit stiffness, centre of mass 0.3 m ahead of mid-wheelbase so that the front wheels carry
  // more than the rear: N_front = W (1.3 + 0.3) / 2.6 / 2 by the lever rule. (The unequal sag
  // pitches the car nose-down by 0.018 rad, which moves the centre of mass 1 cm forward over the
  // wheels: 0.6% more front load than the level-car lever rule, inside the 1%.)
  FlatGround ground;
  CarSpec spec;
  spec.stiffness = 30000;
  spec.centerOfMassForward = 0.3f;
  TestCar car = addCar(ground.world, spec, at(touchdownHeight(spec)));
  run(ground.world, 6);
  const double weight = spec.mass * kGravity;
  const double frontLoad = weight * (1.3 + 0.3) / 2.6 / 2, rearLoad = weight * (1.3 - 0.3) / 2.6 / 2;
  for (int i = 0; i < 4; ++i) {
    const double expectedSag = (i < 2 ? frontLoad : rearLoad) / spec.stiffness;
    const WheelState& wheel = car.vehicle->wheelState(i);
    INFO("wheel " << i << " sag " << wheel.suspensionCompression << " m, expected " << expectedSag);
    CHECK(wheel.suspensionCompression == within(expectedSag, 0.01));
    CHECK(wheel.normalLoad == within(i < 2 ? frontLoad : rearLoad, 0.01));
  }
}

TEST_CASE("automatic stiffness rests every spring at len_initial within 2 mm") {
  FlatGround ground;
  CarSpec spec;
  spec.centerOfMassForward = 0.35f;  // unequal axle loads: the springs must differ
  TestCar car = addCar(ground.world, spec, at(touchdownHeight(spec)));
  CHECK(car.vehicle->wheelSettings(0).stiffness > 1.5 * car.vehicle->wheelSettings(2).stiffness);
  run(ground.world, 6);
  for (int i = 0; i < 4; ++i) {
    INFO("wheel " << i);
    CHECK(std::fabs(car.vehicle->wheelState(i).suspensionLength - spec.lenInitial) < 0.002);
  }
}

namespace {
// Releases the car with every spring at len_max and returns the largest compression reached
// relative to the final static compression, minus one: the step response's overshoot.
double dropOvershoot(btScalar damping) {
  FlatGround ground;
  CarSpec spec;
  spec.damping = damping;
  TestCar car = addCar(ground.world, spec, at(touchdownHeight(spec)));
  double largest = 0;
  for (int i = 0; i < int(6 / kStep); ++i) {
    ground.world.step(kStep);
    largest = std::max<double>(largest, car.vehicle->wheelState(0).suspensionCompression);
  }
  const double settled = car.vehicle->wheelState(0).suspensionCompression;
  CHECK(settled == within(spec.lenMax - spec.lenInitial, 0.01));
  return largest / settled - 1;
}
}  // namespace

TEST_CASE("at damping -1 (critical) a drop overshoots less than 1%, at -0.25 it rings") {
  const double critical = dropOvershoot(-1);
  INFO("overshoot at critical damping " << critical);
  CHECK(critical < 0.01);
  // A quarter of critical: the analytic overshoot exp(-pi z / sqrt(1 - z^2)) is 44%.
  const double underdamped = dropOvershoot(-0.25f);
  CHECK(underdamped == within(std::exp(-SIMD_PI * 0.25 / std::sqrt(1 - 0.0625)), 0.15));
}

namespace {
// A steady sideways force F at the centre of mass rolls the car about the ground (where the
// tire forces act) until the springs' roll stiffness k t^2 (1 + 2 stabilizer) balances the
// force's moment F h plus gravity's, W h phi, as the centre of mass leans out by h phi:
// phi = F h / (k t^2 (1 + 2 stabilizer) - W h). The compression difference across an axle is
// phi t.
void checkRollUnderSideForce(btScalar stabilizer) {
  FlatGround ground;
  CarSpec spec;
  spec.stiffness = 30000;
  VehicleSettings settings = makeCarSettings(spec);
  settings.stabilizer = stabilizer;
  TestCar car = addCar(ground.world, spec, at(touchdownHeight(spec)), &settings);
  run(ground.world, 2);
  const btScalar force = 2500;  // N
  for (int i = 0; i < int(4 / kStep); ++i) {
    car.chassis->applyCentralForce(btVector3(force, 0, 0));
    ground.world.step(kStep);
  }
  const double height = car.chassis->getCenterOfMassPosition().y();
  const double weight = spec.mass * kGravity;
  const double rollStiffness = spec.stiffness * spec.track * spec.track * (1 + 2 * stabilizer);
  const double expected = force * height / (rollStiffness - weight * height) * spec.track;
  for (int axle = 0; axle < 2; ++axle) {
    const double difference = std::fabs(car.vehicle->wheelState(2 * axle).suspensionCompression -
                                        car.vehicle->wheelState(2 * axle + 1).suspensionCompression);
    INFO("stabilizer " << stabilizer << " axle " << axle << ": " << difference << " m vs " << expected);
    CHECK(difference == within(expected, 0.02));
  }
  // The tires hold the car: static friction, no sideways creep.
  CHECK(std::fabs(car.vehicle->linearVelocity().x()) < 0.002);
}
}  // namespace

TEST_CASE("anti-roll (stabilizer) stiffens roll by 1 + 2 x stabilizer") {
  checkRollUnderSideForce(0);
  checkRollUnderSideForce(0.5f);
}

TEST_CASE("the bump stop holds a hard landing at full compression without launching the car") {
  FlatGround ground;
  CarSpec spec;
  spec.stiffness = 12000;  // soft: 1.5 m of free fall bottoms the suspension out
  spec.damping = -0.3f;
  const btScalar dropHeight = touchdownHeight(spec) + 1.5f;
  TestCar car = addCar(ground.world, spec, at(dropHeight));
  double lowest = 1e9, shortest = 1e9, highestAfterLanding = 0;
  // Bottomed out: within 1 um of full compression (single precision reaches exactly 0, double
  // stops 5e-9 m short, the solve's rounding at a 1.5 m drop).
  const double kBottomedOut = 1e-6;
  bool landed = false;
  for (int i = 0; i < int(4 / kStep); ++i) {
    ground.world.step(kStep);
    const double height = car.chassis->getCenterOfMassPosition().y();
    lowest = std::min(lowest, height);
    shortest = std::min<double>(shortest, car.vehicle->wheelState(0).suspensionLength);
    landed = landed || car.vehicle->wheelState(0).suspensionLength < kBottomedOut;
    if (landed) highestAfterLanding = std::max(highestAfterLanding, height);
  }
  CHECK(shortest < kBottomedOut);
  // At full compression the chassis stands len_initial lower than at rest. The stop is
  // speculative, so it does not overlap by a step's travel (4.5 cm at this landing speed);
  // 5 mm allows for the chassis' pitch and the ray's cosine.
  CHECK(lowest > restHeight(spec) - spec.lenInitial - 0.005);
  // The stop is inelastic: after the landing the wheels do not leave the ground (the chassis
  // stays below the height at which the springs are fully extended, plus 2 cm).
  INFO("highest after landing " << highestAfterLanding << " m, touchdown " << touchdownHeight(spec));
  CHECK(highestAfterLanding < touchdownHeight(spec) + 0.02);
}

TEST_CASE("an airborne car falls at g with zero suspension force") {
  FlatGround ground;
  TestCar car = addCar(ground.world, CarSpec{}, at(50));
  car.vehicle->setDriveTorque(2, 200);
  run(ground.world, 1);
  CHECK(car.chassis->getLinearVelocity().y() == within(-kGravity * 1.0, 1e-3));
  CHECK(std::fabs(car.chassis->getLinearVelocity().x()) < 1e-6);
  for (int i = 0; i < 4; ++i) {
    const WheelState& wheel = car.vehicle->wheelState(i);
    CHECK_FALSE(wheel.inContact);
    CHECK(wheel.normalLoad == 0);
    CHECK(wheel.suspensionLength == within(CarSpec{}.lenMax, 1e-5));
  }
  // The driven wheel spins up freely: w = T t / I.
  CHECK(car.vehicle->wheelState(2).angularSpeed == within(200 * 1.0 / 0.8, 1e-3));
}
