#include "raycar/vehicle/RaycastVehicle.h"

#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <LinearMath/btIDebugDraw.h>

#include <algorithm>
#include <cmath>

#include "solver/ContactSolver.h"
#include "parallel/Prefetch.h"
#include "ground/WheelQuery.h"
#include "ground/WheelRaycast.h"
#include "vehicle/WheelWork.h"
#include "raycar/Error.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/vehicle/Suspension.h"

#include "Finite.h"

namespace raycar {
namespace {

// A ray nearly parallel to the ground would turn a small normal speed into a huge suspension
// speed; below this cosine the ratio is held.
constexpr btScalar kMinimumRayNormalCosine = 0.1;

// m: a tire relaxation length below this is taken as 0 (rigid static friction).
constexpr btScalar kShortestRelaxationLength = btScalar(1e-3);

btVector3 groundVelocityAt(const btCollisionObject* object, const btVector3& point) {
  const btRigidBody* body = btRigidBody::upcast(object);
  if (body == nullptr) return btVector3(0, 0, 0);
  return body->getVelocityInLocalPoint(point - body->getCenterOfMassPosition());
}

btScalar wrapAngle(btScalar angle) {
  angle = std::remainder(angle, SIMD_2_PI);
  return angle <= -SIMD_PI ? angle + SIMD_2_PI : angle;
}

}  // namespace

RaycastVehicle::RaycastVehicle(btRigidBody& chassis, VehicleSettings settings)
    : chassis_(&chassis), settings_(std::move(settings)), solver_(std::make_unique<ContactSolver>()) {
  std::vector<std::string> problems = validateVehicleSettings(settings_);
  if (!problems.empty()) throw SettingsError(problems);

  const size_t count = settings_.wheels.size();
  const btVector3 forward = settings_.axes.forward;
  const btVector3 right = settings_.axes.right();
  // The chassis body's frame is its centre-of-mass frame, so attachment points are already
  // measured from the centre of mass.
  std::vector<SupportPoint> support(count);
  for (size_t i = 0; i < count; ++i) {
    support[i].forward = settings_.wheels[i].attachmentPoint.dot(forward);
    support[i].right = settings_.wheels[i].attachmentPoint.dot(right);
  }
  if (!(chassis.getInvMass() > 0) || chassis.isStaticOrKinematicObject())
    throw SettingsError({"chassis: must be a dynamic rigid body (mass > 0, not static or kinematic)"});
  const btScalar gravity = chassis.getGravity().length();
  const btScalar mass = 1 / chassis.getInvMass();
  bool needsStaticLoads = false;
  for (const WheelSettings& wheel : settings_.wheels)
    needsStaticLoads = needsStaticLoads || wheel.stiffness == 0 || wheel.damping <= 0 ||
                       (wheel.tire.loadSensitivity > 0 && wheel.tire.referenceLoad == 0);
  if (needsStaticLoads && !(gravity > 0)) {
    throw SettingsError({"chassis: automatic stiffness, damping and reference loads need the "
                         "chassis' gravity; add the chassis to the world first"});
  }
  const std::vector<btScalar> staticLoads =
      needsStaticLoads ? staticWheelLoads(support, mass * gravity) : std::vector<btScalar>(count, 0);

  wheelSettings_ = settings_.wheels;
  wheels_.resize(count);
  tires_.resize(count);
  work_.resize(count);
  if (settings_.wheelQuery.cache)
    wheelQuery_ = std::make_unique<WheelQuery>(int(count), settings_.wheelQuery);
  contacts_.resize(count);
  solver_->reserve(count);
  frontAxleForward_ = rearAxleForward_ = support[0].forward;
  for (size_t i = 0; i < count; ++i) {
    WheelSettings& wheel = wheelSettings_[i];
    const SuspensionRates rates = resolveSuspensionRates(wheel, staticLoads[i], gravity);
    wheel.stiffness = rates.stiffness;
    wheel.damping = rates.damping;
    WheelState& state = wheels_[i];
    state.staticLoad = staticLoads[i];
    state.stiffness = rates.stiffness;
    state.damping = rates.damping;
    state.suspensionLength = wheel.suspensionMaxLength;
    tires_[i] = makeTireModel(wheel.tire);
    work_[i].referenceLoad = wheel.tire.referenceLoad > 0 ? wheel.tire.referenceLoad : staticLoads[i];
    work_[i].rayLength = wheel.suspensionMaxLength + wheel.radius;
    frontAxleForward_ = std::max(frontAxleForward_, support[i].forward);
    rearAxleForward_ = std::min(rearAxleForward_, support[i].forward);
  }
  // Axle slots: each distinct axle number gets one, in order of first appearance.
  std::vector<int> axleNumbers;
  for (size_t i = 0; i < count; ++i) {
    const int axle = wheelSettings_[i].axle;
    auto found = std::find(axleNumbers.begin(), axleNumbers.end(), axle);
    if (found == axleNumbers.end()) found = axleNumbers.insert(axleNumbers.end(), axle);
    work_[i].axleSlot = int(found - axleNumbers.begin());
  }
  axleWheelCounts_.assign(axleNumbers.size(), 0);
  for (size_t i = 0; i < count; ++i) ++axleWheelCounts_[size_t(work_[i].axleSlot)];
  axleCompressionSums_.assign(axleNumbers.size(), 0);
  buildDrivetrainLayout();
}

RaycastVehicle::~RaycastVehicle() = default;

// ---------------------------------------------------------------------------------------------
// Inputs and queries

void RaycastVehicle::checkWheelIndex(int wheel, const char* what) const {
  if (wheel < 0 || wheel >= wheelCount())
    throw InputError(what, "wheel index " + std::to_string(wheel) + " is out of range [0, " +
                               std::to_string(wheelCount()) + ")");
}

void RaycastVehicle::setDriveTorque(int wheel, btScalar torque) {
  checkWheelIndex(wheel, "drive torque");
  if (!std::isfinite(torque))
    throw InputError("wheel " + std::to_string(wheel + 1), "drive torque is not finite");
  work_[wheel].directDrive = torque;
  wake();
}

void RaycastVehicle::setBrakeTorque(int wheel, btScalar torque) {
  checkWheelIndex(wheel, "brake torque");
  if (!std::isfinite(torque) || torque < 0)
    throw InputError("wheel " + std::to_string(wheel + 1),
                     "brake torque must be finite and >= 0 N m");
  work_[wheel].directBrake = torque;
  wake();
}

void RaycastVehicle::setSteerAngle(int wheel, btScalar angle) {
  checkWheelIndex(wheel, "steer angle");
  if (!std::isfinite(angle) || std::fabs(angle) >= SIMD_HALF_PI)
    throw InputError("wheel " + std::to_string(wheel + 1),
                     "steer angle must be finite and within (-pi/2, pi/2) rad");
  if (angle != 0 && !work_[wheel].steered)
    throw InputError("wheel " + std::to_string(wheel + 1), "is not steered (SteerMode)");
  wheels_[wheel].steerAngle += angle - work_[wheel].directSteer;  // shown at once, not next step
  work_[wheel].directSteer = angle;
  wake();
}

void RaycastVehicle::setHandbrake(bool engaged) {
  handbrake_ = engaged;
  wake();
}

void RaycastVehicle::wake() const {
  // Bullet's activate() alone lets a tired body fall asleep again at once.
  chassis_->activate(true);
}

const WheelSettings& RaycastVehicle::wheelSettings(int wheel) const {
  checkWheelIndex(wheel, "wheel settings");
  return wheelSettings_[wheel];
}

const WheelState& RaycastVehicle::wheelState(int wheel) const {
  checkWheelIndex(wheel, "wheel state");
  return wheels_[wheel];
}

btVector3 RaycastVehicle::worldUp() const {
  return chassis_->getWorldTransform().getBasis() * settings_.axes.up;
}
btVector3 RaycastVehicle::worldForward() const {
  return chassis_->getWorldTransform().getBasis() * settings_.axes.forward;
}
btVector3 RaycastVehicle::worldRight() const {
  return chassis_->getWorldTransform().getBasis() * settings_.axes.right();
}

btVector3 RaycastVehicle::linearVelocity() const {
  return chassis_->getLinearVelocity() + pendingVelocityChange_;
}

void RaycastVehicle::clearWheelQueryCache() {
  if (wheelQuery_) wheelQuery_->clear();
}

int RaycastVehicle::cachedTriangleCount() const {
  return wheelQuery_ ? wheelQuery_->cachedTriangleCount() : 0;
}

btScalar RaycastVehicle::forwardSpeed() const { return linearVelocity().dot(worldForward()); }

btTransform RaycastVehicle::wheelWorldTransform(int wheel) const {
  return wheelWorldTransform(wheel, chassis_->getWorldTransform());
}

btTransform RaycastVehicle::wheelWorldTransform(int wheel,
                                                const btTransform& chassisTransform) const {
  checkWheelIndex(wheel, "wheel transform");
  const WheelSettings& settings = wheelSettings_[wheel];
  const WheelState& state = wheels_[wheel];
  const btVector3 up = settings_.axes.up;
  const btVector3 centre = settings.attachmentPoint - up * state.suspensionLength;
  // Rolling forward turns the top of the wheel forward: a negative rotation about right.
  const btMatrix3x3 steer(btQuaternion(up, state.steerAngle));
  const btMatrix3x3 spin(btQuaternion(settings_.axes.right(), -state.rotationAngle));
  return chassisTransform * btTransform(steer * spin, centre);
}

// ---------------------------------------------------------------------------------------------
// The step

void RaycastVehicle::updateAction(btCollisionWorld* world, btScalar dt) {
  prefetchStepData();
  if (!beginStep(world, dt)) return;
  shapeInput(dt);                      // 1. pedal and steering shaping, wheel steer angles
  queryWheelRays(*world, false);       // 2. one ray per wheel
  castPendingWheelRays(*world);
  applyWheelRays();
  finishStep(dt);                      // 3.-8.
}

bool RaycastVehicle::beginStep(const btCollisionWorld* world, btScalar dt) {
  if (world == nullptr || !(dt > 0) || !std::isfinite(dt)) return false;
  const btTransform& transform = chassis_->getWorldTransform();
  if (!isFinite(transform.getOrigin()) || !isFinite(chassis_->getLinearVelocity()) ||
      !isFinite(chassis_->getAngularVelocity()))
    return false;
  return chassis_->isActive();  // asleep: nothing moves until an input wakes it
}

void RaycastVehicle::prefetchStepData() const {
  prefetchArrays();
  prefetchInternals();
  prefetchCaches();
}

void RaycastVehicle::prefetchArrays() const {
  prefetchObject(*chassis_);
  prefetchArray(wheelSettings_);
  prefetchArray(wheels_);
  prefetchArray(work_);
  prefetchArray(contacts_);
  prefetchObject(*solver_);
  if (wheelQuery_) prefetchObject(*wheelQuery_);
}

void RaycastVehicle::prefetchInternals() const {
  solver_->prefetch();
  if (wheelQuery_) wheelQuery_->prefetchArrays();
}

void RaycastVehicle::prefetchCaches() const {
  if (wheelQuery_) wheelQuery_->prefetchCaches();
}

void RaycastVehicle::finishStep(btScalar dt) {
  updateSuspension();           // 3. lengths, compression speeds, loads
  measureContacts();            // 4. contact frames, velocities, friction
  applyDrivetrainAndBrakes(dt);  // 5. powertrain, differentials, brakes -> wheel torques
  integrateDriveTorque(dt);     // 6. drive torque into wheel spin
  solveContacts(dt);            // 7. impulses on chassis, ground and wheels
  followDrivingWheels();        //    an engaged engine turns with the wheels the solve left
  integrateWheelRotation(dt);   // 8. rotation angle for rendering
}

void RaycastVehicle::followDrivingWheels() {
  btScalar fastest = 0;
  for (int wheel : drivingWheels_)
    if (std::fabs(wheels_[wheel].angularSpeed) > std::fabs(fastest)) fastest = wheels_[wheel].angularSpeed;
  powertrain_->followWheels(fastest);
}

void RaycastVehicle::queryWheelRays(const btCollisionWorld& world, bool offMainThread) {
  const btTransform& transform = chassis_->getWorldTransform();
  const btVector3 down = -(transform.getBasis() * settings_.axes.up);
  btVector3 boxMin, boxMax;  // around all rays
  for (int i = 0; i < wheelCount(); ++i) {
    WheelWork& work = work_[i];
    work.rayFrom = transform * wheelSettings_[i].attachmentPoint;
    work.rayTo = work.rayFrom + down * work.rayLength;
    work.rayPending = true;
    if (i == 0) boxMin = boxMax = work.rayFrom;
    boxMin.setMin(work.rayFrom);
    boxMin.setMin(work.rayTo);
    boxMax.setMax(work.rayFrom);
    boxMax.setMax(work.rayTo);
  }
  if (!wheelQuery_ || wheelCount() == 0 || !wheelQuery_->begin(world, *chassis_, boxMin, boxMax))
    return;
  const btVector3 centerOfMass = chassis_->getCenterOfMassPosition();
  const btScalar lookahead = settings_.wheelQuery.lookahead;
  for (int i = 0; i < wheelCount(); ++i) {
    WheelWork& work = work_[i];
    const btVector3 displacement =
        chassis_->getVelocityInLocalPoint(work.rayFrom - centerOfMass) * lookahead;
    work.rayPending =
        !wheelQuery_->cast(i, work.rayFrom, work.rayTo, displacement, offMainThread, work.rayHit);
  }
}

void RaycastVehicle::castPendingWheelRays(btCollisionWorld& world) {
  for (int i = 0; i < wheelCount(); ++i) {
    if (!work_[i].rayPending) continue;
    work_[i].rayHit = castWheelRay(world, work_[i].rayFrom, work_[i].rayTo, chassis_);
    work_[i].rayPending = 0;
  }
}

bool RaycastVehicle::hasPendingWheelRays() const {
  for (const WheelWork& work : work_)
    if (work.rayPending) return true;
  return false;
}

void RaycastVehicle::applyWheelRays() {
  for (int i = 0; i < wheelCount(); ++i) {
    const WheelSettings& settings = wheelSettings_[i];
    WheelState& state = wheels_[i];
    const WheelRayHit& hit = work_[i].rayHit;
    state.inContact = hit.hit;
    if (!hit.hit) {
      state.contactPoint = work_[i].rayTo;
      state.contactNormal.setZero();
      state.groundObject = nullptr;
      state.suspensionLength = settings.suspensionMaxLength;
      continue;
    }
    state.contactPoint = hit.point;
    state.contactNormal = hit.normal;
    // Last step's impulses belong to last step's ground: a wheel that has rolled onto another
    // body (a box, another car) must not push the new body with them.
    if (hit.object != state.groundObject) contacts_[i].warmStart = false;
    state.groundObject = hit.object;
    const btScalar length = hit.distance - settings.radius;
    work_[i].lengthToContact = length;
    state.suspensionLength = std::clamp(length, btScalar(0), settings.suspensionMaxLength);
  }
}

bool RaycastVehicle::standsOnDynamicBody() const {
  for (const WheelState& state : wheels_) {
    if (!state.inContact) continue;
    const btRigidBody* body = btRigidBody::upcast(state.groundObject);
    if (body != nullptr && !body->isStaticOrKinematicObject() && body->getInvMass() > 0)
      return true;
  }
  return false;
}

void RaycastVehicle::updateSuspension() {
  const btTransform& transform = chassis_->getWorldTransform();
  const btVector3 down = -(transform.getBasis() * settings_.axes.up);
  const btVector3 centerOfMass = chassis_->getCenterOfMassPosition();
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    const WheelSettings& settings = wheelSettings_[i];
    state.suspensionCompression = settings.suspensionMaxLength - state.suspensionLength;
    state.compressionSpeed = 0;
    if (!state.inContact) continue;
    work_[i].groundVelocity = groundVelocityAt(state.groundObject, state.contactPoint);
    work_[i].rayCosine = std::max(-down.dot(state.contactNormal), kMinimumRayNormalCosine);
    // d(length)/dt = (v_attachment - v_ground) . n / (-down . n): the ray's hit distance
    // changes by the normal approach speed divided by the ray's cosine to the surface.
    const btVector3 attachment = transform * settings.attachmentPoint;
    const btVector3 relative =
        chassis_->getVelocityInLocalPoint(attachment - centerOfMass) - work_[i].groundVelocity;
    state.compressionSpeed = -relative.dot(state.contactNormal) / work_[i].rayCosine;
  }
  // The anti-roll bar compares each wheel with the mean of its axle's other wheels: one sum per
  // axle, so the cost grows with the wheel count, not its square.
  std::fill(axleCompressionSums_.begin(), axleCompressionSums_.end(), btScalar(0));
  for (int i = 0; i < wheelCount(); ++i)
    axleCompressionSums_[size_t(work_[i].axleSlot)] += wheels_[i].suspensionCompression;
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    if (!state.inContact) {
      state.normalLoad = 0;
      continue;
    }
    const int slot = work_[i].axleSlot;
    const int others = axleWheelCounts_[size_t(slot)] - 1;
    btScalar force = state.stiffness * state.suspensionCompression;
    if (others > 0 && settings_.stabilizer > 0)
      force += antiRollForce(settings_.stabilizer, state.stiffness, state.suspensionCompression,
                             (axleCompressionSums_[size_t(slot)] - state.suspensionCompression) /
                                 btScalar(others));
    work_[i].springForce = force;
    // The load as the step starts; the solve settles it with the damper's response included.
    state.normalLoad = std::max(btScalar(0), force + state.damping * state.compressionSpeed);
  }
}

