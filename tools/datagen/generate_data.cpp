// raycar-generate-data: writes the bundled vehicles and tracks of data/ (OBJ models and vehicle
// scripts). Everything in data/vehicles and data/tracks comes from here, so that it can be
// regenerated: `raycar-generate-data OUT_DIR` writes OUT_DIR/vehicles and OUT_DIR/tracks.
//
// Models follow seed 001's conventions: Z up, Y forward, X right; parts hull1.., hullproxyN,
// wheelN (or wheel_N), helpers as `o` objects with one `p` point, suspension parts with end
// helpers, eye_pos.
//
// One file of about 580 lines on purpose: most of it is the five vehicles' scripts, written out
// as the TOML text that lands in data/, each beside the geometry it belongs to.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Vec {
  double x, y, z;
};

// Collects OBJ text: vertices are global, objects are `o` statements with faces or a point.
class Obj {
 public:
  explicit Obj(const std::string& comment) { text_ << "# " << comment << "\n# made by raycar-generate-data\n"; }

  // Axis-aligned box from its centre and half sizes (closed, outward winding).
  void box(const std::string& name, Vec centre, Vec half) {
    object(name);
    const int base = vertexCount_;
    for (int i = 0; i < 8; ++i)
      vertex({centre.x + (i & 1 ? half.x : -half.x), centre.y + (i & 2 ? half.y : -half.y),
              centre.z + (i & 4 ? half.z : -half.z)});
    const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : faces) quad(base + f[0], base + f[1], base + f[2], base + f[3]);
  }

  // Closed cylinder about the X axis (a wheel).
  void cylinderX(const std::string& name, Vec centre, double radius, double width, int segments) {
    object(name);
    const int base = vertexCount_;
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < segments; ++i) {
        const double angle = 2 * kPi * i / segments;
        vertex({centre.x + (side ? width / 2 : -width / 2), centre.y + radius * std::cos(angle),
                centre.z + radius * std::sin(angle)});
      }
    vertex({centre.x - width / 2, centre.y, centre.z});
    vertex({centre.x + width / 2, centre.y, centre.z});
    const int left = base + 2 * segments, right = left + 1;
    for (int i = 0; i < segments; ++i) {
      const int j = (i + 1) % segments;
      quad(base + i, base + j, base + segments + j, base + segments + i);
      triangle(left, base + j, base + i);
      triangle(right, base + segments + i, base + segments + j);
    }
  }

  // A thin box from a to b (a visual suspension strut), roughly square in section.
  void strut(const std::string& name, Vec a, Vec b, double thickness) {
    box(name, {(a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2},
        {std::fabs(b.x - a.x) / 2 + thickness, std::fabs(b.y - a.y) / 2 + thickness,
         std::fabs(b.z - a.z) / 2 + thickness});
  }

  void helper(const std::string& name, Vec at) {
    object(name);
    vertex(at);
    text_ << "p " << vertexCount_ << "\n";
  }

  // A height field over [x0, x1] x [y0, y1] with cells of `cell` metres, upward normals.
  template <typename Height>
  void heightField(const std::string& name, double x0, double x1, double y0, double y1, double cell, Height height) {
    object(name);
    const int columns = int(std::lround((x1 - x0) / cell)), rows = int(std::lround((y1 - y0) / cell));
    const int base = vertexCount_;
    for (int r = 0; r <= rows; ++r)
      for (int c = 0; c <= columns; ++c) {
        const double x = x0 + c * cell, y = y0 + r * cell;
        vertex({x, y, height(x, y)});
      }
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < columns; ++c) {
        const int a = base + r * (columns + 1) + c;
        quad(a, a + 1, a + columns + 2, a + columns + 1);
      }
  }

  // A ramp (wedge) rising along +Y from height 0 to `height` over `length`, closed.
  void ramp(const std::string& name, Vec start, double width, double length, double height) {
    object(name);
    const int base = vertexCount_;
    const double x0 = start.x - width / 2, x1 = start.x + width / 2, y0 = start.y, y1 = start.y + length;
    vertex({x0, y0, start.z});
    vertex({x1, y0, start.z});
    vertex({x1, y1, start.z});
    vertex({x0, y1, start.z});
    vertex({x1, y1, start.z + height});
    vertex({x0, y1, start.z + height});
    quad(base + 0, base + 3, base + 2, base + 1);  // bottom
    quad(base + 0, base + 1, base + 4, base + 5);  // slope
    quad(base + 3, base + 5, base + 4, base + 2);  // back
    triangle(base + 0, base + 5, base + 3);        // left side
    triangle(base + 1, base + 2, base + 4);        // right side
  }

  // A strip from x0 to x1 whose cross-section along +Y is the polyline `corners` ((y, z) pairs,
  // y not decreasing: equal y makes a vertical face, a kerb's or a trench's wall).
  void profile(const std::string& name, double x0, double x1, const std::vector<std::pair<double, double>>& corners) {
    object(name);
    const int base = vertexCount_;
    for (const auto& [y, z] : corners) {
      vertex({x0, y, z});
      vertex({x1, y, z});
    }
    for (int i = 0; i + 1 < int(corners.size()); ++i) {
      const int a = base + 2 * i;
      quad(a, a + 1, a + 3, a + 2);
    }
  }

  void write(const std::string& path) const {
    std::ofstream file(path, std::ios::binary);
    file << text_.str();
  }

 private:
  void object(const std::string& name) { text_ << "o " << name << "\n"; }
  void vertex(Vec v) {
    char line[128];
    std::snprintf(line, sizeof line, "v %.5f %.5f %.5f\n", v.x, v.y, v.z);
    text_ << line;
    ++vertexCount_;
  }
  void triangle(int a, int b, int c) { text_ << "f " << a + 1 << " " << b + 1 << " " << c + 1 << "\n"; }
  void quad(int a, int b, int c, int d) { text_ << "f " << a + 1 << " " << b + 1 << " " << c + 1 << " " << d + 1 << "\n"; }

  std::ostringstream text_;
  int vertexCount_ = 0;
};

