#pragma once
// The byte format of a saved vehicle state (RaycastVehicle::saveState) and the archives that
// write and read it. Each runtime object lists what of it evolves from step to step once, in a
// template `transferState(Archive&)`; the same list writes, counts and reads, so a field saved
// is a field restored.
//
// A buffer is a header followed by the payload:
//   magic "RCVS" | version u16 | sizeof(btScalar) u8 | kind u8 | count u32 | payload bytes u32 |
//   FNV-1a of the payload u32 | layout u32 (layoutFingerprint of the vehicle's settings; 0 for a
//   group, whose parts carry their own)
// A vehicle's payload ends with its layout's words (vehicle/VehicleLayout.h) and their count
// (u32), after the runtime's own fields.
// kind 1: one vehicle, count = its wheels; kind 2: a VehicleGroup, count = its vehicles, and the
// payload is each vehicle's whole buffer after a u32 of its length. Numbers are in the machine's
// byte order: a buffer is for the same build on the same kind of machine (rollback, replays,
// a save game), not an exchange format.

#include <LinearMath/btVector3.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "raycar/Error.h"

namespace raycar {

// The largest magnitude a restored number may have unless its field says otherwise: far beyond
// any state a step leaves (speeds, impulses, positions, energies), and small enough that a
// forged buffer's numbers cannot overflow a step into infinities.
constexpr btScalar kStateMagnitude = btScalar(1e9);

enum class StateKind : std::uint8_t { Vehicle = 1, Group = 2 };

// Writes a payload.
class StateWriter {
 public:
  explicit StateWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void scalar(btScalar& value, btScalar = 0, btScalar = 0) { put(value); }
  void integer(int& value, int = INT_MIN, int = INT_MAX) { put(std::int32_t(value)); }
  void key(std::uint64_t& value) { put(value); }
  void flag(bool& value) { put(std::uint8_t(value ? 1 : 0)); }
  void vector(btVector3& value) {
    for (int i = 0; i < 3; ++i) put(value[i]);
  }

 private:
  template <class T>
  void put(T value) {
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
  }
  std::vector<std::uint8_t>& out_;
};

// Counts a payload's bytes without writing it.
class StateCounter {
 public:
  void scalar(btScalar&, btScalar = 0, btScalar = 0) {
    bytes += sizeof(btScalar);
  }
  void integer(int&, int = INT_MIN, int = INT_MAX) { bytes += sizeof(std::int32_t); }
  void key(std::uint64_t&) { bytes += sizeof(std::uint64_t); }
  void flag(bool&) { bytes += 1; }
  void vector(btVector3&) { bytes += 3 * sizeof(btScalar); }
  size_t bytes = 0;
};

// Reads a payload whose length was checked. `Apply` false only checks every value (finite
// numbers, flags 0 or 1), so that a bad buffer is refused before anything changes; true stores.
template <bool Apply>
class StateReader {
 public:
  StateReader(const std::uint8_t* data, size_t size) : data_(data), size_(size) {}
  // Finite and within [lowest, highest] (by default +-kStateMagnitude), or StateError.
  void scalar(btScalar& value, btScalar lowest = -kStateMagnitude, btScalar highest = kStateMagnitude) {
    const btScalar read = finite(get<btScalar>());
    if (read < lowest || read > highest)
      fail("the number " + std::to_string(read) + " at payload byte " +
           std::to_string(position_ - sizeof(btScalar)) + " is outside [" + std::to_string(lowest) +
           ", " + std::to_string(highest) + "]");
    store(value, read);
  }
  // Within [lowest, highest] (an index the step will use), or StateError.
  void integer(int& value, int lowest = INT_MIN, int highest = INT_MAX) {
    const int read = int(get<std::int32_t>());
    if (read < lowest || read > highest)
      fail("the integer " + std::to_string(read) + " at payload byte " +
           std::to_string(position_ - 4) + " is outside [" + std::to_string(lowest) + ", " +
           std::to_string(highest) + "]");
    store(value, read);
  }
  void key(std::uint64_t& value) { store(value, get<std::uint64_t>()); }
  void flag(bool& value) {
    const std::uint8_t byte = get<std::uint8_t>();
    if (byte > 1) fail("a flag is " + std::to_string(int(byte)) + ", not 0 or 1");
    store(value, byte == 1);
  }
  void vector(btVector3& value) {
    btVector3 read;
    for (int i = 0; i < 3; ++i) {
      read[i] = finite(get<btScalar>());
      if (std::fabs(read[i]) > kStateMagnitude) fail("a vector's component is beyond 1e9");
    }
    store(value, read);
  }
  size_t position() const { return position_; }

 private:
  template <class T>
  T get() {
    if (size_ - position_ < sizeof(T)) fail("the payload ends early");
    T value;
    std::memcpy(&value, data_ + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  btScalar finite(btScalar value) {
    if (!std::isfinite(value)) fail("the number at payload byte " + std::to_string(position_ - sizeof(btScalar)) + " is not finite");
    return value;
  }
  template <class T>
  static void store(T& target, const T& value) {
    if (Apply) target = value;
  }
  [[noreturn]] static void fail(const std::string& message) { throw StateError(message); }
  const std::uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// The header: written before a payload of `payloadBytes` that starts at `payload`.
constexpr size_t kStateHeaderBytes = 4 + 2 + 1 + 1 + 4 + 4 + 4 + 4;
// 2: the stick anchors' expected chassis velocity; 3: the time the car has stood still, and the
// vehicle's layout in the header; 5: whether ABS held back a driving wheel's brake in the last step
// (Drivetrain: the clutch stays open while it does); 6: each limited-slip, Torsen or locked
// differential's last impulse, which the next solve starts from; 7: how long the automatic
// gearbox's road speed has stayed below its shift-down speed; 8: a vehicle's layout word by word
// at its payload's end (vehicle/VehicleLayout.h)
constexpr std::uint16_t kStateVersion = 8;

std::uint32_t stateChecksum(const std::uint8_t* data, size_t size);  // FNV-1a
// Fills the header of `buffer` (whose first kStateHeaderBytes are reserved) for the payload
// that follows it.
void writeStateHeader(std::vector<std::uint8_t>& buffer, StateKind kind, std::uint32_t count,
                      std::uint32_t layout);
// Checks a buffer's header against what the reader expects (kind, count) and its payload's
// length and checksum; throws StateError naming what does not match. Returns the payload. A
// vehicle's layout is checked by the vehicle (RaycastVehicle::checkState), which can say what
// differs from the words at its payload's end.
const std::uint8_t* checkStateHeader(const void* data, size_t size, StateKind kind,
                                     std::uint32_t count, size_t& payloadBytes);
// The layout fingerprint a checked header holds.
std::uint32_t stateLayout(const void* data);

}  // namespace raycar
