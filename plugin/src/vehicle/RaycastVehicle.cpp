#include "raycar/vehicle/RaycastVehicle.h"

#include <LinearMath/btIDebugDraw.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "io/StateArchive.h"
#include "raycar/Error.h"
#include "vehicle/StepStages.h"
#include "vehicle/VehicleLayout.h"
#include "vehicle/VehicleRuntime.h"

namespace raycar {
namespace {
// How the per-wheel calls' errors name a wheel: by the index the caller passed, from 0 (the
// settings' and the loader's messages number the [[wheel]] records from 1 instead).
std::string wheelIndexName(int wheel) { return "wheel index " + std::to_string(wheel); }
}  // namespace

RaycastVehicle::RaycastVehicle(btRigidBody& chassis, VehicleSettings settings)
    : RaycastVehicle(chassis, std::make_shared<const VehicleSettings>(std::move(settings))) {}

RaycastVehicle::RaycastVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings)
    : RaycastVehicle(chassis, std::move(settings), *std::pmr::new_delete_resource()) {}

RaycastVehicle::RaycastVehicle(btRigidBody& chassis, std::shared_ptr<const VehicleSettings> settings,
                               std::pmr::memory_resource& wheelMemory)
    : runtime_(std::make_unique<VehicleRuntime>(chassis, std::move(settings), wheelMemory)) {}

RaycastVehicle::~RaycastVehicle() = default;

void RaycastVehicle::updateAction(btCollisionWorld* world, btScalar dt) {
  runtime_->prefetchStepStart();
  runStages(*runtime_, StepStage::Begin, StepContext{world, dt, true, true, {}});
}

// ---------------------------------------------------------------------------------------------
// Inputs

void RaycastVehicle::setInput(const DriverInput& input) {
  VehicleRuntime& vehicle = *runtime_;
  const SanitizedInput sanitized = sanitize(input);
  // A count, saturating (a restored state may hold any count up to INT_MAX).
  vehicle.rejectedInputs += std::min(sanitized.rejected, INT_MAX - vehicle.rejectedInputs);
  // Manual shifts act on the rising edge of their inputs.
  vehicle.drivetrain.requestShifts(sanitized.input.shiftUp && !vehicle.input.shiftUp,
                                   sanitized.input.shiftDown && !vehicle.input.shiftDown);
  const DriverInput& held = vehicle.input;
  const DriverInput& next = sanitized.input;
  const bool changed = next.pedal != held.pedal || next.brake != held.brake ||
                       next.steer != held.steer || next.handbrake != vehicle.handbrake ||
                       next.shiftUp != held.shiftUp || next.shiftDown != held.shiftDown;
  vehicle.input = next;
  vehicle.handbrake = vehicle.input.handbrake;
  wakeIf(changed);
}

void RaycastVehicle::checkWheelIndex(int wheel, const char* what) const {
  if (wheel < 0 || wheel >= wheelCount())
    throw InputError(what, wheelIndexName(wheel) + " is out of range [0, " +
                               std::to_string(wheelCount()) + ")");
}

void RaycastVehicle::setDriveTorque(int wheel, btScalar torque) {
  checkWheelIndex(wheel, "drive torque");
  if (!std::isfinite(torque))
    throw InputError(wheelIndexName(wheel), "drive torque is not finite");
  hold(runtime_->wheels[size_t(wheel)].directDrive, torque);
}

void RaycastVehicle::setGripScale(int wheel, btScalar scale) {
  checkWheelIndex(wheel, "grip scale");
  if (!(scale >= 0 && scale <= 10))
    throw InputError(wheelIndexName(wheel), "grip scale must lie in [0, 10]");
  hold(runtime_->wheels[size_t(wheel)].gripScale, scale);
}

btScalar RaycastVehicle::gripScale(int wheel) const {
  checkWheelIndex(wheel, "grip scale");
  return runtime_->wheels[size_t(wheel)].gripScale;
}

void RaycastVehicle::setSurfaceTable(std::shared_ptr<const SurfaceTable> table) {
  wakeIf(table != runtime_->surfaces);
  runtime_->surfaces = std::move(table);
}

void RaycastVehicle::setTireTemperature(int wheel, btScalar temperature) {
  checkWheelIndex(wheel, "tire temperature");
  if (!(temperature >= -100 && temperature <= 500))
    throw InputError(wheelIndexName(wheel), "tire temperature must lie in [-100, 500] C");
  hold(runtime_->wheels[size_t(wheel)].state.tireTemperature, temperature);
}