struct WheelSpot {
  double x, y;          // right, forward (m)
  double radius, width;
  double lowerZ;        // wheel centre height at rest = lower helper
  double upperZ;        // upper helper height (need not be above the lower one)
};

// Wheels, helpers, struts from the hull to each wheel.
void addWheels(Obj& obj, const std::vector<WheelSpot>& wheels, bool underscoreNames, double strutTopZ) {
  for (size_t i = 0; i < wheels.size(); ++i) {
    const WheelSpot& w = wheels[i];
    const std::string n = std::to_string(i + 1);
    const std::string wheel = underscoreNames ? "wheel_" + n : "wheel" + n;
    obj.cylinderX(wheel, {w.x, w.y, w.lowerZ}, w.radius, w.width, 32);
    obj.helper(wheel + "_upper", {w.x, w.y, w.upperZ});
    obj.helper(wheel + "_lower", {w.x, w.y, w.lowerZ});
  }
  for (size_t i = 0; i < wheels.size(); ++i) {
    const WheelSpot& w = wheels[i];
    const std::string n = std::to_string(i + 1);
    const std::string susp = underscoreNames ? "sus_" + n : "susp" + n;
    const double inner = w.x * 0.55;
    obj.strut(susp, {inner, w.y, strutTopZ}, {w.x * 0.85, w.y, w.lowerZ}, 0.03);
    obj.helper(susp + "_hull", {inner, w.y, strutTopZ});
    obj.helper(susp + "_wheel" + n, {w.x * 0.85, w.y, w.lowerZ});
  }
}

// Four wheels: front at yFront, rear at yRear, halfTrack either side; resting on the ground.
std::vector<WheelSpot> fourWheels(double halfTrack, double yFront, double yRear, double radius, double width,
                                  double upperZ) {
  std::vector<WheelSpot> wheels;
  for (int i = 0; i < 4; ++i)
    wheels.push_back({i % 2 ? halfTrack : -halfTrack, i < 2 ? yFront : yRear, radius, width, radius, upperZ});
  return wheels;
}

