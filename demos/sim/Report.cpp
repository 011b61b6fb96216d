#include "Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "SvgPlot.h"
#include "raycar/Error.h"

namespace raycar::sim {
namespace {


}  // namespace

std::string telemetryHeader(int wheels, bool ghost) {
  std::string header =
      "time,x,y,z,vx,vy,vz,yaw,speed,engine_rpm,gear,clutch,rear_x,rear_y,steering_torque,esc_brake,"
      "clutch_torque,clutch_heat";
  for (int w = 1; w <= wheels; ++w) {
    const std::string p = ",w" + std::to_string(w) + "_";
    header += p + "contact" + p + "compression" + p + "load" + p + "slip_ratio" + p + "slip_angle" + p + "fx" + p +
              "fy" + p + "omega" + p + "steer" + p + "aligning" + p + "camber" + p + "temperature" + p + "material";
  }
  if (ghost) header += ",ghost_x,ghost_y,ghost_distance";
  return header;
}

void writeTelemetryCsv(const std::string& path, const std::vector<TelemetryRow>& rows) {
  std::ofstream file(path, std::ios::binary);
  if (!file) throw Error({path, 0, ""}, "cannot write the telemetry file");
  const int wheels = rows.empty() ? 0 : int(rows[0].wheels.size());
  const bool ghost = !rows.empty() && rows[0].hasGhost;
  file << telemetryHeader(wheels, ghost) << "\n";
  for (const TelemetryRow& row : rows) {
    file << number(row.time) << ',' << number(row.position.x()) << ',' << number(row.position.y()) << ','
         << number(row.position.z()) << ',' << number(row.velocity.x()) << ',' << number(row.velocity.y()) << ','
         << number(row.velocity.z()) << ',' << number(row.yaw) << ',' << number(row.speed) << ','
         << number(row.engineRpm) << ',' << row.gear << ',' << number(row.clutch) << ',' << number(row.rearX) << ','
         << number(row.rearY) << ',' << number(row.steeringTorque) << ',' << number(row.escBrakeTorque) << ','
         << number(row.clutchTorque) << ',' << number(row.clutchHeat);
    for (const WheelState& w : row.wheels)
      file << ',' << (w.inContact ? 1 : 0) << ',' << number(w.suspensionCompression) << ',' << number(w.normalLoad)
           << ',' << number(w.slipRatio) << ',' << number(w.slipAngle) << ',' << number(w.longitudinalForce) << ','
           << number(w.lateralForce) << ',' << number(w.angularSpeed) << ',' << number(w.steerAngle) << ','
           << number(w.aligningMoment) << ',' << number(w.camber) << ',' << number(w.tireTemperature) << ','
           << w.groundMaterial;
    if (ghost) file << ',' << number(row.ghostX) << ',' << number(row.ghostY) << ',' << number(row.ghostDistance);
    file << '\n';
  }
}

std::string summaryJson(const SceneSummary& summary) {
  std::ostringstream json;
  json << "{\n  \"scene\": \"" << summary.name << "\",\n  \"steps\": " << summary.steps
       << ",\n  \"simulated_time\": " << jsonNumber(summary.simulatedTime) << ",\n";
  if (summary.rollbacks > 0)
    json << "  \"rollbacks\": " << summary.rollbacks << ",\n  \"largest_rollback_correction\": "
         << jsonNumber(summary.largestRollbackCorrection) << ",\n";
  json << "  \"vehicles\": [\n";
  for (size_t i = 0; i < summary.vehicles.size(); ++i) {
    const VehicleSummary& v = summary.vehicles[i];
    json << "    {\"script\": \"" << v.script << "\", \"distance\": " << jsonNumber(v.distance)
         << ", \"top_speed\": " << jsonNumber(v.topSpeed) << ", \"time_0_100\": "
         << (v.time0To100 >= 0 ? jsonNumber(v.time0To100) : "null")
         << ", \"stop_from_speed\": " << (v.stopDistance >= 0 ? jsonNumber(v.stopFromSpeed) : "null")
         << ", \"stop_distance\": " << (v.stopDistance >= 0 ? jsonNumber(v.stopDistance) : "null")
         << ", \"stop_time\": " << (v.stopDistance >= 0 ? jsonNumber(v.stopTime) : "null")
         << ", \"max_lateral_g\": " << jsonNumber(v.maxLateralG)
         << ", \"final_position\": [" << jsonNumber(v.finalPosition.x()) << ", " << jsonNumber(v.finalPosition.y()) << ", "
         << jsonNumber(v.finalPosition.z()) << "], \"final_heading_deg\": " << jsonNumber(v.finalHeadingDegrees)
         << ", \"gear_changes\": " << v.gearChanges << ", \"finite\": " << (v.finite ? "true" : "false")
         << ", \"left_ground_at\": " << (v.leftGroundAt >= 0 ? jsonNumber(v.leftGroundAt) : "null");
    if (v.hasGhost)
      json << ", \"ghost_max_distance\": " << jsonNumber(v.ghostMaxDistance) << ", \"ghost_final_distance\": "
           << jsonNumber(v.ghostFinalDistance);
    if (v.hasPath) json << ", \"path_time\": " << (v.pathTime >= 0 ? jsonNumber(v.pathTime) : "null");
    if (v.hasModel)  // the single-track model's understeer gradient at speed (no slip epsilon)
      json << ", \"understeer_gradient_deg_per_g\": "
           << jsonNumber(v.model.understeerGradient(1e6f) * 9.81 * 180 / SIMD_PI);
    json << ", \"inside_parking_space\": " << (v.insideParkingSpace ? "true" : "false");
    // What the loader made of the script and model.
    auto vector = [](const btVector3& value) {
      return "[" + jsonNumber(value.x()) + ", " + jsonNumber(value.y()) + ", " + jsonNumber(value.z()) + "]";
    };
    const VehicleBuild& build = v.build;
    json << ",\n     \"mass\": " << jsonNumber(build.mass) << ", \"chassis_inertia\": " << vector(build.chassisInertia)
         << ", \"center_of_mass_in_model\": " << vector(build.centerOfMassInModel) << ", \"wheels\": [";
    for (size_t w = 0; w < build.wheels.size(); ++w) {
      const VehicleBuild::Wheel& wheel = build.wheels[w];
      json << (w ? ",\n       " : "\n       ") << "{\"radius\": " << jsonNumber(wheel.radius) << ", \"width\": "
           << jsonNumber(wheel.width) << ", \"len_initial\": " << jsonNumber(wheel.restLength) << ", \"len_max\": "
           << jsonNumber(wheel.maxLength) << ", \"stiffness\": " << jsonNumber(wheel.stiffness)
           << ", \"static_load\": " << jsonNumber(wheel.staticLoad) << ", \"centre_in_model\": " << vector(wheel.centreInModel)
           << "}";
    }
    json << "]}"
         << (i + 1 < summary.vehicles.size() ? "," : "") << "\n";
  }
  json << "  ]\n}\n";
  return json.str();
}

std::vector<CirclePoint> constantRadiusPoints(const Scene& scene, const VehicleSummary& vehicle,
                                              const std::vector<TelemetryRow>& rows) {
  std::vector<CirclePoint> points;
  if (scene.vehicles.empty() || scene.vehicles[0].driver != DriverType::ConstantRadius || rows.size() < 3)
    return points;
  const VehicleEntry& entry = scene.vehicles[0];
  const double gravity = scene.gravity;
  for (double start = 0; start + entry.stepSeconds <= rows.back().time + 1e-6; start += entry.stepSeconds) {
    const double from = start + 0.6 * entry.stepSeconds, to = start + entry.stepSeconds;
    double speed = 0, yawRate = 0, steer = 0, firstSpeed = 0, lastSpeed = 0;
    int count = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i].time < from || rows[i].time >= to) continue;
      const double dt = rows[i].time - rows[i - 1].time;
      if (!(dt > 0)) continue;
      if (count == 0) firstSpeed = rows[i].speed;
      lastSpeed = rows[i].speed;
      speed += rows[i].speed;
      yawRate += std::remainder(rows[i].yaw - rows[i - 1].yaw, 2 * SIMD_PI) / dt;
      double wheelSteer = 0;
      int steered = 0;
      for (const WheelState& wheel : rows[i].wheels)
        if (wheel.steerAngle != 0) wheelSteer += wheel.steerAngle, ++steered;
      steer += steered > 0 ? wheelSteer / steered : 0;
      ++count;
    }
    if (count == 0) continue;
    speed /= count, yawRate /= count, steer /= count;
    if (!(speed > 0.5) || std::fabs(speed / entry.radius - yawRate) > 0.05 * speed / entry.radius) continue;
    // ISO 4138's steady state: the speed held, within 0.5% over the window. The first step
    // follows the launch, and the car, which the driver does not brake, was still coasting
    // down to it (1.2% over the window), its drive force not yet what holds the speed.
    if (std::fabs(lastSpeed - firstSpeed) > 0.005 * speed) continue;
    CirclePoint point;
    point.speed = speed;
    point.lateralG = speed * yawRate / gravity;
    point.steerDegrees = steer * 180 / SIMD_PI;
    if (vehicle.hasModel)
      point.modelSteerDegrees =
          (vehicle.model.wheelbase() / entry.radius +
           vehicle.model.understeerGradient(btScalar(speed)) * speed * yawRate) * 180 / SIMD_PI;
    points.push_back(point);
  }
  return points;
}

