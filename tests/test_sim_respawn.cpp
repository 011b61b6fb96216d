// SceneRunner::respawnVehicle, which the viewer's tuning panel and script reload use: the model
// keeps its pose and velocity, the new settings act, the vehicle keeps driving, and rejected
// settings leave the old vehicle in place.
#include <doctest/doctest.h>

#include <cmath>

#include "SceneRunner.h"
#include "raycar/Error.h"

using namespace raycar;
using namespace raycar::sim;

namespace {
const std::string kScenes = std::string(RAYCAR_DATA_DIR) + "/scenes/";
}

TEST_CASE("respawning a vehicle keeps its pose and velocity and applies the new settings") {
  Scene scene = loadScene(kScenes + "drift.toml");
  SceneRunner runner(scene);
  for (int i = 0; i < 360; ++i) runner.step();  // 3 s: under way
  SpawnedVehicle& before = runner.vehicle(0);
  const btTransform modelPose = before.chassisTransform() * before.loaded().modelFromChassis.inverse();
  const btVector3 velocity = before.chassis().getLinearVelocity();
  const double speed = before.vehicle().forwardSpeed();
  REQUIRE(speed > 5);

  LoadedVehicle tuned = before.loaded();
  tuned.settings.steering.maxSteer = 12;
  tuned.settings.brakes.brakeTorque = 900;
  runner.respawnVehicle(0, tuned);

  SpawnedVehicle& after = runner.vehicle(0);
  const btTransform newModelPose = after.chassisTransform() * after.loaded().modelFromChassis.inverse();
  CHECK((newModelPose.getOrigin() - modelPose.getOrigin()).length() < 1e-4);
  CHECK(newModelPose.getRotation().angleShortestPath(modelPose.getRotation()) < 1e-4);
  CHECK((after.chassis().getLinearVelocity() - velocity).length() < 1e-3);
  CHECK(after.vehicle().settings().steering.maxSteer == doctest::Approx(12));
  CHECK(after.vehicle().settings().brakes.brakeTorque == doctest::Approx(900));

  // It drives on: half a second later it is still moving and finite.
  for (int i = 0; i < 60; ++i) runner.step();
  CHECK(std::isfinite(runner.vehicle(0).chassisTransform().getOrigin().length()));
  CHECK(runner.vehicle(0).vehicle().forwardSpeed() > 2);
}

TEST_CASE("respawning with rejected settings throws and keeps the old vehicle") {
  Scene scene = loadScene(kScenes + "parking.toml");
  SceneRunner runner(scene);
  for (int i = 0; i < 50; ++i) runner.step();
  RaycastVehicle* old = &runner.vehicle(0).vehicle();
  LoadedVehicle broken = runner.vehicle(0).loaded();
  broken.settings.steering.maxSteer = -5;  // out of range
  CHECK_THROWS_AS(runner.respawnVehicle(0, broken), raycar::Error);
  CHECK(&runner.vehicle(0).vehicle() == old);
  CHECK(runner.world().getNumCollisionObjects() == 2);  // the ground and the one car
  runner.step();
}
