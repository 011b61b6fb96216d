// Engine, clutch and gearbox on their own (seed 001's engine and gearbox, seed 004's torque curve).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "TestWorld.h"
#include "Tolerance.h"
#include "raycar/vehicle/Powertrain.h"

using namespace raycar;
using namespace raycar::test;

namespace {
constexpr double kRpmPerRadPerSecond = 60 / (2 * 3.14159265358979);
}

TEST_CASE("CryEngine engine: torque 0.5 P / rps_max at 0 rpm, 0 at max rpm, power peak at half") {
  EngineSettings engine;
  engine.power = 100000;  // W
  engine.maxRpm = 6000;
  const double maxRevolutionsPerSecond = 6000.0 / 60;
  CHECK(engineTorque(engine, 0, 1) == within(0.5 * 100000 / maxRevolutionsPerSecond, 1e-3));
  CHECK(engineTorque(engine, 6000, 1) == 0);
  CHECK(engineTorque(engine, 7000, 1) == 0);  // no power past the maximum
  // Power P sin(pi n / n_max): scan for its peak.
  double bestRpm = 0, bestPower = 0;
  for (double rpm = 0; rpm <= 6000; rpm += 0.5) {
    const double power = enginePower(engine, btScalar(rpm));
    if (power > bestPower) bestPower = power, bestRpm = rpm;
  }
  CHECK(bestRpm == within(3000, 1e-3));
  CHECK(bestPower == within(100000, 1e-3));
  // In between, torque = P sin(pi n / n_max) / (2 pi n).
  const double n = 1500.0 / 60;
  CHECK(engineTorque(engine, 1500, 1) ==
        within(100000 * std::sin(3.14159265358979 * n / maxRevolutionsPerSecond) / (2 * 3.14159265358979 * n), 1e-4));
  // Multiplied by the pedal (throttle).
  CHECK(engineTorque(engine, 1500, 0.4f) == within(0.4 * engineTorque(engine, 1500, 1), 1e-5));
}

TEST_CASE("tabulated torque curve with throttle shaping") {
  EngineSettings engine;
  engine.model = EngineModel::TorqueCurve;
  engine.torqueCurve = {{1000, 200}, {4000, 300}, {6500, 220}};
  engine.maxRpm = 7000;
  engine.throttleExponent = 2;
  REQUIRE(validateEngine(engine).empty());
  CHECK(engineTorque(engine, 2500, 1) == within(250, 1e-5));
  CHECK(engineTorque(engine, 500, 1) == within(200, 1e-5));    // held below the first point
  CHECK(engineTorque(engine, 6800, 1) == within(220, 1e-5));   // held above the last
  CHECK(engineTorque(engine, 7000, 1) == 0);                   // nothing at max rpm
  CHECK(engineTorque(engine, 2500, 0.5f) == within(250 * 0.25, 1e-5));  // throttle^2
  CHECK(peakEngineTorque(engine) == within(300, 1e-6));
  CHECK(engineBrakingTorque(engine, 3500) == within(0.08 * 300 * 0.5, 1e-5));
}

TEST_CASE("gearbox settings: at most 8 gears, reverse negative, neutral zero") {
  GearboxSettings gearbox;
  CHECK(validateGearbox(gearbox, 5000).empty());
  gearbox.gears = {-3, 0, 3, 2.5f, 2, 1.6f, 1.3f, 1.1f, 0.9f};
  CHECK(validateGearbox(gearbox, 5000).front().text().find("9 ratios; at most 8") != std::string::npos);
  gearbox.gears = {3, 0, 2};
  CHECK(validateGearbox(gearbox, 5000).front().text().find("reverse) must be negative") != std::string::npos);
  gearbox.gears = {-3, 1, 2};
  CHECK(validateGearbox(gearbox, 5000).front().text().find("neutral) must be 0") != std::string::npos);
}

