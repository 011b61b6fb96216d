// The road matrix: every bundled vehicle, in everything a driver does with it, at the steps a
// game uses (1/30, 1/60, 1/120 s). Each scenario is one TEST_CASE that runs its cells (vehicle x
// step) and asserts physics: a figure with its analytic value or bound and the budget the bound
// comes from. A failing cell names itself (INFO).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "RoadRig.h"
#include "raycar/vehicle/Engine.h"
#include "raycar/vehicle/Steering.h"

using namespace raycar;
using namespace raycar::test;

namespace {

const std::vector<std::string> kVehicles = {"jeep", "sedan", "coupe", "truck", "parking_car"};
const std::vector<btScalar> kSteps = {1.0f / 30, 1.0f / 60, 1.0f / 120};

std::string cellName(const std::string& vehicle, btScalar step) {
  return vehicle + " at 1/" + std::to_string(int(std::lround(1 / step))) + " s";
}

// Runs `scenario` for every vehicle and step.
template <typename Scenario>
void forEachCell(const Scenario& scenario) {
  for (const std::string& vehicle : kVehicles)
    for (btScalar step : kSteps) {
      INFO("cell: " << cellName(vehicle, step));
      scenario(vehicle, step);
    }
}

RoadSpec road(const std::string& vehicle, btScalar step, btScalar slopeDegrees = 0,
              btScalar headingDegrees = 0) {
  RoadSpec spec;
  spec.vehicle = vehicle;
  spec.step = step;
  spec.slopeDegrees = slopeDegrees;
  spec.headingDegrees = headingDegrees;
  return spec;
}

DriverInput handbrake() {
  DriverInput input;
  input.handbrake = true;
  return input;
}

}  // namespace

TEST_CASE("matrix: left alone on flat ground, a car stays where it stopped (< 1 cm in 20 s)") {
  // No input at all: neutral, no brake. Friction torques (axle friction, rolling resistance) may
  // stop a car but never push it, so after it has landed it must not move. Budget: 1 cm in 20 s
  // (0.5 mm/s), against the 0.5 m and 11 m a jeep and a truck crept before.
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(2);  // lands and settles
    const btVector3 start = rig.position();
    btScalar largestUtilization = 0;
    rig.run(20, [&](RoadRig& r) {
      for (int i = 0; i < r.vehicle().wheelCount(); ++i)
        largestUtilization = std::max(largestUtilization, r.vehicle().wheelState(i).utilization);
      return DriverInput{};
    });
    const btVector3 moved = rig.position() - start;
    INFO("moved " << moved.length() * 1000 << " mm; largest tire utilisation " << largestUtilization);
    CHECK(moved.length() < 0.01);
    // Nothing holds a car on level ground: no wheel may pull against another (a parked truck's
    // HUD showed 0.97-0.99). Budget: 2% of the grip, for the settling of the last pitch.
    CHECK(largestUtilization < 0.02);
  });
  // The issue's own case: a truck with axle_friction 150 N m rolled 11.3 m backwards in 20 s.
  for (btScalar step : kSteps) {
    RoadSpec spec = road("truck", step);
    spec.tune = [](VehicleSettings& settings) { settings.brakes.axleFriction = 150; };
    RoadRig rig(spec);
    rig.hold(2);
    const btVector3 start = rig.position();
    rig.hold(20);
    INFO("truck, axle_friction 150 N m, at 1/" << std::lround(1 / step) << " s: moved "
                                               << (rig.position() - start).length() * 1000 << " mm");
    CHECK((rig.position() - start).length() < 0.01);
  }
}

TEST_CASE("matrix: parked on a 10 degree slope with the handbrake, in neutral and in gear (< 1 cm in 10 s)") {
  // Facing uphill and downhill. The handbrake locks the can_brake wheels; m g sin(10 deg) =
  // 0.17 m g must be carried by them, well inside 0.85 x mu x their share of the load at mu = 1.
  // In gear: the manual box in first; the engine does not hold (seed 001 opens the clutch below
  // engine_minRPM), so the handbrake holds in both. Budget: 1 cm in 10 s after landing.
  forEachCell([](const std::string& vehicle, btScalar step) {
    for (btScalar heading : {0.0f, 180.0f})
      for (bool inGear : {false, true}) {
        INFO((heading == 0 ? "uphill" : "downhill") << (inGear ? ", in first" : ", in neutral"));
        RoadSpec spec = road(vehicle, step, 10, heading);
        if (inGear) spec.tune = [](VehicleSettings& settings) { settings.gearbox.automatic = false; };
        RoadRig rig(spec);
        if (inGear) {  // first gear selected with the shift lever, then the handbrake
          DriverInput shift = handbrake();
          shift.shiftUp = true;
          rig.step(shift);
          REQUIRE(rig.gear() == 1);
        }
        rig.hold(3, handbrake());
        const btVector3 start = rig.position();
        rig.hold(10, handbrake());
        const btVector3 moved = rig.position() - start;
        INFO("moved " << moved.length() * 1000 << " mm");
        CHECK(moved.length() < 0.01);
        // The hold is shared as the tires' stiffness shares it: every handbraked wheel uses the
        // same fraction of its grip (stiffness is proportional to load). Budget: 10% between
        // wheels, for the pitch of the chassis on its springs, plus 0.01 of Fx / N so that a
        // hold of nearly nothing (rolling resistance on a level wheel) is not a ratio of noise.
        btScalar lowest = BT_LARGE_FLOAT, highest = 0;
        for (int i = 0; i < rig.vehicle().wheelCount(); ++i) {
          const WheelState& wheel = rig.vehicle().wheelState(i);
          if (!wheel.locked || wheel.normalLoad <= 0) continue;
          const btScalar share = std::fabs(wheel.longitudinalForce) / wheel.normalLoad;
          lowest = std::min(lowest, share);
          highest = std::max(highest, share);
        }
        INFO("held wheels' Fx / N from " << lowest << " to " << highest);
        CHECK(highest <= lowest * 1.1f + 0.01f);
      }
  });
}

