#include "Hud.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace raycar::viewer {
namespace {

constexpr double kDegree = 3.14159265358979323846 / 180;
constexpr float kMargin = 6;
const ImU32 kLeftWheelColor = IM_COL32(255, 165, 40, 255);
const ImU32 kRightWheelColor = IM_COL32(70, 205, 255, 255);

// A progress bar `fraction` full (clamped to [0, 1]) with `text` on it; red when `warn`.
void bar(double fraction, const char* text, bool warn = false) {
  if (warn) ImGui::PushStyleColor(ImGuiCol_PlotHistogram, IM_COL32(220, 60, 50, 255));
  ImGui::ProgressBar(float(std::clamp(fraction, 0.0, 1.0)), ImVec2(64, 0), text);
  if (warn) ImGui::PopStyleColor();
}

const char* gearName(int gear, char* buffer, size_t size) {
  if (gear == kReverseGear) return "R";
  if (gear == kNeutralGear) return "N";
  std::snprintf(buffer, size, "%d", gear - kNeutralGear);
  return buffer;
}

struct OperatingPoint {
  double slip;  // x on the curve
  ImU32 color;
};

// One curve, mu(x) for x in [-xRange, xRange], with the operating points on it.
void plotCurve(const char* title, const FrictionCurve& curve, double xRange, double xLabelScale,
               const char* xUnit, const std::vector<OperatingPoint>& points) {
  const ImVec2 size(128, 58);
  ImGui::TextUnformatted(title);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(title, size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), IM_COL32(20, 22, 28, 200));
  const double yRange = std::max(1.15 * double(curve.peak()), 0.2);
  auto toScreen = [&](double x, double y) {
    return ImVec2(origin.x + float((x / xRange + 1) / 2) * size.x, origin.y + float((1 - y / yRange) / 2) * size.y);
  };
  draw->AddLine(toScreen(-xRange, 0), toScreen(xRange, 0), IM_COL32(90, 90, 100, 255));
  draw->AddLine(toScreen(0, -yRange), toScreen(0, yRange), IM_COL32(90, 90, 100, 255));
  constexpr int kSamples = 64;
  ImVec2 line[kSamples + 1];
  for (int i = 0; i <= kSamples; ++i) {
    const double x = -xRange + 2 * xRange * i / kSamples;
    line[i] = toScreen(x, double(curve.evaluate(btScalar(x)).value));
  }
  draw->AddPolyline(line, kSamples + 1, IM_COL32(230, 230, 230, 255), 0, 1.5f);
  for (const OperatingPoint& point : points) {
    const double x = std::clamp(point.slip, -xRange, xRange);
    draw->AddCircleFilled(toScreen(x, double(curve.evaluate(btScalar(x)).value)), 4.0f, point.color);
  }
  char label[64];
  std::snprintf(label, sizeof(label), "%+.0f%s", xRange * xLabelScale, xUnit);
  draw->AddText(ImVec2(origin.x + size.x - ImGui::CalcTextSize(label).x - 2, origin.y + size.y - 15),
                IM_COL32(150, 150, 160, 255), label);
  std::snprintf(label, sizeof(label), "peak %.2f", double(curve.peak()));
  draw->AddText(ImVec2(origin.x + 3, origin.y + 1), IM_COL32(150, 150, 160, 255), label);
}

}  // namespace

void Hud::attach(const RaycastVehicle& vehicle) {
  axles_.clear();
  wheelNames_.clear();
  leftWheels_.clear();
  const ChassisAxes& axes = vehicle.settings().axes;
  // Front / rear names say which wheel is which on two axles; with more, the axle number does
  // (a 6x4's two rear axles were both RL / RR).
  std::vector<int> axleNumbers;
  for (int w = 0; w < vehicle.wheelCount(); ++w)
    if (std::find(axleNumbers.begin(), axleNumbers.end(), vehicle.wheelSettings(w).axle) == axleNumbers.end())
      axleNumbers.push_back(vehicle.wheelSettings(w).axle);
  for (int w = 0; w < vehicle.wheelCount(); ++w) {
    const WheelSettings& wheel = vehicle.wheelSettings(w);
    const bool front = wheel.attachmentPoint.dot(axes.forward) > 0;  // the chassis origin is the centre of mass
    const bool left = wheel.attachmentPoint.dot(axes.right()) < 0;
    const std::string position =
        axleNumbers.size() > 2 ? "A" + std::to_string(wheel.axle) : std::string(front ? "F" : "R");
    wheelNames_.push_back(std::to_string(w + 1) + " " + position + (left ? "L" : "R"));
    leftWheels_.push_back(left);
    auto axle = std::find_if(axles_.begin(), axles_.end(), [&](const AxleCurves& a) { return a.axle == wheel.axle; });
    if (axle != axles_.end()) {
      axle->wheels.push_back(w);
      continue;
    }
    AxleCurves curves;
    curves.axle = wheel.axle;
    curves.wheels.push_back(w);
    curves.slipCurves = wheel.tire.model == TireModelKind::SlipCurves && !wheel.tire.customModel;
    if (curves.slipCurves) {
      curves.longitudinal = FrictionCurve(wheel.tire.longitudinalCurve);
      curves.lateral = FrictionCurve(wheel.tire.lateralCurve);
    }
    axles_.push_back(std::move(curves));
  }
}

