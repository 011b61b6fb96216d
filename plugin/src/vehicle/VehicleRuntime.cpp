#include "vehicle/VehicleRuntime.h"

#include <algorithm>
#include <cmath>

#include "Finite.h"
#include "MinMax.h"
#include "Prefetch.h"
#include "raycar/Error.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/vehicle/Suspension.h"

namespace raycar {
namespace {

// The ground object as a body the solve pushes: dynamic, with mass; null for static and
// kinematic ground (whose velocity field is given) and for objects that are no rigid body.
btRigidBody* pushableBody(const btCollisionObject* object) {
  btRigidBody* body = btRigidBody::upcast(const_cast<btCollisionObject*>(object));
  if (body == nullptr || body->isStaticOrKinematicObject() || !(body->getInvMass() > 0)) return nullptr;
  return body;
}

std::shared_ptr<const VehicleSettings> validated(std::shared_ptr<const VehicleSettings> settings) {
  if (!settings) throw SettingsError({"vehicle: no settings (a null pointer)"});
  std::vector<std::string> problems = validateVehicleSettings(*settings);
  if (!problems.empty()) throw SettingsError(problems);
  return settings;
}

// A spring rate the script gives (not the automatic one) must hold the wheel's static load within
// its travel: softer, the car rests on its bump stops, with no suspension left (a city car on
// 2500 N/m springs sagged 0.64 m against 0.45 m of travel and could not climb a 10 cm kerb).
// And a tire must grip at its static load: a trial's 40 t truck on the default tire (nominal
// load 4000 N) gripped with nothing on its rear wheels and rolled down a 20% grade on its
// handbrake. Only where the static loads are defined (`staticLoads` empty: not a trailer on one
// axle).
void checkStaticLoadsCarried(const VehicleSettings& settings, const std::vector<btScalar>& staticLoads) {
  std::vector<std::string> problems;
  for (const SettingsProblem& problem : springsShortOfTheirLoads(settings.wheels, staticLoads))
    problems.push_back(problem.text());
  for (size_t i = 0; i < settings.wheels.size() && i < staticLoads.size(); ++i)
    if (const auto problem = gripAtRestProblem(settings.wheels[i].tire, staticLoads[i], int(i)))
      problems.push_back(problem->text());
  if (!problems.empty()) throw SettingsError(problems);
}

// The static loads (N) where the wheels' support defines them, else none.
std::vector<btScalar> staticLoadsIfDefined(const std::vector<SupportPoint>& support, btScalar weight) {
  try {
    return staticWheelLoads(support, weight);
  } catch (const SettingsError&) {
    return {};
  }
}

// The wheels with their automatic stiffness, damping and reference loads resolved from the
// static loads of the chassis' weight, their tire models and ground queries.
WheelArray buildWheels(const btRigidBody& chassis, const VehicleSettings& settings,
                       std::pmr::memory_resource& memory) {
  if (!(chassis.getInvMass() > 0) || chassis.isStaticOrKinematicObject())
    throw SettingsError({"chassis: must be a dynamic rigid body (mass > 0, not static or kinematic)"});
  const size_t count = settings.wheels.size();
  const btVector3 left = -settings.axes.right();
  const std::vector<SupportPoint> support = supportPoints(settings);
  const btScalar gravity = chassis.getGravity().length();
  const btScalar mass = 1 / chassis.getInvMass();
  const bool needsLoads = needsStaticLoads(settings);
  if (needsLoads && !(gravity > 0)) {
    throw SettingsError({"chassis: automatic stiffness, damping and reference loads need the "
                         "chassis' gravity; add the chassis to the world first"});
  }
  const std::vector<btScalar> staticLoads =
      needsLoads ? staticWheelLoads(support, mass * gravity) : std::vector<btScalar>(count, 0);
  checkStaticLoadsCarried(settings, needsLoads ? staticLoads : staticLoadsIfDefined(support, mass * gravity));

  WheelArray wheels(settings, memory);
  for (size_t i = 0; i < count; ++i) {
    Wheel& wheel = wheels[i];
    const SuspensionRates rates = resolveSuspensionRates(wheel.settings, staticLoads[i], gravity);
    wheel.suspensionStiffness = rates.stiffness;
    wheel.suspensionDamping = rates.damping;
    wheel.forwardPosition = support[i].forward;
    wheel.leftPosition = wheel.settings.attachmentPoint.dot(left);
    wheel.outward = wheel.leftPosition > 0 ? btScalar(-1) : btScalar(1);
    wheel.state.staticLoad = staticLoads[i];
    wheel.state.tireTemperature = wheel.settings.tire.thermal.ambientTemperature;
    wheel.state.suspensionLength = wheel.settings.suspensionMaxLength;
    wheel.tire = makeTireModel(wheel.settings.tire);
    wheel.referenceLoad =
        wheel.settings.tire.referenceLoad > 0 ? wheel.settings.tire.referenceLoad : staticLoads[i];
    wheel.sweepLength = wheel.settings.suspensionMaxLength + wheel.settings.radius;
  }
  return wheels;
}

}  // namespace

VehicleRuntime::VehicleRuntime(btRigidBody& chassisBody,
                               std::shared_ptr<const VehicleSettings> vehicleSettings,
                               std::pmr::memory_resource& wheelMemory)
    : chassis(&chassisBody),
      sharedSettings(validated(std::move(vehicleSettings))),
      settings(*sharedSettings),
      layout(layoutFingerprint(settings)),
      wheels(buildWheels(chassisBody, settings, wheelMemory)),
      steering(settings.steering, wheels),
      drivetrain(settings, wheels),
      suspension(settings, wheels),
      aero(settings.aero, wheels),
      stability(settings.assists, steering.wheelbase()) {
  usesNearbyGround = std::any_of(wheels.begin(), wheels.end(), [](const Wheel& wheel) {
    return wheel.nearbyGround;
  });
}

// ---------------------------------------------------------------------------------------------
// The stages

void VehicleRuntime::resetMotion() {
  pendingVelocityChange.setZero();
  stillTime = 0;  // (a raised sleep threshold is put back by the next step)
  steering.resetMotion();
  drivetrain.resetMotion();
  stability.resetMotion();
  solver.forgetExpectedVelocity();
  for (Wheel& wheel : wheels) wheel.resetMotion();
}

VehicleRuntime::Start VehicleRuntime::beginStep(const btCollisionWorld& world, bool mayReadDynamicBodies) {
  // A chassis the game took out of the world (its vehicle still in a group, or still an action)
  // has no broadphase handle: nothing moves it, and the car would push it through the air.
  if (chassis->getBroadphaseHandle() == nullptr) return Start::Skip;
  // Nor does a chassis in another world than the one stepping its vehicle (the car half moved
  // to another level): it would stand on this world's ground while flying through its own.
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  const int index = chassis->getWorldArrayIndex();
  if (index < 0 || index >= objects.size() || objects[index] != chassis) return Start::Skip;
  if (&world != lastWorld) {
    forgetGroundCaches();
    lastWorld = &world;
  }
  const btTransform& transform = chassis->getWorldTransform();
  if (!isFinite(transform.getOrigin()) || !isFinite(chassis->getLinearVelocity()) ||
      !isFinite(chassis->getAngularVelocity()))
    return Start::Skip;
  chassisIntegrated = chassis->isActive();
  if (chassisIntegrated) return Start::Step;
  // Frozen by the game (DISABLE_SIMULATION): nothing wakes it but the game.
  if (chassis->getActivationState() != ISLAND_SLEEPING) return Start::Skip;
  // Asleep: nothing moves until an input wakes it, or its ground moves or goes.
  switch (sleepingGround(world, mayReadDynamicBodies)) {
    case SleepingGround::Unchanged: return Start::Skip;
    case SleepingGround::ReadsDynamicBody: return Start::OnMainThread;
    case SleepingGround::Changed: break;
  }
  stillTime = 0;
  chassis->activate(true);
  return Start::Step;
}

namespace {
// Whether `ground` is where a wheel's contact was: a ray through the contact point along the
// contact's normal, kContactProbe (m) either side, meets it.
constexpr btScalar kContactProbe = btScalar(0.05);
bool meetsContact(const btCollisionObject& ground, const WheelState& contact) {
  const btVector3 from = contact.contactPoint + contact.contactNormal * kContactProbe;
  const btVector3 to = contact.contactPoint - contact.contactNormal * kContactProbe;
  btCollisionWorld::ClosestRayResultCallback hit(from, to);
  btCollisionWorld::rayTestSingle(btTransform(btQuaternion::getIdentity(), from),
                                  btTransform(btQuaternion::getIdentity(), to),
                                  const_cast<btCollisionObject*>(&ground), ground.getCollisionShape(),
                                  ground.getWorldTransform(), hit);
  return hit.hasHit();
}
}  // namespace

VehicleRuntime::SleepingGround VehicleRuntime::sleepingGround(const btCollisionWorld& world,
                                                              bool mayReadDynamicBodies) const {
  // The wheels' ground objects are those of the last step the car was awake, and any of them
  // may have been removed (and freed) since: each is looked for by its number (the wheel's
  // ground key, which a restored state brings back too) among the objects the broadphase holds
  // around the contacts, and read only as found there.
  bool touches = false;
  btVector3 boxMin, boxMax;
  for (const Wheel& wheel : wheels) {
    if (!wheel.state.inContact) continue;
    const btVector3& point = wheel.state.contactPoint;
    if (!touches) boxMin = boxMax = point;
    setMinPerAxis(boxMin, point);
    setMaxPerAxis(boxMax, point);
    touches = true;
  }
  if (!touches) return SleepingGround::Unchanged;
  NearbyGround& nearby = NearbyGround::forThisThread();
  const bool gathered = nearby.gather(world, *chassis, boxMin, boxMax);
  const btCollisionObjectArray& all = world.getCollisionObjectArray();
  for (const Wheel& wheel : wheels) {
    if (!wheel.state.inContact) continue;
    const btCollisionObject* ground = nullptr;
    if (gathered) {
      for (const NearbyObject& object : nearby.objects())
        if (Wheel::groundKeyOf(object.object) == wheel.groundKey) {
          ground = object.object;
          break;
        }
    } else {  // another broadphase, or a crowd around the car: the world's own list
      for (int i = 0; i < all.size(); ++i)
        if (Wheel::groundKeyOf(all[i]) == wheel.groundKey) {
          ground = all[i];
          break;
        }
      // Other broadphases (btAxisSweep3, btSimpleBroadphase) give a removed object's number to
      // the next one added, wherever it is: the object found by the number must still be under
      // the wheel. A car asleep on a ground the game removed, then added a crate 100 m away,
      // had stayed asleep in the air.
      if (ground != nullptr && !meetsContact(*ground, wheel.state)) ground = nullptr;
    }
    if (ground == nullptr) return SleepingGround::Changed;
    if (!mayReadDynamicBodies && pushableBody(ground) != nullptr) return SleepingGround::ReadsDynamicBody;
    if (!groundVelocityAt(ground, wheel.state.contactPoint).isZero()) return SleepingGround::Changed;
  }
  return SleepingGround::Unchanged;
}

void VehicleRuntime::shapeInput(btScalar dt) {
  steering.update(input.steer, input.pedal, forwardSpeed(), dt, wheels);
}

namespace {
// A wheel's sweep from its suspension top, and the box around all of a car's sweeps grown to
// hold it: one definition for queryNearbyGround and nearbyBox, whose boxes must agree to the bit.
// Returns the wheel's query's reach (m, 0 for a ray).
inline btScalar sweepWheel(const btTransform& transform, const btVector3& down, const Wheel& wheel,
                           bool firstWheel, GroundSweep& sweep, btVector3& boxMin, btVector3& boxMax) {
  sweep.from = transform * wheel.settings.attachmentPoint;
  sweep.to = sweep.from + down * wheel.sweepLength;
  const btScalar reach = wheel.ground().reach();  // 0 for a ray
  const btVector3 pad(reach, reach, reach);
  if (firstWheel) boxMin = boxMax = sweep.from;
  setMinPerAxis(boxMin, sweep.from - pad);
  setMinPerAxis(boxMin, sweep.to - pad);
  setMaxPerAxis(boxMax, sweep.from + pad);
  setMaxPerAxis(boxMax, sweep.to + pad);
  return reach;
}
}  // namespace

bool VehicleRuntime::nearbyBox(btVector3& boxMin, btVector3& boxMax) const {
  if (!usesNearbyGround || wheels.empty()) return false;
  const btTransform& transform = chassis->getWorldTransform();
  const btVector3 down = -(transform.getBasis() * settings.axes.up);
  GroundSweep sweep;
  for (size_t i = 0; i < wheels.size(); ++i)
    sweepWheel(transform, down, wheels[i], i == 0, sweep, boxMin, boxMax);
  return true;
}

void VehicleRuntime::queryNearbyGround(const btCollisionWorld& world, bool offMainThread,
                                       NearbyBatchSlot batched) {
  const btTransform& transform = chassis->getWorldTransform();
  const btVector3 down = -(transform.getBasis() * settings.axes.up);
  const btVector3 forward = transform.getBasis() * settings.axes.forward;
  const btVector3 right = forward.cross(-down);
  btVector3 boxMin, boxMax;  // around all sweeps
  for (size_t i = 0; i < wheels.size(); ++i) {
    Wheel& wheel = wheels[i];
    GroundSweep& sweep = wheel.sweep;
    const btScalar reach = sweepWheel(transform, down, wheel, i == 0, sweep, boxMin, boxMax);
    wheel.groundPending = true;
    if (reach > 0) {  // a shape: it turns with the steering (a left turn swings right forward)
      wheel.updateSteerTrig();
      sweep.axle = right * wheel.steerCos + forward * wheel.steerSin;
    }
  }
  if (!usesNearbyGround || wheels.empty()) return;
  NearbyGround& nearby = NearbyGround::forThisThread();
  if (!nearby.gather(world, *chassis, boxMin, boxMax, batched)) return;
  const btVector3 centerOfMass = chassis->getCenterOfMassPosition();
  const btScalar lookahead = settings.wheelQuery.lookahead;
  for (Wheel& wheel : wheels) {
    if (!wheel.nearbyGround) continue;
    wheel.sweep.displacement =
        chassis->getVelocityInLocalPoint(wheel.sweep.from - centerOfMass) * lookahead;
    wheel.groundPending =
        !wheel.ground().castNearby(nearby, wheel.sweep, offMainThread, wheel.groundHit);
  }
}

bool VehicleRuntime::groundPending() const {
  for (const Wheel& wheel : wheels)
    if (wheel.groundPending) return true;
  return false;
}

void VehicleRuntime::queryWorldGround(btCollisionWorld& world) {
  for (Wheel& wheel : wheels) {
    if (!wheel.groundPending) continue;
    wheel.groundHit = wheel.ground().castInWorld(world, wheel.sweep, chassis);
    wheel.groundPending = false;
  }
}

void VehicleRuntime::applyGroundHits() {
  for (Wheel& wheel : wheels) wheel.applyGroundHit();
}

bool VehicleRuntime::standsOnDynamicBody() const {
  for (const Wheel& wheel : wheels)
    if (wheel.state.inContact && pushableBody(wheel.state.groundObject) != nullptr) return true;
  return false;
}

void VehicleRuntime::measureContacts(btScalar dt) {
  const btMatrix3x3& basis = chassis->getWorldTransform().getBasis();
  const btVector3 up = basis * settings.axes.up;
  const btVector3 forward = basis * settings.axes.forward;
  const btVector3 left = up.cross(forward);
  const UnpredictedMotion unpredicted = solver.unpredictedMotion(*chassis, dt);
  for (Wheel& wheel : wheels)
    wheel.measureContact(*chassis, forward, left, settings.friction, settings.solver.stickSpeed,
                         handbrake, surfaces.get(), unpredicted);
}

int VehicleRuntime::groundBodyIndex(btRigidBody* body) {
  std::vector<SolverBody>& bodies = solver.groundBodies();
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].body == body) return int(i);
  bodies.emplace_back();  // room for one body per wheel (ContactSolver::beginStep)
  return int(bodies.size() - 1);
}

