// Settings are validated once, at construction; bad inputs get a clear error.
#include <doctest/doctest.h>

#include <cstdint>

#include <cmath>

#include "TestWorld.h"
#include "raycar/Error.h"
#include "Tolerance.h"

using namespace raycar;
using namespace raycar::test;

namespace {
bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& problem : problems)
    if (problem.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("the reference car's settings are valid") {
  CHECK(validateVehicleSettings(makeCarSettings(CarSpec{})).empty());
}

TEST_CASE("every invalid field is reported with the wheel it belongs to") {
  struct Row {
    void (*breakIt)(VehicleSettings&);
    const char* expected;
  };
  const Row rows[] = {
      {[](VehicleSettings& s) { s.wheels[1].radius = 0; }, "wheel 2: radius = 0 is out of range [0.01, 10] (m)"},
      {[](VehicleSettings& s) { s.wheels[2].suspensionRestLength = 0.4f; },
       "wheel 3: automatic stiffness needs suspensionRestLength (len_initial, 0.400000 m) < suspensionMaxLength"},
      {[](VehicleSettings& s) { s.wheels[0].stiffness = -5; }, "wheel 1: stiffness = -5 is out of range [0, 1e+10] (N/m)"},
      {[](VehicleSettings& s) { s.wheels[3].damping = NAN; }, "wheel 4: damping = nan is not finite"},
      {[](VehicleSettings& s) { s.wheels[0].attachmentPoint.setX(INFINITY); },
       "wheel 1: attachmentPoint.x = inf is not finite"},
      {[](VehicleSettings& s) { s.wheels[1].spinInertia = 0; }, "wheel 2: spinInertia = 0 is out of range (0, 10000]"},
      {[](VehicleSettings& s) { s.wheels[1].maxFriction = -1; }, "wheel 2: maxFriction = -1 is out of range [0, 100]"},
      {[](VehicleSettings& s) { s.wheels[0].tire.slipRatioEpsilon = 0; },
       "wheel 1 tire: slipRatioEpsilon = 0 is out of range (0, 100] (m/s)"},
      {[](VehicleSettings& s) { s.wheels[0].tire.lateralCurve.magicFormula.shapeC = 3; },
       "wheel 1 tire: lateralCurve.magicFormula.shapeC = 3 is out of range (0, 1.999]"},
      {[](VehicleSettings& s) { s.axes.forward = btVector3(0, 1, 0); },
       "axes: up and forward must be perpendicular"},
      {[](VehicleSettings& s) { s.wheels.clear(); }, "needs at least one wheel"},
      {[](VehicleSettings& s) { s.stabilizer = -1; }, "stabilizer = -1 is out of range [0, 10] (fraction of stiffness)"},
      {[](VehicleSettings& s) { s.friction.dynamicFrictionRatio = 0; }, "friction.dynamicFrictionRatio = 0 is out of range (0, 10]"},
      {[](VehicleSettings& s) { s.aero.rollingResistance = -0.1; }, "aero.rollingResistance = -0.1 is out of range [0, 0.99]"},
      {[](VehicleSettings& s) { s.solver.iterations = 0; }, "solver.iterations = 0 is out of range [1, 100]"},
      {[](VehicleSettings& s) { s.engine.inertia = 1e-40f; },
       "engine.inertia (inertia) must be 0 (seed 001's engine, no inertia) or at least 1e-3 kg m^2"},
      {[](VehicleSettings& s) { s.engine.clutchCapacity = -1; }, "engine.clutchCapacity = -1 is out of range [0, 1e+06] (N m)"},
  };
  for (const Row& row : rows) {
    VehicleSettings settings = makeCarSettings(CarSpec{});
    row.breakIt(settings);
    const std::vector<std::string> problems = validateVehicleSettings(settings);
    CHECK_MESSAGE(mentions(problems, row.expected), row.expected);
  }
}

TEST_CASE("construction throws a SettingsError that lists all problems at once") {
  TestWorld world;
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  settings.wheels[0].radius = -1;
  settings.wheels[3].suspensionMaxLength = 0;
  try {
    addCar(world, spec, btTransform::getIdentity(), &settings);
    FAIL("expected SettingsError");
  } catch (const SettingsError& error) {
    CHECK(mentions(error.problems(), "wheel 1: radius"));
    // what(), all a game that catches std::exception sees, lists them too.
    CHECK(std::string(error.what()).find("wheel 1: radius = -1 is out of range") != std::string::npos);
    CHECK(std::string(error.what()).find("wheel 4: suspensionMaxLength = 0") != std::string::npos);
    CHECK(mentions(error.problems(), "wheel 4: suspensionMaxLength = 0 is out of range (0, 10] (m)"));
  }
}

TEST_CASE("automatic stiffness without gravity or mass is an error, not a zero spring") {
  TestWorld world(btVector3(0, 0, 0));
  CHECK_THROWS_AS(addCar(world, CarSpec{}, btTransform::getIdentity()), SettingsError);
}

TEST_CASE("bad per-wheel inputs throw InputError and change nothing") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.55f, 0)));
  RaycastVehicle& vehicle = *car.vehicle;
  vehicle.setDriveTorque(2, 100);
  CHECK_THROWS_AS(vehicle.setDriveTorque(2, NAN), InputError);
  world.step(1.0f / 120);
  CHECK(vehicle.wheelState(2).driveTorque == 100);  // the NaN did not replace it
  CHECK_THROWS_AS(vehicle.setDriveTorque(4, 1), InputError);
  CHECK_THROWS_AS(vehicle.setDriveTorque(-1, 1), InputError);
  CHECK_THROWS_AS(vehicle.setBrakeTorque(0, -10), InputError);
  CHECK_THROWS_AS(vehicle.setBrakeTorque(0, INFINITY), InputError);
  CHECK_THROWS_AS(vehicle.setSteerAngle(0, 2.0f), InputError);
  CHECK_THROWS_AS(vehicle.wheelState(7), InputError);
  // A setter's error names the wheel as the call did, by its index from 0 (as the range error
  // does), not by its [[wheel]] record's number from 1.
  const struct {
    void (*call)(RaycastVehicle&);
    const char* message;
  } setters[] = {
      {[](RaycastVehicle& v) { v.setDriveTorque(1, NAN); }, "wheel index 1: drive torque is not finite"},
      {[](RaycastVehicle& v) { v.setGripScale(1, -1); }, "wheel index 1: grip scale must lie in [0, 10]"},
      {[](RaycastVehicle& v) { v.setTireTemperature(1, 900); },
       "wheel index 1: tire temperature must lie in [-100, 500] C"},
      {[](RaycastVehicle& v) { v.setBrakeTorque(1, -1); },
       "wheel index 1: brake torque must be finite and >= 0 N m"},
      {[](RaycastVehicle& v) { v.setSteerAngle(1, 2); },
       "wheel index 1: steer angle must be finite and within (-pi/2, pi/2) rad"},
      {[](RaycastVehicle& v) { v.setSteerAngle(2, 0.1f); }, "wheel index 2: is not steered (SteerMode)"},
      {[](RaycastVehicle& v) { v.setDriveTorque(4, 1); }, "drive torque: wheel index 4 is out of range [0, 4)"},
  };
  for (const auto& setter : setters) {
    CAPTURE(setter.message);
    std::string message;
    try {
      setter.call(vehicle);
    } catch (const InputError& error) {
      message = error.what();
    }
    CHECK(message == setter.message);
  }
}