// One [[wheel]] record per wheel; `body(i)` gives record i's keys.
template <typename Body>
std::string wheelRecords(int count, Body body) {
  std::string records;
  for (int i = 0; i < count; ++i) records += "\n[[wheel]]\n" + body(i);
  return records;
}

// The plain record most vehicles use: front axle 0, rear axle 1.
std::string plainWheel(int i, bool frontDrive, double lenMax, double damping) {
  const bool front = i < 2;
  char text[200];
  std::snprintf(text, sizeof text, "driving = %d\naxle = %d\nlen_max = %g\nstiffness = 0\ndamping = %g\ncan_brake = %d\n",
                front == frontDrive ? 1 : 0, front ? 0 : 1, lenMax, damping, front ? 0 : 1);
  return text;
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

// --- vehicles ---------------------------------------------------------------------------------

void jeep(const std::string& dir) {
  Obj obj("jeep: 4x4 with a low mass part; the upper wheel helpers sit below the lower ones, as in seed 001's jeep");
  obj.box("hull1", {0, 0, 1.05}, {0.85, 1.9, 0.45});       // body, visible
  obj.box("hullproxy1", {0, 0, 1.0}, {0.8, 1.85, 0.4});    // its collision stand-in
  obj.box("hull2", {0, 0.1, 0.75}, {0.6, 1.2, 0.15});      // invisible mass part, low
  addWheels(obj, fourWheels(0.82, 1.3, -1.3, 0.4, 0.3, 0.15), false, 0.8);
  obj.helper("eye_pos", {0, -6, 2.6});
  obj.write(dir + "/jeep.obj");
  writeText(dir + "/jeep.vehicle.toml", R"(# Jeep: four-wheel drive, soft springs, open differentials with a 40/60 split.
[model]
obj = "jeep.obj"
up = "+z"
forward = "+y"

[[hull]]            # hull1: body (its hullproxy1 collides)
flags = 1
mass = 0

[[hull]]            # hull2: invisible, low mass part; no hullproxy, so it does not collide
flags = 0
mass = 1700
zoffset = -0.05
)" + wheelRecords(4, [](int i) {
    return std::string("driving = 1\naxle = ") + (i < 2 ? "0" : "1") +
           "\nlen_max = 0.4\nstiffness = 0\ndamping = -0.7\nsurface_id = 1\ncan_brake = " + (i < 2 ? "0" : "1") +
           "\nmin_friction = 0.5\nmax_friction = 1.5\n";
  }) + R"(
[params]
engine_power = 120000
engine_maxRPM = 5000
engine_minRPM = 600
engine_idleRPM = 800
engine_startRPM = 1200
engine_shiftupRPM = 4300
engine_shiftdownRPM = 1700
gears = [-3.8, 0, 3.8, 2.3, 1.5, 1.1, 0.85]
clutch_speed = 3
gear_dir_switch_RPM = 30
axle_friction = 20
brake_torque = 3000
slip_threshold = 0.05
dyn_friction_ratio = 1
max_braking_friction = 1.2
max_steer = 32
steer_speed = 100
steer_speed_valScale = 0.8
steer_speed_min = 40
steer_relaxation_v0 = 100
steer_relaxation_kv = 2
max_steering_pedal = 0.6
pedal_limit_speed = 12
pedal_speed = 3
max_time_step_vehicle = 0.02
sleep_speed_vehicle = 0.04
damping_vehicle = 0.02
stabilizer = 0.4
integration_type = 1
cam_stiffness_positive = [40, 30, 40]
cam_stiffness_negative = [40, 30, 40]
cam_limits_positive = [1, 2, 1]
cam_limits_negative = [1, 2, 1]
cam_damping = 10
cam_max_timestep = 0.01
cam_snap_dist = 0.001
cam_snap_vel = 0.01

[gearbox]
final_drive = 4.1

[[differential]]
axle = 0
type = "open"
torque_share = 0.4

[[differential]]
axle = 1
type = "open"
torque_share = 0.6

