#include "raycar/io/KeyOverride.h"

#include <algorithm>
#include <cctype>

#include "raycar/Error.h"

namespace raycar {
namespace {

std::string lowerCase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool isName(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

}  // namespace

KeyOverride parseKeyOverride(const std::string& text) {
  auto fail = [&](const std::string& message) -> KeyOverride {
    throw Error({"--set " + text, 0, ""}, message + ": expects section.key=value or section[n].key=value");
  };
  KeyOverride override;
  override.text = text;
  const size_t equals = text.find('=');
  if (equals == std::string::npos) return fail("no '='");
  const std::string name = trimmed(text.substr(0, equals));
  override.value = trimmed(text.substr(equals + 1));
  if (override.value.empty()) return fail("no value after '='");
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return fail("no section before the key");
  override.key = name.substr(dot + 1);
  std::string section = name.substr(0, dot);
  const size_t bracket = section.find('[');
  if (bracket != std::string::npos) {
    if (section.back() != ']') return fail("a record is written [n]");
    const std::string number = section.substr(bracket + 1, section.size() - bracket - 2);
    if (number.empty() || number.size() > 3 ||
        !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fail("the record '" + number + "' is not a whole number");
    override.record = std::stoi(number);
    if (override.record < 1) return fail("records are counted from 1");
    section = section.substr(0, bracket);
  }
  override.section = lowerCase(section);
  if (!isName(override.section)) return fail("the section '" + section + "' is not a name");
  if (!isName(override.key)) return fail("the key '" + override.key + "' is not a name");
  return override;
}

std::vector<KeyOverride> overridesOfSections(const std::vector<KeyOverride>& overrides,
                                             const std::vector<std::string>& sections) {
  std::vector<KeyOverride> chosen;
  for (const KeyOverride& override : overrides)
    if (std::find(sections.begin(), sections.end(), override.section) != sections.end())
      chosen.push_back(override);
  return chosen;
}

}  // namespace raycar