namespace {

DriverInput pedal(btScalar value) {
  DriverInput input;
  input.pedal = value;
  return input;
}

DriverInput footbrake() {
  DriverInput input;
  input.brake = 1;
  return input;
}

// The largest radius among the driving wheels (m) and the first gear's total ratio.
btScalar drivenRadius(RaycastVehicle& vehicle) {
  btScalar radius = 0;
  for (int i = 0; i < vehicle.wheelCount(); ++i)
    if (vehicle.wheelSettings(i).driving) radius = std::max(radius, vehicle.wheelSettings(i).radius);
  return radius;
}

constexpr double kRadiansPerSecondToRpm = 60 / (2 * SIMD_PI);

// A start on a grade: held 3 s on the footbrake on a slope of `slopeDegrees` (> 0 faces up it),
// released, and `drive` (the pedal, +1 or -1) given 0.3 s later; the car's travel is measured
// along the way the pedal drives it.
struct GradeStart {
  double rolledAway = 0;   // m: the farthest it rolled the other way
  double oneMetreAt = -1;  // s after the release when it was 1 m along; -1: never
};
GradeStart startOnGrade(const std::string& vehicle, btScalar step, btScalar slopeDegrees, btScalar drive,
                        double seconds, double freeRoll = 0.3) {
  RoadRig rig(road(vehicle, step, slopeDegrees));
  rig.hold(3, footbrake());
  const btVector3 start = rig.position();
  const btVector3 forward = rig.vehicle().worldForward();
  const btVector3 driven = (forward - rig.up() * forward.dot(rig.up())).normalized() * drive;
  GradeStart result;
  const double released = rig.time();
  rig.run(seconds, [&](RoadRig& r) {
    const double along = double((r.position() - start).dot(driven));
    result.rolledAway = std::max(result.rolledAway, -along);
    if (result.oneMetreAt < 0 && along > 1) result.oneMetreAt = r.time() - released;
    return r.time() - released < freeRoll ? DriverInput{} : pedal(drive);
  });
  return result;
}

}  // namespace

TEST_CASE("matrix: full-throttle launch: first gear until the road speed reaches the upshift") {
  // From rest, full throttle, traction control as bundled. The automatic box shifts on road
  // speed, so the 1 -> 2 upshift comes no earlier than v = shiftup rpm / (gear 1 x final drive)
  // x R, whatever the wheelspin (before: every launch upshifted at about 1 m/s). Budget: 3%
  // (the contact's forward speed against the chassis' during the launch pitch). The engine
  // speed a driver sees agrees with the wheels: with the clutch closed it is the fastest driving
  // wheel's spin through the gear, within the idle and max rpm (seed 001; with engine inertia,
  // the locked clutch's: their mean spin), to 0.1%; and no driving
  // wheel spins faster than the engine's max rpm through the gear (the engine has no torque
  // there), budget 2% for one step of drive torque.
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(2);
    const VehicleSettings& settings = rig.vehicle().settings();
    const double firstRatio = settings.gearbox.gears[kFirstGear] * settings.gearbox.finalDrive;
    const double upshiftSpeed =
        settings.gearbox.shiftUpRpm / kRadiansPerSecondToRpm / firstRatio * drivenRadius(rig.vehicle());
    double shiftSpeed = -1, worstRpmError = 0, fastestSpinShare = 0;
    rig.run(8, [&](RoadRig& r) {
      const PowertrainState& state = r.vehicle().powertrain();
      if (shiftSpeed < 0 && r.gear() >= 2) shiftSpeed = r.speed();
      if (r.gear() >= 1) {
        const double ratio = settings.gearbox.gears[state.gear] * settings.gearbox.finalDrive;
        double fastest = 0, mean = 0;
        int driving = 0;
        for (int i = 0; i < r.vehicle().wheelCount(); ++i)
          if (r.vehicle().wheelSettings(i).driving) {
            const double spin = std::fabs(r.vehicle().wheelState(i).angularSpeed);
            fastest = std::max(fastest, spin);
            mean += spin;
            ++driving;
          }
        mean /= std::max(driving, 1);
        const double wheelRpm = fastest * ratio * kRadiansPerSecondToRpm;
        fastestSpinShare = std::max(fastestSpinShare, wheelRpm / settings.engine.maxRpm);
        if (settings.engine.inertia > 0) {
          // An engine with inertia turns with the driving wheels' mean spin (the coupe's one
          // driven axle: the differential's carrier) while its clutch is locked; slipping, it
          // has a speed of its own.
          if (state.clutchLocked) {
            const double expected = mean * ratio * kRadiansPerSecondToRpm;
            worstRpmError = std::max(worstRpmError, std::fabs(state.engineRpm - expected) / expected);
          }
        } else if (state.clutch >= 1) {
          const double expected = std::clamp(wheelRpm, double(settings.engine.idleRpm),
                                             double(settings.engine.maxRpm));
          worstRpmError = std::max(worstRpmError, std::fabs(state.engineRpm - expected) / expected);
        }
      }
      return pedal(1);
    });
    INFO("upshift at " << shiftSpeed << " m/s; road speed for it " << upshiftSpeed << " m/s");
    INFO("engine rpm against the wheels' " << worstRpmError * 100 << "%, wheels at "
                                           << fastestSpinShare * 100 << "% of max rpm");
    CHECK(rig.speed() > 0.5 * upshiftSpeed);  // it did pull away
    if (shiftSpeed >= 0) CHECK(shiftSpeed >= 0.97 * upshiftSpeed);
    CHECK(worstRpmError < 1e-3);
    CHECK(fastestSpinShare < 1.02);
  });
}

