#pragma once
// A wheel's ground query outside a vehicle, for the query tests: with its caches' storage, as
// a vehicle's wheel block (WheelArray) gives it.

#include <vector>

#include "ground/GroundQuerySlot.h"

namespace raycar::test {

struct StoredQuery {
  StoredQuery(const WheelSettings& wheel, const WheelQuerySettings& settings)
      : bytes(GroundQuerySlot::cacheBytes(wheel, settings)), memory(bytes.data(), bytes.size()),
        slot(wheel, settings, memory) {}
  GroundQuery& ground() { return slot.ground(); }

  std::vector<unsigned char> bytes;
  CacheMemory memory;
  GroundQuerySlot slot;
};

}  // namespace raycar::test