namespace {
struct Bench {
  EngineSettings engine;
  GearboxSettings gearbox;
  Bench() {
    engine.power = 80000;
    engine.maxRpm = 6000;
    engine.idleRpm = 800;
    engine.minRpm = 600;
    engine.startRpm = 1500;
    gearbox.gears = {-3, 0, 3, 2, 1.4f, 1.0f};
    gearbox.finalDrive = 4;
    gearbox.shiftUpRpm = 5000;
    gearbox.shiftDownRpm = 2000;
    gearbox.clutchSpeed = 5;
    gearbox.gearDirectionSwitchRpm = 40;
  }
};

// The pedal held with every driving wheel spinning at `wheelSpin` (rad/s).
PowertrainInput heldInput(btScalar pedal, btScalar wheelSpin) {
  PowertrainInput input;
  input.pedal = pedal;
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = wheelSpin;
  return input;
}

void runSteps(Powertrain& powertrain, const PowertrainInput& input, int steps) {
  for (int step = 0; step < steps; ++step) powertrain.update(input, kStep);
}
}  // namespace

TEST_CASE("leaving neutral sets engine_startRPM, the clutch closes in 1 / clutch_speed s") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  CHECK(powertrain.state().gear == kNeutralGear);
  CHECK(powertrain.state().engineRpm == bench.engine.idleRpm);
  PowertrainInput input;
  input.pedal = 1;
  powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kFirstGear);
  // The engine left neutral at startRPM and blends towards the (still) wheels' speed.
  const double clutch = powertrain.state().clutch;
  CHECK(clutch == within(5 * kStep, 1e-5));
  CHECK(powertrain.state().engineRpm == within(std::max(800.0, 1500 * (1 - clutch)), 1e-4));
  int steps = 1;
  while (powertrain.state().clutch < 1) {
    powertrain.update(input, kStep);
    ++steps;
  }
  // 1 / 5 s = 24 steps of 1/120 s.
  CHECK(std::abs(steps - 24) <= 1);
}

TEST_CASE("automatic upshift when the engine crosses shiftup rpm, never from reverse") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input;
  input.pedal = 1;
  // Wheels spinning up steadily; the shift must come on the first step above 5000 rpm.
  double previousRpm = 0;
  int shifts = 0, shiftStep = -1, closedAfter = -1;
  for (int step = 0; step < 4000 && powertrain.state().gear < 5; ++step) {
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = btScalar(0.05 * step);
    const int gearBefore = powertrain.state().gear;
    const double wheelRpmBefore = input.fastestWheelSpin * kRpmPerRadPerSecond;
    const double clutchBefore = powertrain.state().clutch;
    const PowertrainOutput output = powertrain.update(input, kStep);
    const int gearAfter = powertrain.state().gear;
    if (gearAfter > gearBefore && gearBefore >= kFirstGear) {
      ++shifts;
      const double engineSide = wheelRpmBefore * bench.gearbox.gears[gearBefore] * bench.gearbox.finalDrive;
      INFO("shift " << gearBefore << " -> " << gearAfter << " at " << engineSide << " rpm");
      CHECK(engineSide > bench.gearbox.shiftUpRpm);
      CHECK(previousRpm <= bench.gearbox.shiftUpRpm);  // crossed just now ...
      CHECK(clutchBefore == 1);                       // ... with the clutch closed
      // The clutch opened at the shift and has begun to close: torque scales with it.
      const double clutch = powertrain.state().clutch;
      CHECK(clutch == within(bench.gearbox.clutchSpeed * kStep, 1e-5));
      CHECK(output.driveTorque ==
            within(powertrain.state().engineTorque * clutch * bench.gearbox.gears[gearAfter] *
                       bench.gearbox.finalDrive * bench.gearbox.efficiency, 1e-5));
      shiftStep = step;
    }
    if (shiftStep >= 0 && powertrain.state().clutch == 1 && closedAfter < 0)
      closedAfter = step - shiftStep + 1;  // steps from the shift until the clutch is closed
    previousRpm = gearAfter == gearBefore && powertrain.state().clutch == 1
                      ? wheelRpmBefore * bench.gearbox.gears[gearAfter] * bench.gearbox.finalDrive
                      : 0;
  }
  CHECK(shifts == 3);  // 1 -> 2 -> 3 -> 4
  // 1 / clutch_speed = 0.2 s = 24 steps, within one step.
  CHECK(std::abs(closedAfter - 24) <= 1);
  // Reverse at high wheel speed: no upshift, ever.
  Powertrain reverse(bench.engine, bench.gearbox);
  input.pedal = -1;
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 0;
  reverse.update(input, kStep);
  REQUIRE(reverse.state().gear == kReverseGear);
  for (int step = 0; step < 600; ++step) {
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = btScalar(-0.1 * step);
    reverse.update(input, kStep);
    CHECK(reverse.state().gear == kReverseGear);
  }
}

