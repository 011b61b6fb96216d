#include "raycar/Error.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace raycar {
namespace {

std::string describe(const ErrorLocation& location, const std::string& message) {
  std::string text;
  if (!location.file.empty()) {
    text += location.file;
    if (location.line > 0) text += ":" + std::to_string(location.line);
    text += ": ";
  }
  if (!location.object.empty()) text += location.object + ": ";
  return text + message;
}

std::string joinProblems(const std::vector<std::string>& problems) {
  std::string text = "invalid vehicle settings";
  for (const std::string& problem : problems) text += "\n  - " + problem;
  return text;
}

}  // namespace

Error::Error(ErrorLocation location, const std::string& message)
    : std::runtime_error(describe(location, message)),
      location_(std::move(location)),
      message_(message) {}

SettingsError::SettingsError(std::vector<std::string> problems)
    : SettingsError(ErrorLocation{}, std::move(problems)) {}

SettingsError::SettingsError(ErrorLocation location, std::vector<std::string> problems)
    : Error(std::move(location), joinProblems(problems)), problems_(std::move(problems)) {}

std::string readTextFile(const std::string& path, const std::string& what) {
  // A directory opens as a stream on Linux and reads as an empty file, which the callers then
  // reported as a file missing its keys.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw Error({path, 0, ""}, "cannot open the " + what + ": the path is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error({path, 0, ""}, "cannot open the " + what);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace raycar
