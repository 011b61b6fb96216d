#pragma once
// One wheel at run time. The vehicle keeps one per wheel, in order, and each stage of the step
// (StepStages.h) reads and writes the wheel's own fields: the spring and damper rates its
// settings resolve to, what it shows (WheelState), its ground query, and its contact as the
// solver sees it. Its settings themselves are the vehicle's (which many vehicles may share).
// One object instead of an array per quantity: a step then reads one place per wheel, which
// matters when a thousand cars each come round once per step with nothing left in the cache.

#include <cmath>
#include <cstdint>
#include <memory>
#include <memory_resource>

#include "ground/GroundQuerySlot.h"
#include "raycar/tire/ContactFriction.h"
#include "raycar/tire/SurfaceTable.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "raycar/vehicle/Wheel.h"
#include "solver/ContactSolver.h"

namespace raycar {

struct Wheel {
  // The ground query's caches are cut from `cacheMemory` (WheelArray).
  Wheel(const WheelSettings& wheelSettings, const WheelQuerySettings& querySettings,
        CacheMemory& cacheMemory)
      : settings(wheelSettings), groundQuery(wheelSettings, querySettings, cacheMemory),
        nearbyGround(ground().usesNearbyGround()),
        casterCosine(std::cos(wheelSettings.casterAngle * SIMD_RADS_PER_DEG)),
        hasCamber(wheelSettings.staticCamber != 0 || wheelSettings.camberGain != 0 ||
                  wheelSettings.tire.camberStiffness > 0) {}
  // A wheel stays where its vehicle's block (WheelArray) placed it: its ground caches' storage
  // is the block's, so a copy or a move would share it.
  Wheel(const Wheel&) = delete;
  Wheel& operator=(const Wheel&) = delete;

  // The vehicle's settings for this wheel, as given (VehicleRuntime::settings, which may be
  // shared by many vehicles): a wheel holds no copy. What the automatic rules resolve per
  // vehicle is below (suspensionStiffness, suspensionDamping).
  const WheelSettings& settings;
  WheelState state;        // what RaycastVehicle::wheelState shows
  std::shared_ptr<const TireModel> tire;
  GroundQuerySlot groundQuery;  // ground(): the query
  bool nearbyGround = false;    // ground().usesNearbyGround(), asked once
  GroundQuery& ground() { return groundQuery.ground(); }
  const GroundQuery& ground() const { return groundQuery.ground(); }
  // The solver's view of the contact: filled by the stages before the solve, its impulses and
  // post-solve slip speeds read after it. Warm-start impulses and stick anchors carry over.
  WheelContact contact;

  // Fixed at construction
  // The spring rate (N/m) and damping (N s/m): the settings' own, or where those ask for the
  // automatic rules (0), the rates resolved from this vehicle's static loads (Suspension.h).
  btScalar suspensionStiffness = 0;
  btScalar suspensionDamping = 0;
  // m: the attachment point along the chassis' forward and left axes, from the centre of mass
  // (steering geometry, brake groups, the downforce's axles)
  btScalar forwardPosition = 0;
  btScalar leftPosition = 0;
  btScalar referenceLoad = 0;  // N, for load sensitivity (the tire's, or the static load)
  btScalar sweepLength = 0;    // m: len_max + radius, the ground query's reach
  bool steered = false;        // SteerMode resolved
  bool front = false;          // ahead of the centre of mass (brake bias)
  btScalar casterCosine = 1;   // cos(caster): the share of a moment about the normal that turns the steering axis
  // Camber is computed only for a wheel with camber settings or a tire with camber stiffness.
  bool hasCamber = false;
  btScalar outward = 1;        // +1: the wheel's outside is the chassis' right; -1: its left
  int axleSlot = 0;            // index of its axle in Suspension's per-axle sums

  // Per-wheel inputs (RaycastVehicle::setDriveTorque, ...), held until changed
  btScalar gripScale = 1;    // RaycastVehicle::setGripScale
  btScalar directDrive = 0;  // N m
  btScalar directBrake = 0;  // N m
  btScalar directSteer = 0;  // rad

