#pragma once
// Writes KeyOverrides into a parsed TOML document before its reader reads it (the vehicle script
// parser, raycar-sim's scene parser). Header-only: the scene parser lives outside the library.
//
// Each written key carries a source region whose path is "--set <override> (<file>)" and whose
// line is 0, so a reader that takes the file of an error from the key (sourceFile) names the
// override and not a line of the file it never came from.

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "raycar/Error.h"
#include "raycar/io/KeyOverride.h"

namespace raycar::toml_overrides {

inline std::string lowerCase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The file an error about `key` belongs to: the override that wrote it, or the document's file.
inline std::string sourceFile(const toml::key& key, const std::string& documentPath) {
  return key.source().path && key.source().begin.line == 0 ? *key.source().path : documentPath;
}

// The value as TOML ("1.5", "[1, 2]", "\"text\""), or as a string when it is not TOML ("plane").
inline toml::table parsedValue(const KeyOverride& override) {
  try {
    return toml::parse("value = " + override.value);
  } catch (const toml::parse_error&) {
    toml::table fallback;
    fallback.insert("value", override.value);
    return fallback;
  }
}

// Sets `key` in `table`, replacing a key of the same name in any case; the key's source is `where`.
inline void setKey(toml::table& table, const std::string& key, const toml::node& value,
                   const toml::source_region& where) {
  for (auto entry = table.begin(); entry != table.end(); ++entry)
    if (lowerCase(std::string(entry->first.str())) == lowerCase(key)) {
      table.erase(entry);
      break;
    }
  value.visit([&](const auto& typed) { table.insert(toml::key(key, where), typed); });
}

// Applies the overrides in order. `recordSections` names the document's [[record]] sections, so
// that an override of one the file does not have is an error and not a table created in its place;
// except those of `defaultRecordSections`, whose absence means one record of defaults (a script
// without [[tire]]: one tire on every axle), which the override creates as the file would.
// Throws raycar::Error naming the override when its section or record is not in the document.
inline void applyKeyOverrides(toml::table& document, const std::vector<KeyOverride>& overrides,
                              const std::string& documentPath, const std::vector<std::string>& recordSections,
                              const std::vector<std::string>& defaultRecordSections = {}) {
  for (const KeyOverride& override : overrides) {
    const std::string label = "--set " + override.text + " (" + documentPath + ")";
    toml::source_region where{};  // value-initialised: line 0 marks the key as an override's
    where.begin = where.end = toml::source_position{0, 0};
    where.path = std::make_shared<const std::string>(label);
    auto fail = [&](const std::string& message) { throw Error({label, 0, override.section}, message); };
    const toml::table valueDocument = parsedValue(override);
    const toml::node& value = *valueDocument.get("value");

    toml::node* section = nullptr;
    for (auto&& [name, node] : document)
      if (lowerCase(std::string(name.str())) == override.section) section = &node;
    const bool isRecordSection =
        std::find(recordSections.begin(), recordSections.end(), override.section) != recordSections.end();
    const bool isDefaultRecord = std::find(defaultRecordSections.begin(), defaultRecordSections.end(),
                                           override.section) != defaultRecordSections.end();
    if (!section && isDefaultRecord && override.record <= 1) {
      toml::array records;
      records.push_back(toml::table{});
      section = &document.insert(toml::key(override.section, where), std::move(records)).first->second;
    }
    if (!section) {
      if (isRecordSection || override.record > 0)
        fail("the file has no [[" + override.section + "]] records to override");
      // A table section the file leaves at its defaults ([aero], [assists]) is created.
      section = &document.insert(toml::key(override.section, where), toml::table{}).first->second;
    }
    if (toml::table* table = section->as_table()) {
      if (override.record > 0) fail("[" + override.section + "] is a table, not [[records]]: drop the [n]");
      setKey(*table, override.key, value, where);
    } else if (toml::array* records = section->as_array(); records && records->is_array_of_tables()) {
      if (override.record > int(records->size()))
        fail("the file has " + std::to_string(records->size()) + " [[" + override.section + "]] records, not " +
             std::to_string(override.record));
      for (size_t i = 0; i < records->size(); ++i)
        if (override.record == 0 || int(i) + 1 == override.record) setKey(*records->get(i)->as_table(), override.key, value, where);
    } else {
      fail("is neither a table nor records");
    }
  }
}

}  // namespace raycar::toml_overrides
