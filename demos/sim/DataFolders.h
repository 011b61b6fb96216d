#pragma once
// Where raycar's programs find their bundled data (scenes, controller mappings).
//
// Installed, a program finds it beside itself: <prefix>/bin/../share/raycar. Run from the build
// tree, it finds the source tree's data/ instead. An installed program never looks into the tree
// it was built from: that tree may be gone, or hold another version's data.

#include <string>
#include <vector>

namespace raycar::sim {

// The folders to look in, in order: the installed one, then (from the build tree only) the
// source tree's.
std::vector<std::string> bundledDataFolders();

}  // namespace raycar::sim