void VehicleRuntime::solveContacts(btScalar dt) {
  solver.beginStep(wheels.size());
  suspension.prepareContacts(wheels, dt);
  const EngineSpinCoupling& engine = drivetrain.engineCoupling();
  for (size_t i = 0; i < wheels.size(); ++i) {
    Wheel& wheel = wheels[i];
    wheel.prepareContact(settings.aero, surfaces.get(), dt);
    // A driving wheel tied to the engine through a locked clutch answers a push with the
    // engine's share of inertia too (ContactSolver.h, EngineSpinCoupling).
    wheel.contact.inverseSpinInertia =
        engine.selfInverseInertia(int(i), wheel.contact.inverseSpinInertia);
    if (!wheel.state.inContact) continue;
    WheelContact& contact = wheel.contact;
    contact.groundBody = -1;
    if (btRigidBody* ground = pushableBody(wheel.state.groundObject)) {
      contact.groundBody = groundBodyIndex(ground);
      SolverBody& body = solver.groundBodies()[size_t(contact.groundBody)];
      if (body.body != ground) body.load(ground, dt);
      contact.groundArm = wheel.state.contactPoint - body.centerOfMass;
    } else {
      contact.groundVelocity = wheel.groundVelocity;
    }
  }

  SolverBody body;
  body.load(chassis, dt);
  // A step that follows none of this car's solves (its first, or after resetMotion, a restore of
  // such a state, or a skipped step): no solve foresaw what the chassis' forces (gravity) added
  // over the step Bullet has just integrated, as each solve foresees the next step's, so a car
  // put down at its rest pose dropped by them and bobbed (the bundled cars 3 to 5 mm at 1/120 s).
  // Taken back here as a step before would have, while a wheel's spring carries the car (not a
  // car falling onto its wheels, which reach the ground at full extension) and Bullet moved it
  // (a chassis woken in this step's beginStep was asleep through the integration).
  auto carried = [this] {
    return std::any_of(wheels.begin(), wheels.end(), [](const Wheel& wheel) {
      return wheel.state.inContact && wheel.state.suspensionLength < wheel.settings.suspensionMaxLength;
    });
  };
  if (!solver.expectsVelocity() && chassisIntegrated && carried()) {
    body.linearVelocity -= body.predictedLinearChange;
    body.angularVelocity -= body.predictedAngularChange;
  }
  pendingVelocityChange = body.predictedLinearChange;
  aero.apply(body, worldForward(), worldUp(), dt);
  solver.solve(body, WheelContacts::of(wheels, &Wheel::contact), drivetrain.couplings(),
               engine, dt, settings.solver);

  for (Wheel& wheel : wheels) {
    wheel.readSolvedContact(dt);
    // The tires' aligning moments, from the forces just solved (a step's lag on a moment a few
    // per cent of the lateral force's own): on the chassis, and back on a dynamic ground.
    if (wheel.pneumaticMoment == 0) continue;
    const btVector3 angularImpulse = wheel.contact.normal * (wheel.pneumaticMoment * dt);
    body.applyAngularImpulse(angularImpulse);
    if (wheel.contact.groundBody >= 0)
      solver.groundBodies()[size_t(wheel.contact.groundBody)].applyAngularImpulse(-angularImpulse);
  }
  chassis->setLinearVelocity(body.linearVelocity);
  chassis->setAngularVelocity(body.angularVelocity);
  prepareSleep(body, dt);
  for (SolverBody& ground : solver.groundBodies()) {
    ground.body->setLinearVelocity(ground.linearVelocity);
    ground.body->setAngularVelocity(ground.angularVelocity);
    ground.body->activate();
  }
}

