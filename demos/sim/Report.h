#pragma once
// raycar-sim's outputs: telemetry.csv (DESIGN.md's columns), summary.json (headline figures),
// and report.html, self-contained, with SVG plots: the top-down path, speed / engine rpm / gear
// over time, and per-wheel load and slip over time.

#include <string>

#include "SceneRunner.h"

namespace raycar::sim {

// Column names of telemetry.csv for a vehicle with `wheels` wheels.
std::string telemetryHeader(int wheels, bool ghost);
void writeTelemetryCsv(const std::string& path, const std::vector<TelemetryRow>& rows);
std::string summaryJson(const SceneSummary& summary);
// wheelTraces: wheel 1 of each of the first vehicles (plotted side by side when there are two or more).
std::string reportHtml(const Scene& scene, const SceneSummary& summary, const std::vector<TelemetryRow>& rows,
                       const std::vector<WheelTrace>& wheelTraces = {});

// ISO 4138 (constant radius): one point per speed step that held the circle (the yaw rate within
// 5% of V / R over the step's last 40%), with the single-track model's steer angle beside it.
struct CirclePoint {
  double speed = 0;              // m/s
  double lateralG = 0;           // V x yaw rate / g
  double steerDegrees = 0;       // the steered wheels' mean angle
  double modelSteerDegrees = 0;  // L / R + K a_y, K at this speed
};
std::vector<CirclePoint> constantRadiusPoints(const Scene& scene, const VehicleSummary& vehicle,
                                              const std::vector<TelemetryRow>& rows);

// Writes all three into `directory` (created if missing). Throws raycar::Error if it cannot.
void writeReport(const std::string& directory, const SceneRunner& runner);

}  // namespace raycar::sim
