#pragma once
// "Did you mean": the known name nearest to a mistyped one, for errors about unknown keys and
// sections (the vehicle script parser, raycar-sim's scene parser). Header-only: the scene parser
// lives outside the library.

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace raycar {

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
// that turn `a` into `b`.
inline size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean 'X'?)" for the candidate nearest to `name` regardless of case, within three
// edits; "" when none is that near. A candidate that is the name with a suffix after an
// underscore comes first: a key written without its unit (heading for heading_deg) is nearer to
// it than to another key three letters off (spacing).
inline std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  auto lowered = [](std::string text) {
    for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  for (const std::string& candidate : candidates)  // the same name in another case
    if (lowered(candidate) == lowered(name)) return " (did you mean '" + candidate + "'?)";
  for (const std::string& candidate : candidates)
    if (!name.empty() && lowered(candidate).rfind(lowered(name) + "_", 0) == 0)
      return " (did you mean '" + candidate + "'?)";
  std::string best;
  size_t bestDistance = 4;  // farther than 3 edits is no suggestion
  for (const std::string& candidate : candidates) {
    const size_t distance = editDistance(lowered(name), lowered(candidate));
    if (distance < bestDistance) bestDistance = distance, best = candidate;
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace raycar
