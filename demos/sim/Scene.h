#pragma once
// A scene for raycar-sim: the ground, the vehicles with their start poses, and a driver for each.
// Scene files are TOML; errors name the file, the line and the key, as vehicle scripts do.
//
//   [scene]     name, step (s), duration (s), record_every (steps), gravity (m/s^2),
//               rollback_every, rollback_steps (steps), rollback_prediction = "hold" | "exact"
//   [ground]    type = "plane" | "incline" | "track" | "heightfield", friction,
//               slope_deg (incline, rising along +y), obj (track), size, cell, amplitude,
//               wavelength (heightfield)
//   [[vehicle]] script, position [x, y, z], heading_deg, count, columns, spacing [x, y],
//               driver = "timeline" | "hold_speed" | "follow_path" | "parking" | "drift" |
//               "constant_radius",
//               events [[t, pedal, brake, steer, handbrake], ...] (timeline),
//               speed, steer (hold_speed), path [[x, y], ...], lookahead, speed (follow_path,
//               parking), lateral_g (follow_path: a course driver's corner speeds), ghost (parking: seed 002's kinematic bicycle driven alongside),
//               drift_angle_deg, drift_seconds, speed (drift: entry speed),
//               radius, speed, speed_step, step_seconds (constant_radius: ISO 4138),
//               speed, amplitude_deg (sine_with_dwell: FMVSS 126, road-wheel amplitude),
//               esc (overrides the script's [assists] esc), set (script key overrides)
//   [surfaces]  materials = { object = material, ... } (a track's OBJ objects; the rest are 0),
//               friction = [[surface_id, material, friction], ...] (SurfaceTable.h),
//               rolling_resistance = [[surface_id, material, C_rr], ...] (added to the tire's)
// The world is Z up (the models' and tracks' convention); heading 0 points a vehicle along +y.

#include <LinearMath/btVector3.h>

#include <array>
#include <string>
#include <vector>

#include "raycar/io/KeyOverride.h"

