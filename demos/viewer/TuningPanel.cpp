#include "TuningPanel.h"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include <exception>

namespace raycar::viewer {

TuningPanel::TuningPanel(LoadedVehicle script) : script_(std::move(script)), values_(valuesOf(script_)) {}

TuningValues TuningPanel::valuesOf(const LoadedVehicle& script) {
  TuningValues values;
  const VehicleSettings& settings = script.settings;
  values.maxSteerDegrees = float(settings.steering.maxSteer);
  values.stabilizer = float(settings.stabilizer);
  values.brakeTorque = float(settings.brakes.brakeTorque);
  values.brakeFrontBias = float(settings.brakes.frontBias);
  values.abs = settings.assists.abs;
  values.tractionControl = settings.assists.tractionControl;
  return values;
}

LoadedVehicle TuningPanel::apply(const LoadedVehicle& script, const TuningValues& values) {
  LoadedVehicle vehicle = script;
  VehicleSettings& settings = vehicle.settings;
  settings.steering.maxSteer = btScalar(values.maxSteerDegrees);
  settings.stabilizer = btScalar(values.stabilizer);
  settings.brakes.brakeTorque = btScalar(values.brakeTorque);
  settings.brakes.frontBias = btScalar(values.brakeFrontBias);
  settings.assists.abs = values.abs;
  settings.assists.tractionControl = values.tractionControl;
  for (WheelSettings& wheel : settings.wheels) wheel.tire.friction *= btScalar(values.tireFrictionScale);
  settings.engine.power *= btScalar(values.engineScale);
  for (TorquePoint& point : settings.engine.torqueCurve) point.torque *= btScalar(values.engineScale);
  return vehicle;
}

std::optional<LoadedVehicle> TuningPanel::draw(int widthPixels) {
  ImGui::SetNextWindowPos(ImVec2(float(widthPixels) - 6, 6), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.72f);
  ImGui::SetNextWindowCollapsed(true, ImGuiCond_FirstUseEver);
  bool changed = false;
  if (ImGui::Begin("Tuning (vehicle 1)", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::PushItemWidth(150);
    ImGui::PushAllowKeyboardFocus(false);  // Tab switches the view, not the focused field
    // Sliders apply when released, so a drag respawns the car once, not every frame.
    ImGui::SliderFloat("max_steer (deg)", &values_.maxSteerDegrees, 5, 60, "%.1f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    // The vehicle's bar acts only on axles whose wheels give none of their own ([[wheel]] stabilizer).
    const bool ownBars = std::any_of(script_.settings.wheels.begin(), script_.settings.wheels.end(),
                                     [](const WheelSettings& wheel) { return wheel.stabilizer >= 0; });
    ImGui::SliderFloat(ownBars ? "stabilizer (axles without their own)" : "stabilizer", &values_.stabilizer, 0, 2.5f,
                       "%.2f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("brake_torque (N m)", &values_.brakeTorque, 0, 6000, "%.0f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("brake front bias", &values_.brakeFrontBias, 0, 1, "%.2f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("tire friction x", &values_.tireFrictionScale, 0.2f, 2, "%.2f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    ImGui::SliderFloat("engine x", &values_.engineScale, 0.2f, 3, "%.2f");
    changed |= ImGui::IsItemDeactivatedAfterEdit();
    changed |= ImGui::Checkbox("ABS", &values_.abs);
    ImGui::SameLine();
    changed |= ImGui::Checkbox("traction control", &values_.tractionControl);
    ImGui::PopAllowKeyboardFocus();
    ImGui::PopItemWidth();
    if (ImGui::Button("Reset to script")) {
      values_ = valuesOf(script_);
      changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Reload script")) {
      try {
        script_ = loadVehicle(script_.scriptPath);
        values_ = valuesOf(script_);
        reloaded_ = true;
        changed = true;
        error_.clear();
      } catch (const std::exception& error) {  // raycar::Error names file, line and key
        error_ = error.what();
      }
    }
    ImGui::TextDisabled("%s", script_.scriptPath.c_str());
    if (!error_.empty()) {
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 320);
      ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", error_.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  ImGui::End();
  if (!changed) return std::nullopt;
  return apply(script_, values_);
}

}  // namespace raycar::viewer