  // This step, in stage order
  btScalar geometricSteer = 0;  // rad: the steering's angle for this wheel (Ackermann)
  GroundSweep sweep;             // world: from the suspension top, sweepLength down
  WheelRayHit groundHit;
  bool groundPending = false;    // the ground query left it to castInWorld
  btScalar lengthToContact = 0;  // m: hit distance - radius, < 0 past full travel
  btScalar rayCosine = 1;        // -down . normal, held >= 0.1
  btVector3 groundVelocity{0, 0, 0};  // m/s, the ground's velocity at the contact
  btScalar springForce = 0;      // N: k x + anti-roll, from positions alone
  // N: spring + damper at the step's start, >= 0. The tire's load sensitivity and rolling
  // resistance use it; the solve settles the load with the damper's response included
  // (state.normalLoad, which the assists read a step later).
  btScalar loadEstimate = 0;
  ContactFriction friction;      // decided with loadEstimate (ContactFriction.h)
  // N m about the contact normal, > 0 turns the chassis left: the tire's own aligning moment
  // (the lateral force acting the pneumatic trail behind the contact), from the solved force.
  btScalar pneumaticMoment = 0;
  // This step's slip lag (prepareSlipLag): whether the lateral rows lag, and the share of the
  // deflection the step keeps, sigma / (sigma + dt V').
  bool lagging = false;
  btScalar lagShare = 0;
  // rad/s: the spin at which the engine, through the present gear, reaches its max rpm and has
  // no torque left; the drive torque does not spin the wheel past it. Infinite when the engine
  // does not drive this wheel.
  btScalar engineSpinLimit = 0;
  btScalar spinBeforeDrive = 0;  // rad/s: stage DriveSpin's scratch
  btScalar tireSpinBack = 0;     // rad/s: stage DriveSpin's scratch (Drivetrain::spinUp)
  btScalar driveSpinUp = 0;      // rad/s: the drive's spin-up this step, kept for FollowWheels
  // The assists' integral terms (N m): what the feed-forward and the spin feedback miss in a
  // steady stop or launch. Zero while the assist is idle.
  btScalar antiLockIntegral = 0;
  btScalar tractionIntegral = 0;
  // cos and sin of the wheel's steer angle (updateSteerTrig)
  btScalar trigSteer = 0;
  btScalar steerCos = 1;
  btScalar steerSin = 0;
  // Recomputes steerCos and steerSin only when the steer angle changed: the ground query (a
  // shape's axle) and the contact (the rolling direction) both turn with it.
  void updateSteerTrig() {
    if (state.steerAngle == trigSteer) return;
    trigSteer = state.steerAngle;
    steerCos = std::cos(state.steerAngle);
    steerSin = std::sin(state.steerAngle);
  }

  // The ground object the last query hit, as a number that is only compared, never followed
  // (a restored state names an object by it; 0 in the air): a new object drops the warm start.
  // It is groundKeyOf(object), the same for the same object in a world built again in the same
  // order, so that a state restored into a reloaded level keeps its warm start.
  std::uint64_t groundKey = 0;
  // The broadphase's number for the object, plus 1: Bullet's btDbvtBroadphase (the default)
  // numbers its proxies as they are created (btBroadphaseProxy::m_uniqueId) and does not reuse a
  // number while it holds any proxy, so it names one object for the world's life, and the same
  // object in a world whose proxies were created in the same order (an address would differ
  // there, and may be reused within a world). Other broadphases reuse a removed object's number,
  // as addresses were reused. 0 for no object.
  static std::uint64_t groundKeyOf(const btCollisionObject* object) {
    if (object == nullptr || object->getBroadphaseHandle() == nullptr) return 0;
    return std::uint64_t(std::uint32_t(object->getBroadphaseHandle()->m_uniqueId)) + 1;
  }

  // RaycastVehicle::resetMotion: not turning, no contact, and nothing of the last contact
  // carried over (warm start, stick anchors, slip lag, the assists' integrals); the suspension
  // at full extension as built, so that the next contact starts as a first touch. The game's
  // direct torques and grip scale, and the tire's temperature, stay.
  void resetMotion();

  // Everything of the wheel that carries from one step to the next (StateArchive.h). What a
  // step recomputes before reading it is left out.
  template <class Archive>
  void transferState(Archive& archive) {
    WheelState& s = state;
    archive.flag(s.inContact);
    archive.vector(s.contactPoint);
    archive.vector(s.contactNormal);
    archive.key(groundKey);
    archive.integer(s.groundMaterial);
    for (btScalar* value : {&s.suspensionLength, &s.suspensionCompression, &s.compressionSpeed,
                            &s.normalLoad, &s.staticLoad, &s.friction, &s.slipRatio, &s.slipAngle,
                            &s.longitudinalForce, &s.lateralForce, &s.utilization,
                            &s.aligningMoment, &s.camber, &s.tireTemperature, &s.slidingPower,
                            &s.angularSpeed, &s.rotationAngle, &s.steerAngle, &s.driveTorque,
                            &s.brakeTorque})
      archive.scalar(*value);
    archive.flag(s.sliding);
    archive.flag(s.locked);
    for (btScalar* value : {&gripScale, &directDrive, &directBrake, &directSteer, &antiLockIntegral,
                            &tractionIntegral, &pneumaticMoment, &geometricSteer, &trigSteer, &steerCos,
                            &steerSin})
      archive.scalar(*value);
    // The contact's warm start, stick anchors, slip lag and spin.
    WheelContact& c = contact;
    for (bool* value : {&c.active, &c.warmStart, &c.longitudinalStuck, &c.lateralStuck})
      archive.flag(*value);
    for (btScalar* value : {&c.suspensionImpulse, &c.bumpStopImpulse, &c.longitudinalImpulse,
                            &c.lateralImpulse, &c.brakeImpulse, &c.longitudinalStickDisplacement,
                            &c.lateralStickDisplacement, &c.lateralDeflection, &c.angularSpeed,
                            &c.forwardSpeed, &c.lateralSpeed})
      archive.scalar(*value);
  }