void Hud::draw(const RaycastVehicle& vehicle, const HudContext& context, int widthPixels, int heightPixels) const {
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoFocusOnAppearing;
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.72f);
  if (ImGui::Begin("Vehicle 1", nullptr, flags)) drawDriverPanel(vehicle, context);
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(kMargin, float(heightPixels) - kMargin), ImGuiCond_Always, ImVec2(0, 1));
  ImGui::SetNextWindowBgAlpha(0.72f);
  if (ImGui::Begin("Wheels", nullptr, flags)) drawWheelPanel(vehicle);
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(float(widthPixels) - kMargin, float(heightPixels) - kMargin), ImGuiCond_Always,
                          ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.72f);
  if (ImGui::Begin("Tire curves", nullptr, flags)) drawCurvePanel(vehicle);
  ImGui::End();
}

void Hud::drawDriverPanel(const RaycastVehicle& vehicle, const HudContext& context) const {
  const PowertrainState& powertrain = vehicle.powertrain();
  const VehicleSettings& settings = vehicle.settings();
  ImGui::Text("%s  t %.2f s  %s (Tab)", context.sceneName.c_str(), context.simulatedSeconds, context.viewName);
  if (context.keyboardDriving)
    ImGui::TextColored(ImVec4(1, 0.85f, 0.3f, 1), "driver: keyboard");
  else if (context.controllerDriving)
    ImGui::TextColored(ImVec4(1, 0.85f, 0.3f, 1), "driver: %s", context.controller->mapping->name.c_str());
  else
    ImGui::TextDisabled("driver: scene (arrows/WASD or a controller take over)");
  if (context.controller && context.controller->connected) {
    // Raw beside shaped: what the device reports and what the mapping makes of it.
    const ControllerReading& pad = *context.controller;
    ImGui::Text("pad: %s (%s)", pad.deviceName.c_str(), pad.mapping->name.c_str());
    ImGui::Text("steer %+.2f > %+.2f  thr %+.2f > %.2f  brk %+.2f > %.2f", double(pad.rawSteer),
                double(pad.shaped.steer), double(pad.rawThrottle), double(pad.shaped.throttle), double(pad.rawBrake),
                double(pad.shaped.brake));
    if (pad.shaped.handbrake || pad.shaped.shiftUp || pad.shaped.shiftDown)
      ImGui::Text("%s%s%s", pad.shaped.handbrake ? "[handbrake] " : "", pad.shaped.shiftUp ? "[shift up] " : "",
                  pad.shaped.shiftDown ? "[shift down]" : "");
  }
  ImGui::Text("speed  %6.1f km/h", double(vehicle.forwardSpeed()) * 3.6);
  char text[64];
  std::snprintf(text, sizeof(text), "%.0f rpm", double(powertrain.engineRpm));
  ImGui::TextUnformatted("engine");
  ImGui::SameLine(60);
  ImGui::ProgressBar(float(std::clamp(double(powertrain.engineRpm / settings.engine.maxRpm), 0.0, 1.0)),
                     ImVec2(130, 0), text);
  char gear[16];
  ImGui::Text("gear   %s (%s)", gearName(powertrain.gear, gear, sizeof(gear)),
              settings.gearbox.automatic ? "automatic" : "manual, Q/E");
  std::snprintf(text, sizeof(text), "%.2f", double(powertrain.clutch));
  ImGui::TextUnformatted("clutch");
  ImGui::SameLine(60);
  ImGui::ProgressBar(float(std::clamp(double(powertrain.clutch), 0.0, 1.0)), ImVec2(130, 0), text);
  if (settings.engine.inertia > 0)  // the clutch of an engine with inertia slips or locks
    ImGui::Text("clutch %s %+.0f N m, heat %.1f kJ%s", powertrain.clutchLocked ? "locked" : "slipping",
                double(powertrain.clutchTorque), double(powertrain.clutchSlipEnergy) / 1000,
                powertrain.stalled ? "  STALLED" : "");
  const DriverInput& input = vehicle.input();
  ImGui::Text("pedal %+.2f  steer %+.2f  brake %.2f%s", double(input.pedal), double(input.steer),
              double(input.brake), vehicle.handbrake() ? "  HANDBRAKE" : "");
  const btScalar steeringTorque = vehicle.steeringTorque();
  if (steeringTorque != 0) ImGui::Text("steering torque %+.1f N m", double(steeringTorque));
  const StabilityControlState& esc = vehicle.stabilityControl();
  if (vehicle.settings().assists.stabilityControl)
    ImGui::TextColored(esc.active ? ImVec4(1, 0.6f, 0.2f, 1) : ImVec4(0.6f, 0.6f, 0.6f, 1),
                       "ESC %s  yaw %+.2f / %+.2f rad/s", esc.active ? "BRAKING" : "ready",
                       double(esc.yawRate), double(esc.referenceYawRate));
  if (context.vehicleCount > 1) ImGui::TextDisabled("%zu vehicles in the scene", context.vehicleCount);
}