btScalar RaycastVehicle::steeringTorque() const {
  return runtime_->steering.columnTorque(runtime_->wheels);
}

const std::shared_ptr<const SurfaceTable>& RaycastVehicle::surfaceTable() const {
  return runtime_->surfaces;
}

void RaycastVehicle::setBrakeTorque(int wheel, btScalar torque) {
  checkWheelIndex(wheel, "brake torque");
  if (!std::isfinite(torque) || torque < 0)
    throw InputError(wheelIndexName(wheel),
                     "brake torque must be finite and >= 0 N m");
  hold(runtime_->wheels[size_t(wheel)].directBrake, torque);
}

void RaycastVehicle::setSteerAngle(int wheel, btScalar angle) {
  checkWheelIndex(wheel, "steer angle");
  if (!std::isfinite(angle) || std::fabs(angle) >= SIMD_HALF_PI)
    throw InputError(wheelIndexName(wheel),
                     "steer angle must be finite and within (-pi/2, pi/2) rad");
  Wheel& runtimeWheel = runtime_->wheels[size_t(wheel)];
  if (angle != 0 && !runtimeWheel.steered)
    throw InputError(wheelIndexName(wheel), "is not steered (SteerMode)");
  wakeIf(angle != runtimeWheel.directSteer);
  runtimeWheel.state.steerAngle += angle - runtimeWheel.directSteer;  // shown at once
  runtimeWheel.directSteer = angle;
}

void RaycastVehicle::setHandbrake(bool engaged) {
  wakeIf(engaged != runtime_->handbrake);
  runtime_->handbrake = engaged;
}

void RaycastVehicle::wake() const {
  // Bullet's activate() alone lets a tired body fall asleep again at once.
  runtime_->chassis->activate(true);
}

void RaycastVehicle::hold(btScalar& held, btScalar value) {
  wakeIf(value != held);
  held = value;
}

void RaycastVehicle::wakeIf(bool inputChanged) {
  // Only a change: a game sets its cars' inputs every frame, and a parked car given the same
  // input again stays asleep. A change also starts the car's wait for sleep over, so that a
  // handbrake released or a wheel steered just before the wait ends is acted on.
  if (!inputChanged) return;
  runtime_->stillTime = 0;
  wake();
}

// ---------------------------------------------------------------------------------------------
// Queries

int RaycastVehicle::wheelCount() const { return int(runtime_->wheels.size()); }
const VehicleSettings& RaycastVehicle::settings() const { return runtime_->settings; }
const std::shared_ptr<const VehicleSettings>& RaycastVehicle::sharedSettings() const {
  return runtime_->sharedSettings;
}
const DriverInput& RaycastVehicle::input() const { return runtime_->input; }
int RaycastVehicle::rejectedInputs() const { return runtime_->rejectedInputs; }
btScalar RaycastVehicle::pedal() const { return runtime_->steering.pedal(); }
btScalar RaycastVehicle::steerAngle() const { return runtime_->steering.angle(); }
btRigidBody& RaycastVehicle::chassis() const { return *runtime_->chassis; }
bool RaycastVehicle::handbrake() const { return runtime_->handbrake; }
const PowertrainState& RaycastVehicle::powertrain() const { return runtime_->drivetrain.powertrain(); }
const StabilityControlState& RaycastVehicle::stabilityControl() const { return runtime_->stability.state(); }
const SolveReport& RaycastVehicle::solveReport() const { return runtime_->solver.report(); }
int RaycastVehicle::gear() const { return powertrain().gear - kNeutralGear; }

bool RaycastVehicle::isSteered(int wheel) const {
  checkWheelIndex(wheel, "steering");
  return runtime_->wheels[size_t(wheel)].steered;
}

WheelSettings RaycastVehicle::wheelSettings(int wheel) const {
  checkWheelIndex(wheel, "wheel settings");
  const Wheel& runtimeWheel = runtime_->wheels[size_t(wheel)];
  WheelSettings settings = runtimeWheel.settings;
  settings.stiffness = runtimeWheel.suspensionStiffness;
  settings.damping = runtimeWheel.suspensionDamping;
  return settings;
}

const WheelState& RaycastVehicle::wheelState(int wheel) const {
  checkWheelIndex(wheel, "wheel state");
  return runtime_->wheels[size_t(wheel)].state;
}