bool VehicleRuntime::standsStill(const SolverBody& body) const {
  // As the car moves, not as its chassis holds (less the gravity the next step adds), and
  // nothing about to move it: no pedal (held or still ramping), no torque of the game's on a
  // wheel, no wheel turning, no ground moving under a wheel (a platform, a body). A wheel in the
  // air does not keep a car that stands on the others awake; a falling chassis does.
  // The solve cancels the gravity to come only where wheels carry the car. A car no wheel
  // touches (on its roof, on its side) rests, if at all, on Bullet's own contacts, which cancel
  // it within Bullet's next step: its velocity is the one it holds, as for any body (with the
  // gravity to come added, a car on its roof seemed to fall at g dt for ever, never slept, and
  // crept 3 mm in 10 s).
  const bool wheelsCarry = std::any_of(wheels.begin(), wheels.end(),
                                       [](const Wheel& wheel) { return wheel.state.inContact; });
  const btVector3 linear =
      wheelsCarry ? body.linearVelocity + body.predictedLinearChange : body.linearVelocity;
  const btVector3 angular =
      wheelsCarry ? body.angularVelocity + body.predictedAngularChange : body.angularVelocity;
  const btScalar linearThreshold = chassis->getLinearSleepingThreshold();
  const btScalar angularThreshold = chassis->getAngularSleepingThreshold();
  if (input.pedal != 0 || steering.pedal() != 0) return false;
  if (!(linear.length2() < linearThreshold * linearThreshold) ||
      !(angular.length2() < angularThreshold * angularThreshold))
    return false;
  for (const Wheel& wheel : wheels) {
    if (wheel.directDrive != 0 || (wheel.state.inContact && !wheel.groundVelocity.isZero()))
      return false;
    if (!(std::fabs(wheel.state.angularSpeed * wheel.settings.radius) < linearThreshold)) return false;
  }
  return true;
}

