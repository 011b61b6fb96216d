#pragma once
// A vehicle's layout as its saved states record it (layoutFingerprint, VehicleSettings.h): which
// wheel is which (its axle, whether it drives, steers and has the handbrake), how many gears and
// differentials there are and where. Written word by word at the end of a state's payload, so
// that a vehicle of another layout refusing the state can say what differs, and not only that
// something does (two fingerprints had left a game's programmer to guess between the gear
// count, a handbrake flag and the driving wheels).
//
//   wheel count | each wheel: axle, flags (1 drives, 2 steers, 4 has the handbrake) |
//   gear count (reverse and neutral included) | differential count | each: axle, type

#include <cstddef>
#include <cstdint>
#include <string>

#include "raycar/vehicle/VehicleSettings.h"

namespace raycar {

// Calls visit(std::int32_t) with each word of the layout, in order; allocates nothing.
template <class Visit>
void visitLayoutWords(const VehicleSettings& settings, Visit&& visit) {
  visit(std::int32_t(settings.wheels.size()));
  for (const WheelSettings& wheel : settings.wheels) {
    const bool steered = wheel.steering == SteerMode::Steered ||
                         (wheel.steering == SteerMode::Automatic &&
                          wheel.attachmentPoint.dot(settings.axes.forward) > 0);
    visit(std::int32_t(wheel.axle));
    visit(std::int32_t(int(wheel.driving) | int(steered) << 1 | int(wheel.canBrake) << 2));
  }
  visit(std::int32_t(settings.gearbox.gears.size()));
  visit(std::int32_t(settings.differentials.size()));
  for (const DifferentialSettings& differential : settings.differentials) {
    visit(std::int32_t(differential.axle));
    visit(std::int32_t(differential.type));
  }
}

size_t layoutWordCount(const VehicleSettings& settings);

// Where `saved` (count words, as a state holds them) and `own`'s layout differ, as "wheel 3
// drives in the saved vehicle, not in this one; the saved vehicle has 7 gears (reverse and
// neutral counted), this one 6" (wheels and differentials counted from 1, as the script counts
// them); empty when they are the same.
std::string describeLayoutDifference(const std::int32_t* saved, size_t count, const VehicleSettings& own);

}  // namespace raycar
