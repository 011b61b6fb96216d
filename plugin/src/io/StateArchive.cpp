#include "io/StateArchive.h"

#include <cstdio>

namespace raycar {
namespace {
constexpr char kMagic[4] = {'R', 'C', 'V', 'S'};

template <class T>
T readAt(const std::uint8_t* data, size_t offset) {
  T value;
  std::memcpy(&value, data + offset, sizeof(T));
  return value;
}

template <class T>
void writeAt(std::vector<std::uint8_t>& buffer, size_t offset, T value) {
  std::memcpy(buffer.data() + offset, &value, sizeof(T));
}

const char* kindName(StateKind kind) { return kind == StateKind::Vehicle ? "a vehicle" : "a vehicle group"; }
}  // namespace

std::uint32_t stateChecksum(const std::uint8_t* data, size_t size) {
  std::uint32_t hash = 2166136261u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
  return hash;
}

void writeStateHeader(std::vector<std::uint8_t>& buffer, StateKind kind, std::uint32_t count,
                      std::uint32_t layout) {
  const size_t payloadBytes = buffer.size() - kStateHeaderBytes;
  std::memcpy(buffer.data(), kMagic, 4);
  writeAt(buffer, 4, kStateVersion);
  writeAt(buffer, 6, std::uint8_t(sizeof(btScalar)));
  writeAt(buffer, 7, std::uint8_t(kind));
  writeAt(buffer, 8, count);
  writeAt(buffer, 12, std::uint32_t(payloadBytes));
  writeAt(buffer, 16, stateChecksum(buffer.data() + kStateHeaderBytes, payloadBytes));
  writeAt(buffer, 20, layout);
}

const std::uint8_t* checkStateHeader(const void* data, size_t size, StateKind kind,
                                     std::uint32_t count, size_t& payloadBytes) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  if (bytes == nullptr || size < kStateHeaderBytes || std::memcmp(bytes, kMagic, 4) != 0)
    throw StateError("not a raycar state (" + std::to_string(size) + " bytes without the RCVS header)");
  const auto version = readAt<std::uint16_t>(bytes, 4);
  if (version != kStateVersion)
    throw StateError("saved by state format version " + std::to_string(version) +
                     "; this build reads version " + std::to_string(kStateVersion));
  const auto scalarBytes = readAt<std::uint8_t>(bytes, 6);
  if (scalarBytes != sizeof(btScalar))
    throw StateError("saved with " + std::to_string(scalarBytes * 8) + "-bit numbers; this build's Bullet uses " +
                     std::to_string(sizeof(btScalar) * 8));
  const auto savedKind = StateKind(readAt<std::uint8_t>(bytes, 7));
  if (savedKind != kind)
    throw StateError(std::string("the state is not of ") + kindName(kind));
  const auto savedCount = readAt<std::uint32_t>(bytes, 8);
  if (savedCount != count)
    throw StateError(std::string("saved for ") + std::to_string(savedCount) +
                     (kind == StateKind::Vehicle ? " wheels" : " vehicles") + "; this one has " +
                     std::to_string(count));
  payloadBytes = readAt<std::uint32_t>(bytes, 12);
  if (size - kStateHeaderBytes != payloadBytes)
    throw StateError("truncated or padded: the header promises " + std::to_string(payloadBytes) +
                     " bytes of payload, the buffer holds " + std::to_string(size - kStateHeaderBytes));
  if (stateChecksum(bytes + kStateHeaderBytes, payloadBytes) != readAt<std::uint32_t>(bytes, 16))
    throw StateError("corrupted: the payload's checksum does not match");
  return bytes + kStateHeaderBytes;
}

std::uint32_t stateLayout(const void* data) {
  return readAt<std::uint32_t>(static_cast<const std::uint8_t*>(data), 20);
}

}  // namespace raycar