btVector3 RaycastVehicle::worldUp() const { return runtime_->worldUp(); }
btVector3 RaycastVehicle::worldForward() const { return runtime_->worldForward(); }
btVector3 RaycastVehicle::worldRight() const {
  return chassis().getWorldTransform().getBasis() * runtime_->settings.axes.right();
}

btVector3 RaycastVehicle::linearVelocity() const { return runtime_->linearVelocity(); }

btScalar RaycastVehicle::forwardSpeed() const { return runtime_->forwardSpeed(); }

namespace {
// Bytes of a vehicle's layout record at its payload's end: the words and their count.
size_t layoutRecordBytes(size_t words) { return words * sizeof(std::int32_t) + sizeof(std::uint32_t); }
}  // namespace

void RaycastVehicle::saveState(std::vector<std::uint8_t>& buffer) const {
  StateCounter counter;
  runtime_->transferState(counter);
  const size_t layoutWords = layoutWordCount(runtime_->settings);
  buffer.clear();
  buffer.reserve(kStateHeaderBytes + counter.bytes + layoutRecordBytes(layoutWords));
  buffer.resize(kStateHeaderBytes);
  StateWriter writer(buffer);
  runtime_->transferState(writer);
  // The layout record: its words, then their count (within the reserved capacity).
  auto append = [&buffer](auto value) {
    const size_t at = buffer.size();
    buffer.resize(at + sizeof(value));
    std::memcpy(buffer.data() + at, &value, sizeof(value));
  };
  visitLayoutWords(runtime_->settings, [&append](std::int32_t word) { append(word); });
  append(std::uint32_t(layoutWords));
  writeStateHeader(buffer, StateKind::Vehicle, std::uint32_t(wheelCount()), runtime_->layout);
}

std::vector<std::uint8_t> RaycastVehicle::saveState() const {
  std::vector<std::uint8_t> buffer;
  saveState(buffer);
  return buffer;
}

size_t RaycastVehicle::stateSize() const {
  StateCounter counter;
  runtime_->transferState(counter);
  return kStateHeaderBytes + counter.bytes + layoutRecordBytes(layoutWordCount(runtime_->settings));
}

void RaycastVehicle::checkState(const void* data, size_t size) const {
  size_t payloadBytes = 0;
  const std::uint8_t* payload =
      checkStateHeader(data, size, StateKind::Vehicle, std::uint32_t(wheelCount()), payloadBytes);
  // The layout first: another car with as many wheels (a coupe's state offered to a sedan, a
  // group's snapshot after its cars were removed and added in another order) would otherwise
  // restore without complaint into a car it was never the state of, or fail on a size.
  std::uint32_t savedWords = 0;
  if (payloadBytes >= sizeof(savedWords))
    std::memcpy(&savedWords, payload + payloadBytes - sizeof(savedWords), sizeof(savedWords));
  if (payloadBytes < sizeof(savedWords) ||
      savedWords > (payloadBytes - sizeof(savedWords)) / sizeof(std::int32_t))
    throw StateError("corrupted: the payload's layout record does not fit in it");
  const size_t layoutBytes = layoutRecordBytes(savedWords);
  const std::uint8_t* savedLayout = payload + payloadBytes - layoutBytes;
  size_t index = 0;
  bool same = savedWords == layoutWordCount(runtime_->settings);
  visitLayoutWords(runtime_->settings, [&](std::int32_t word) {
    if (!same) return;
    std::int32_t saved;
    std::memcpy(&saved, savedLayout + index++ * sizeof(saved), sizeof(saved));
    same = saved == word;
  });
  if (!same) {
    // Copied word by word: the record may lie at any alignment in the caller's buffer.
    std::vector<std::int32_t> words(savedWords);
    for (size_t i = 0; i < words.size(); ++i)
      std::memcpy(&words[i], savedLayout + i * sizeof(std::int32_t), sizeof(std::int32_t));
    throw StateError("saved from a vehicle of another layout: " +
                     describeLayoutDifference(words.data(), words.size(), runtime_->settings));
  }
  if (stateLayout(data) != runtime_->layout)
    throw StateError("corrupted: the header's layout fingerprint does not match the payload's layout");
  StateCounter counter;
  runtime_->transferState(counter);
  const size_t fieldBytes = payloadBytes - layoutBytes;
  if (counter.bytes != fieldBytes)
    throw StateError("the payload holds " + std::to_string(fieldBytes) + " bytes of state; this vehicle's is " +
                     std::to_string(counter.bytes));
  // Every value is checked before any is stored: a bad buffer changes nothing.
  StateReader<false> check(payload, fieldBytes);
  runtime_->transferState(check);
}