void VehicleRuntime::prepareSleep(const SolverBody& body, btScalar dt) {
  // Bullet decides sleep right after the actions, from the velocity a body holds, and a car's
  // chassis holds its own less the gravity the next step adds (ContactSolver.h): a parked car
  // g dt upwards, 0.08 m/s at 1/120 s, above a script's 0.04 m/s sleep_speed_vehicle, so it
  // never slept; under Bullet's 0.8 m/s default, a car revving against its brakes did. So the
  // car decides: it times its own stillness (standsStill), keeps Bullet's timer at zero while it
  // moves, and once it has been still for Bullet's deactivation time, raises its chassis' linear
  // threshold above the velocity it holds for Bullet's test at the end of this step, with the
  // time it has waited. Bullet then puts it to sleep with its island (cars whose boxes overlap
  // share one: each passes the test every step from its own wait on, until all of them do).
  // The raised threshold lasts until the car's next update (putBackSleepThreshold, asleep or
  // not) or restore, which put the game's back unless the game has set another meanwhile. A car
  // that stops being still is unmarked, should Bullet have marked it for its island's sleep.
  const bool maySleep = chassis->getActivationState() != DISABLE_DEACTIVATION &&
                        !gDisableDeactivation && gDeactivationTime > 0;
  if (!maySleep || !standsStill(body)) {
    stillTime = 0;
    chassis->setDeactivationTime(0);
    // Marked for sleep while it waited with cars it shares an island with: not any more.
    if (chassis->getActivationState() == WANTS_DEACTIVATION) chassis->setActivationState(ACTIVE_TAG);
    return;
  }
  stillTime += dt;
  if (stillTime <= gDeactivationTime) return;
  const btScalar threshold = chassis->getLinearSleepingThreshold();
  const btScalar held = chassis->getLinearVelocity().length();
  if (threshold > 0 && !(held < threshold)) {
    replacedSleepThreshold = threshold;
    raisedSleepThreshold = held + threshold;
    chassis->setSleepingThresholds(raisedSleepThreshold, chassis->getAngularSleepingThreshold());
  }
  chassis->setDeactivationTime(stillTime);
}

void VehicleRuntime::putBackSleepThreshold() {
  if (!(raisedSleepThreshold > 0)) return;
  if (chassis->getLinearSleepingThreshold() == raisedSleepThreshold)
    chassis->setSleepingThresholds(replacedSleepThreshold, chassis->getAngularSleepingThreshold());
  raisedSleepThreshold = replacedSleepThreshold = 0;
}

void VehicleRuntime::rotateWheels(btScalar dt) {
  for (Wheel& wheel : wheels) wheel.rotate(dt);
}

// ---------------------------------------------------------------------------------------------
// Prefetching

void VehicleRuntime::prefetchStepStart() const {
  prefetchObject(*this);
  prefetchArrays();
  prefetchCaches();
}

void VehicleRuntime::prefetchArrays() const {
  prefetchObject(*chassis);
  prefetchBytes(wheels.begin(), wheels.size() * sizeof(Wheel));  // with each one's ground query
}

void VehicleRuntime::prefetchCaches() const {
  for (const Wheel& wheel : wheels) wheel.ground().prefetchCaches();
}

}  // namespace raycar