TEST_CASE("shift dwell: after an upshift, a downshift waits shiftDwell seconds") {
  // The road speed crosses shiftup, and at once falls under shiftdown (the car runs into a
  // steep climb). The downshift must wait 0.5 s (the dwell), then happen.
  Bench bench;
  bench.gearbox.shiftDwell = 0.5f;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 0);
  runSteps(powertrain, input, 60);
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 150;  // 17 000 rpm in first
  runSteps(powertrain, input, 2);
  REQUIRE(powertrain.state().gear == kFirstGear + 1);
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 10;  // 764 rpm in second
  int downshiftStep = -1;
  for (int step = 0; step < 240 && downshiftStep < 0; ++step) {
    powertrain.update(input, kStep);
    if (powertrain.state().gear == kFirstGear) downshiftStep = step;
  }
  INFO("downshift after " << downshiftStep << " steps");
  CHECK(downshiftStep * kStep >= 0.5 - 2 * kStep);
  CHECK(downshiftStep * kStep <= 0.5 + 2 * kStep);
}

// The box reads the road speed from the touching wheels' contact speeds, and a wheel landing on
// the steep face of a bump reads a fraction of the car's speed for a step (the offroad scene's
// jeep at 9 m/s in second: 1442 rev/min between steps of 1982, and -316; each time it dropped to
// first and ran to its rev limit). A dip shorter than 0.1 s does not shift; a road speed that
// stays below the shift-down speed shifts down after 0.1 s, to the step (at 1/15 s, after two
// readings: one never shifts).
TEST_CASE("a road speed that dips below shift-down for less than 0.1 s does not shift down") {
  struct Case {
    double step;          // s
    int dipSteps;         // steps the road speed reads below shift-down
    bool shiftsDown;
  };
  const Case cases[] = {
      {1.0 / 120, 1, false}, {1.0 / 120, 11, false}, {1.0 / 120, 12, true}, {1.0 / 120, 40, true},
      {1.0 / 60, 1, false},  {1.0 / 60, 5, false},   {1.0 / 60, 6, true},
      {1.0 / 30, 1, false},  {1.0 / 30, 2, false},   {1.0 / 30, 3, true},
      {1.0 / 15, 1, false},  {1.0 / 15, 2, true},    {1.0 / 240, 23, false}, {1.0 / 240, 24, true},
  };
  for (const Case& test : cases) {
    CAPTURE(test.step);
    CAPTURE(test.dipSteps);
    Bench bench;
    Powertrain powertrain(bench.engine, bench.gearbox);
    const btScalar step = btScalar(test.step);
    auto spinAt = [&](double rpm, int gear) {
      return btScalar(rpm / (kRpmPerRadPerSecond * bench.gearbox.gears[size_t(gear)] * bench.gearbox.finalDrive));
    };
    PowertrainInput input = heldInput(0.5f, 0);
    for (int i = 0; i < int(0.5 / test.step); ++i) powertrain.update(input, step);
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spinAt(5200, kFirstGear);
    for (int i = 0; i < 2; ++i) powertrain.update(input, step);
    REQUIRE(powertrain.state().gear == kFirstGear + 1);
    // Cruising in second at 2500 rev/min, past the shift dwell, the clutch closed.
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spinAt(2500, kFirstGear + 1);
    for (int i = 0; i < int(2 / test.step); ++i) powertrain.update(input, step);
    REQUIRE(powertrain.state().gear == kFirstGear + 1);
    REQUIRE(powertrain.state().clutch == 1);
    // The dip: 1500 rev/min of road speed, the wheels still turning at the car's speed.
    input.roadWheelSpin = spinAt(1500, kFirstGear + 1);
    int gearAfterDip = 0;
    for (int i = 0; i < test.dipSteps; ++i) {
      powertrain.update(input, step);
      gearAfterDip = powertrain.state().gear;
    }
    CHECK(gearAfterDip == (test.shiftsDown ? kFirstGear : kFirstGear + 1));
  }
}

