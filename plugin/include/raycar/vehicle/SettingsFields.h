#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Every number a vehicle's settings hold, in one table: the member it is, its unit and the range
// in which the model is valid. validateVehicleSettings checks each number against its row, and the
// vehicle script's keys take their units and ranges from the same rows, so a value the C++ API
// accepts is a value a script accepts, and the other way round.
//
// Why the ranges end where they do (README, "Reliability"): the ends are where the model stops
// being a car, not where the arithmetic breaks; within them every combination runs finite (the
// abuse tests walk each row from end to end, with NaN, infinities and subnormals besides).
// Lists (gear ratios, curve points, the torque curve), enumerations and rules between fields
// (idle below max rpm, min below max friction) are checked by their modules' validate functions.

#include <LinearMath/btScalar.h>

#include <string>
#include <vector>

#include "raycar/Error.h"

namespace raycar {

struct VehicleSettings;
struct WheelSettings;
struct TireSettings;
struct DifferentialSettings;

// A row's FieldScope (raycar/Error.h) says which settings object it belongs to.

// The objects a row can be bound to; only the one of its scope is read.
struct FieldOwners {
  VehicleSettings* vehicle = nullptr;
  WheelSettings* wheel = nullptr;
  TireSettings* tire = nullptr;
  DifferentialSettings* differential = nullptr;
};

// A number's place in its settings object: exactly one of the pointers is set.
struct FieldValue {
  btScalar* real = nullptr;
  int* integer = nullptr;
  double get() const { return real ? double(*real) : double(*integer); }
  void set(double value) const {
    if (real) *real = btScalar(value);
    else *integer = int(value);
  }
};

struct SettingsField {
  const char* name;  // the member's path in its scope's struct: "engine.maxRpm", "radius"
  FieldScope scope;
  bool integer;
  const char* unit;
  double minimum;  // inclusive; kFieldPositive stands for "greater than 0"
  double maximum;  // inclusive
  FieldValue (*bind)(const FieldOwners& owners);
};

// "Greater than 0" as an inclusive lower end: a positive value below it is no car (a 1e-38 kg m^2
// wheel, a 1e-40 m/s epsilon), and it keeps every reciprocal the model takes finite.
constexpr double kFieldPositive = 1e-9;

const std::vector<SettingsField>& settingsFields();
// The row of that name and scope; nullptr when there is none.
const SettingsField* findSettingsField(FieldScope scope, const std::string& name);

// "[0, 10]", "(0, 10]" (minimum kFieldPositive) or "[0, inf)": a range as the script reference
// and the messages print it; integers whole (2147483647, not 2.14748e+09).
std::string rangeText(double minimum, double maximum, bool integer);
std::string fieldRangeText(const SettingsField& field);
// Empty when `value` may stand in the field; else why not ("= 1e+38 is out of range [0, 10] (N/m)").
std::string fieldValueProblem(const SettingsField& field, double value);

// The settings objects a check reads (it never writes them); only the one of its scope is read.
struct ConstFieldOwners {
  const VehicleSettings* vehicle = nullptr;
  const WheelSettings* wheel = nullptr;
  const TireSettings* tire = nullptr;
  const DifferentialSettings* differential = nullptr;
};

// Every row of `scope` whose value in `owners` is not finite or out of its range, each as
// object: "<name> = <value> is out of range <range> (<unit>)".
void checkFields(FieldScope scope, const ConstFieldOwners& owners, const std::string& object,
                 std::vector<SettingsProblem>& problems);

}  // namespace raycar
