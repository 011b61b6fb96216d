#pragma once
// Reads the back buffer of the current framebuffer and writes it as a PNG (stb_image_write from
// libstb-dev). Throws std::runtime_error when the file cannot be written.

#include <string>

namespace raycar::viewer {

void writeScreenshot(const std::string& path, int widthPixels, int heightPixels);

}  // namespace raycar::viewer