// A car spawned 0.6 m above the road with the pedal already held (a game's spawn), as the launch
// above: it lands in first and stays there until the road speed reaches the upshift. Its driving
// wheels spin up in the air, free of the ground; the box had shifted on that spin and landed
// the coupe and the parking car at a standstill in third and second (budget as above, 3%).
TEST_CASE("matrix: dropped at its spawn with the pedal held, a car lands in first and pulls away in it") {
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    btTransform raised = rig.chassis().getWorldTransform();
    raised.setOrigin(raised.getOrigin() + rig.up() * btScalar(0.6));
    rig.chassis().setWorldTransform(raised);
    const VehicleSettings& settings = rig.vehicle().settings();
    const double firstRatio = settings.gearbox.gears[kFirstGear] * settings.gearbox.finalDrive;
    const double upshiftSpeed =
        settings.gearbox.shiftUpRpm / kRadiansPerSecondToRpm / firstRatio * drivenRadius(rig.vehicle());
    int gearAtLanding = -2;
    double shiftSpeed = -1;
    rig.run(4, [&](RoadRig& r) {
      bool touching = false;
      for (int i = 0; i < r.vehicle().wheelCount(); ++i) touching = touching || r.vehicle().wheelState(i).inContact;
      if (gearAtLanding == -2 && touching) gearAtLanding = r.gear();
      if (shiftSpeed < 0 && r.gear() >= 2) shiftSpeed = r.speed();
      return pedal(1);
    });
    INFO("upshift at " << shiftSpeed << " m/s; road speed for it " << upshiftSpeed << " m/s");
    CHECK(gearAtLanding == 1);
    if (shiftSpeed >= 0) CHECK(shiftSpeed >= 0.97 * upshiftSpeed);
    CHECK(rig.speed() > 0.5 * upshiftSpeed);  // it did pull away
  });
}

// A car lifted off the road at a standstill (stranded on its belly, or on a lift) after driving
// in second or higher, the pedal released and the footbrake on: with no driving wheel on the
// ground the box reads the chassis' speed, none, and steps down to first and into neutral as the
// braked wheels stop, within 1 s (0.1 s a gear, and the wheels' stop).
TEST_CASE("matrix: lifted off the road at a standstill, the box steps down to first or neutral") {
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.run(12, [](RoadRig& r) { return pedal(r.gear() >= 2 ? 0.3f : 1.0f); });
    REQUIRE(rig.gear() >= 2);
    btTransform lifted = rig.chassis().getWorldTransform();
    lifted.setOrigin(lifted.getOrigin() + rig.up() * btScalar(1.5));
    int gearAfterOneSecond = 99;
    rig.run(1, [&](RoadRig& r) {
      r.chassis().setWorldTransform(lifted);  // held there, still
      r.chassis().setLinearVelocity(btVector3(0, 0, 0));
      r.chassis().setAngularVelocity(btVector3(0, 0, 0));
      gearAfterOneSecond = r.gear();
      DriverInput input;
      input.brake = 1;
      return input;
    });
    CHECK(gearAfterOneSecond <= 1);
  });
}

TEST_CASE("matrix: a full-throttle launch covers the same ground at every step") {
  // Distance in 5 s from rest at full throttle, against the same launch at 1/240 s. The drive is
  // integrated explicitly over a step and the tire implicitly, so from 1/60 s on the error
  // shrinks with the step, first order: budget 2% at 1/60 s and 1% at 1/120 s (measured 1.8%
  // and 0.25% at most). At 1/30 s the launch's first wheelspin lasts steps longer
  // (the engine's torque follows the wheels' spin a step late, and a step is a sizeable part of
  // the spin-up): budget 8% there (measured 0.2% to 7.1%). Before, up to 90% of the drive was
  // lost at 1/30 s by capping the drive's spin-up at the engine's max rpm before the tire had
  // taken its share (a truck covered 60 m in 10 s at 1/30 s and 115 m at 1/240 s), and the
  // traction control's gains, set in steps, held a sedan at 0.04 slip against its 0.1 target
  // at 1/30 s (13% short) and 0.06 at 1/60 s (3% short).
  const std::vector<double> budgets = {0.08, 0.02, 0.01};  // per kSteps entry
  for (const std::string& vehicle : kVehicles) {
    auto distance = [&](btScalar step) {
      RoadRig rig(road(vehicle, step));
      rig.hold(2);
      const btVector3 start = rig.position();
      rig.run(5, [](RoadRig&) { return pedal(1); });
      return double((rig.position() - start).length());
    };
    const double reference = distance(1.0f / 240);
    for (size_t i = 0; i < kSteps.size(); ++i) {
      const double covered = distance(kSteps[i]);
      INFO("cell: " << cellName(vehicle, kSteps[i]) << ": " << covered << " m against " << reference << " m at 1/240 s");
      CHECK(std::fabs(covered / reference - 1) < budgets[i]);
    }
  }
}

