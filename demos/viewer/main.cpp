// raycar-viewer SCENE.toml [--view 3d|topdown] [--screenshot FILE --frames N]
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "Viewer.h"

int main(int argc, char** argv) {
  using namespace raycar::viewer;
  ViewerOptions options;
  try {
    options = parseViewerOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "raycar-viewer: %s\n%s", error.what(), viewerUsage());
    return 2;
  }
  if (options.help) {
    std::printf("%s", viewerUsage());
    return 0;
  }
  if (!options.screenshotPath.empty()) {
    // Said now, not after all the frames have been drawn.
    const std::filesystem::path folder = std::filesystem::path(options.screenshotPath).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder)) {
      std::fprintf(stderr, "raycar-viewer: cannot write the screenshot %s: the folder %s does not exist\n",
                   options.screenshotPath.c_str(), folder.string().c_str());
      return 1;
    }
  }
  try {
    Viewer viewer(options);
    return viewer.run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "raycar-viewer: %s\n", error.what());
    return 1;
  }
}
