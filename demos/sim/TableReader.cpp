#include "TableReader.h"

#include <cmath>
#include <optional>
#include <sstream>

#include "io/NameSuggestion.h"
#include "io/TomlOverrides.h"  // sourceFile: a key written by a --set override names it
#include "raycar/Error.h"

namespace raycar::sim {

void TableReader::read() {
  for (auto&& [key, node] : table_) {
    line_ = int(key.source().begin.line);
    keyFile_ = toml_overrides::sourceFile(key, file_);
    key_ = std::string(key.str());
    const auto reader = readers_.find(key_);
    if (reader == readers_.end()) {
      std::string known;
      std::vector<std::string> names;
      for (const auto& [name, unused] : readers_) {
        known += (known.empty() ? "" : ", ") + name;
        names.push_back(name);
      }
      const std::string header = record_ ? "[[" + section_ + "]]" : "[" + section_ + "]";
      fail("unknown key in " + header + suggestion(key_, names) + "; known: " + known);
    }
    reader->second(node);
  }
}

void TableReader::fail(const std::string& message) const {
  throw Error({keyFile_, line_, section_ + "." + key_}, message);
}

double TableReader::number(const toml::node& node, double low, double high) const {
  if (!node.is_number()) fail("expects a number");
  // toml++ gives no double for an integer beyond 2^53 that a double cannot hold exactly.
  const std::optional<double> exact = node.value<double>();
  if (!exact) fail("cannot be read exactly as a number (an integer beyond 2^53)");
  const double value = *exact;
  if (!std::isfinite(value)) fail("is not a finite number");
  if (value < low || value > high) {
    std::ostringstream range;
    range << "must lie in [" << low << ", " << high << "]";
    fail(range.str());
  }
  return value;
}

std::string TableReader::text(const toml::node& node) const {
  if (!node.is_string()) fail("expects a string");
  return *node.value<std::string>();
}

bool TableReader::boolean(const toml::node& node) const {
  if (!node.is_boolean()) fail("expects true or false");
  return *node.value<bool>();
}

std::vector<double> TableReader::numbers(const toml::node& node, size_t size, double low, double high) const {
  const toml::array* array = node.as_array();
  if (!array || (size && array->size() != size))
    fail("expects an array of " + (size ? std::to_string(size) + " " : std::string()) + "numbers");
  std::vector<double> values;
  for (const toml::node& element : *array) values.push_back(number(element, low, high));
  return values;
}

std::vector<std::vector<double>> TableReader::rows(const toml::node& node, size_t size, int flagColumn) const {
  const toml::array* array = node.as_array();
  if (!array) fail("expects an array of arrays");
  std::vector<std::vector<double>> values;
  for (size_t r = 0; r < array->size(); ++r) {
    // Each problem at its row's line, and its row and column (from 1, as a reader counts them).
    const std::string where = "row " + std::to_string(r + 1);
    const int rowLine = (*array)[r].source().begin.line > 0 ? int((*array)[r].source().begin.line) : line_;
    auto failInRow = [&](const std::string& message) {
      throw Error({keyFile_, rowLine, section_ + "." + key_}, where + message);
    };
    const toml::array* row = (*array)[r].as_array();
    if (!row || row->size() != size) failInRow(": expects an array of " + std::to_string(size) + " numbers");
    std::vector<double> numbersOfRow;
    for (size_t c = 0; c < size; ++c) {
      const toml::node& element = (*row)[c];
      const std::string column = ", column " + std::to_string(c + 1);
      if (int(c) == flagColumn) {  // an on / off column: true or false, or 1 or 0
        if (element.is_boolean()) {
          numbersOfRow.push_back(*element.value<bool>() ? 1 : 0);
          continue;
        }
        const std::optional<double> flag = element.is_number() ? element.value<double>() : std::nullopt;
        if (!flag || (*flag != 0 && *flag != 1)) failInRow(column + ": must be 0 or 1 (or false / true)");
        numbersOfRow.push_back(*flag);
        continue;
      }
      try {
        numbersOfRow.push_back(number(element, -1e6, 1e6));
      } catch (const Error& error) {
        failInRow(column + ": " + error.message());
      }
    }
    values.push_back(numbersOfRow);
  }
  return values;
}

}  // namespace raycar::sim