void RaycastVehicle::measureContacts() {
  const btTransform& transform = chassis_->getWorldTransform();
  const btVector3 up = transform.getBasis() * settings_.axes.up;
  const btVector3 forward = transform.getBasis() * settings_.axes.forward;
  const btVector3 left = up.cross(forward);
  const btVector3 centerOfMass = chassis_->getCenterOfMassPosition();
  const FrictionRules& rules = settings_.friction;
  const btScalar stickSpeed = settings_.solver.stickSpeed;
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    const WheelSettings& settings = wheelSettings_[i];
    state.locked = handbrake_ && settings.canBrake;
    if (state.locked) state.angularSpeed = 0;
    if (!state.inContact) {
      state.slipRatio = state.slipAngle = 0;
      state.friction = 0;
      state.sliding = false;
      continue;
    }
    const btVector3& normal = state.contactNormal;
    WheelWork& work = work_[i];
    if (state.steerAngle != work.trigSteer) {  // the steering moved: recompute, else reuse
      work.trigSteer = state.steerAngle;
      work.steerCos = std::cos(state.steerAngle);
      work.steerSin = std::sin(state.steerAngle);
    }
    const btVector3 wheelForward = forward * work.steerCos + left * work.steerSin;
    btVector3 longitudinal = wheelForward - normal * normal.dot(wheelForward);
    // A wheel whose forward axis stands on the ground's normal (a wall) has no rolling
    // direction: any tangent will do.
    if (longitudinal.length2() < 1e-6f) {
      btVector3 unused;
      btPlaneSpace1(normal, longitudinal, unused);
    }
    longitudinal.normalize();
    const btVector3 lateral = longitudinal.cross(normal);
    WheelContact& contact = contacts_[i];
    contact.longitudinal = longitudinal;
    contact.lateral = lateral;
    contact.chassisArm = state.contactPoint - centerOfMass;

    const btVector3 relative =
        chassis_->getVelocityInLocalPoint(contact.chassisArm) - work_[i].groundVelocity;
    const btScalar forwardSpeed = relative.dot(longitudinal);
    const btScalar sideSpeed = relative.dot(lateral);
    const btScalar surfaceSlip = forwardSpeed - settings.radius * state.angularSpeed;
    state.sliding = std::sqrt(surfaceSlip * surfaceSlip + sideSpeed * sideSpeed) > rules.slipThreshold;

    // Seed 001: (tire + ground) / 2 clamped to [min, max], then the modifiers.
    const btScalar groundFriction = state.groundObject->getFriction();
    btScalar friction = std::clamp((settings.tire.friction + groundFriction) / 2,
                                   settings.minFriction, settings.maxFriction);
    work.baseFriction = friction;
    friction *= loadSensitivityFactor(settings.tire.loadSensitivity, state.normalLoad,
                                      work_[i].referenceLoad);
    // dyn_friction_ratio reduces the friction of sliding Coulomb contacts: static rows, the
    // handbrake's box, tires without slip curves. Slip curves fall to their sliding value
    // themselves.
    btScalar coulombFriction = friction;
    if (state.sliding) coulombFriction *= rules.dynamicFrictionRatio;
    if (state.locked)
      coulombFriction = std::min(coulombFriction * rules.handbrakeFrictionScale,
                                 rules.maxBrakingFriction);
    if (!tires_[i]->hasOwnSlidingFriction()) friction = coulombFriction;
    state.friction = state.locked ? coulombFriction : friction;

    contact.tireContact.friction = friction;
    contact.coulombScale = friction > 0 ? coulombFriction / friction : 0;
    contact.tireContact.normalLoad = state.normalLoad;
    contact.tireContact.forwardSpeed = forwardSpeed;
    contact.lateralSpeed = sideSpeed;  // until the solve replaces it with its own result
    // Static friction while the contact barely moves over the ground and the row barely slips.
    const bool slow = forwardSpeed * forwardSpeed + sideSpeed * sideSpeed < stickSpeed * stickSpeed;
    contact.staticLongitudinal = slow && std::fabs(surfaceSlip) < stickSpeed;
    contact.staticLateral = slow;
    // The carcass spring that static friction is solved as (TireSettings::relaxationLength),
    // needed only where a row can stick: slow, handbraked, or a tire without slip laws. Below a
    // millimetre the spring would be stiffer than anything a step resolves (and its reciprocal
    // overflows): such a tire is rigid static friction, as 0 asks.
    const bool mayStick = slow || state.locked || !tires_[i]->hasOwnSlidingFriction();
    const btScalar relaxationLength =
        mayStick && settings.tire.relaxationLength >= kShortestRelaxationLength
            ? settings.tire.relaxationLength
            : 0;
    contact.longitudinalStickStiffness =
        relaxationLength > 0 ? tires_[i]->slipStiffness(contact.tireContact, true) / relaxationLength : 0;
    contact.lateralStickStiffness =
        relaxationLength > 0 ? tires_[i]->slipStiffness(contact.tireContact, false) / relaxationLength : 0;
  }
}

