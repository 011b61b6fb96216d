#pragma once
// raycar-viewer's command line:
//   raycar-viewer SCENE.toml [--view 3d|topdown] [--controllers FILE] [--no-hud]
//                 [--screenshot FILE --frames N]
// Header-only and dependency-free: tests/test_viewer_options.cpp checks it in every build.

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace raycar::viewer {

enum class ViewMode { World3d, TopDown };

struct ViewerOptions {
  std::string scenePath;
  ViewMode view = ViewMode::World3d;
  std::string screenshotPath;  // non-empty: render `frames` frames headless, write a PNG, exit
  int frames = 0;
  std::string controllersPath;  // gamepad and wheel mappings; empty: the bundled controllers.toml
  bool showHud = true;          // --no-hud: start with the HUD hidden (H shows it), as a screenshot
  bool help = false;
};

inline const char* viewerUsage() {
  return "usage: raycar-viewer SCENE.toml [--view 3d|topdown] [--controllers FILE] [--no-hud]\n"
         "                     [--screenshot FILE.png --frames N]\n"
         "  --view        the first view (Tab switches): 3d (chase camera) or topdown (seed 002)\n"
         "  --controllers gamepad and steering-wheel mappings (default: the bundled controllers.toml)\n"
         "  --no-hud      start with the HUD hidden (H shows it): a screenshot of the car alone\n"
         "  --screenshot  render N frames at the scene's fixed step, write the last to FILE.png, exit\n"
         "keys: arrows or WASD pedal and steer, B brake, space handbrake, Q/E shift down/up (manual\n"
         "      gearboxes), Tab 3-D / top-down, H hide the HUD, Esc quit\n"
         "pads: left stick steers, right / left trigger throttle / brake, A handbrake, bumpers shift;\n"
         "      wheels: see controllers.toml\n";
}

// Throws std::invalid_argument naming the problem.
inline ViewerOptions parseViewerOptions(const std::vector<std::string>& arguments) {
  ViewerOptions options;
  bool haveFrames = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= arguments.size()) throw std::invalid_argument(argument + " needs a value");
      return arguments[++i];
    };
    if (argument == "--help" || argument == "-h") {
      options.help = true;
    } else if (argument == "--view") {
      const std::string& view = value();
      if (view == "3d") options.view = ViewMode::World3d;
      else if (view == "topdown") options.view = ViewMode::TopDown;
      else throw std::invalid_argument("--view is 3d or topdown, not '" + view + "'");
    } else if (argument == "--no-hud") {
      options.showHud = false;
    } else if (argument == "--controllers") {
      options.controllersPath = value();
      if (options.controllersPath.empty()) throw std::invalid_argument("--controllers needs a file name");
    } else if (argument == "--screenshot") {
      options.screenshotPath = value();
      if (options.screenshotPath.empty()) throw std::invalid_argument("--screenshot needs a file name");
    } else if (argument == "--frames") {
      const std::string& text = value();
      char* end = nullptr;
      const long frames = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || frames < 1 || frames > 1000000)
        throw std::invalid_argument("--frames is a whole number from 1 to 1000000, not '" + text + "'");
      options.frames = int(frames);
      haveFrames = true;
    } else if (!argument.empty() && argument[0] == '-') {
      throw std::invalid_argument("unknown option " + argument);
    } else if (options.scenePath.empty()) {
      options.scenePath = argument;
    } else {
      throw std::invalid_argument("one scene only: '" + options.scenePath + "' and '" + argument + "'");
    }
  }
  if (options.help) return options;
  if (options.scenePath.empty()) throw std::invalid_argument("no scene file given");
  if (haveFrames != !options.screenshotPath.empty())
    throw std::invalid_argument("--screenshot and --frames go together");
  return options;
}

}  // namespace raycar::viewer