std::string reportHtml(const Scene& scene, const SceneSummary& summary, const std::vector<TelemetryRow>& rows,
                       const std::vector<WheelTrace>& wheelTraces) {
  std::vector<double> time, x, y, ghostX, ghostY, speed, rpm, gear;
  const int wheels = rows.empty() ? 0 : int(rows[0].wheels.size());
  std::vector<std::vector<double>> load(wheels), slip(wheels), angle(wheels), temperature(wheels), aligning(wheels);
  std::vector<double> steeringTorque, escBrake, clutchTorque, clutchHeat;
  bool thermal = false, feel = false, esc = false, clutch = false;  // plots shown when it acts
  for (const TelemetryRow& row : rows) {
    time.push_back(row.time);
    x.push_back(row.rearX);
    y.push_back(row.rearY);
    ghostX.push_back(row.ghostX);
    ghostY.push_back(row.ghostY);
    speed.push_back(row.speed * 3.6);
    rpm.push_back(row.engineRpm);
    gear.push_back(row.gear);
    steeringTorque.push_back(row.steeringTorque);
    escBrake.push_back(row.escBrakeTorque);
    feel = feel || row.steeringTorque != 0;
    esc = esc || row.escBrakeTorque != 0;
    clutchTorque.push_back(row.clutchTorque);
    clutchHeat.push_back(row.clutchHeat / 1000);
    clutch = clutch || row.clutchTorque != 0;
    for (int w = 0; w < wheels && w < int(row.wheels.size()); ++w) {
      const WheelState& state = row.wheels[w];
      load[w].push_back(state.normalLoad);
      slip[w].push_back(state.slipRatio);
      angle[w].push_back(state.slipAngle * 180 / SIMD_PI);
      temperature[w].push_back(state.tireTemperature);
      aligning[w].push_back(state.aligningMoment);
      thermal = thermal || state.tireTemperature != rows[0].wheels[w].tireTemperature;
    }
  }
  std::vector<Series> path = {{"vehicle (rear axle)", "#1f77b4", x, y}};
  if (!rows.empty() && rows[0].hasGhost) path.push_back({"bicycle ghost", "#d62728", ghostX, ghostY, true});
  std::vector<Rectangle> rectangles;
  if (scene.hasParkingSpace)
    rectangles.push_back({scene.parkingSpace[0], scene.parkingSpace[1], scene.parkingSpace[2], scene.parkingSpace[3], "#2ca02c"});
  std::vector<Series> loads, slips, angles, temperatures, moments;
  // Slip ratios are drawn within +-kSlipPlotLimit: a locked wheel's -1 and a spinning one's
  // first metres show, where a wheel spun up from standstill (its ratio over a road speed near
  // the tire's epsilon, 50 at the handling scene's start) had flattened every other line.
  constexpr double kSlipPlotLimit = 1.2;
  bool slipsClipped = false;
  for (std::vector<double>& wheelSlips : slip)
    for (double& value : wheelSlips) {
      if (std::fabs(value) > kSlipPlotLimit) slipsClipped = true;
      value = std::clamp(value, -kSlipPlotLimit, kSlipPlotLimit);
    }
  for (int w = 0; w < wheels; ++w) {
    const std::string name = "wheel " + std::to_string(w + 1);
    loads.push_back({name, kColours[w % 8], time, load[w]});
    slips.push_back({name, kColours[w % 8], time, slip[w]});
    angles.push_back({name, kColours[w % 8], time, angle[w]});
    temperatures.push_back({name, kColours[w % 8], time, temperature[w]});
    moments.push_back({name, kColours[w % 8], time, aligning[w]});
  }
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>raycar-sim: " << scene.name
       << "</title>\n<style>body{font-family:sans-serif;margin:24px;max-width:760px}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}</style></head><body>\n<h1>" << scene.name
       << "</h1>\n<p>" << summary.steps << " steps of " << number(scene.step) << " s, " << number(summary.simulatedTime)
       << " s simulated, " << summary.vehicles.size() << " vehicle(s); plots show vehicle 1.</p>\n"
       << "<table><tr><th>vehicle</th><th>distance (m)</th><th>top speed (km/h)</th><th>0-100 km/h (s)</th>"
          "<th>first stop (km/h, m)</th><th>max lateral g</th><th>gear changes</th></tr>\n";
  for (size_t i = 0; i < summary.vehicles.size() && i < 20; ++i) {
    const VehicleSummary& v = summary.vehicles[i];
    html << "<tr><td>" << i + 1 << "</td><td>" << fixed(v.distance, 1) << "</td><td>" << fixed(v.topSpeed * 3.6, 1)
         << "</td><td>" << (v.time0To100 >= 0 ? fixed(v.time0To100, 2) : "-") << "</td><td>"
         << (v.stopDistance >= 0 ? fixed(v.stopFromSpeed * 3.6, 1) + ", " + fixed(v.stopDistance, 2) : "-") << "</td><td>"
         << fixed(v.maxLateralG, 2) << "</td><td>" << v.gearChanges << "</td></tr>\n";
  }
  html << "</table>\n";
  if (!summary.vehicles.empty() && summary.vehicles[0].hasGhost)
    html << "<p>Bicycle ghost: largest distance " << fixed(summary.vehicles[0].ghostMaxDistance, 3)
         << " m, final " << fixed(summary.vehicles[0].ghostFinalDistance, 3) << " m; inside the space: "
         << (summary.vehicles[0].insideParkingSpace ? "yes" : "no") << ".</p>\n";
  html << plot("Top-down path", "x (m)", "y (m)", path, true, rectangles)
       << plot("Speed", "time (s)", "km/h", {{"speed", "#1f77b4", time, speed}})
       << plot("Engine", "time (s)", "rev/min", {{"engine rpm", "#d62728", time, rpm}})
       << plot("Gear", "time (s)", "gear", {{"gear (-1 reverse)", "#2ca02c", time, gear}})
       << plot("Wheel loads", "time (s)", "N", loads) << plot(slipsClipped ? "Slip ratios (drawn within -1.2 to 1.2)" : "Slip ratios", "time (s)", "s", slips)
       << plot("Slip angles", "time (s)", "deg", angles);
  if (thermal) html << plot("Tire temperatures", "time (s)", "C", temperatures);
  if (feel)
    html << plot("Aligning moments", "time (s)", "N m", moments)
         << plot("Steering torque", "time (s)", "N m at the steering wheel", {{"steering torque", "#9467bd", time, steeringTorque}});
  if (clutch)
    html << plot("Clutch torque", "time (s)", "N m at the crankshaft", {{"clutch torque", "#17becf", time, clutchTorque}})
         << plot("Clutch heat", "time (s)", "kJ so far", {{"clutch slip energy", "#ff7f0e", time, clutchHeat}});
  if (esc) html << plot("Stability control brake", "time (s)", "N m", {{"ESC brake torque", "#8c564b", time, escBrake}});
  if (wheelTraces.size() > 1) {
    // The same wheel of each car (the kerbs scene: one car per ground query) over the distance
    // each has travelled, so the cars meet each kerb at the same abscissa.
    std::vector<Series> traces;
    for (size_t i = 0; i < wheelTraces.size(); ++i) {
      Series series{wheelTraces[i].label, kColours[i % 8], wheelTraces[i].travelled, {}};
      for (const double compression : wheelTraces[i].compression) series.y.push_back(compression * 1000);
      traces.push_back(series);
    }
    html << "<p>Wheel 1 (front left) of each vehicle: suspension compression against the distance "
            "travelled.</p>\n"
         << plot("Wheel 1 suspension compression, each vehicle", "distance travelled (m)", "mm", traces);
  }
  const std::vector<CirclePoint> circle =
      summary.vehicles.empty() ? std::vector<CirclePoint>{} : constantRadiusPoints(scene, summary.vehicles[0], rows);
  if (!circle.empty()) {
    // ISO 4138: steer angle against lateral acceleration; at the origin its slope is the
    // understeer gradient K (the single-track model's line beside the measured points).
    Series measured{"measured", "#1f77b4", {}, {}}, model{"single-track model", "#d62728", {}, {}, true};
    for (const CirclePoint& p : circle) {
      measured.x.push_back(p.lateralG), measured.y.push_back(p.steerDegrees);
      model.x.push_back(p.lateralG), model.y.push_back(p.modelSteerDegrees);
    }
    html << "<p>ISO 4138 constant radius (" << fixed(scene.vehicles[0].radius, 0)
         << " m): one point per speed step that held the circle; model understeer gradient "
         << fixed(summary.vehicles[0].model.understeerGradient(1e6f) * 9.81 * 180 / SIMD_PI, 2) << " deg/g.</p>\n"
         << plot("Steer angle against lateral acceleration (ISO 4138)", "lateral acceleration (g)",
                 "steer angle (deg)", {measured, model});
  }
  html << "</body></html>\n";
  return html.str();
}

void writeReport(const std::string& directory, const SceneRunner& runner) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  const SceneSummary summary = runner.summary();
  writeTelemetryCsv(directory + "/telemetry.csv", runner.telemetry());
  std::ofstream json(directory + "/summary.json", std::ios::binary);
  std::ofstream html(directory + "/report.html", std::ios::binary);
  if (!json || !html) throw Error({directory, 0, ""}, "cannot write the report into this folder");
  json << summaryJson(summary);
  html << reportHtml(runner.scene(), summary, runner.telemetry(), runner.wheelTraces());
}

}  // namespace raycar::sim