  // This wheel's parts of the step, in stage order (StepStages.h).
  // ApplyGround: the ground query's hit into the contact and the suspension length.
  void applyGroundHit();
  // MeasureContacts: contact frame, contact velocities, sliding, friction, static rows, and the
  // stick anchors moved by what moved the chassis unforeseen since the last solve. The chassis'
  // forward and left axes in the world; handbrake: the driver's; surfaces: the game's friction
  // table, or null.
  void measureContact(const btRigidBody& chassis, const btVector3& forward, const btVector3& left,
                      const FrictionRules& rules, btScalar stickSpeed, bool handbrake,
                      const SurfaceTable* surfaces, const UnpredictedMotion& unpredicted);
  // MeasureContacts, camber: the wheel's camber against the ground (state.camber) and the
  // lateral slip offset (m/s) that makes its camber thrust. up: the chassis' up axis.
  btScalar camberSlipOffset(const btVector3& up, btScalar forwardSpeed);
  // Solve, before: the rows' inputs that are not the suspension's (Suspension::prepareContacts)
  // nor the ground body's.
  void prepareContact(const AeroSettings& aero, const SurfaceTable* surfaces, btScalar dt);
  // C_rr the ground's material adds to the tire's (SurfaceTable::rollingResistance); 0 without
  // a table.
  btScalar groundRollingResistance(const SurfaceTable* surfaces) const;
  // Solve, before: the slip lag's share of the lateral rows (TireSettings::slipLag).
  void prepareSlipLag(btScalar dt);
  // Solve, after: the spin, the solved load, slips and forces the solve settled on.
  void readSolvedContact(btScalar dt);
  // Solve, after: the tire's temperature one step on, from the sliding power (W) the contact
  // made and the rolling speed (m/s) that cools it.
  void heatTire(btScalar slidingPower, btScalar speed, btScalar dt);
  // WheelRotation: the rotation angle for rendering.
  void rotate(btScalar dt);
};

// A vehicle's wheels, in order, with their ground caches' storage behind them: one block from a
// memory resource, so a step reads one run of memory for all of a car's wheels. A lone vehicle's
// block comes from the heap; a VehicleGroup's cars take theirs from the group's pool, where the
// blocks of cars of one model lie one after another, in the order the group steps them.
class WheelArray {
 public:
  // One wheel per settings.wheels entry (Wheel's constructor), the block from `memory`, which
  // must outlive the array.
  WheelArray(const VehicleSettings& settings, std::pmr::memory_resource& memory);
  ~WheelArray();
  // Bytes of the block a car with `settings` takes (its wheels, then their caches), and the
  // alignment it is asked for with: what a pool sets aside for such cars (VehicleGroup::reserve).
  static size_t blockBytesFor(const VehicleSettings& settings);
  static constexpr size_t kBlockAlignment = CacheMemory::kAlignment;
  // Moving hands the block over; the wheels stay where they are.
  WheelArray(WheelArray&& other) noexcept
      : memory_(other.memory_), wheels_(other.wheels_), count_(other.count_), bytes_(other.bytes_) {
    other.wheels_ = nullptr;
    other.count_ = 0;
    other.bytes_ = 0;
  }
  WheelArray& operator=(WheelArray&&) = delete;
  WheelArray(const WheelArray&) = delete;
  WheelArray& operator=(const WheelArray&) = delete;

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  Wheel& operator[](size_t i) { return wheels_[i]; }
  const Wheel& operator[](size_t i) const { return wheels_[i]; }
  Wheel* begin() { return wheels_; }
  Wheel* end() { return wheels_ + count_; }
  const Wheel* begin() const { return wheels_; }
  const Wheel* end() const { return wheels_ + count_; }
  // The block: the wheels, then their caches (bytes).
  const void* block() const { return wheels_; }
  size_t blockBytes() const { return bytes_; }

 private:
  static_assert(alignof(Wheel) <= kBlockAlignment, "a wheel's alignment must divide the block's");
  void release();

  std::pmr::memory_resource* memory_;
  Wheel* wheels_ = nullptr;
  std::uint32_t count_ = 0;  // wheels constructed
  std::uint32_t bytes_ = 0;  // of the block: the wheels, then their caches
};

}  // namespace raycar