// Each gear's road speed starts its own count: a low reading that persists takes the box down one
// gear after 0.1 s and the next after 0.1 s more, not the whole way at once; and a reading back
// above the shift-down speed between two dips starts the count over.
TEST_CASE("the downshift's 0.1 s count starts over in each gear and after a normal reading") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  auto spinAt = [&](double rpm, int gear) {
    return btScalar(rpm / (kRpmPerRadPerSecond * bench.gearbox.gears[size_t(gear)] * bench.gearbox.finalDrive));
  };
  PowertrainInput input = heldInput(0, 0);
  input.pedal = 0.5f;
  runSteps(powertrain, input, 60);
  for (int gear = kFirstGear; gear < kFirstGear + 2; ++gear) {  // up to third
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spinAt(5200, gear);
    runSteps(powertrain, input, 60);
  }
  REQUIRE(powertrain.state().gear == kFirstGear + 2);
  input.pedal = 0;  // coasting: the box may step down on consecutive counts
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spinAt(2500, kFirstGear + 2);
  runSteps(powertrain, input, 120);
  REQUIRE(powertrain.state().gear == kFirstGear + 2);
  // Two dips of 11 steps (0.092 s) with one normal reading between: no shift.
  const btScalar cruise = input.roadWheelSpin;
  for (int dip = 0; dip < 2; ++dip) {
    input.roadWheelSpin = spinAt(1200, kFirstGear + 2);
    runSteps(powertrain, input, 11);
    input.roadWheelSpin = cruise;
    runSteps(powertrain, input, 1);
  }
  CHECK(powertrain.state().gear == kFirstGear + 2);
  // A road speed low enough for both gears: third to second after 12 steps, to first after 12 more.
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spinAt(900, kFirstGear + 2);
  int toSecond = -1, toFirst = -1;
  for (int step = 1; step <= 40; ++step) {
    powertrain.update(input, kStep);
    if (toSecond < 0 && powertrain.state().gear == kFirstGear + 1) toSecond = step;
    if (toFirst < 0 && powertrain.state().gear == kFirstGear) toFirst = step;
  }
  CHECK(toSecond == 12);
  CHECK(toFirst == 24);
}

TEST_CASE("wheelspin does not shift: the automatic box shifts on road speed") {
  // Driving wheels spinning at 150 rad/s (17 000 rpm through first) while the car rolls at a
  // road speed worth 1 000 rpm: the box stays in first, and the engine turns with the wheels.
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 0);
  runSteps(powertrain, input, 60);
  input.fastestWheelSpin = input.meanWheelSpin = 150;
  input.roadWheelSpin = btScalar(1000 / (kRpmPerRadPerSecond * 3 * 4));
  runSteps(powertrain, input, 120);
  CHECK(powertrain.state().gear == kFirstGear);
  CHECK(powertrain.state().shifts == 1);  // neutral -> first only
  CHECK(powertrain.state().engineRpm == within(bench.engine.maxRpm, 1e-6));
}

TEST_CASE("braked to a stop in fourth, the box steps down as the car slows and waits in neutral") {
  // Seed 001: below shiftdown the gear goes down, until neutral. Each downshift opens the clutch;
  // with the throttle closed the box does not wait for it to close, so a stop that takes less
  // than a clutch time per gear still ends in neutral, and the engine idles there.
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 0);
  runSteps(powertrain, input, 10);
  for (int gear = kFirstGear; gear < kFirstGear + 3; ++gear) {  // up to fourth
    const btScalar spin = btScalar(5200 / (kRpmPerRadPerSecond * bench.gearbox.gears[gear] * 4));
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spin;
    runSteps(powertrain, input, 60);
  }
  REQUIRE(powertrain.state().gear == kFirstGear + 3);
  // Braking: the road speed falls linearly to zero in 1 s (a 0.9 g stop from 9 m/s).
  input.pedal = 0;
  const btScalar start = input.roadWheelSpin;
  for (int step = 0; step <= 120; ++step) {
    input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = start * btScalar(1 - step / 120.0);
    powertrain.update(input, kStep);
  }
  CHECK(powertrain.state().gear == kNeutralGear);
  CHECK(powertrain.state().engineRpm == within(bench.engine.idleRpm, 1e-6));
  // And it pulls away in first.
  input.pedal = 1;
  powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kFirstGear);
}

