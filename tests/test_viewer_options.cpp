// raycar-viewer's command line (header-only, tested in every build).
#include <doctest/doctest.h>

#include "ViewerOptions.h"

using namespace raycar::viewer;

TEST_CASE("viewer command line: accepted forms") {
  const ViewerOptions plain = parseViewerOptions({"data/scenes/drift.toml"});
  CHECK(plain.scenePath == "data/scenes/drift.toml");
  CHECK(plain.view == ViewMode::World3d);
  CHECK(plain.screenshotPath.empty());

  const ViewerOptions shot =
      parseViewerOptions({"parking.toml", "--view", "topdown", "--screenshot", "out.png", "--frames", "120"});
  CHECK(shot.view == ViewMode::TopDown);
  CHECK(shot.screenshotPath == "out.png");
  CHECK(shot.frames == 120);
  CHECK(shot.showHud);

  // A screenshot of the car alone: the HUD starts hidden.
  CHECK_FALSE(parseViewerOptions({"parking.toml", "--no-hud", "--screenshot", "out.png", "--frames", "1"}).showHud);

  CHECK(parseViewerOptions({"--help"}).help);
}

TEST_CASE("viewer command line: each mistake is named") {
  struct Row {
    std::vector<std::string> arguments;
    const char* message;  // part of the error
  };
  const Row rows[] = {
      {{}, "no scene"},
      {{"a.toml", "b.toml"}, "one scene only"},
      {{"a.toml", "--view", "side"}, "--view is 3d or topdown"},
      {{"a.toml", "--view"}, "--view needs a value"},
      {{"a.toml", "--screenshot", "x.png"}, "go together"},
      {{"a.toml", "--frames", "10"}, "go together"},
      {{"a.toml", "--screenshot", "x.png", "--frames", "0"}, "whole number"},
      {{"a.toml", "--screenshot", "x.png", "--frames", "12x"}, "whole number"},
      {{"a.toml", "--fast"}, "unknown option --fast"},
  };
  for (const Row& row : rows) {
    std::string message;
    try {
      parseViewerOptions(row.arguments);
    } catch (const std::invalid_argument& error) {
      message = error.what();
    }
    INFO("message: " << message);
    CHECK(message.find(row.message) != std::string::npos);
  }
}