# A tall, soft 4x4 understeers (about 1 deg/g): stiffer rear tires in cornering (B 12 against 9).
[[tire]]
axles = [0]
friction = 1.0
load_sensitivity = 0.1

[[tire]]
axles = [1]
friction = 1.0
load_sensitivity = 0.1
lateral_b = 12
)");
}

void sedan(const std::string& dir) {
  Obj obj("sedan: front-wheel drive; wheel_N / sus_N names");
  obj.box("hull1", {0, 0.1, 0.75}, {0.88, 2.3, 0.35});  // body and mass
  obj.box("hull2", {0, -0.2, 1.25}, {0.8, 1.2, 0.25});  // cabin, visible only
  addWheels(obj, fourWheels(0.78, 1.38, -1.32, 0.32, 0.22, 0.55), true, 0.7);
  obj.helper("eye_pos", {0, -5.5, 2.2});
  obj.write(dir + "/sedan.obj");
  writeText(dir + "/sedan.vehicle.toml", R"(# Sedan: front-wheel drive, ABS, traction control, an engine with inertia and a slipping
# clutch.
[model]
obj = "sedan.obj"

[[hull]]
flags = 1
mass = 1400

[[hull]]
flags = 2
mass = 0
)" + wheelRecords(4, [](int i) { return plainWheel(i, true, 0.3, -0.8); }) + R"(
[params]
# The sine engine's power peaks at half engine_maxRPM and its torque falls from standstill, so
# the next gear pulls harder from n_max / (1 + r_next / r): 4,140 rpm from first to second,
# 3,610 from fourth to fifth. The box shifts up at 4,200 (at 5,800 it held each gear at a third
# of the peak power: 0-100 km/h in 12.9 s against 9.3) and down at 2,000, below the 2,400 a
# shift up from first leaves.
engine_power = 100000
engine_maxRPM = 6500
engine_idleRPM = 800
engine_startRPM = 1200
engine_shiftupRPM = 4200
engine_shiftdownRPM = 2000
gears = [-3.3, 0, 3.5, 2.0, 1.35, 1.0, 0.8]
clutch_speed = 4
brake_torque = 2500
max_steer = 34
steer_speed = 140
stabilizer = 0.3
cam_stiffness_positive = [30, 30, 30]
cam_stiffness_negative = [30, 30, 30]
cam_damping = 8

[engine]
inertia = 0.12            # kg m^2: the engine's speed is a state, the clutch slips
clutch_capacity = 700     # N m: 1.5 x the peak torque

[gearbox]
final_drive = 3.9

[brakes]
front_bias = 0.65

[assists]
abs = true
traction_control = true

[aero]
drag_area = 0.62

# The understeer a front-drive family car is built with (about 1 deg/g): the rear tires are
# stiffer in cornering than the front ones (Magic Formula B 12 against 9).
[[tire]]
axles = [0]

[[tire]]
axles = [1]
lateral_b = 12
)");
}

// The coupe's tires' sim-racing keys: aligning moment, camber thrust, slip lag, temperature.
const std::string kSimRacingTire = R"(pneumatic_trail = 0.035
camber_stiffness = 1.0
slip_lag = true
relaxation_length = 0.4
thermal = true
optimal_temperature = 60
temperature_window = 80
grip_loss = 0.1
)";

