#include "raycar/vehicle/DriverInput.h"

#include <algorithm>
#include <cmath>

namespace raycar {

SanitizedInput sanitize(const DriverInput& input) {
  SanitizedInput result{input, 0};
  auto clean = [&](btScalar& value, btScalar low, btScalar high) {
    if (!std::isfinite(value)) {
      value = 0;
      ++result.rejected;
    }
    value = std::clamp(value, low, high);
  };
  clean(result.input.pedal, -1, 1);
  clean(result.input.brake, 0, 1);
  clean(result.input.steer, -1, 1);
  return result;
}

}  // namespace raycar
