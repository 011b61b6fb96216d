#pragma once
// A wheel's ground query, held in the wheel itself (Wheel::groundQuery): the implementations are
// few and known, and a query reached through a pointer of its own cost a thousand-car fleet a
// memory round trip per wheel and step. ground() is its interface.

#include <variant>

#include "ground/GroundQuery.h"
#include "ground/ShapeCastQuery.h"

namespace raycar {

class GroundQuerySlot {
 public:
  // The query `wheel` asks for (WheelSettings::groundQuery): a ray, cached or not as the
  // vehicle's WheelQuerySettings say, or a shape cast. Its caches' storage, cacheBytes() of it,
  // comes from `memory`.
  GroundQuerySlot(const WheelSettings& wheel, const WheelQuerySettings& settings, CacheMemory& memory);
  static size_t cacheBytes(const WheelSettings& wheel, const WheelQuerySettings& settings);
  GroundQuery& ground() {
    return std::visit([](auto& query) -> GroundQuery& { return query; }, query_);
  }
  const GroundQuery& ground() const {
    return std::visit([](const auto& query) -> const GroundQuery& { return query; }, query_);
  }

 private:
  std::variant<WorldRayQuery, CachedRayQuery, ShapeCastQuery> query_;
};

}  // namespace raycar
