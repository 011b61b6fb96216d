#include "vehicle/VehicleLayout.h"

#include <algorithm>
#include <vector>

namespace raycar {
namespace {

struct Layout {
  struct Part {
    int axle = 0;
    int kind = 0;  // a wheel's flags, a differential's type
  };
  std::vector<Part> wheels;
  int gears = 0;
  std::vector<Part> differentials;
};

// False for words that are not a layout (too few, a count out of reach of the words, a wheel's
// flags beyond its three bits, a negative gear count, an unknown differential type).
bool parse(const std::int32_t* words, size_t count, Layout& layout) {
  size_t at = 0;
  auto next = [&](int& value) {
    if (at >= count) return false;
    value = int(words[at++]);
    return true;
  };
  auto parts = [&](std::vector<Layout::Part>& out) {
    int size = 0;
    if (!next(size) || size < 0 || size_t(size) > (count - at) / 2) return false;
    out.resize(size_t(size));
    for (Layout::Part& part : out)
      if (!next(part.axle) || !next(part.kind)) return false;
    return true;
  };
  if (!(parts(layout.wheels) && next(layout.gears) && parts(layout.differentials) && at == count))
    return false;
  for (const Layout::Part& wheel : layout.wheels)
    if (wheel.kind < 0 || wheel.kind > 7) return false;
  for (const Layout::Part& differential : layout.differentials)
    if (differential.kind < int(DifferentialType::Open) || differential.kind > int(DifferentialType::Torsen))
      return false;
  return layout.gears >= 0;
}

const char* differentialName(int type) {
  switch (DifferentialType(type)) {
    case DifferentialType::Open: return "open";
    case DifferentialType::Locked: return "locked";
    case DifferentialType::LimitedSlip: return "limited_slip";
    case DifferentialType::Torsen: return "torsen";
  }
  return "of an unknown type";  // parse refuses these
}

}  // namespace

size_t layoutWordCount(const VehicleSettings& settings) {
  size_t count = 0;
  visitLayoutWords(settings, [&count](std::int32_t) { ++count; });
  return count;
}

std::string describeLayoutDifference(const std::int32_t* saved, size_t count, const VehicleSettings& own) {
  std::vector<std::int32_t> ownWords;
  visitLayoutWords(own, [&ownWords](std::int32_t word) { ownWords.push_back(word); });
  Layout there, here;
  parse(ownWords.data(), ownWords.size(), here);
  const char* notALayout = "its layout record is not one (a corrupted or forged state)";
  if (!parse(saved, count, there)) return notALayout;
  std::string text;
  auto add = [&text](const std::string& difference) {
    if (!text.empty()) text += "; ";
    text += difference;
  };
  auto has = [](size_t savedCount, size_t ownCount, const char* one, const char* many) {
    return "the saved vehicle has " + std::to_string(savedCount) + " " + (savedCount == 1 ? one : many) +
           ", this one " + std::to_string(ownCount);
  };
  // Each wheel and differential is counted from 1, as the script counts them.
  auto compareParts = [&](const std::vector<Layout::Part>& savedParts,
                          const std::vector<Layout::Part>& ownParts, const char* one, const char* many,
                          auto&& compareKinds) {
    if (savedParts.size() != ownParts.size()) add(has(savedParts.size(), ownParts.size(), one, many));
    for (size_t i = 0; i < std::min(savedParts.size(), ownParts.size()); ++i) {
      const std::string part = one + (" " + std::to_string(i + 1));
      if (savedParts[i].axle != ownParts[i].axle)
        add(part + " is on axle " + std::to_string(savedParts[i].axle) + " in the saved vehicle, on axle " +
            std::to_string(ownParts[i].axle) + " in this one");
      compareKinds(part, savedParts[i].kind, ownParts[i].kind);
    }
  };
  compareParts(there.wheels, here.wheels, "wheel", "wheels", [&](const std::string& wheel, int saved, int mine) {
    const struct {
      int bit;
      const char* what;
    } flags[] = {{1, " drives"}, {2, " steers"}, {4, " has the handbrake"}};
    for (const auto& flag : flags)
      if ((saved & flag.bit) != (mine & flag.bit))
        add(wheel + flag.what +
            ((saved & flag.bit) ? " in the saved vehicle, not in this one" : " in this vehicle, not in the saved one"));
  });
  if (there.gears != here.gears)
    add(has(size_t(there.gears), size_t(here.gears), "gear", "gears") +
        " (reverse and neutral counted)");
  compareParts(there.differentials, here.differentials, "differential", "differentials",
               [&](const std::string& differential, int saved, int mine) {
                 if (saved != mine)
                   add(differential + " is " + differentialName(saved) + " in the saved vehicle, " +
                       differentialName(mine) + " in this one");
               });
  // Words that differ where no part of the layout does (possible only for a forged record).
  return text.empty() ? notALayout : text;
}

}  // namespace raycar