TEST_CASE("the automatic box holds first at low speed whatever the pedal does, and never shifts up rolling against its gear") {
  // Seed 001 steps down to neutral; from first only once the car has stopped with the throttle
  // closed, as an automatic in drive waits. Cases, each after a pull-away into first:
  //  - creeping in a queue: the pedal toggled between 0 and 0.1 every 0.25 s for 10 s at a road
  //    speed worth 1000 rpm in first (below shiftdown's 2000): first throughout (a sedan had
  //    gone to neutral and back 118 times in 10 s);
  //  - a failed hill start: light pedal while the road speed runs backwards to 40 m/s-worth
  //    (17 000 rpm through first): first throughout (a truck had shifted up 1 -> 5);
  //  - lifting off and rolling to a stop from 1000 rpm: first until the wheels turn slower than
  //    gear_dir_switch_RPM, then neutral.
  enum class Case { Creeping, RollingBack, RollingToAStop };
  for (const Case test : {Case::Creeping, Case::RollingBack, Case::RollingToAStop}) {
    CAPTURE(int(test));
    Bench bench;
    Powertrain powertrain(bench.engine, bench.gearbox);
    const btScalar firstRatio = bench.gearbox.gears[kFirstGear] * bench.gearbox.finalDrive;
    const btScalar creepSpin = btScalar(1000 / (kRpmPerRadPerSecond * firstRatio));  // rad/s
    PowertrainInput input = heldInput(0.1f, creepSpin);
    runSteps(powertrain, input, 60);
    REQUIRE(powertrain.state().gear == kFirstGear);
    const int shiftsBefore = powertrain.state().shifts;
    const int steps = int(10 / kStep);
    bool stoppedInNeutral = false;
    for (int step = 0; step < steps; ++step) {
      const double time = step * kStep;
      if (test == Case::Creeping) {
        input.pedal = int(time / 0.25) % 2 == 0 ? 0.1f : 0;
      } else if (test == Case::RollingBack) {
        input.pedal = 0.02f;
        const btScalar spin = btScalar(-17000 / (kRpmPerRadPerSecond * firstRatio) * time / 10);
        input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spin;
      } else {
        input.pedal = 0;
        const btScalar spin = creepSpin * btScalar(std::max(0.0, 1 - time / 5));
        input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = spin;
      }
      powertrain.update(input, kStep);
      const bool slow = std::fabs(input.roadWheelSpin) * kRpmPerRadPerSecond < bench.gearbox.gearDirectionSwitchRpm;
      if (test == Case::RollingToAStop && slow) {
        stoppedInNeutral = powertrain.state().gear == kNeutralGear;
        if (stoppedInNeutral) break;
      }
      REQUIRE(powertrain.state().gear == kFirstGear);
    }
    if (test == Case::RollingToAStop) CHECK(stoppedInNeutral);
    else CHECK(powertrain.state().shifts == shiftsBefore);
  }
}

TEST_CASE("drive torque = engine torque x pedal x clutch x gear x final drive x efficiency") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input;
  input.pedal = 0.6f;
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 0;
  for (int step = 0; step < 10; ++step) {
    const PowertrainOutput output = powertrain.update(input, kStep);
    const PowertrainState& state = powertrain.state();
    const double expected = engineTorque(bench.engine, state.engineRpm, 0.6f) * state.clutch * 3 * 4 *
                            bench.gearbox.efficiency;
    CHECK(output.driveTorque == within(expected, 1e-5));
  }
}