void RaycastVehicle::integrateDriveTorque(btScalar dt) {
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    if (state.locked) continue;
    const btScalar before = state.angularSpeed;
    btScalar after = before + state.driveTorque * dt / wheelSettings_[i].spinInertia;
    // The engine's torque is gone at its max rpm: drive torque spins a wheel up to that speed,
    // not past it (a wheel already faster keeps its speed; engine braking slows it).
    const btScalar limit = work_[i].engineSpinLimit;
    if (std::fabs(after) > limit && std::fabs(after) > std::fabs(before))
      after = std::copysign(std::max(limit, std::fabs(before)), after);
    state.angularSpeed = after;
  }
}

int RaycastVehicle::groundBodyIndex(btRigidBody* body) {
  std::vector<SolverBody>& bodies = solver_->groundBodies();
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].body == body) return int(i);
  bodies.emplace_back();  // capacity reserved for one body per wheel: no allocation
  return int(bodies.size() - 1);
}

void RaycastVehicle::solveContacts(btScalar dt) {
  solver_->groundBodies().clear();
  for (int i = 0; i < wheelCount(); ++i) {
    const WheelSettings& settings = wheelSettings_[i];
    const WheelState& state = wheels_[i];
    WheelContact& contact = contacts_[i];
    contact.active = state.inContact;
    contact.radius = settings.radius;
    contact.inverseSpinInertia = state.locked ? 0 : 1 / settings.spinInertia;
    contact.angularSpeed = state.angularSpeed;
    const btScalar rolling =
        state.inContact ? rollingResistanceTorque(settings_.aero, state.normalLoad, settings.radius) : 0;
    contact.brakeImpulseLimit = (state.brakeTorque + rolling) * dt;
    if (!state.inContact) continue;
    contact.normal = state.contactNormal;
    // Explicit damping (integration_type 0) folds the measured damper force into the spring's.
    const bool implicitDamper = settings_.solver.implicitDamper;
    contact.springForce = work_[i].springForce + (implicitDamper ? 0 : state.damping * state.compressionSpeed);
    contact.damping = implicitDamper ? state.damping : 0;
    contact.springStiffness = state.stiffness * (1 + settings_.stabilizer);
    contact.rayCosine = work_[i].rayCosine;
    // The bump stop row joins when full compression is within two steps' closing travel (plus
    // 2 cm); further away it could not act anyway.
    const btScalar toFullCompression = work_[i].lengthToContact;
    contact.bumpStopActive =
        toFullCompression < 2 * std::max(state.compressionSpeed, btScalar(0)) * dt + btScalar(0.02);
    contact.bumpStopGap = toFullCompression * work_[i].rayCosine;
    contact.tire = tires_[i].get();
    contact.boxFriction = state.locked;
    contact.groundBody = -1;
    btRigidBody* ground = btRigidBody::upcast(const_cast<btCollisionObject*>(state.groundObject));
    if (ground != nullptr && !ground->isStaticOrKinematicObject() && ground->getInvMass() > 0) {
      contact.groundBody = groundBodyIndex(ground);
      SolverBody& body = solver_->groundBodies()[contact.groundBody];
      if (body.body != ground) body.load(ground, dt);
      contact.groundArm = state.contactPoint - body.centerOfMass;
    } else {
      contact.groundVelocity = work_[i].groundVelocity;
    }
  }

  SolverBody chassis;
  chassis.load(chassis_, dt);
  pendingVelocityChange_ = chassis.predictedLinearChange;
  // Aerodynamics act on the chassis alone: drag at the centre of mass, downforce between the
  // axles by its front share (seed 004, step 9).
  const AeroSettings& aero = settings_.aero;
  // Drag, implicit in the speed (v' = v / (1 + rho CdA |v| dt / (2 m))): it slows the chassis by
  // at most its whole velocity, whatever the mass; applied explicitly, a 0.1 g chassis reversed
  // and diverged on its first step.
  chassis.linearVelocity /=
      1 + btScalar(0.5) * aero.airDensity * aero.dragArea * chassis.linearVelocity.length() *
              chassis.inverseMass * dt;
  const btScalar downforceMagnitude = downforce(aero, chassis.linearVelocity.dot(worldForward()));
  if (downforceMagnitude > 0) {
    const btScalar point = aero.downforceFrontShare * frontAxleForward_ +
                           (1 - aero.downforceFrontShare) * rearAxleForward_;
    chassis.applyImpulse(-worldUp() * (downforceMagnitude * dt), worldForward() * point);
  }

  solver_->solve(chassis, contacts_, couplings_, dt, settings_.solver);

  chassis_->setLinearVelocity(chassis.linearVelocity);
  chassis_->setAngularVelocity(chassis.angularVelocity);
  for (SolverBody& ground : solver_->groundBodies()) {
    ground.body->setLinearVelocity(ground.linearVelocity);
    ground.body->setAngularVelocity(ground.angularVelocity);
    ground.body->activate();
  }
  for (int i = 0; i < wheelCount(); ++i) {
    WheelState& state = wheels_[i];
    const WheelSettings& settings = wheelSettings_[i];
    const WheelContact& contact = contacts_[i];
    state.angularSpeed = contact.angularSpeed;
    if (!state.inContact) {
      state.longitudinalForce = state.lateralForce = state.utilization = 0;
      work_[i].solvedLoad = 0;
      continue;
    }
    state.normalLoad = contact.normalImpulse() / dt;
    work_[i].solvedLoad = state.normalLoad;
    // Slips as the solved forces see them (the ones measured before the solve lead them by a step).
    state.slipRatio = slipRatio(contact.forwardSpeed, settings.radius * state.angularSpeed,
                                settings.tire.slipRatioEpsilon);
    state.slipAngle = slipAngle(contact.forwardSpeed, contact.lateralSpeed,
                                settings.tire.slipAngleEpsilon);
    state.longitudinalForce = contact.longitudinalImpulse / dt;
    state.lateralForce = contact.lateralImpulse / dt;
    const btScalar x = contact.longitudinalLimit > 0
                           ? contact.longitudinalImpulse / contact.longitudinalLimit : 0;
    const btScalar y = contact.lateralLimit > 0 ? contact.lateralImpulse / contact.lateralLimit : 0;
    state.utilization = std::sqrt(x * x + y * y);
  }
}

