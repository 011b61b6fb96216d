// libFuzzer target: any bytes as a vehicle script. The parser must either return a script or
// throw raycar::Error; nothing else (no crash, no other exception, no sanitizer report).
#include <cstddef>
#include <cstdint>
#include <string>

#include "raycar/Error.h"
#include "raycar/io/VehicleScript.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    raycar::parseVehicleScript(text, "fuzz.vehicle.toml");
  } catch (const raycar::Error&) {
  }
  return 0;
}