TEST_CASE("engine speed follows the fastest driving wheel times the ratios once the clutch closes") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input;
  input.pedal = 1;
  input.fastestWheelSpin = 20;  // rad/s
  input.meanWheelSpin = 19;
  runSteps(powertrain, input, 60);
  REQUIRE(powertrain.state().clutch == 1);
  const int gear = powertrain.state().gear;
  CHECK(powertrain.state().engineRpm ==
        within(20 * kRpmPerRadPerSecond * bench.gearbox.gears[gear] * 4, 1e-4));
}

TEST_CASE("below engine_minRPM with the throttle closed the clutch opens and the engine idles") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 10);
  runSteps(powertrain, input, 60);
  REQUIRE(powertrain.state().gear == kFirstGear);
  // Coasting down: the wheels would turn the engine at 1.2 rad/s x 12 = 137 rpm.
  input.pedal = 0;
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 1.2f;
  const PowertrainOutput output = powertrain.update(input, kStep);
  CHECK(powertrain.state().clutch == 0);
  CHECK(powertrain.state().engineRpm == within(bench.engine.idleRpm, 1e-6));
  CHECK(output.engineBrakingTorque == 0);
}

TEST_CASE("engine braking while coasting in gear: 8% of peak torque at max rpm, through the gears") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 40);
  runSteps(powertrain, input, 120);
  input.pedal = 0;
  const PowertrainOutput output = powertrain.update(input, kStep);
  const PowertrainState& state = powertrain.state();
  const double ratio = bench.gearbox.gears[state.gear] * bench.gearbox.finalDrive;
  const double expected = 0.08 * peakEngineTorque(bench.engine) * state.engineRpm / 6000 * ratio;
  CHECK(output.driveTorque == 0);
  CHECK(output.engineBrakingTorque == within(expected, 1e-4));
}

TEST_CASE("'back' while rolling forward brakes, reverse engages only below gear_dir_switch_RPM") {
  Bench bench;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input = heldInput(1, 10);
  runSteps(powertrain, input, 60);
  input.pedal = -1;
  // Wheels at 10 rad/s = 95 rpm > 40 rpm: the pedal brakes.
  PowertrainOutput output = powertrain.update(input, kStep);
  CHECK(output.pedalBrake == 1);
  CHECK(output.driveTorque == 0);
  CHECK(powertrain.state().gear != kReverseGear);  // first, or neutral: down until neutral
  // 4.5 rad/s = 43 rpm: still braking. 4.0 rad/s = 38 rpm: reverse.
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 4.5f;
  CHECK(powertrain.update(input, kStep).pedalBrake == 1);
  // Reverse engages, and while the car still rolls forwards 'back' goes on braking it to a stand
  // (Powertrain::selectGear), rather than leaving it to roll on while reverse's clutch takes up;
  // the throttle stays open, so the clutch takes up meanwhile, and what it passes drives
  // backwards, against the roll, never forwards.
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 4.0f;
  output = powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kReverseGear);
  CHECK(output.pedalBrake == 1);
  CHECK(output.throttle == 1);
  CHECK(output.driveTorque <= 0);
  // At a stand it drives backwards.
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 0;
  output = powertrain.update(input, kStep);
  CHECK(output.pedalBrake == 0);
  CHECK(output.driveTorque < 0);
  // And back: forward while rolling backwards fast brakes first.
  input.pedal = 1;
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = -10;
  CHECK(powertrain.update(input, kStep).pedalBrake == 1);
  CHECK(powertrain.state().gear == kReverseGear);
}

TEST_CASE("manual gearbox: shift inputs choose the gear, the pedal drives in it") {
  Bench bench;
  bench.gearbox.automatic = false;
  Powertrain powertrain(bench.engine, bench.gearbox);
  PowertrainInput input;
  input.pedal = 1;
  powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kNeutralGear);  // no automatic engagement
  input.shiftUp = true;
  powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kFirstGear);
  powertrain.update(input, kStep);  // the vehicle passes one shift per rising edge; here: again
  CHECK(powertrain.state().gear == kFirstGear + 1);
  input.shiftUp = false;
  // 70 rad/s turns the engine 5,348 rev/min in second, above shift-up's 5,000: no automatic shift.
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 70;
  runSteps(powertrain, input, 120);
  CHECK(powertrain.state().gear == kFirstGear + 1);
  input.fastestWheelSpin = input.meanWheelSpin = input.roadWheelSpin = 45;  // 5,157 rev/min in first
  input.shiftDown = true;
  powertrain.update(input, kStep);
  CHECK(powertrain.state().gear == kFirstGear);
}

