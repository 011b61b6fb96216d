#pragma once
// raycar-viewer: a scene from raycar-sim, live. One window (800 x 600, OpenGL 3.3 core), the
// scene stepped at its fixed step by seed 002's accumulator (at most 5 steps a frame), every
// frame drawn from one pose interpolated with alpha, in the 3-D chase view or the top-down view,
// with the HUD and the tuning panel on top. Vehicle 1 follows its scene driver until a driving
// key is pressed or a gamepad or wheel moves (data/controllers.toml), then the one used last.
//
// --screenshot FILE --frames N: N frames with a frame time of exactly one scene step, then the
// last frame's back buffer goes to FILE (PNG) and the viewer exits.

#include <memory>
#include <string>

#include "ChaseView.h"
#include "raycar/extras/FixedStepClock.h"
#include "FramePose.h"
#include "GamepadDriver.h"
#include "Gl.h"
#include "Hud.h"
#include "ImGuiLayer.h"
#include "LitMeshShader.h"
#include "SceneGeometry.h"
#include "SceneRunner.h"
#include "TopDownView.h"
#include "TuningPanel.h"
#include "ViewerOptions.h"
#include "WorldView.h"

namespace raycar::viewer {

constexpr int kWindowWidth = 800;   // seed 002: SCR_WIDTH
constexpr int kWindowHeight = 600;  // seed 002: SCR_HEIGHT

// The GLFW window and its OpenGL 3.3 core context; throws std::runtime_error if either cannot be
// made (no display, no GL 3.3).
class Window {
 public:
  Window(const char* title, bool resizable);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  GLFWwindow* handle() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
};

class Viewer {
 public:
  explicit Viewer(const ViewerOptions& options);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;
  // The frame loop; returns the process exit code.
  int run();

 private:
  void handleKeys();
  void stepSimulation(double frameSeconds);
  void drawFrame(double frameSeconds);
  void respawnVehicle(const LoadedVehicle& vehicle);

  ViewerOptions options_;
  sim::SceneRunner runner_;
  Window window_;
  ImGuiLayer imgui_;
  std::unique_ptr<LitMeshShader> shader_;
  std::unique_ptr<SceneGeometry> geometry_;
  std::unique_ptr<WorldView> worldView_;
  std::unique_ptr<TopDownView> topDownView_;
  ChaseView chase_;
  Hud hud_;
  TuningPanel tuning_;
  FixedStepClock clock_;
  FramePose previous_, current_;
  ViewMode view_;
  std::unique_ptr<GamepadDriver> gamepad_;  // null: no mapping file
  ControllerReading controller_;
  bool keyboardDriving_ = false;
  bool controllerDriving_ = false;  // the keyboard and the controller: the last one used drives
  bool showHud_ = true;
  bool tabWasDown_ = false, hudKeyWasDown_ = false;
};

}  // namespace raycar::viewer
