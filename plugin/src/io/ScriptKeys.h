#pragma once
// The vehicle script's key table (VehicleScript.h): one row per key, binding it to the settings
// number it writes (SettingsFields.h: unit, range, default from the default-constructed
// settings) or, for the script's own keys, to a setter with its own unit, range and default.
// The parser (VehicleScript.cpp) reads keys through it, and the README's reference prints it.

#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "raycar/io/VehicleScript.h"
#include "raycar/vehicle/SettingsFields.h"

namespace raycar::script {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPositive = kFieldPositive;  // "greater than 0" as an inclusive lower bound

// A TOML value in the shape its key expects.
struct Value {
  double number = 0;
  long long integer = 0;
  bool boolean = false;
  std::string text;
  std::vector<double> list;
  std::vector<std::array<double, 2>> points;
  btVector3 vector{0, 0, 0};
};

// What a key writes into: the script, and the record being read for [[...]] sections.
struct Target {
  VehicleScript& script;
  HullRecord* hull = nullptr;
  WheelRecord* wheel = nullptr;
  TireRecord* tire = nullptr;
  DifferentialSettings* differential = nullptr;
};

// A value the key accepts by type and range but not by meaning (an unknown enum text, 9 gears).
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Setter = void (*)(Target&, const Value&);

struct Key {
  // A key of the script's own: the model, hull records, chassis and camera parameters, lists,
  // texts and switches.
  Key(const char* section, const char* name, ScriptValueType type, const char* unit, double minimum,
      double maximum, const char* defaultValue, const char* meaning, Setter apply,
      const char* member = "")
      : section(section), name(name), type(type), unit(unit), minimum(minimum), maximum(maximum),
        defaultValue(defaultValue), meaning(meaning), apply(apply), ownMember(member) {}
  // A key that is a settings number: its type, unit and range are the field's row
  // (SettingsFields.h), the one rule the C++ API is checked against too, and its default is the
  // default-constructed settings' value (the objects a script is read into start as those).
  Key(const char* section, const char* name, FieldScope scope, const char* fieldName,
      const char* meaning)
      : section(section), name(name), defaultValue(""), meaning(meaning),
        field(findSettingsField(scope, fieldName)) {
    if (!field)
      throw std::logic_error(std::string("script key ") + section + "." + name +
                             " names no settings field " + fieldName);
    type = field->integer ? ScriptValueType::Integer : ScriptValueType::Number;
    unit = field->unit;
    minimum = field->minimum;
    maximum = field->maximum;
  }

  const char* section;
  const char* name;
  ScriptValueType type = ScriptValueType::Number;
  const char* unit = "";
  double minimum = 0;  // inclusive, for numbers, integers and every element of lists
  double maximum = 0;
  const char* defaultValue;  // TOML literal, applied before the file is read ("" for field keys)
  const char* meaning;
  Setter apply = nullptr;
  const SettingsField* field = nullptr;  // set: the key writes this settings number
  // The settings member a key of the script's own writes, if it writes one ("gearbox.gears").
  const char* ownMember = "";
  // The member the key writes, in its scope's struct; "" when it writes none.
  const char* member() const { return field ? field->name : ownMember; }
};

// The settings objects a key of the record being read can write.
inline FieldOwners ownersOf(Target& target) {
  return FieldOwners{&target.script.settings, target.wheel ? &target.wheel->wheel : nullptr,
                     target.tire ? &target.tire->tire : nullptr, target.differential};
}

inline void applyKey(const Key& key, Target& target, const Value& value) {
  if (!key.field) return key.apply(target, value);
  key.field->bind(ownersOf(target)).set(key.field->integer ? double(value.integer) : value.number);
}

// Every key, in the reference's order.
const std::vector<Key>& keys();

// Keys, sections and axis names are case-insensitive.
inline std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace raycar::script