TEST_CASE("matrix: at top speed on the flat the automatic box holds the gear that pulls hardest") {
  // Full throttle for 90 s at 1/60 s, steered to hold the heading (the coupe, an oversteering
  // drift car, is unstable straight on above its critical speed of 31 m/s and spins without a
  // driver's correction), until the speed holds (gaining under 0.5% in the last 5 s):
  // where drive force meets drag and rolling resistance. A higher gear that gives the wheels more
  // force there (engine torque x ratio, the engine within its speed range and above the
  // downshift speed with a tenth to spare) would carry the car faster: budget 2% for the torque
  // curve's shape between gears. By seed 001's shift-up rpm alone, a sedan stopped in 4th at
  // 167 km/h (5425 rpm, 50 kW) where 5th gives 87 kW, and a jeep in 3rd at 104 km/h.
  for (const std::string& vehicle : kVehicles) {
    INFO("vehicle: " << vehicle);
    RoadRig rig(road(vehicle, 1.0f / 60));
    rig.hold(1);
    double speedFiveSecondsAgo = 0, speed = 0;
    const btScalar heading = rig.headingDegrees();
    auto flatOut = [heading](RoadRig& r) {
      DriverInput input = pedal(1);
      const btScalar drift = r.headingDegrees() - heading;  // deg, > 0: turned left
      input.steer = std::clamp(btScalar(-0.02) * drift - btScalar(0.5) * r.yawRate(), btScalar(-0.2), btScalar(0.2));
      return input;
    };
    rig.run(85, flatOut);
    speedFiveSecondsAgo = rig.speed();
    rig.run(5, flatOut);
    speed = rig.speed();
    INFO("top speed " << speed * 3.6 << " km/h (" << speedFiveSecondsAgo * 3.6 << " km/h 5 s before), gear " << rig.gear());
    REQUIRE(speed < 1.005 * speedFiveSecondsAgo);  // it holds its speed
    const VehicleSettings& settings = rig.vehicle().settings();
    const GearboxSettings& gearbox = settings.gearbox;
    const int gear = rig.vehicle().powertrain().gear;
    REQUIRE(gear >= kFirstGear);
    // Road speed through a gear, in engine rev/min.
    const double wheelSpin = speed / drivenRadius(rig.vehicle());
    auto rpmIn = [&](int g) { return wheelSpin * gearbox.gears[size_t(g)] * gearbox.finalDrive * kRadiansPerSecondToRpm; };
    auto force = [&](int g) { return engineTorque(settings.engine, btScalar(rpmIn(g)), 1) * gearbox.gears[size_t(g)]; };
    for (int higher = gear + 1; higher < int(gearbox.gears.size()); ++higher) {
      if (!(rpmIn(higher) > 1.1 * gearbox.shiftDownRpm)) break;
      INFO("gear " << higher - kNeutralGear << " at " << rpmIn(higher) << " rpm: wheel force x "
                   << force(higher) / force(gear) << " against gear " << gear - kNeutralGear << " at " << rpmIn(gear) << " rpm");
      CHECK(force(higher) <= 1.02 * force(gear));
    }
  }
}

TEST_CASE("matrix: hill start on a 15% grade: the brake released, full throttle 0.3 s later") {
  // Facing up a 15% grade (8.5 deg), held on the footbrake; released, it rolls back for 0.3 s
  // (g sin(theta) t^2 / 2 = 66 mm free), then full throttle: it must stop rolling back and climb,
  // 1 m above where it stood within 4 s. Budget for the rollback: the free roll plus as long
  // again at the speed it has reached while the clutch takes up (at most 1 / clutch_speed, 0.5 s
  // for the slowest bundled clutch): 66 + 0.44 m/s x 0.5 s = 0.29 m, so 0.3 m. Traction control
  // had aimed the drive's slip the way the car rolled: a sedan rolling back at full throttle in
  // first had its drive capped to a fifth of what holds it on the grade, and rolled on back.
  forEachCell([](const std::string& vehicle, btScalar step) {
    const GradeStart start = startOnGrade(vehicle, step, btScalar(std::atan(0.15) * 180 / SIMD_PI), 1, 4);
    INFO("rolled back " << start.rolledAway << " m; 1 m up after " << start.oneMetreAt << " s");
    CHECK(start.rolledAway < 0.3);
    CHECK(start.oneMetreAt > 0);
  });
}

