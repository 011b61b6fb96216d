#include "Screenshot.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "Gl.h"

// The one translation unit with stb_image_write's implementation; static, so it cannot clash
// with the copy in libstb that Dear ImGui links.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace raycar::viewer {

void writeScreenshot(const std::string& path, int widthPixels, int heightPixels) {
  const size_t rowBytes = size_t(widthPixels) * 3;
  std::vector<unsigned char> pixels(rowBytes * size_t(heightPixels));
  glFinish();
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, widthPixels, heightPixels, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum error = glGetError(); error != GL_NO_ERROR)
    throw std::runtime_error("glReadPixels failed with GL error " + std::to_string(error));
  // OpenGL's rows run bottom-up, PNG's top-down.
  std::vector<unsigned char> flipped(pixels.size());
  for (int row = 0; row < heightPixels; ++row)
    std::copy_n(pixels.begin() + std::ptrdiff_t(size_t(row) * rowBytes), rowBytes,
                flipped.begin() + std::ptrdiff_t(size_t(heightPixels - 1 - row) * rowBytes));
  if (!stbi_write_png(path.c_str(), widthPixels, heightPixels, 3, flipped.data(), int(rowBytes)))
    throw std::runtime_error("cannot write the screenshot " + path);
}

}  // namespace raycar::viewer