void coupe(const std::string& dir) {
  Obj obj("coupe: rear-wheel drive drift car, limited-slip differential, slip-curve tires");
  obj.box("hull1", {0, 0.05, 0.62}, {0.9, 2.2, 0.28});
  addWheels(obj, fourWheels(0.8, 1.3, -1.25, 0.33, 0.25, 0.52), false, 0.6);
  obj.helper("eye_pos", {0, -5, 1.9});
  obj.write(dir + "/coupe.obj");
  // The sim-racing set: camber on every wheel, a castered steering axis in front.
  const std::string records = wheelRecords(4, [](int i) {
    return plainWheel(i, false, 0.25, -0.9) + "camber = -1.5\ncamber_gain = -15\n" +
           (i < 2 ? "caster = 6\nmechanical_trail = 0.02\n" : "");
  });
  writeText(dir + "/coupe.vehicle.toml", R"(# Drift coupe: rear-wheel drive, torque-curve engine, limited-slip differential,
# front tires with more lateral grip than the rear ones. The sim-racing set: negative camber with
# camber thrust, caster and pneumatic trail for the aligning moment and steering torque, slip
# lag, and tire temperature (a road-going sports tire: 97.5% of its grip cold at 20 C, all of it
# at 60 C).
[model]
obj = "coupe.obj"

[[hull]]
flags = 1
mass = 1250
)" + records + R"(
[params]
engine_maxRPM = 7500
engine_idleRPM = 900
engine_startRPM = 1500
engine_shiftupRPM = 7000
engine_shiftdownRPM = 3500
gears = [-3.2, 0, 3.3, 2.1, 1.5, 1.15, 0.95, 0.8]
clutch_speed = 6
brake_torque = 2200
max_steer = 45
steer_speed = 300
steer_relaxation_v0 = 200
stabilizer = 0.6

[engine]
model = "curve"
torque_curve = [[1000, 300], [3000, 400], [5500, 430], [7000, 380], [7500, 300]]
throttle_exponent = 1.3
engine_braking = 0.1

[gearbox]
final_drive = 4.0

[brakes]
front_bias = 0.6

[[differential]]
axle = 1
type = "limited_slip"
preload = 300             # N m: the most the rear wheels' torques differ by, with no throttle
locking_coefficient = 1.2 # plus 1.2 x the input: under power the grippy wheel may take it all

[[tire]]                # front: grippy
axles = [0]
friction = 1.1
longitudinal_b = 15
longitudinal_c = 1.45
lateral_b = 10
lateral_c = 1.5
load_sensitivity = 0.1
)" + kSimRacingTire + R"(
[[tire]]                # rear: breaks away sooner and slides on a long plateau
axles = [1]
friction = 1.0
lateral_points = [[0, 0], [4, 0.75], [9, 0.95], [12, 1.0], [30, 0.8], [90, 0.7]]
load_sensitivity = 0.1
)" + kSimRacingTire);
}

void truck(const std::string& dir) {
  Obj obj("truck: 6x4, two driven rear axles");
  obj.box("hull1", {0, 1.4, 1.7}, {1.2, 1.2, 0.9});    // cab
  obj.box("hull2", {0, -1.5, 1.3}, {1.2, 2.6, 0.35});  // chassis frame and load bed
  obj.box("hull3", {0, -0.6, 0.9}, {0.7, 2.4, 0.2});   // invisible mass part
  std::vector<WheelSpot> wheels;
  const double forward[3] = {2.4, -1.6, -3.0};
  for (int i = 0; i < 6; ++i) wheels.push_back({i % 2 ? 1.0 : -1.0, forward[i / 2], 0.52, 0.4, 0.52, 0.85});
  addWheels(obj, wheels, false, 1.0);
  obj.helper("eye_pos", {0, -10, 4});
  obj.write(dir + "/truck.obj");
  const std::string records = wheelRecords(6, [](int i) {
    return std::string("driving = ") + (i < 2 ? "0" : "1") + "\naxle = " + std::to_string(i / 2) +
           "\nlen_max = 0.45\nstiffness = 0\ndamping = -0.8\nspin_inertia = 12\ncan_brake = " +
           (i < 2 ? "0" : "1") + "\n";
  });
  writeText(dir + "/truck.vehicle.toml", R"(# Truck: 6x4, 9 t, two driven rear axles sharing the torque evenly.
[model]
obj = "truck.obj"

[[hull]]
flags = 1
mass = 1500

[[hull]]
flags = 1
mass = 2500

[[hull]]
flags = 0
mass = 5000
)" + records + R"(
[params]
engine_power = 280000
engine_maxRPM = 2800
engine_minRPM = 500
engine_idleRPM = 600
engine_startRPM = 800
engine_shiftupRPM = 2300
engine_shiftdownRPM = 1100
gears = [-7.0, 0, 7.5, 5.0, 3.4, 2.3, 1.5, 1.0]
clutch_speed = 2
brake_torque = 12000
max_steer = 35
steer_speed = 60
stabilizer = 0.5

[gearbox]
final_drive = 4.6

[aero]
drag_area = 5.0
rolling_resistance = 0.008

[[differential]]
axle = 1
type = "open"

[[differential]]
axle = 2
type = "open"

[[tire]]
load_sensitivity = 0.05
reference_load = 15000  # N: a truck tire's nominal load (9 t on six wheels)
)");
}