void RaycastVehicle::restoreState(const void* data, size_t size) {
  checkState(data, size);
  runtime_->putBackSleepThreshold();  // before the saved state replaces what it would need
  const size_t payloadBytes = size - kStateHeaderBytes;
  StateReader<true> read(static_cast<const std::uint8_t*>(data) + kStateHeaderBytes,
                         payloadBytes - layoutRecordBytes(layoutWordCount(runtime_->settings)));
  runtime_->transferState(read);
  // The ground objects are known only by number until the next step's queries find them.
  for (Wheel& wheel : runtime_->wheels) wheel.state.groundObject = nullptr;
  wake();
}

void RaycastVehicle::resetMotion() {
  runtime_->resetMotion();
  wake();
}

void RaycastVehicle::clearWheelQueryCache() { runtime_->forgetGroundCaches(); }

int RaycastVehicle::cachedTriangleCount() const {
  int count = 0;
  for (const Wheel& wheel : runtime_->wheels) count += wheel.ground().cachedTriangleCount();
  return count;
}

btTransform RaycastVehicle::wheelWorldTransform(int wheel) const {
  return wheelWorldTransform(wheel, chassis().getWorldTransform());
}

btTransform RaycastVehicle::wheelWorldTransform(int wheel,
                                                const btTransform& chassisTransform) const {
  checkWheelIndex(wheel, "wheel transform");
  const Wheel& runtimeWheel = runtime_->wheels[size_t(wheel)];
  const ChassisAxes& axes = runtime_->settings.axes;
  const btVector3 centre =
      runtimeWheel.settings.attachmentPoint - axes.up * runtimeWheel.state.suspensionLength;
  // Rolling forward turns the top of the wheel forward: a negative rotation about right.
  const btMatrix3x3 steer(btQuaternion(axes.up, runtimeWheel.state.steerAngle));
  const btMatrix3x3 spin(btQuaternion(axes.right(), -runtimeWheel.state.rotationAngle));
  return chassisTransform * btTransform(steer * spin, centre);
}

// ---------------------------------------------------------------------------------------------
// Debug drawing: suspension, wheel rims, contact normal, and the tire forces of seed 004
// (Fx blue, Fy green), scaled so that a force equal to the wheel's static load is 1 m long.

void RaycastVehicle::debugDraw(btIDebugDraw* drawer) {
  if (drawer == nullptr) return;
  const btTransform& transform = chassis().getWorldTransform();
  const ChassisAxes& axes = runtime_->settings.axes;
  const btVector3 suspensionColour(1, 1, 0), rimColour(0.8f, 0.8f, 0.8f);
  const btVector3 normalColour(1, 0, 0), longitudinalColour(0, 0, 1), lateralColour(0, 1, 0);
  for (int i = 0; i < wheelCount(); ++i) {
    const Wheel& runtimeWheel = runtime_->wheels[size_t(i)];
    const WheelSettings& settings = runtimeWheel.settings;
    const WheelState& state = runtimeWheel.state;
    const btTransform wheel = wheelWorldTransform(i, transform);
    drawer->drawLine(transform * settings.attachmentPoint, wheel.getOrigin(), suspensionColour);
    const btVector3 axle = wheel.getBasis() * axes.right();
    const btVector3 spoke = wheel.getBasis() * axes.up;
    drawer->drawArc(wheel.getOrigin(), axle, spoke, settings.radius, settings.radius, 0, SIMD_2_PI,
                    rimColour, false);
    drawer->drawLine(wheel.getOrigin(), wheel.getOrigin() + spoke * settings.radius, rimColour);
    if (!state.inContact) continue;
    const btScalar scale = state.staticLoad > 0 ? 1 / state.staticLoad : btScalar(1e-3);
    const WheelContact& contact = runtimeWheel.contact;
    const btVector3& point = state.contactPoint;
    drawer->drawLine(point, point + state.contactNormal * (state.normalLoad * scale), normalColour);
    drawer->drawLine(point, point + contact.longitudinal * (state.longitudinalForce * scale),
                     longitudinalColour);
    drawer->drawLine(point, point + contact.lateral * (state.lateralForce * scale), lateralColour);
  }
}

}  // namespace raycar
