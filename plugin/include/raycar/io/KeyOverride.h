#pragma once
// A key of a vehicle script (or of a raycar-sim scene) set from outside its file: raycar-sim's
// --set, a sweep's runs, a game's tuning console. The override is written into the parsed file
// before it is read, so it meets the same checks as the file's own keys (unknown key with the
// nearest known name, wrong type, value out of range), and an error names the override.
//
//   "section.key=value"      the key in [section], or in every record of [[section]]
//   "section[n].key=value"   the key in record n of [[section]] only, counted from 1 as wheels are
//   value                    TOML: 1.5, 2, true, [1, 2], "text"; a word that is not TOML (plane,
//                            limited_slip) is taken as a string
// Section and key are matched without regard to case, as script keys are.

#include <string>
#include <vector>

namespace raycar {

struct KeyOverride {
  std::string section;  // lower case, any section of the file: "params", "gearbox", "wheel", ...
  int record = 0;       // 1.. one record of a [[section]]; 0: the table, or every record
  std::string key;
  std::string value;    // the TOML text after '='
  std::string text;     // the whole override as given, for errors
};

// Parses "section.key=value" or "section[n].key=value". Throws raycar::Error naming the text when
// it has another shape (no '=', no section, an empty key, a record that is not a number >= 1).
KeyOverride parseKeyOverride(const std::string& text);

// The overrides whose section is one of `sections` (lower case), in order.
std::vector<KeyOverride> overridesOfSections(const std::vector<KeyOverride>& overrides,
                                             const std::vector<std::string>& sections);

}  // namespace raycar