void parkingCar(const std::string& dir) {
  // Seed 002's car: body 2 m wide, 4 m long; wheels 0.35 m wide, 0.75 m in diameter, placed with
  // its margins: Lf = Lr = 4/2 - (0.75/2 + 0.25) = 1.375 m, track = 2 - (0.35 + 2 x 0.10) = 1.45 m.
  Obj obj("parking car: seed 002's 2 x 4 m car and its wheel layout");
  // Its mass low, as a car's: the body (hull1, massless) shows where it was, and a low block
  // (hull2) carries the mass, the centre of mass 0.5 m up on a 1.45 m track (static stability
  // factor t / 2h = 1.45, above the tires' grip, so it slides before it tips; with the mass in
  // the body, 0.8 m up and 0.91, it rolled over on flat ground at 50 km/h on 9 degrees of steer).
  obj.box("hull1", {0, 0, 0.8}, {1.0, 2.0, 0.35});
  obj.box("hull2", {0, 0, 0.5}, {0.9, 1.9, 0.12});
  addWheels(obj, fourWheels(0.725, 1.375, -1.375, 0.375, 0.35, 0.575), false, 0.75);
  obj.helper("eye_pos", {0, -6, 3});
  obj.write(dir + "/parking_car.obj");
  const std::string records = wheelRecords(4, [](int i) { return plainWheel(i, true, 0.3, -0.9); });
  writeText(dir + "/parking_car.vehicle.toml", R"(# Parking car: seed 002's dimensions; 45 degree steering, quick steering rate.
[model]
obj = "parking_car.obj"

[[hull]]            # hull1: the body, seen and colliding
flags = 1
mass = 0

[[hull]]            # hull2: the mass, low and unseen (it collides too)
flags = 0
mass = 1300
)" + records + R"(
[params]
engine_power = 60000
engine_maxRPM = 5500
gears = [-3.4, 0, 3.4, 2.0, 1.3, 1.0]
brake_torque = 1500
max_steer = 45
steer_speed = 240
steer_relaxation_v0 = 240

[gearbox]
final_drive = 3.9
)");
}

// --- tracks -----------------------------------------------------------------------------------

void flatLot(const std::string& dir) {
  Obj obj("flat lot: 200 x 200 m, Z up");
  obj.heightField("ground", -100, 100, -100, 100, 10, [](double, double) { return 0.0; });
  obj.write(dir + "/flat_lot.obj");
}

void parkingLot(const std::string& dir) {
  Obj obj("parking lot: 60 x 60 m, a row of 4 x 8 m spaces (seed 002) between low kerbs, Z up");
  obj.heightField("ground", -30, 30, -30, 30, 5, [](double, double) { return 0.0; });
  for (int i = 0; i <= 6; ++i)  // kerbs between spaces along X, spaces 4 m wide, 8 m deep
    obj.box("kerb" + std::to_string(i + 1), {-12 + 4.0 * i, 16, 0.05}, {0.1, 4, 0.05});
  obj.box("kerb_back", {0, 20.2, 0.05}, {12.1, 0.1, 0.05});
  obj.write(dir + "/parking_lot.obj");
}

void rampsAndKerbs(const std::string& dir) {
  Obj obj("ramps and kerbs: flat ground with two ramps and a row of kerbs, Z up");
  obj.heightField("ground", -60, 60, -60, 60, 10, [](double, double) { return 0.0; });
  obj.ramp("ramp1", {-8, 10, 0}, 4, 8, 0.8);
  obj.ramp("ramp2", {8, 10, 0}, 4, 12, 1.5);
  for (int i = 0; i < 6; ++i) obj.box("kerb" + std::to_string(i + 1), {0, -10.0 - 3 * i, 0.075}, {3, 0.15, 0.075});
  obj.write(dir + "/ramps_kerbs.obj");
}