TEST_CASE("a step of dt = 0, negative or NaN leaves the vehicle and chassis untouched") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.6f, 0)));
  car.chassis->setLinearVelocity(btVector3(1, 0, 2));
  for (btScalar dt : {btScalar(0), btScalar(-0.01), btScalar(NAN), btScalar(INFINITY)}) {
    car.vehicle->updateAction(&world.world(), dt);
    CHECK(car.chassis->getLinearVelocity() == btVector3(1, 0, 2));
    CHECK(car.vehicle->wheelState(0).normalLoad == 0);
  }
  // After real steps too: the vehicle's whole state, saved byte for byte, is as it was (a call
  // with no valid step had cleared the solve's expected velocity, one byte of it).
  for (int i = 0; i < 30; ++i) world.step(1.0f / 120);
  std::vector<std::uint8_t> before, after;
  car.vehicle->saveState(before);
  for (btScalar dt : {btScalar(0), btScalar(-0.01), btScalar(NAN), btScalar(INFINITY)}) {
    car.vehicle->updateAction(&world.world(), dt);
    car.vehicle->saveState(after);
    CHECK(after == before);
  }
  car.vehicle->updateAction(nullptr, 1.0f / 120);  // no world: no step either
  car.vehicle->saveState(after);
  CHECK(after == before);
}