TEST_CASE("matrix: backing up a 15% grade: the brake released, full 'back' 0.3 s later") {
  // The hill start in reverse: facing down the grade, held on the footbrake; released, it rolls
  // forwards for 0.3 s, then 'back' at full: it must stop rolling forwards and back up the grade,
  // 1 m behind where it stood within 6 s (reverse engages below gear_dir_switch_RPM, then its
  // clutch takes up; 'back' brakes while the car still rolls forwards in reverse, and must not
  // leave it stuck between that brake and a clutch that opens each time). Budget for the
  // forward roll: the hill start's 0.3 m, and as much again to brake below the switch speed,
  // 0.5 m (measured 0.07-0.10 m; backed 1 m up after 1.1-1.6 s).
  forEachCell([](const std::string& vehicle, btScalar step) {
    const GradeStart start = startOnGrade(vehicle, step, -btScalar(std::atan(0.15) * 180 / SIMD_PI), -1, 6);
    INFO("rolled forwards " << start.rolledAway << " m; 1 m back up after " << start.oneMetreAt << " s");
    CHECK(start.rolledAway < 0.5);
    CHECK(start.oneMetreAt > 0);
  });
}

TEST_CASE("matrix: on a 15% grade straight from the footbrake to the pedal, up it forwards and backwards") {
  // The brake let go as the pedal goes down, the car standing: full throttle facing up the grade,
  // full and half 'back' facing down it. Each must climb 1 m within 6 s; it may roll away at
  // most the hill start's 0.3 m meanwhile. Reversing had stuck: in reverse and creeping forwards
  // down the grade, 'back' braked with the throttle closed, which opened the clutch each time the
  // brake held, and the car crept on forwards at 0.04 m/s, never reversing.
  forEachCell([](const std::string& vehicle, btScalar step) {
    const btScalar grade = btScalar(std::atan(0.15) * 180 / SIMD_PI);
    for (const btScalar drive : {1.0f, -1.0f, -0.5f}) {
      const GradeStart start = startOnGrade(vehicle, step, drive > 0 ? grade : -grade, drive, 6, 0);
      INFO("pedal " << drive << ": rolled away " << start.rolledAway << " m; 1 m up the grade after "
                    << start.oneMetreAt << " s");
      CHECK(start.rolledAway < 0.3);
      CHECK(start.oneMetreAt > 0);
    }
  });
}

TEST_CASE("matrix: stop and go twice: first gear (or neutral) within 1 s of standing, pulls away in first") {
  // Drive off at full throttle for 4 s, brake to a standstill, wait, go again; twice. After the
  // car stands (speed < 5 cm/s) the box must be in first or neutral within 1 s (a truck braked
  // in fourth stayed there and relaunched 4 -> 3 -> 2 -> 1), and each launch pulls away in first:
  // the gear while the car is slower than 1 m/s is never above first, and it is rolling at 1 m/s
  // within 3 s.
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(2);
    for (int cycle = 0; cycle < 2; ++cycle) {
      INFO("cycle " << cycle + 1);
      int highestSlowGear = 0;
      double rolling = -1;
      const double launch = rig.time();
      rig.run(4, [&](RoadRig& r) {
        if (std::fabs(r.speed()) < 1) highestSlowGear = std::max(highestSlowGear, r.gear());
        if (rolling < 0 && r.speed() >= 1) rolling = r.time() - launch;
        return pedal(1);
      });
      INFO("rolling at 1 m/s after " << rolling << " s; highest gear below 1 m/s " << highestSlowGear);
      CHECK(highestSlowGear <= 1);
      CHECK(rolling >= 0);
      CHECK(rolling <= 3);
      // Brake to a stand.
      double stood = -1;
      rig.run(10, [&](RoadRig& r) {
        if (stood < 0 && std::fabs(r.speed()) < 0.05) stood = r.time();
        return footbrake();
      });
      REQUIRE(stood > 0);
      int gearOneSecondLater = 99;
      rig.run(2, [&](RoadRig& r) {
        if (gearOneSecondLater == 99 && r.time() >= stood + 1) gearOneSecondLater = r.gear();
        return footbrake();
      });
      INFO("gear 1 s after standing: " << gearOneSecondLater);
      CHECK(gearOneSecondLater >= 0);
      CHECK(gearOneSecondLater <= 1);
    }
  });
}