void RaycastVehicle::integrateWheelRotation(btScalar dt) {
  for (WheelState& state : wheels_)
    state.rotationAngle = wrapAngle(state.rotationAngle + state.angularSpeed * dt);
}

// ---------------------------------------------------------------------------------------------
// Debug drawing: suspension, wheel rims, contact normal, and the tire forces of seed 004
// (Fx blue, Fy green), scaled so that a force equal to the wheel's static load is 1 m long.

void RaycastVehicle::debugDraw(btIDebugDraw* drawer) {
  if (drawer == nullptr) return;
  const btTransform& transform = chassis_->getWorldTransform();
  const btVector3 suspensionColour(1, 1, 0), rimColour(0.8f, 0.8f, 0.8f);
  const btVector3 normalColour(1, 0, 0), longitudinalColour(0, 0, 1), lateralColour(0, 1, 0);
  for (int i = 0; i < wheelCount(); ++i) {
    const WheelSettings& settings = wheelSettings_[i];
    const WheelState& state = wheels_[i];
    const btTransform wheel = wheelWorldTransform(i, transform);
    drawer->drawLine(transform * settings.attachmentPoint, wheel.getOrigin(), suspensionColour);
    const btVector3 axle = wheel.getBasis() * settings_.axes.right();
    const btVector3 spoke = wheel.getBasis() * settings_.axes.up;
    drawer->drawArc(wheel.getOrigin(), axle, spoke, settings.radius, settings.radius, 0, SIMD_2_PI,
                    rimColour, false);
    drawer->drawLine(wheel.getOrigin(), wheel.getOrigin() + spoke * settings.radius, rimColour);
    if (!state.inContact) continue;
    const btScalar scale = state.staticLoad > 0 ? 1 / state.staticLoad : btScalar(1e-3);
    const WheelContact& contact = contacts_[i];
    const btVector3& point = state.contactPoint;
    drawer->drawLine(point, point + state.contactNormal * (state.normalLoad * scale), normalColour);
    drawer->drawLine(point, point + contact.longitudinal * (state.longitudinalForce * scale),
                     longitudinalColour);
    drawer->drawLine(point, point + contact.lateral * (state.lateralForce * scale), lateralColour);
  }
}

}  // namespace raycar
