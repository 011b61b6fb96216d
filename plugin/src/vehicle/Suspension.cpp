#include "vehicle/Suspension.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "raycar/vehicle/Suspension.h"

namespace raycar {

btScalar springDamperForce(btScalar stiffness, btScalar damping, btScalar compression,
                           btScalar compressionSpeed) {
  return stiffness * compression + damping * compressionSpeed;
}

btScalar antiRollForce(btScalar stabilizer, btScalar stiffness, btScalar compression,
                       btScalar otherWheelsCompression) {
  return stabilizer * stiffness * (compression - otherWheelsCompression);
}

btScalar criticalDamping(btScalar stiffness, btScalar sprungMass) {
  return 2 * std::sqrt(stiffness * sprungMass);
}

SuspensionRates resolveSuspensionRates(const WheelSettings& wheel, btScalar staticLoad,
                                       btScalar gravity) {
  SuspensionRates rates{wheel.stiffness, wheel.damping};
  if (rates.stiffness == 0)
    rates.stiffness = staticLoad / (wheel.suspensionMaxLength - wheel.suspensionRestLength);
  if (rates.damping <= 0) {
    const btScalar sprungMass = gravity > 0 ? staticLoad / gravity : 0;
    rates.damping = -wheel.damping * criticalDamping(rates.stiffness, sprungMass);
  }
  return rates;
}

std::vector<SettingsProblem> springsShortOfTheirLoads(const std::vector<WheelSettings>& wheels,
                                                      const std::vector<btScalar>& staticLoads) {
  std::vector<SettingsProblem> problems;
  for (size_t i = 0; i < wheels.size() && i < staticLoads.size(); ++i) {
    const WheelSettings& wheel = wheels[i];
    if (!(wheel.stiffness > 0)) continue;
    const btScalar sag = staticLoads[i] / wheel.stiffness;  // m
    if (sag <= wheel.suspensionMaxLength) continue;
    char message[320];
    std::snprintf(message, sizeof message,
                  "stiffness %.0f N/m sags %.3f m under its static load of %.0f N, more than its "
                  "travel len_max (suspensionMaxLength) %.3f m: the car would rest on its bump stops "
                  "(stiffness 0 sets the rate that rests the spring at len_initial)",
                  double(wheel.stiffness), double(sag), double(staticLoads[i]), double(wheel.suspensionMaxLength));
    problems.push_back({"wheel " + std::to_string(i + 1), "stiffness", message, FieldScope::Wheel, int(i)});
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The runtime object

namespace {
// A ray nearly parallel to the ground would turn a small normal speed into a huge suspension
// speed; below this cosine the ratio is held.
constexpr btScalar kMinimumRayNormalCosine = 0.1;

}  // namespace

btVector3 groundVelocityAt(const btCollisionObject* object, const btVector3& point) {
  const btRigidBody* body = btRigidBody::upcast(object);
  if (body == nullptr) return btVector3(0, 0, 0);
  return body->getVelocityInLocalPoint(point - body->getCenterOfMassPosition());
}

Suspension::Suspension(const VehicleSettings& settings, WheelArray& wheels)
    : settings_(&settings) {
  std::vector<int> axleNumbers;
  for (Wheel& wheel : wheels) {
    const int axle = wheel.settings.axle;
    auto found = std::find(axleNumbers.begin(), axleNumbers.end(), axle);
    if (found == axleNumbers.end()) found = axleNumbers.insert(axleNumbers.end(), axle);
    wheel.axleSlot = int(found - axleNumbers.begin());
  }
  axleWheelCounts_.assign(axleNumbers.size(), 0);
  for (const Wheel& wheel : wheels) ++axleWheelCounts_[size_t(wheel.axleSlot)];
  axleCompressionSums_.assign(axleNumbers.size(), 0);
}

void Suspension::update(const btRigidBody& chassis, WheelArray& wheels) {
  const btTransform& transform = chassis.getWorldTransform();
  const btVector3 down = -(transform.getBasis() * settings_->axes.up);
  const btVector3 centerOfMass = chassis.getCenterOfMassPosition();
  for (Wheel& wheel : wheels) {
    WheelState& state = wheel.state;
    state.suspensionCompression = wheel.settings.suspensionMaxLength - state.suspensionLength;
    state.compressionSpeed = 0;
    if (!state.inContact) continue;
    wheel.groundVelocity = groundVelocityAt(state.groundObject, state.contactPoint);
    wheel.rayCosine = std::max(-down.dot(state.contactNormal), kMinimumRayNormalCosine);
    // d(length)/dt = (v_attachment - v_ground) . n / (-down . n): the ray's hit distance
    // changes by the normal approach speed divided by the ray's cosine to the surface.
    const btVector3 attachment = transform * wheel.settings.attachmentPoint;
    const btVector3 relative =
        chassis.getVelocityInLocalPoint(attachment - centerOfMass) - wheel.groundVelocity;
    state.compressionSpeed = -relative.dot(state.contactNormal) / wheel.rayCosine;
  }
  // The anti-roll bar compares each wheel with the mean of its axle's other wheels: one sum per
  // axle, so the cost grows with the wheel count, not its square.
  std::fill(axleCompressionSums_.begin(), axleCompressionSums_.end(), btScalar(0));
  for (const Wheel& wheel : wheels)
    axleCompressionSums_[size_t(wheel.axleSlot)] += wheel.state.suspensionCompression;
  for (Wheel& wheel : wheels) {
    WheelState& state = wheel.state;
    if (!state.inContact) {
      wheel.loadEstimate = 0;
      continue;
    }
    const int slot = wheel.axleSlot;
    const int others = axleWheelCounts_[size_t(slot)] - 1;
    const btScalar stiffness = wheel.suspensionStiffness;
    btScalar force = stiffness * state.suspensionCompression;
    const btScalar stabilizer = wheelStabilizer(wheel.settings, settings_->stabilizer);
    if (others > 0 && stabilizer > 0)
      force += antiRollForce(stabilizer, stiffness, state.suspensionCompression,
                             (axleCompressionSums_[size_t(slot)] - state.suspensionCompression) /
                                 btScalar(others));
    wheel.springForce = force;
    wheel.loadEstimate = std::max(btScalar(0), force + wheel.suspensionDamping * state.compressionSpeed);
  }
}

void Suspension::prepareContacts(WheelArray& wheels, btScalar dt) const {
  // Explicit damping (integration_type 0) folds the measured damper force into the spring's.
  const bool implicitDamper = settings_->solver.implicitDamper;
  for (Wheel& wheel : wheels) {
    const WheelState& state = wheel.state;
    if (!state.inContact) continue;
    WheelContact& contact = wheel.contact;
    const btScalar damping = wheel.suspensionDamping;
    contact.springForce =
        wheel.springForce + (implicitDamper ? 0 : damping * state.compressionSpeed);
    contact.damping = implicitDamper ? damping : 0;
    // A wheel alone on its axle has no bar (update()): its own spring only.
    const bool barred = axleWheelCounts_[size_t(wheel.axleSlot)] > 1;
    contact.springStiffness =
        wheel.suspensionStiffness * (1 + (barred ? wheelStabilizer(wheel.settings, settings_->stabilizer) : 0));
    contact.rayCosine = wheel.rayCosine;
    // The bump stop row joins when full compression is within two steps' closing travel (plus
    // 2 cm); further away it could not act anyway.
    const btScalar toFullCompression = wheel.lengthToContact;
    contact.bumpStopActive =
        toFullCompression < 2 * std::max(state.compressionSpeed, btScalar(0)) * dt + btScalar(0.02);
    contact.bumpStopGap = toFullCompression * wheel.rayCosine;
  }
}

}  // namespace raycar