TEST_CASE("a static or kinematic chassis is rejected: the vehicle needs a body to push") {
  TestWorld world;
  CarSpec spec;
  spec.stiffness = 30000;  // nothing automatic: the mass check must still catch it
  spec.damping = 3000;
  const VehicleSettings settings = makeCarSettings(spec);
  btRigidBody* fixed = world.addBox(0, btVector3(1, 0.3f, 2), btTransform::getIdentity(), 1);
  CHECK_THROWS_WITH_AS(RaycastVehicle(*fixed, settings), doctest::Contains("must be a dynamic rigid body"),
                       SettingsError);
  btRigidBody* moved = world.addBox(0, btVector3(1, 0.3f, 2), btTransform::getIdentity(), 1, true);
  CHECK_THROWS_AS(RaycastVehicle(*moved, settings), SettingsError);
}

TEST_CASE("wheels sharing an axle number must stand side by side") {
  VehicleSettings settings = makeCarSettings(CarSpec{});
  for (WheelSettings& wheel : settings.wheels) wheel.axle = 0;  // the usual slip: all on axle 0
  const std::vector<std::string> problems = validateVehicleSettings(settings);
  CHECK(mentions(problems, "wheel 3: shares axle 0 with wheel 1 but its attachmentPoint stands 2.6"));
}

TEST_CASE("steering a wheel that is not steered is an input error") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(world, CarSpec{}, btTransform(btQuaternion::getIdentity(), btVector3(0, 0.55f, 0)));
  CHECK_THROWS_WITH_AS(car.vehicle->setSteerAngle(2, 0.1f), "wheel index 2: is not steered (SteerMode)", InputError);
  CHECK_NOTHROW(car.vehicle->setSteerAngle(2, 0));
  CHECK_NOTHROW(car.vehicle->setSteerAngle(0, 0.1f));
}

TEST_CASE("the C++ settings reject what the script's ranges reject: non-finite gear ratios and differential shares") {
  // Found by an audit: gears[0] = -inf passed and gave NaN when reverse engaged; a NaN torque
  // share silently meant "by wheel count".
  struct Row {
    const char* what;
    void (*change)(VehicleSettings&);
    const char* expected;
  };
  const Row rows[] = {
      {"reverse ratio -inf", [](VehicleSettings& s) { s.gearbox.gears[0] = -INFINITY; }, "(reverse) must be negative and finite"},
      {"torque share NaN", [](VehicleSettings& s) {
         s.differentials = {DifferentialSettings{1}};
         s.differentials[0].torqueShare = NAN;
       }, "differential 1 (axle 1): torqueShare = nan is not finite"},
      {"locking coefficient inf", [](VehicleSettings& s) {
         s.differentials = {DifferentialSettings{1}};
         s.differentials[0].type = DifferentialType::LimitedSlip;
         s.differentials[0].lockingCoefficient = INFINITY;
       }, "differential 1 (axle 1): lockingCoefficient = inf is not finite"},
      {"a given spring rate with the rest length beyond full droop (a model in decimetres)", [](VehicleSettings& s) {
         s.wheels[0].stiffness = 35000;
         s.wheels[0].suspensionRestLength = 2;
         s.wheels[0].suspensionMaxLength = 0.29f;
       }, "is longer than suspensionMaxLength (len_max, 0.290000 m): at rest the wheel would hang below its full droop"},
  };
  for (const Row& row : rows) {
    INFO(std::string(row.what));
    VehicleSettings settings = makeCarSettings(CarSpec{});
    row.change(settings);
    const std::vector<std::string> problems = validateVehicleSettings(settings);
    bool found = false;
    for (const std::string& problem : problems) found = found || problem.find(row.expected) != std::string::npos;
    INFO("problems: " << problems.size());
    CHECK(found);
  }
}