TEST_CASE("matrix: 'back' at speed brakes to a stand as the footbrake does, then reverses") {
  // From 12 m/s, 'back' brakes while the car rolls forwards and engages reverse only once the
  // wheels, at the larger of their spin and their road speed, turn slower than
  // gear_dir_switch_RPM (seed 001): the road speed at the switch is at most that rpm's speed
  // plus one step of braking at 1.2 g. Wheels the brakes lock turn at 0 rpm whatever the speed,
  // and reverse had engaged at 45 km/h, stopping cars 2.3 times later than the footbrake (a
  // truck not at all). The stop takes no longer than the footbrake's from the same speed plus
  // the pedal's ramp from +1 to -1 at pedal_speed (budget: no braking at all during the ramp),
  // and the car then backs away (faster than 1 m/s backwards within 6 s).
  forEachCell([](const std::string& vehicle, btScalar step) {
    auto stop = [&](bool back, double& switchSpeed, double& reversing) {
      RoadRig rig(road(vehicle, step));
      rig.hold(2);
      rig.run(30, [](RoadRig& r) { return r.speed() < 12 ? pedal(1) : DriverInput{}; });
      rig.run(1, [](RoadRig& r) { return r.speed() < 12 ? pedal(1) : DriverInput{}; });  // holds 12
      const btVector3 start = rig.position();
      const double startSpeed = rig.speed();
      double stopped = -1, distance = 0;
      switchSpeed = 1e9;
      reversing = -1;
      const double begin = rig.time();
      rig.run(back ? 10 : 6, [&](RoadRig& r) {
        if (switchSpeed > 1e8 && r.gear() == -1) switchSpeed = r.speed();
        if (stopped < 0 && r.speed() < 0.05) {
          stopped = r.time();
          distance = double((r.position() - start).length());
        }
        if (stopped >= 0 && reversing < 0 && r.speed() < -1) reversing = r.time() - stopped;
        return back ? pedal(-1) : footbrake();
      });
      INFO((back ? "'back'" : "footbrake") << " from " << startSpeed << " m/s: stood after "
           << stopped - begin << " s and " << distance << " m");
      REQUIRE(stopped > 0);
      return distance;
    };
    double switchSpeed = 0, reversing = 0, unused = 0;
    const double braked = stop(false, unused, unused);
    const double backed = stop(true, switchSpeed, reversing);
    RoadRig probe(road(vehicle, step));
    const VehicleSettings& settings = probe.vehicle().settings();
    const double switchRoadSpeed =
        settings.gearbox.gearDirectionSwitchRpm / kRadiansPerSecondToRpm * drivenRadius(probe.vehicle());
    const double rampTime = settings.steering.pedalSpeed > 0 ? 2 / settings.steering.pedalSpeed : 0;
    INFO("'back': " << backed << " m, reverse at " << switchSpeed << " m/s (switch speed " << switchRoadSpeed
         << " m/s), backing at 1 m/s " << reversing << " s after standing; footbrake " << braked << " m");
    CHECK(switchSpeed <= switchRoadSpeed + 1.2 * 9.81 * step);
    CHECK(backed <= braked + 12 * rampTime + 0.05);
    CHECK(reversing >= 0);
    CHECK(reversing <= 6);
  });
}

TEST_CASE("matrix: reverse, then forward again") {
  // 'Back' from rest engages reverse and backs the car up (faster than 1 m/s within 4 s); 'forward'
  // while rolling backwards first brakes, then engages first below gear_dir_switch_RPM and
  // drives forwards (faster than 1 m/s within 8 s of the pedal change).
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(2);
    rig.hold(4, pedal(-1));
    INFO("after 4 s of 'back': " << rig.speed() << " m/s in gear " << rig.gear());
    CHECK(rig.gear() == -1);
    CHECK(rig.speed() < -1);
    double forward = -1;
    const double change = rig.time();
    rig.run(8, [&](RoadRig& r) {
      if (forward < 0 && r.speed() > 1) forward = r.time() - change;
      return pedal(1);
    });
    INFO("forwards at 1 m/s after " << forward << " s, gear " << rig.gear());
    CHECK(forward >= 0);
    CHECK(rig.gear() >= 1);
  });
}

namespace {

// Holds `speed` m/s with the pedal (a PI), steering `steer` in [-1, 1]; the brake when too fast.
struct SpeedHolder {
  double speed;
  double integral = 0;
  DriverInput operator()(RoadRig& rig, btScalar steer) {
    const double error = speed - rig.speed();
    integral = std::clamp(integral + error * rig.spec().step, -2.0, 2.0);
    DriverInput input;
    const double command = 0.4 * error + 0.3 * integral;
    input.pedal = btScalar(std::clamp(command, 0.0, 1.0));
    input.brake = btScalar(std::clamp(-command, 0.0, 1.0));
    input.steer = steer;
    return input;
  }
};

}  // namespace

TEST_CASE("matrix: U-turn at full lock: the turning circle is the steering geometry's, L / tan(delta)") {
  // At 1.5 m/s with the wheel at full lock, the rear axle runs on a circle of radius L / tan(delta)
  // (delta: the steering's bicycle angle, L: steered to unsteered wheels; Ackermann geometry puts
  // the turning centre on the rear axle's line). Budget 3% for a two-axle car with open
  // differentials: the slip angles at under 0.1 g. A limited-slip differential (the coupe) and a
  // tandem axle (the truck) resist the turn and widen it, measured 4% and 8%: for them the
  // circle may exceed the geometry's by up to 10%. No car turns tighter than its geometry (-1%).
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(1);
    SpeedHolder hold{1.5};
    rig.run(4, [&](RoadRig& r) { return hold(r, 0); });
    const btScalar startHeading = rig.headingDegrees();
    btVector3 quarter(0, 0, 0), threeQuarters(0, 0, 0);
    bool haveQuarter = false, haveThreeQuarters = false;
    btScalar turned = 0, lastHeading = startHeading, steer = 0;
    rig.run(30, [&](RoadRig& r) {
      const btScalar heading = r.headingDegrees();
      turned += std::remainder(heading - lastHeading, btScalar(360));
      lastHeading = heading;
      if (!haveQuarter && turned >= 90) {
        quarter = r.rearAxle();
        haveQuarter = true;
      }
      if (!haveThreeQuarters && turned >= 270) {
        threeQuarters = r.rearAxle();
        haveThreeQuarters = true;
        steer = r.vehicle().steerAngle();
      }
      return hold(r, 1);
    });
    REQUIRE(haveThreeQuarters);
    const btVector3 across = (threeQuarters - quarter) - rig.up() * (threeQuarters - quarter).dot(rig.up());
    const double diameter = across.length();
    const double expected = 2 * rig.wheelbase() / std::tan(steer);
    INFO("turning circle " << diameter << " m at " << steer * 180 / SIMD_PI << " deg of lock (2 L / tan = "
                           << expected << " m)");
    const bool resistsTurning = vehicle == "coupe" || vehicle == "truck";
    CHECK(diameter >= 0.99 * expected);
    CHECK(diameter <= (resistsTurning ? 1.10 : 1.03) * expected);
  });
}