void Hud::drawWheelPanel(const RaycastVehicle& vehicle) const {
  // Tire temperatures, when a tire has them (TireThermalSettings).
  bool thermal = false;
  for (int w = 0; w < vehicle.wheelCount(); ++w) thermal = thermal || vehicle.wheelSettings(w).tire.thermal.enabled;
  if (!ImGui::BeginTable("wheel bars", thermal ? 6 : 5, ImGuiTableFlags_SizingFixedFit)) return;
  for (const char* heading : {"wheel", "N/N static", "|s|", "|alpha|", "utilisation"})
    ImGui::TableSetupColumn(heading);
  if (thermal) ImGui::TableSetupColumn("tire C");
  ImGui::TableHeadersRow();
  char text[32];
  for (int w = 0; w < vehicle.wheelCount(); ++w) {
    const WheelState& state = vehicle.wheelState(w);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(size_t(w) < wheelNames_.size() ? wheelNames_[size_t(w)].c_str() : "?");
    if (!state.inContact) ImGui::TextDisabled("air");
    ImGui::TableNextColumn();
    const double load = state.staticLoad > 0 ? double(state.normalLoad / state.staticLoad) : 0;
    std::snprintf(text, sizeof(text), "%.2f", load);
    bar(load / 2, text);  // full bar at twice the static load
    ImGui::TableNextColumn();
    const double slip = std::fabs(double(state.slipRatio));
    std::snprintf(text, sizeof(text), "%.3f", slip);
    bar(slip, text, state.locked);  // full bar at s = 1 (locked or spinning)
    ImGui::TableNextColumn();
    const double angle = std::fabs(double(state.slipAngle)) / kDegree;
    std::snprintf(text, sizeof(text), "%.1f deg", angle);
    bar(angle / 30, text);  // full bar at 30 deg
    ImGui::TableNextColumn();
    std::snprintf(text, sizeof(text), "%.2f", double(state.utilization));
    bar(double(state.utilization), text, state.utilization > btScalar(0.98));
    if (thermal) {
      ImGui::TableNextColumn();
      const TireThermalSettings& tire = vehicle.wheelSettings(w).tire.thermal;
      std::snprintf(text, sizeof(text), "%.0f", double(state.tireTemperature));
      // Full bar at the optimum; red once past it by half the window.
      bar(double(state.tireTemperature / tire.optimalTemperature), text,
          state.tireTemperature > tire.optimalTemperature + tire.temperatureWindow / 2);
    }
  }
  ImGui::EndTable();
}

void Hud::drawCurvePanel(const RaycastVehicle& vehicle) const {
  for (size_t a = 0; a < axles_.size(); ++a) {
    const AxleCurves& axle = axles_[a];
    ImGui::PushID(int(a));
    if (!axle.slipCurves) {
      ImGui::Text("axle %d: linear tire, no slip curve", axle.axle);
      ImGui::PopID();
      continue;
    }
    std::vector<OperatingPoint> longitudinal, lateral;
    for (int w : axle.wheels) {
      const WheelState& state = vehicle.wheelState(w);
      if (!state.inContact) continue;
      const ImU32 color = leftWheels_[size_t(w)] ? kLeftWheelColor : kRightWheelColor;
      longitudinal.push_back({double(state.slipRatio), color});
      lateral.push_back({double(state.slipAngle), color});
    }
    char title[64];
    std::snprintf(title, sizeof(title), "axle %d  mu_x(s)", axle.axle);
    ImGui::BeginGroup();
    plotCurve(title, axle.longitudinal, 1.0, 1.0, "", longitudinal);
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    std::snprintf(title, sizeof(title), "axle %d  mu_y(alpha)", axle.axle);
    plotCurve(title, axle.lateral, 40 * kDegree, 1 / kDegree, " deg", lateral);
    ImGui::EndGroup();
    ImGui::PopID();
  }
  ImGui::TextColored(ImVec4(1, 0.65f, 0.16f, 1), "left");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.27f, 0.8f, 1, 1), "right wheels");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.3f, 0.5f, 1, 1), "  Fx");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.2f, 0.9f, 0.3f, 1), "Fy");
}

}  // namespace raycar::viewer
