// libFuzzer target: any bytes as the OBJ model of a fixed, valid four-wheel vehicle script. The
// loader must build a vehicle or throw raycar::Error, and a built vehicle's settings must be
// valid for RaycastVehicle.
#include <cstddef>
#include <cstdint>
#include <string>

#include "raycar/Error.h"
#include "raycar/io/VehicleLoader.h"

namespace {
const raycar::VehicleScript& script() {
  static const raycar::VehicleScript parsed = raycar::parseVehicleScript(R"(
[model]
obj = "fuzz.obj"
[[hull]]
flags = 1
mass = 1000
[[wheel]]
axle = 0
[[wheel]]
axle = 0
[[wheel]]
driving = 1
axle = 1
[[wheel]]
driving = 1
axle = 1
)", "fuzz.vehicle.toml");
  return parsed;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const raycar::ObjModel model = raycar::parseObjModel(text, "fuzz.obj");
    const raycar::LoadedVehicle vehicle = raycar::buildVehicle(script(), model);
    if (!raycar::validateVehicleSettings(vehicle.settings).empty()) __builtin_trap();
  } catch (const raycar::Error&) {
  }
  return 0;
}
