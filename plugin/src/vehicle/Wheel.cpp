#include "vehicle/Wheel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>

#include "raycar/vehicle/Aero.h"

namespace raycar {
namespace {
// m: a tire relaxation length below this is taken as 0 (rigid static friction).
constexpr btScalar kShortestRelaxationLength = btScalar(1e-3);

btScalar wrapAngle(btScalar angle) {
  // remainder() returns an angle within [-pi, pi] unchanged, so it is asked only about the
  // others (a wheel passes pi once a turn; the call had been a third of the wheels' rotation).
  if (!(std::fabs(angle) <= SIMD_PI)) angle = std::remainder(angle, SIMD_2_PI);
  return angle <= -SIMD_PI ? angle + SIMD_2_PI : angle;
}
}  // namespace

void Wheel::applyGroundHit() {
  const WheelRayHit& hit = groundHit;
  state.inContact = hit.hit;
  if (!hit.hit) {
    state.contactPoint = sweep.to;
    state.contactNormal.setZero();
    state.groundObject = nullptr;
    groundKey = 0;
    state.suspensionLength = settings.suspensionMaxLength;
    return;
  }
  state.contactPoint = hit.point;
  state.contactNormal = hit.normal;
  // Last step's impulses belong to last step's ground: a wheel that has rolled onto another
  // body (a box, another car) must not push the new body with them.
  const std::uint64_t key = groundKeyOf(hit.object);
  if (key != groundKey) contact.warmStart = false;
  groundKey = key;
  state.groundObject = hit.object;
  lengthToContact = hit.distance - settings.radius;
  state.suspensionLength = std::clamp(lengthToContact, btScalar(0), settings.suspensionMaxLength);
}

void Wheel::measureContact(const btRigidBody& chassis, const btVector3& forward,
                           const btVector3& left, const FrictionRules& rules, btScalar stickSpeed,
                           bool handbrake, const SurfaceTable* surfaces,
                           const UnpredictedMotion& unpredicted) {
  state.locked = handbrake && settings.canBrake;
  if (state.locked) state.angularSpeed = 0;
  if (!state.inContact) {
    state.slipRatio = state.slipAngle = 0;
    state.friction = 0;
    state.groundMaterial = 0;
    state.camber = 0;
    state.sliding = false;
    return;
  }
  const btVector3& normal = state.contactNormal;
  updateSteerTrig();
  const btVector3 wheelForward = forward * steerCos + left * steerSin;
  btVector3 longitudinal = wheelForward - normal * normal.dot(wheelForward);
  // A wheel whose forward axis stands on the ground's normal (a wall) has no rolling
  // direction: any tangent will do.
  if (longitudinal.length2() < 1e-6f) {
    btVector3 unused;
    btPlaneSpace1(normal, longitudinal, unused);
  }
  longitudinal.normalize();
  const btVector3 lateral = longitudinal.cross(normal);
  contact.longitudinal = longitudinal;
  contact.lateral = lateral;
  contact.chassisArm = state.contactPoint - chassis.getCenterOfMassPosition();
  ContactSolver::followUnpredictedMotion(contact, unpredicted, stickSpeed);

  const btVector3 relative = chassis.getVelocityInLocalPoint(contact.chassisArm) - groundVelocity;
  const btScalar forwardSpeed = relative.dot(longitudinal);
  const btScalar sideSpeed = relative.dot(lateral);
  const btScalar surfaceSlip = forwardSpeed - settings.radius * state.angularSpeed;
  // The contact barely moves over the ground: its rows are static friction (below), and a
  // handbraked wheel is held in seed 001's box.
  const bool slow = forwardSpeed * forwardSpeed + sideSpeed * sideSpeed < stickSpeed * stickSpeed;
  // Seed 001's box holds a handbraked wheel only there (parked: the seed's own case of a car left
  // handbraked on bumps). A locked wheel that slides is a tire sliding, as one the footbrake
  // locks: its laws and the friction ellipse, so the slide takes the side grip with it. In the
  // box a handbraked rear axle kept 0.85 of its grip sideways while it braked, 1.2 times a
  // rolling tire's grip in all: at 50 km/h on full lock the handbrake turned a sedan 20.9 deg in
  // 0.8 s where the steering alone turned it 23.0.
  contact.boxFriction = state.locked && slow;
  state.sliding = std::sqrt(surfaceSlip * surfaceSlip + sideSpeed * sideSpeed) > rules.slipThreshold;

  FrictionInputs inputs;
  inputs.tireFriction = settings.tire.friction;
  inputs.groundFriction = state.groundObject->getFriction();
  if (surfaces != nullptr) {
    state.groundMaterial =
        surfaces->material(state.groundObject, groundHit.shapePart, groundHit.triangleIndex);
    inputs.pairFriction = surfaces->friction(settings.surfaceId, state.groundMaterial);
  }
  inputs.minFriction = settings.minFriction;
  inputs.maxFriction = settings.maxFriction;
  inputs.gripScale = gripScale;
  inputs.temperatureScale = temperatureGripFactor(settings.tire.thermal, state.tireTemperature);
  inputs.loadSensitivity = settings.tire.loadSensitivity;
  inputs.normalLoad = loadEstimate;
  inputs.referenceLoad = referenceLoad;
  inputs.sliding = state.sliding;
  inputs.locked = state.locked;
  inputs.tireSlides = tire->hasOwnSlidingFriction();
  inputs.lockedSlideShare = tire->lockedSlideShare();
  friction = contactFriction(inputs, rules);
  state.friction = friction.shown(contact.boxFriction);

  contact.tireContact.friction = friction.tire;
  contact.coulombScale = friction.tire > 0 ? friction.coulomb / friction.tire : 0;
  contact.tireContact.normalLoad = loadEstimate;
  contact.tireContact.forwardSpeed = forwardSpeed;
  contact.lateralSpeed = sideSpeed;  // until the solve replaces it with its own result
  contact.lateralSlipOffset = hasCamber ? camberSlipOffset(forward.cross(left), forwardSpeed) : 0;
  // Static friction while the contact barely moves over the ground and the row barely slips.
  contact.staticLongitudinal = slow && std::fabs(surfaceSlip) < stickSpeed;
  contact.staticLateral = slow;
  // The carcass spring that static friction is solved as (TireSettings::relaxationLength),
  // needed only where a row can stick: slow (a handbraked wheel in the box included), or a tire
  // without slip laws. Below a millimetre the spring would be stiffer than anything a step
  // resolves (and its reciprocal overflows): such a tire is rigid static friction, as 0 asks.
  const bool mayStick = slow || !inputs.tireSlides;
  const btScalar relaxationLength =
      mayStick && settings.tire.relaxationLength >= kShortestRelaxationLength
          ? settings.tire.relaxationLength
          : 0;
  contact.longitudinalStickStiffness =
      relaxationLength > 0 ? tire->slipStiffness(contact.tireContact, true) / relaxationLength : 0;
  contact.lateralStickStiffness =
      relaxationLength > 0 ? tire->slipStiffness(contact.tireContact, false) / relaxationLength : 0;
}

btScalar Wheel::camberSlipOffset(const btVector3& up, btScalar forwardSpeed) {
  // Lean to the wheel's right against the ground: the body's roll about the wheel's forward
  // axis (its up leaning toward the contact's right), plus the wheel's camber on the body.
  const btScalar roll = std::atan2(up.dot(contact.lateral), up.dot(state.contactNormal));
  const btScalar restCompression = settings.suspensionMaxLength - settings.suspensionRestLength;
  const btScalar bodyCamber =
      (settings.staticCamber +
       settings.camberGain * (state.suspensionCompression - restCompression)) *
      SIMD_RADS_PER_DEG;
  const btScalar leanRight = roll + outward * bodyCamber;
  state.camber = outward * leanRight;
  if (!(settings.tire.camberStiffness > 0)) return 0;
  // Thrust C_gamma gamma toward the lean as the slip angle's shift S = C_gamma gamma / C_alpha:
  // the lateral law read at alpha - S gives it rolling straight. The shift in slip velocity
  // scales with rolling speed (a tire standing still makes no camber thrust) and reaches the
  // full shift at the slip angle's epsilon.
  const btScalar corneringStiffness = tire->slipStiffness(contact.tireContact, false);  // N/rad
  if (!(corneringStiffness > 0)) return 0;
  const btScalar shift = settings.tire.camberStiffness * contact.tireContact.normalLoad * leanRight /
                         corneringStiffness;
  const btScalar epsilon = settings.tire.slipAngleEpsilon;
  const btScalar speed = std::fabs(forwardSpeed);
  const btScalar rolling = std::min(speed / epsilon, btScalar(1));
  return -(speed + epsilon) * std::tan(shift) * rolling;
}

void Wheel::prepareContact(const AeroSettings& aero, const SurfaceTable* surfaces, btScalar dt) {
  contact.active = state.inContact;
  contact.radius = settings.radius;
  contact.inverseSpinInertia = state.locked ? 0 : 1 / settings.spinInertia;
  contact.angularSpeed = state.angularSpeed;
  const btScalar rolling =
      state.inContact ? rollingResistanceTorque(aero, loadEstimate, settings.radius) +
                            groundRollingResistance(surfaces) * loadEstimate * settings.radius
                      : 0;
  contact.brakeImpulseLimit = (state.brakeTorque + rolling) * dt;
  if (!state.inContact) {
    contact.lateralDeflection = 0;
    return;
  }
  contact.normal = state.contactNormal;
  contact.tire = tire.get();
  prepareSlipLag(dt);
}

btScalar Wheel::groundRollingResistance(const SurfaceTable* surfaces) const {
  // Looked up again rather than kept from measureContact: a wheel's block is a whole number of
  // cache lines, and four more bytes a wheel cost the bench car 48 bytes.
  return surfaces != nullptr ? surfaces->rollingResistance(settings.surfaceId, state.groundMaterial) : 0;
}

void Wheel::prepareSlipLag(btScalar dt) {
  // The carcass' lateral deflection y relaxes over sigma as the tire rolls:
  // dy/dt = Vy - V' y / sigma with V' = |Vx| + eps (the slip angle's own speed, so a steady
  // slip gives the law exactly the slip it would read without the lag), taken implicitly at the
  // step's end: y' = (y + dt Vy) sigma / (sigma + dt V'). The law reads the slip velocity
  // V' y' / sigma, linear in Vy. A static row holds the contact instead, and keeps no deflection.
  const btScalar sigma = settings.tire.relaxationLength;
  lagging = settings.tire.slipLag && sigma >= kShortestRelaxationLength && !contact.staticLateral &&
            !contact.boxFriction;
  if (!lagging) {
    contact.lateralSlipScale = 1;
    contact.lateralDeflection = 0;
    return;
  }
  const btScalar speed = std::fabs(contact.tireContact.forwardSpeed) + settings.tire.slipAngleEpsilon;
  lagShare = sigma / (sigma + dt * speed);
  contact.lateralSlipScale = speed * dt / (sigma + dt * speed);
  contact.lateralSlipOffset += speed * contact.lateralDeflection / (sigma + dt * speed);
}

void Wheel::readSolvedContact(btScalar dt) {
  state.angularSpeed = contact.angularSpeed;
  if (!state.inContact) {
    state.longitudinalForce = state.lateralForce = state.utilization = 0;
    state.normalLoad = 0;
    state.aligningMoment = pneumaticMoment = 0;
    heatTire(0, settings.radius * state.angularSpeed, dt);
    return;
  }
  state.normalLoad = contact.normalImpulse() / dt;
  if (lagging)
    contact.lateralDeflection = (contact.lateralDeflection + dt * contact.lateralSpeed) * lagShare;
  // Slips as the solved forces see them (the ones measured before the solve lead them by a step).
  state.slipRatio = slipRatio(contact.forwardSpeed, settings.radius * state.angularSpeed,
                              settings.tire.slipRatioEpsilon);
  state.slipAngle = slipAngle(contact.forwardSpeed, contact.lateralSpeed,
                              settings.tire.slipAngleEpsilon);
  state.longitudinalForce = contact.longitudinalImpulse / dt;
  state.lateralForce = contact.lateralImpulse / dt;
  const btScalar x =
      contact.longitudinalLimit > 0 ? contact.longitudinalImpulse / contact.longitudinalLimit : 0;
  const btScalar y = contact.lateralLimit > 0 ? contact.lateralImpulse / contact.lateralLimit : 0;
  state.utilization = std::sqrt(x * x + y * y);

  // The lateral force acts the trails behind where the solve put it: t x Fy (Fy along the
  // wheel's right) is the moment about the normal, > 0 to the left, that turns the wheel toward
  // its path.
  const btScalar pneumaticTrail =
      settings.tire.pneumaticTrail > 0
          ? settings.tire.pneumaticTrail * tire->pneumaticTrailFactor(state.slipAngle)
          : 0;
  pneumaticMoment = pneumaticTrail * state.lateralForce;
  state.aligningMoment =
      steered ? (pneumaticTrail + settings.mechanicalTrail) * state.lateralForce * casterCosine : 0;

  // The friction's work on the contact: each force against its own slip speed.
  const btScalar longitudinalSlip = contact.forwardSpeed - settings.radius * state.angularSpeed;
  heatTire(std::fabs(state.longitudinalForce * longitudinalSlip) +
               std::fabs(state.lateralForce * contact.lateralSpeed),
           contact.forwardSpeed, dt);
}

void Wheel::heatTire(btScalar slidingPower, btScalar speed, btScalar dt) {
  const TireThermalSettings& thermal = settings.tire.thermal;
  if (!thermal.enabled) return;
  state.slidingPower = slidingPower;
  state.tireTemperature = stepTireTemperature(thermal, state.tireTemperature, slidingPower, speed, dt);
}

void Wheel::rotate(btScalar dt) {
  state.rotationAngle = wrapAngle(state.rotationAngle + state.angularSpeed * dt);
}

void Wheel::resetMotion() {
  const btScalar staticLoad = state.staticLoad, temperature = state.tireTemperature;
  const btScalar steerAngle = state.steerAngle, rotationAngle = state.rotationAngle;
  state = WheelState{};
  state.staticLoad = staticLoad;
  state.tireTemperature = temperature;
  state.steerAngle = steerAngle;
  state.rotationAngle = rotationAngle;
  state.suspensionLength = settings.suspensionMaxLength;
  groundKey = 0;
  antiLockIntegral = tractionIntegral = pneumaticMoment = 0;
  contact.active = contact.warmStart = contact.longitudinalStuck = contact.lateralStuck = false;
  contact.suspensionImpulse = contact.bumpStopImpulse = contact.longitudinalImpulse = 0;
  contact.lateralImpulse = contact.brakeImpulse = 0;
  contact.longitudinalStickDisplacement = contact.lateralStickDisplacement = contact.lateralDeflection = 0;
  contact.angularSpeed = contact.forwardSpeed = contact.lateralSpeed = 0;
  // A teleported car's cached triangles are of where it was, and may be of a mesh that is gone:
  // a car moved to a reloaded level whose pools gave its terrain the old one's addresses and
  // broadphase number kept standing on the old terrain, 0.3 m into the new (an independent
  // review). Its next step gathers them again.
  ground().clear();
}

size_t WheelArray::blockBytesFor(const VehicleSettings& settings) {
  size_t bytes = CacheMemory::roundedUp(settings.wheels.size() * sizeof(Wheel));
  for (const WheelSettings& wheel : settings.wheels)
    bytes += GroundQuerySlot::cacheBytes(wheel, settings.wheelQuery);
  return bytes;
}

WheelArray::WheelArray(const VehicleSettings& settings, std::pmr::memory_resource& memory)
    : memory_(&memory) {
  const size_t count = settings.wheels.size();
  const size_t wheelBytes = CacheMemory::roundedUp(count * sizeof(Wheel));
  const size_t blockBytes = blockBytesFor(settings);
  if (blockBytes > UINT32_MAX) throw std::length_error("WheelArray: too many wheels");
  bytes_ = std::uint32_t(blockBytes);
  if (bytes_ == 0) return;
  auto* block = static_cast<unsigned char*>(memory.allocate(bytes_, kBlockAlignment));
  wheels_ = reinterpret_cast<Wheel*>(block);
  CacheMemory caches(block + wheelBytes, blockBytes - wheelBytes);
  try {
    for (; count_ < std::uint32_t(count); ++count_)
      new (wheels_ + count_) Wheel(settings.wheels[count_], settings.wheelQuery, caches);
    // The queries took exactly what GroundQuerySlot::cacheBytes said they would.
    if (caches.remaining() != 0) throw std::logic_error("WheelArray: the wheels left cache memory unused");
  } catch (...) {
    release();
    throw;
  }
}

WheelArray::~WheelArray() { release(); }

void WheelArray::release() {
  while (count_ > 0) wheels_[--count_].~Wheel();
  if (wheels_ != nullptr) memory_->deallocate(wheels_, bytes_, kBlockAlignment);
  wheels_ = nullptr;
}

}  // namespace raycar