void kerbsAndGaps(const std::string& dir) {
  Obj obj("kerbs and gaps: a 30 m wide course along +Y with square kerbs of 5 and 12 cm and trenches "
          "of 10, 25 and 40 cm, Z up");
  // (y, z): flat run-up; a 5 cm kerb 4 m long; a 12 cm kerb 6 m long; trenches 30 cm deep of
  // 25 cm (narrower than a wheel), 40 cm and 10 cm; flat to the end.
  std::vector<std::pair<double, double>> corners = {{-10, 0}, {14, 0}, {14, 0.05}, {18, 0.05}, {18, 0},
                                                   {26, 0}, {26, 0.12}, {32, 0.12}, {32, 0}};
  for (const auto& [start, width] : {std::pair<double, double>{40, 0.25}, {48, 0.40}, {56, 0.10}})
    for (const auto& [y, z] : {std::pair<double, double>{start, 0}, {start, -0.3}, {start + width, -0.3},
                               {start + width, 0}})
      corners.push_back({y, z});
  corners.push_back({100, 0});
  obj.profile("course", -15, 15, corners);
  obj.write(dir + "/kerbs_gaps.obj");
}

void splitMu(const std::string& dir) {
  Obj obj("split mu: a 60 x 260 m flat lot along +Y whose strip x in [-15, 0], y in [110, 250] is ice "
          "(object `ice`; the rest asphalt), Z up");
  const auto flat = [](double, double) { return 0.0; };
  obj.heightField("asphalt", -30, 30, -10, 110, 10, flat);
  obj.heightField("asphalt_left", -30, -15, 110, 250, 5, flat);
  obj.heightField("ice", -15, 0, 110, 250, 5, flat);
  obj.heightField("asphalt_right", 0, 30, 110, 250, 10, flat);
  obj.write(dir + "/split_mu.obj");
}

double hillHeight(double x, double y) {
  return 1.5 * std::sin(x * 0.05) * std::cos(y * 0.04) + 0.6 * std::sin(x * 0.13 + y * 0.09);
}

void hills(const std::string& dir) {
  Obj obj("hills: 256 x 256 m of gentle hills, 2 m cells, two ramps on them, Z up");
  obj.heightField("ground", -128, 128, -128, 128, 2, hillHeight);
  // Ramps sunk 0.3 m below the lowest ground under their footprint, rising along +y.
  for (int i = 0; i < 2; ++i) {
    const double x = i ? 12 : -12, y = 30, length = 10, width = 4;
    double base = 1e9;
    for (double dy = 0; dy <= length; dy += 1)
      for (double dx = -width / 2; dx <= width / 2; dx += 1) base = std::min(base, hillHeight(x + dx, y + dy));
    obj.ramp("ramp" + std::to_string(i + 1), {x, y, base - 0.3}, width, length, i ? 1.6 : 1.0);
  }
  obj.write(dir + "/hills.obj");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: raycar-generate-data OUT_DIR (writes OUT_DIR/vehicles and OUT_DIR/tracks)\n");
    return 2;
  }
  const std::string out = argv[1];
  const std::string vehicles = out + "/vehicles", tracks = out + "/tracks";
  jeep(vehicles);
  sedan(vehicles);
  coupe(vehicles);
  truck(vehicles);
  parkingCar(vehicles);
  flatLot(tracks);
  parkingLot(tracks);
  rampsAndKerbs(tracks);
  kerbsAndGaps(tracks);
  splitMu(tracks);
  hills(tracks);
  std::ifstream check(vehicles + "/jeep.obj");
  if (!check) {
    std::fprintf(stderr, "raycar-generate-data: cannot write into %s (do vehicles/ and tracks/ exist?)\n", out.c_str());
    return 1;
  }
  std::printf("wrote %s and %s\n", vehicles.c_str(), tracks.c_str());
  return 0;
}