TEST_CASE("manual gearbox: a shift that would over-rev the engine or reverse at speed is refused") {
  // Bench: max 6,000 rev/min, final drive 4, gear_dir_switch_RPM 40 (wheel rev/min). Through
  // first (3 x 4) a wheel spin of w rad/s turns the engine w x 12 x 60 / (2 pi) = 114.6 w rev/min,
  // so first over-revs above 52.36 rad/s; 40 wheel rev/min is 4.19 rad/s.
  struct Case {
    const char* what;
    int from;         // gear index engaged at a stand
    bool up;          // shiftUp, else shiftDown
    btScalar spin;    // rad/s, road and wheels alike (< 0 rolling backwards)
    int expected;     // gear index after the shift
  };
  const Case cases[] = {
      {"second to first at 5,157 rev/min", kFirstGear + 1, false, 45, kFirstGear},
      {"second to first at 6,303 rev/min: refused", kFirstGear + 1, false, 55, kFirstGear + 1},
      {"second to first just inside the limit (52 rad/s, 5,959 rev/min)", kFirstGear + 1, false, 52, kFirstGear},
      {"second to first just past the limit (52.5 rad/s, 6,016 rev/min): refused", kFirstGear + 1, false, 52.5f,
       kFirstGear + 1},
      {"first to second with first past its limit (80 rad/s; second 6,112): an upshift stands", kFirstGear, true,
       80, kFirstGear + 1},
      {"second to first rolling back at 47.7 wheel rev/min: already against the roll", kFirstGear + 1, false, -5,
       kFirstGear},
      {"first to neutral at any speed", kFirstGear, false, 200, kNeutralGear},
      {"neutral to reverse rolling forward at 47.7 wheel rev/min: refused", kNeutralGear, false, 5, kNeutralGear},
      {"neutral to reverse rolling forward at 28.6 wheel rev/min", kNeutralGear, false, 3, kReverseGear},
      {"neutral to first rolling backwards at 95 wheel rev/min: refused", kNeutralGear, true, -10, kNeutralGear},
      {"neutral to first rolling backwards at 28.6 wheel rev/min", kNeutralGear, true, -3, kFirstGear},
      {"reverse to neutral rolling backwards fast", kReverseGear, true, -40, kNeutralGear},
      {"neutral to first rolling forward at 5,730 rev/min", kNeutralGear, true, 50, kFirstGear},
  };
  for (const Case& test : cases) {
    const std::string what = test.what;
    CAPTURE(what);
    Bench bench;
    bench.gearbox.automatic = false;
    Powertrain powertrain(bench.engine, bench.gearbox);
    PowertrainInput shift;
    shift.shiftUp = test.from > kNeutralGear;
    shift.shiftDown = test.from < kNeutralGear;
    while (powertrain.state().gear != test.from) powertrain.update(shift, kStep);
    PowertrainInput input = heldInput(0, test.spin);
    input.shiftUp = test.up;
    input.shiftDown = !test.up;
    powertrain.update(input, kStep);
    CHECK(powertrain.state().gear == test.expected);
  }
}

TEST_CASE("RaycastVehicle::gear() is the gear a driver reads: -1 reverse, 0 neutral, 1 first") {
  TestWorld world;
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  CarSpec spec;
  TestCar car = addCar(world, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  CHECK(car.vehicle->gear() == 0);
  DriverInput input;
  input.pedal = 1;
  car.vehicle->setInput(input);
  world.step(1.0f / 120);
  CHECK(car.vehicle->gear() == 1);
  CHECK(car.vehicle->powertrain().gear == kFirstGear);  // the index the gearbox uses
  input.pedal = -1;
  for (int i = 0; i < 240 && car.vehicle->gear() != -1; ++i) {
    car.vehicle->setInput(input);
    world.step(1.0f / 120);
  }
  CHECK(car.vehicle->gear() == -1);
}
