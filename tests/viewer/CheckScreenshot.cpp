// raycar-check-screenshot FILE.png WIDTH HEIGHT: checks that a viewer screenshot shows a scene
// and not a blank or broken frame:
//   - the PNG loads and is WIDTH x HEIGHT;
//   - it has at least 300 distinct colours (a cleared or single-colour frame has a handful);
//   - no colour covers more than 80% of it (the clear colour alone would cover 100%);
//   - vehicle 1, drawn red, covers at least 300 pixels of the central half of the image, where
//     both views centre it and no HUD window reaches.
// Prints what it measured; exits 0 when every check passes, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

namespace {

constexpr size_t kMinDistinctColours = 300;
constexpr double kMaxShareOfOneColour = 0.8;
constexpr int kMinRedPixels = 300;

// Vehicle 1's red under any lighting: red well above green and blue.
bool isVehicleRed(const unsigned char* pixel) {
  const int red = pixel[0], green = pixel[1], blue = pixel[2];
  return red > 80 && red > 2 * green + 30 && red > 2 * blue + 30;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: raycar-check-screenshot FILE.png WIDTH HEIGHT\n");
    return 2;
  }
  const std::string path = argv[1];
  const int expectedWidth = std::atoi(argv[2]), expectedHeight = std::atoi(argv[3]);
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 3);
  if (!pixels) {
    std::fprintf(stderr, "%s: cannot read the PNG: %s\n", path.c_str(), stbi_failure_reason());
    return 1;
  }
  bool ok = true;
  if (width != expectedWidth || height != expectedHeight) {
    std::fprintf(stderr, "%s: %d x %d, expected %d x %d\n", path.c_str(), width, height, expectedWidth, expectedHeight);
    ok = false;
  }
  std::unordered_map<unsigned, size_t> counts;
  int redPixels = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const unsigned char* pixel = pixels + (size_t(y) * size_t(width) + size_t(x)) * 3;
      ++counts[unsigned(pixel[0]) << 16 | unsigned(pixel[1]) << 8 | unsigned(pixel[2])];
      const bool central = x >= width / 4 && x < 3 * width / 4 && y >= height / 4 && y < 3 * height / 4;
      if (central && isVehicleRed(pixel)) ++redPixels;
    }
  stbi_image_free(pixels);
  size_t largest = 0;
  for (const auto& entry : counts) largest = std::max(largest, entry.second);
  const double share = width * height > 0 ? double(largest) / (double(width) * height) : 1;
  std::printf("%s: %d x %d, %zu distinct colours, most common colour %.1f%%, %d red pixels in the centre\n",
              path.c_str(), width, height, counts.size(), 100 * share, redPixels);
  if (counts.size() < kMinDistinctColours) {
    std::fprintf(stderr, "%s: only %zu distinct colours (at least %zu expected): a blank frame?\n", path.c_str(),
                 counts.size(), kMinDistinctColours);
    ok = false;
  }
  if (share > kMaxShareOfOneColour) {
    std::fprintf(stderr, "%s: one colour covers %.1f%% of the image (at most %.0f%%): a blank frame?\n",
                 path.c_str(), 100 * share, 100 * kMaxShareOfOneColour);
    ok = false;
  }
  if (redPixels < kMinRedPixels) {
    std::fprintf(stderr, "%s: vehicle 1 (red) covers %d pixels of the centre (at least %d expected)\n",
                 path.c_str(), redPixels, kMinRedPixels);
    ok = false;
  }
  return ok ? 0 : 1;
}
