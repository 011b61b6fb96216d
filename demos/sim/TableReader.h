#pragma once
// Reads one TOML table's keys for the demos' files (scenes, controller mappings): each known key
// has a reader, anything else is an error naming the file, the key's line and `section.key`.

#include <toml++/toml.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace raycar::sim {

class TableReader {
 public:
  // `section` prefixes every key in errors ("scene", "controller.steer"); `record`: the table is
  // one of the file's [[section]] records, which errors name so.
  TableReader(const std::string& file, const std::string& section, const toml::table& table,
              bool record = false)
      : file_(file), section_(section), table_(table), record_(record) {}

  using Reader = std::function<void(const toml::node&)>;
  void on(const std::string& key, Reader reader) { readers_[key] = std::move(reader); }

  // Hands every key to its reader, in the file's order; an unknown key is an error listing the
  // known ones.
  void read();

  // An error at the key being read (raycar::Error).
  [[noreturn]] void fail(const std::string& message) const;
  double number(const toml::node& node, double low, double high) const;
  std::string text(const toml::node& node) const;
  bool boolean(const toml::node& node) const;
  std::vector<double> numbers(const toml::node& node, size_t size, double low, double high) const;
  // An array of `size`-number rows; column `flagColumn` (from 0; -1: none) also takes true / false.
  std::vector<std::vector<double>> rows(const toml::node& node, size_t size, int flagColumn = -1) const;

 private:
  std::string file_, section_;
  const toml::table& table_;
  bool record_;
  std::map<std::string, Reader> readers_;
  int line_ = 0;
  std::string key_;
  std::string keyFile_;  // the file of the key being read: the file, or a --set override
};

}  // namespace raycar::sim
