#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Gearbox settings (seed 001's `gears` and shift parameters, seed 004's final drive and
// efficiency). The state machine that uses them is Powertrain.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

#include "raycar/Error.h"

namespace raycar {

// Indices into GearboxSettings::gears.
constexpr int kReverseGear = 0;
constexpr int kNeutralGear = 1;
constexpr int kFirstGear = 2;
constexpr int kMaxGears = 8;

struct GearboxSettings {
  // `gears`: at most 8 ratios (engine turns per wheel turn, before the final drive); the first is
  // reverse (negative), the second neutral (0), the rest forward (positive).
  std::vector<btScalar> gears = {-3.2, 0, 3.2, 2.1, 1.45, 1.1, 0.87};
  btScalar finalDrive = 3.7;             // final drive ratio, > 0
  btScalar efficiency = 0.92;            // (0, 1]: share of engine torque reaching the wheels
  btScalar shiftUpRpm = 4200;            // engine_shiftupRPM: automatic upshift above it
  btScalar shiftDownRpm = 1800;          // engine_shiftdownRPM: automatic downshift once the
                                         // road speed has turned the engine below it for 0.1 s
  btScalar clutchSpeed = 4;              // clutch_speed (1/s): re-engages in 1 / clutch_speed s
  btScalar gearDirectionSwitchRpm = 30;  // gear_dir_switch_RPM: wheel rpm below which forward
                                         // and reverse may be swapped
  bool automatic = true;                 // false: DriverInput::shiftUp / shiftDown choose gears
  btScalar shiftDwell = 1.0;             // s: an automatic shift against the previous one's
                                         // direction waits this long (no hunting when wheelspin
                                         // lifts the engine speed, which seed 001 takes from the
                                         // fastest driving wheel)
};

// The gear list's rules and those between fields (shift down below shift up); each number's own
// range is in settingsFields() (SettingsFields.h).
std::vector<SettingsProblem> validateGearbox(const GearboxSettings& gearbox, btScalar maxRpm);

}  // namespace raycar