namespace raycar::sim {

enum class GroundType { Plane, Incline, Track, Heightfield };
enum class DriverType { Timeline, HoldSpeed, FollowPath, Parking, Drift, ConstantRadius, SineWithDwell };

struct TimelineEvent {
  double time = 0;  // s: the inputs hold from here until the next event
  float pedal = 0, brake = 0, steer = 0;
  bool handbrake = false;
};

struct VehicleEntry {
  int line = 0;
  std::string script;                 // resolved against the scene's folder
  btVector3 position{0, 0, 0};        // m
  double headingDegrees = 0;          // about +z, 0 = along +y
  int count = 1;                      // > 1: a grid of copies
  int columns = 1;
  std::array<double, 2> spacing{8, 8};  // m between grid copies (x, y)
  DriverType driver = DriverType::Timeline;
  std::vector<TimelineEvent> events;
  double speed = 5;                   // m/s (hold_speed, follow_path, parking)
  double steer = 0;                   // [-1, 1] (hold_speed)
  std::vector<std::array<double, 2>> path;  // m (follow_path, parking)
  double lookahead = 4;               // m (pure pursuit)
  double lateralG = 0;                // follow_path: > 0 slows to v^2 |curvature| <= lateral_g g; 0 no limit
  bool ghost = false;                 // parking: a kinematic bicycle alongside
  double driftAngleDegrees = 25;      // drift: body slip angle to hold, > 0 in a left turn
  double driftSeconds = 5;            // drift: how long to hold it
  // constant_radius (ISO 4138): a circle of `radius` m, driven at `speed` m/s, then each
  // `step_seconds` s faster by `speed_step` m/s, until the car cannot hold the circle.
  double radius = 40;                 // m
  double speedStep = 1;               // m/s
  double stepSeconds = 8;             // s
  // Every wheel's ground query ("ray", "sphere", "cylinder"), in place of the script's; empty:
  // the script's. Lets one scene drive the same car with each kind side by side.
  std::string wheelQuery;
  // sine_with_dwell (FMVSS 126): reach `speed`, coast 1 s, then a 0.7 Hz sine of this road-wheel
  // amplitude (deg) with 0.5 s of dwell at its second peak.
  double amplitudeDegrees = 5;
  int esc = -1;  // -1: the script's stability control; 0 off; 1 on
  // set = ["section.key=value", ...]: this vehicle's script with these keys overridden
  // (KeyOverride.h), before any raycar-sim --set of the same keys.
  std::vector<KeyOverride> scriptOverrides;
};

// One row of [surfaces] friction or rolling_resistance: tire surface `surfaceId` on ground
// `material`, and the pair's value (its friction, or the C_rr it adds).
struct SurfacePair {
  int surfaceId = 0;
  int material = 0;
  double value = 1;
};

struct Scene {
  std::string path;
  std::string name;
  double step = 1.0 / 120;   // s
  double duration = 10;      // s
  int recordEvery = 1;       // steps between telemetry rows
  double gravity = 9.81;     // m/s^2
  // Rollback, as a networked game does it: every rollbackEvery steps the runner rewinds
  // rollbackSteps steps (vehicles, chassis bodies, drivers, figures) and replays them with the
  // drivers' own inputs. In the steps it rewinds, the inputs were predicted: "hold" keeps each
  // driver's last input (a remote player's late input), "exact" asks the driver (a prediction
  // that was right). Either way the replayed run is the run that never rewound. 0: no rollback.
  int rollbackEvery = 0;
  int rollbackSteps = 10;
  bool rollbackHoldsInputs = true;
  GroundType ground = GroundType::Plane;
  double friction = 1;
  double slopeDegrees = 0;
  std::string trackObj;
  double heightfieldSize = 256, heightfieldCell = 2, heightfieldAmplitude = 1.5, heightfieldWavelength = 60;
  std::vector<VehicleEntry> vehicles;
  // [surfaces]: the ground material of each named track object, and the friction table. Empty:
  // no table, every contact uses (tire + ground) / 2.
  std::vector<std::pair<std::string, int>> objectMaterials;
  std::vector<SurfacePair> surfaceFriction;
  std::vector<SurfacePair> surfaceRollingResistance;
  int surfacesLine = 0;
  // The parking space the parking scene aims for (x0, y0, x1, y1), when given.
  bool hasParkingSpace = false;
  std::array<double, 4> parkingSpace{0, 0, 0, 0};
  // --set overrides of vehicle-script keys, applied to every vehicle's script as it loads.
  std::vector<KeyOverride> scriptOverrides;
};

// `overrides` (raycar-sim --set) of the scene's own sections ([scene], [ground], [surfaces],
// [[vehicle]]) are written into the file before it is read; any other section is a vehicle-script
// section, and those overrides are kept in Scene::scriptOverrides for every vehicle's script.
Scene loadScene(const std::string& path, const std::vector<KeyOverride>& overrides = {});
Scene parseScene(const std::string& text, const std::string& path, const std::vector<KeyOverride>& overrides = {});

// A scene named on the command line: the path as given when the file exists; else a bundled
// scene's name ("drift" or "drift.toml") in the folders bundledSceneFolders() lists. Throws
// raycar::Error naming what was searched when it is found nowhere.
std::string findScene(const std::string& argument);
// Where bundled scenes are looked for, in order: the installed data beside the running program
// (<prefix>/bin/../share/raycar/scenes), then, run from the build tree only, the source tree's
// data/scenes (DataFolders.h).
std::vector<std::string> bundledSceneFolders();
// The bundled scenes' names (their files' names without ".toml"), sorted, each once: what
// findScene takes for a name, listed by `raycar-sim --help` and by findScene's error.
std::vector<std::string> bundledSceneNames();

}  // namespace raycar::sim
