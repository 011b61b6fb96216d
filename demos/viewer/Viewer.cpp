#include "Viewer.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "KeyboardDriver.h"
#include "Screenshot.h"

namespace raycar::viewer {
namespace {

std::string lastGlfwError;

void rememberGlfwError(int code, const char* description) {
  lastGlfwError = std::string(description) + " (GLFW error " + std::to_string(code) + ")";
}

sim::SceneRunner& requireVehicle(sim::SceneRunner& runner) {
  if (runner.vehicleCount() == 0) throw std::runtime_error(runner.scene().path + ": the scene has no vehicle to follow");
  return runner;
}

}  // namespace

Window::Window(const char* title, bool resizable) {
  glfwSetErrorCallback(rememberGlfwError);
  if (!glfwInit())
    throw std::runtime_error("cannot start GLFW: " + lastGlfwError +
                             "; without a display, run under xvfb-run (apt-get install -y xvfb xauth)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, resizable ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_DOUBLEBUFFER, GLFW_TRUE);
  glfwWindowHint(GLFW_DEPTH_BITS, 24);
  window_ = glfwCreateWindow(kWindowWidth, kWindowHeight, title, nullptr, nullptr);
  if (!window_) {
    const std::string error = lastGlfwError;
    glfwTerminate();
    throw std::runtime_error("cannot create an 800 x 600 window with an OpenGL 3.3 core context: " + error);
  }
  glfwMakeContextCurrent(window_);
}

Window::~Window() {
  glfwDestroyWindow(window_);
  glfwTerminate();
}

Viewer::Viewer(const ViewerOptions& options)
    : options_(options),
      runner_(sim::loadScene(sim::findScene(options.scenePath))),
      window_(("raycar-viewer: " + options.scenePath).c_str(), options.screenshotPath.empty()),
      imgui_(window_.handle()),
      tuning_(requireVehicle(runner_).vehicle(0).loaded()),
      clock_(runner_.scene().step),
      view_(options.view),
      showHud_(options.showHud) {
  glfwSwapInterval(options_.screenshotPath.empty() ? 1 : 0);
  for (const std::string& note : runner_.notes()) std::fprintf(stderr, "raycar-viewer: %s\n", note.c_str());
  shader_ = std::make_unique<LitMeshShader>();
  geometry_ = std::make_unique<SceneGeometry>(runner_);
  worldView_ = std::make_unique<WorldView>(*shader_, *geometry_);
  topDownView_ = std::make_unique<TopDownView>(*shader_, *geometry_);
  chase_.attach(runner_.vehicle(0).loaded());
  hud_.attach(runner_.vehicle(0).vehicle());
  current_ = capturePose(runner_);
  previous_ = current_;
  // The controller mappings: a file named on the command line must load; the bundled one is
  // used when it is there (a bad one is an error too, naming its file, line and key).
  const std::string mappings = options_.controllersPath.empty() ? bundledControllersPath() : options_.controllersPath;
  if (!options_.controllersPath.empty() || std::ifstream(mappings).good())
    gamepad_ = std::make_unique<GamepadDriver>(loadControllerMappings(mappings));
  else
    std::fprintf(stderr, "raycar-viewer: no %s: gamepads and wheels are off\n", mappings.c_str());
}

Viewer::~Viewer() = default;

int Viewer::run() {
  const bool screenshot = !options_.screenshotPath.empty();
  GLFWwindow* window = window_.handle();
  double lastSeconds = glfwGetTime();
  for (int frame = 0; !glfwWindowShouldClose(window); ++frame) {
    glfwPollEvents();
    const double nowSeconds = glfwGetTime();
    // Screenshots: exactly one scene step per frame, so N frames are N steps on any machine.
    const double frameSeconds = screenshot ? runner_.scene().step : nowSeconds - lastSeconds;
    lastSeconds = nowSeconds;
    if (!screenshot) handleKeys();
    stepSimulation(frameSeconds);
    drawFrame(frameSeconds);
    if (screenshot && frame + 1 >= options_.frames) {
      int width = 0, height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      writeScreenshot(options_.screenshotPath, width, height);
      std::printf("raycar-viewer: wrote %s (%d x %d) after %d frames, %.3f s simulated\n",
                  options_.screenshotPath.c_str(), width, height, frame + 1, runner_.time());
      return 0;
    }
    glfwSwapBuffers(window);
  }
  return 0;
}

void Viewer::handleKeys() {
  GLFWwindow* window = window_.handle();
  auto pressedNow = [window](int key, bool& wasDown) {  // true on the frame the key goes down
    const bool down = glfwGetKey(window, key) == GLFW_PRESS;
    const bool pressed = down && !wasDown;
    wasDown = down;
    return pressed;
  };
  const bool tabPressed = pressedNow(GLFW_KEY_TAB, tabWasDown_);
  const bool hudPressed = pressedNow(GLFW_KEY_H, hudKeyWasDown_);
  if (imgui_.wantsKeyboard()) {  // a panel is being edited: its keys are not the car's
    if (keyboardDriving_) runner_.overrideInput(0, DriverInput{});
    return;
  }
  if (glfwGetKey(window, GLFW_KEY_ESCAPE) == GLFW_PRESS) glfwSetWindowShouldClose(window, GLFW_TRUE);
  if (tabPressed) view_ = view_ == ViewMode::World3d ? ViewMode::TopDown : ViewMode::World3d;
  if (hudPressed) showHud_ = !showHud_;
  const DrivingKeys keys = readDrivingKeys(window);
  if (gamepad_) controller_ = gamepad_->read();
  // From the first driving key or controller input on, the one used last drives.
  if (keys.any()) keyboardDriving_ = true, controllerDriving_ = false;
  else if (controller_.connected && controller_.shaped.active()) controllerDriving_ = true, keyboardDriving_ = false;
  if (keyboardDriving_) runner_.overrideInput(0, inputFromKeys(keys));
  else if (controllerDriving_) runner_.overrideInput(0, controller_.connected ? controller_.input : DriverInput{});
}

void Viewer::stepSimulation(double frameSeconds) {
  const int steps = clock_.advance(frameSeconds);
  for (int step = 0; step < steps; ++step) {
    runner_.step();
    previous_ = std::move(current_);
    current_ = capturePose(runner_);
  }
}

void Viewer::drawFrame(double frameSeconds) {
  // One pose for everything drawn this frame.
  const FramePose drawn = interpolatePose(previous_, current_, clock_.alpha());
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_.handle(), &width, &height);
  glViewport(0, 0, width, height);
  chase_.update(drawn.vehicles.front(), frameSeconds);
  if (view_ == ViewMode::World3d)
    worldView_->draw(runner_, drawn, chase_.view(), width, height, true);
  else
    topDownView_->draw(runner_, drawn, width, height, true);

  imgui_.beginFrame();
  std::optional<LoadedVehicle> tuned;
  if (showHud_) {
    HudContext context;
    context.sceneName = runner_.scene().name;
    context.simulatedSeconds = runner_.time();
    context.viewName = view_ == ViewMode::World3d ? "3-D" : "top-down";
    context.keyboardDriving = keyboardDriving_;
    context.controllerDriving = controllerDriving_ && controller_.connected;
    context.controller = &controller_;
    context.vehicleCount = runner_.vehicleCount();
    hud_.draw(runner_.vehicle(0).vehicle(), context, width, height);
    tuned = tuning_.draw(width);
  }
  imgui_.endFrame();
  if (tuned) respawnVehicle(*tuned);
}

void Viewer::respawnVehicle(const LoadedVehicle& vehicle) {
  const bool reloaded = tuning_.takeReloaded();
  try {
    runner_.respawnVehicle(0, vehicle);
    tuning_.clearError();
  } catch (const std::exception& error) {  // raycar::Error: the settings were rejected
    tuning_.setError(error.what());
    return;
  }
  if (reloaded) {
    geometry_->forget(vehicle.scriptPath);
    chase_.attach(vehicle);
  }
  hud_.attach(runner_.vehicle(0).vehicle());
  current_ = capturePose(runner_);
  previous_ = current_;
}

}  // namespace raycar::viewer
