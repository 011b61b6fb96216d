#pragma once
// Errors raycar reports. The library never prints and never exits: every problem becomes an
// exception that says where it is (file, line) and which object it concerns.

#include <stdexcept>
#include <string>
#include <vector>

namespace raycar {

// Where a problem sits. Settings built in code have no file; the loader fills all three fields.
struct ErrorLocation {
  std::string file;    // path of the script or model, empty for settings built in code
  int line = 0;        // 1-based line, 0 when unknown
  std::string object;  // e.g. "wheel 2", "hull1", "params.engine_maxRPM"
};

// Base of every raycar error; what() reads "file:line: object: message".
class Error : public std::runtime_error {
 public:
  Error(ErrorLocation location, const std::string& message);
  const ErrorLocation& location() const { return location_; }
  const std::string& message() const { return message_; }

 private:
  ErrorLocation location_;
  std::string message_;
};

// Which settings object a number or a problem belongs to: the vehicle's own, each wheel's, each
// wheel's tire, each differential's.
enum class FieldScope { Vehicle, Wheel, Tire, Differential };

// One problem with a vehicle's settings, as the checks find it (validateVehicleSettings lists
// their texts; the loader places each at the script key that set `field` in the object that
// `scope` and `index` name).
struct SettingsProblem {
  std::string object;   // what it concerns: "wheel 2", "wheel 2 tire", "engine", "differential 1 (axle 0)"
  std::string field;    // the member that decides it, in its scope's struct ("maxFriction",
                        // "engine.idleRpm", "longitudinalCurve.points"); "" when none does
  std::string message;  // why
  FieldScope scope = FieldScope::Vehicle;
  int index = -1;       // the wheel (Wheel, Tire) or differential it concerns, from 0; -1: the
                        // vehicle's own, or every differential
  // The members a rule compares `field` with (engine.maxRpm for "idleRpm must be below maxRpm"),
  // in order: a file that sets none of `field` set one of these, and the problem is placed there.
  std::vector<std::string> comparedFields = {};
  std::string text() const { return object.empty() ? message : object + ": " + message; }
};

// Settings that fail validation. Holds every problem found, not only the first; what() lists them.
class SettingsError : public Error {
 public:
  explicit SettingsError(std::vector<std::string> problems);
  // The same, placed: the script whose settings they are (a spawned vehicle's).
  SettingsError(ErrorLocation location, std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// A driver or game input that cannot be used (NaN torque, wheel index out of range, ...).
class InputError : public Error {
 public:
  InputError(const std::string& object, const std::string& message)
      : Error(ErrorLocation{"", 0, object}, message) {}
};

// A saved vehicle state that cannot be restored (RaycastVehicle::restoreState): not a state,
// another version or precision, another vehicle's wheel count, truncated, corrupted, or holding a
// value that is not finite. The vehicle is left as it was.
class StateError : public Error {
 public:
  explicit StateError(const std::string& message)
      : Error(ErrorLocation{"", 0, "vehicle state"}, message) {}
};

// The whole file as text; a file that cannot be opened throws Error "cannot open the <what>"
// naming the path (what: e.g. "OBJ file", "vehicle script").
std::string readTextFile(const std::string& path, const std::string& what);

}  // namespace raycar
