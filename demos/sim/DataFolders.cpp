#include "DataFolders.h"

#include <unistd.h>

namespace raycar::sim {
namespace {

// The running program's folder; empty when the system does not say.
std::string executableFolder() {
  char executable[4096];
  const ssize_t length = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  if (length <= 0) return "";
  const std::string path(executable, size_t(length));
  return path.substr(0, path.find_last_of('/'));
}

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::vector<std::string> bundledDataFolders() {
  std::vector<std::string> folders;
  const std::string folder = executableFolder();
  if (!folder.empty()) folders.push_back(folder + "/../share/raycar");
  const std::string buildTree = RAYCAR_BUILD_DIR;
  // A folder inside the build tree (the tree itself, or below it), not one that merely shares
  // its name's beginning.
  if (folder.empty() || folder == buildTree || startsWith(folder, buildTree + "/"))
    folders.push_back(RAYCAR_SOURCE_DATA_DIR);
  return folders;
}

}  // namespace raycar::sim