TEST_CASE("matrix: braking at 0.5 g in a 0.4 g turn: the car stops without spinning") {
  // ISO 7975's manoeuvre: a steady turn on a 40 m radius at 0.4 g (12.5 m/s), then braking at
  // 0.5 g (the pedal follows the deceleration, as the standard's brake controller does) with the
  // steering wheel held. 0.64 g combined is inside a mu = 1 road's grip: a car fit for the road
  // stays stable. Asserted while it stops: the yaw rate never exceeds 1.5x the steady turn's (a
  // spin shows as a yaw rate running away), the body slip angle stays under 10 deg, and it stops
  // within v^2 / (2 x 0.45 g) (the deceleration controller's settling).
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    rig.hold(1);
    const double radius = 40, speed = std::sqrt(0.4 * 9.81 * radius);
    SpeedHolder hold{speed};
    // Steering: the geometry's angle for the circle, atan(L / R), plus a slow integral of the yaw
    // rate error (the tires' slip angles); slow, so that the driver does not ring against the
    // steering's own rate limit at long steps.
    // Up to speed on the straight first, then turn in over 2 s and hold the circle for 6 s.
    double steer = 0, correction = 0, steadyYawRate = 0;
    const double window = 1, turnIn = 9, end = 17;
    rig.run(end - 1, [&](RoadRig& r) {
      const double error = r.speed() / radius - r.yawRate();
      const double entry = std::clamp((r.time() - turnIn) / 2, 0.0, 1.0);
      if (entry >= 1) correction = std::clamp(correction + 0.3 * error * r.spec().step, -0.3, 0.3);
      const double geometric = entry * std::atan(r.wheelbase() / radius) + correction;
      steer = std::clamp(geometric / maxSteerAngle(r.vehicle().settings().steering, r.speed()), -1.0, 1.0);
      if (r.time() > end - window) steadyYawRate += r.yawRate() * r.spec().step / window;
      return hold(r, btScalar(steer));
    });
    const double lateral = rig.speed() * steadyYawRate / 9.81;
    INFO("steady: " << lateral << " g, steer input " << steer);
    REQUIRE(lateral == doctest::Approx(0.4).epsilon(0.1));
    const double startSpeed = rig.speed();
    const btVector3 start = rig.position();
    double largestYawRate = 0, largestSlip = 0, pedal = 0, lastSpeed = startSpeed;
    rig.run(8, [&](RoadRig& r) {
      largestYawRate = std::max(largestYawRate, double(std::fabs(r.yawRate())));
      const btVector3 velocity = r.vehicle().linearVelocity();
      if (velocity.length() > 1) {
        const double slip = std::atan2(velocity.dot(-r.vehicle().worldRight()),
                                       velocity.dot(r.vehicle().worldForward()));
        largestSlip = std::max(largestSlip, std::fabs(slip));
      }
      const double deceleration = (lastSpeed - r.speed()) / r.spec().step;
      lastSpeed = r.speed();
      pedal = std::clamp(pedal + 0.5 * (0.5 * 9.81 - deceleration) * r.spec().step, 0.0, 1.0);
      DriverInput input;
      input.brake = btScalar(r.speed() > 0.3 ? pedal : 1.0);
      input.steer = btScalar(steer);
      return input;
    });
    const double travelled = (rig.position() - start).length();
    INFO("braking: largest yaw rate " << largestYawRate / steadyYawRate << " x steady, body slip "
                                      << largestSlip * 180 / SIMD_PI << " deg, stopped in " << travelled
                                      << " m (limit " << startSpeed * startSpeed / (2 * 0.45 * 9.81) << " m)");
    CHECK(std::fabs(rig.speed()) < 0.1);
    CHECK(largestYawRate <= 1.5 * steadyYawRate);
    CHECK(largestSlip < 10 * SIMD_PI / 180);
    CHECK(travelled <= startSpeed * startSpeed / (2 * 0.45 * 9.81));
  });
}

namespace {

// ISO 3888-1's double lane change, scaled to a vehicle `width` b (m): three lanes of cones along
// +y (the rig's forward) with lateral offsets along -x (left). Lengths 15 (lane 1), 30, 25 (lane
// 2), 25, 15 m (lane 3); widths 1.1 b + 0.25, 1.2 b + 0.25, 1.3 b + 0.25 m; lane 2's centre
// 3.5 m plus half its width to the left of lane 1's; lane 3 shares lane 1's right-hand line.
struct LaneChangeCourse {
  struct Lane {
    double start, end;  // m along +y
    double centre;      // m to the left of lane 1's centre
    double width;       // m
  };
  Lane lanes[3];
  explicit LaneChangeCourse(double width, double entry) {
    const double widthA = 1.1 * width + 0.25, widthB = 1.2 * width + 0.25, widthC = 1.3 * width + 0.25;
    lanes[0] = {entry, entry + 15, 0, widthA};
    lanes[1] = {entry + 45, entry + 70, widthB / 2 + 3.5, widthB};
    lanes[2] = {entry + 95, entry + 110, (widthC - widthA) / 2, widthC};
  }
  // The path the driver follows: the lanes' centre lines, joined by smooth (cosine) transitions.
  double pathLeft(double along) const {
    auto blend = [](double from, double to, double t) {
      t = std::clamp(t, 0.0, 1.0);
      return from + (to - from) * (1 - std::cos(SIMD_PI * t)) / 2;
    };
    if (along <= lanes[1].end)
      return blend(0, lanes[1].centre, (along - lanes[0].end) / (lanes[1].start - lanes[0].end));
    return blend(lanes[1].centre, lanes[2].centre, (along - lanes[1].end) / (lanes[2].start - lanes[1].end));
  }
  // Its slope d(left)/d(along) and curvature (1/m, > 0 turning left), by central differences.
  double pathSlope(double along) const { return (pathLeft(along + 0.05) - pathLeft(along - 0.05)) / 0.1; }
  double pathCurvature(double along) const {
    return (pathLeft(along + 0.5) - 2 * pathLeft(along) + pathLeft(along - 0.5)) / 0.25;
  }
};

}  // namespace

TEST_CASE("matrix: ISO 3888-1 double lane change at 60 km/h through every gate") {
  // A path-following driver holds 60 km/h and follows the lanes' centre lines (joined by cosine
  // transitions): steer = L x the path's curvature 0.2 s ahead + heading error + atan(4 x the
  // front axle's lateral error / (V + 1)).
  // (ISO 3888-1 is written for vehicles up to 3.5 t; the 9 t truck runs the same course scaled to
  // its width. With a lateral gain of 1.5 it left lane 3 by 3-5 cm: a heavy truck needs a firmer
  // driver, and 4 serves every vehicle.) Asserted: every corner of the car's footprint (its
  // wheels' outer edges) stays inside each of the three lanes while the car is in it.
  forEachCell([](const std::string& vehicle, btScalar step) {
    RoadRig rig(road(vehicle, step));
    const VehicleSettings& settings = rig.vehicle().settings();
    double halfWidth = 0, front = -1e9, rear = 1e9;
    for (int i = 0; i < rig.vehicle().wheelCount(); ++i) {
      const WheelSettings& wheel = rig.vehicle().wheelSettings(i);
      halfWidth = std::max(halfWidth, std::fabs(double(wheel.attachmentPoint.dot(settings.axes.right()))) + wheel.width / 2);
      front = std::max(front, double(wheel.attachmentPoint.dot(settings.axes.forward) + wheel.radius));
      rear = std::min(rear, double(wheel.attachmentPoint.dot(settings.axes.forward) - wheel.radius));
    }
    const double speed = 60 / 3.6;
    const LaneChangeCourse course(2 * halfWidth, 160);
    const double preview = 0.2;  // s: the steering's lag
    rig.hold(1);
    SpeedHolder hold{speed};
    double worstMargin = 1e9;
    int laneOfWorst = -1;
    rig.run(25, [&](RoadRig& r) {
      // Steering: the path's curvature a little ahead (the steering's lag), plus the heading
      // error and the front axle's lateral error (a Stanley-type law).
      const btVector3 forward = r.vehicle().worldForward();
      const btVector3 frontAxle = r.rearAxle() + forward * r.wheelbase();
      const double along = frontAxle.y();
      const double lateralError = course.pathLeft(along) - (-frontAxle.x());  // > 0: path to the left
      const double heading = std::atan2(double(-forward.x()), double(forward.y()));
      const double headingError = std::atan(course.pathSlope(along)) - heading;
      const double angle = r.wheelbase() * course.pathCurvature(along + preview * r.speed()) + headingError +
                           std::atan(4.0 * lateralError / (r.speed() + 1));
      const double input = std::clamp(angle / maxSteerAngle(r.vehicle().settings().steering, r.speed()), -1.0, 1.0);
      // The footprint's corners against the lane the car is in.
      const btTransform pose = r.chassis().getWorldTransform();
      for (double along : {front, rear})
        for (double across : {-halfWidth, halfWidth}) {
          const btVector3 corner = pose * (settings.axes.forward * btScalar(along) + settings.axes.right() * btScalar(across));
          for (int lane = 0; lane < 3; ++lane) {
            const LaneChangeCourse::Lane& l = course.lanes[lane];
            if (corner.y() < l.start || corner.y() > l.end) continue;
            const double left = -corner.x();
            const double margin = l.width / 2 - std::fabs(left - l.centre);
            if (margin < worstMargin) {
              worstMargin = margin;
              laneOfWorst = lane + 1;
            }
          }
        }
      return hold(r, btScalar(input));
    });
    INFO("smallest margin to a cone line " << worstMargin << " m, in lane " << laneOfWorst << "; at the end "
                                          << rig.position().y() << " m along, " << rig.speed() * 3.6 << " km/h");
    CHECK(rig.position().y() > course.lanes[2].end);  // it got through
    CHECK(worstMargin > 0);
  });
}
