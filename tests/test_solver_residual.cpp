// The contact solve's convergence (RaycastVehicle::solveReport): how many Gauss-Seidel sweeps a
// step takes and the residual it stops at, for every bundled vehicle through the manoeuvres a
// driver asks of it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "RoadRig.h"
#include "TestWorld.h"
#include "raycar/io/RigidBodyState.h"

using namespace raycar;
using namespace raycar::test;

namespace {

struct Manoeuvre {
  const char* name;
  double seconds;
  DriverInput (*driver)(RoadRig& rig);
};

DriverInput parked(RoadRig&) { return DriverInput{}; }
DriverInput launch(RoadRig&) {
  DriverInput input;
  input.pedal = 1;
  return input;
}
DriverInput launchThenBrake(RoadRig& rig) {
  DriverInput input;
  if (rig.time() < 5) input.pedal = 1;
  else input.brake = 1;
  return input;
}
DriverInput launchThenTurn(RoadRig& rig) {
  DriverInput input;
  input.pedal = 0.5f;
  if (rig.time() > 3) input.steer = 0.5f;
  return input;
}
// A light throttle round a bend in a low gear: with the clutch locked the driving wheels share
// the engine's spin (EngineSpinCoupling), which the sweeps met slowly (ContactSolver's
// solveSharedSpin).
DriverInput partThrottleTurn(RoadRig& rig) {
  DriverInput input;
  input.pedal = 0.15f;
  if (rig.time() > 2) input.steer = 0.5f;
  return input;
}

struct Convergence {
  int steps = 0, converged = 0, sweeps = 0, mostSweeps = 0;
  double largestUnconvergedResidual = 0;  // N
};

}  // namespace

TEST_CASE("the contact solve converges in a few sweeps and reports its residual") {
  const Manoeuvre manoeuvres[] = {
      {"parked", 3, parked},
      {"full-throttle launch", 6, launch},
      {"launch, then full braking", 8, launchThenBrake},
      {"launch, then a steady turn", 8, launchThenTurn},
      {"part throttle round a bend", 12, partThrottleTurn},
  };
  for (const char* vehicle : {"sedan", "coupe", "jeep", "truck", "parking_car"}) {
    for (const Manoeuvre& manoeuvre : manoeuvres) {
      INFO(std::string(vehicle) << ": " << std::string(manoeuvre.name));
      RoadSpec spec;
      spec.vehicle = vehicle;
      RoadRig rig(spec);
      const ContactSolverSettings& settings = rig.vehicle().settings().solver;
      Convergence measured;
      rig.run(manoeuvre.seconds, [&](RoadRig& road) {
        const SolveReport& report = road.vehicle().solveReport();
        if (road.time() > 0.5) {  // after the spawn's settling
          ++measured.steps;
          measured.converged += report.converged;
          measured.sweeps += report.sweeps;
          measured.mostSweeps = std::max(measured.mostSweeps, report.sweeps);
          if (!report.converged)
            measured.largestUnconvergedResidual =
                std::max(measured.largestUnconvergedResidual, double(report.residual));
          CHECK(report.sweeps >= 1);
          CHECK(report.sweeps <= settings.iterations);
          CHECK(report.converged == (report.estimatedError <= settings.tolerance));
          // A converged step's estimate trusts a contraction of at most 0.05 a sweep, so its
          // last sweep changed no row by more than (1 - 0.05) / 0.05 = 19 times the tolerance
          // (ContactSolver::solve; the factor's last digits are the float rounding).
          if (report.converged) CHECK(report.residual <= 19.0001f * settings.tolerance);
        }
        return manoeuvre.driver(road);
      });
      // Budgets. A step that stops unconverged still changed no row's force by more than 1% of
      // the car's weight over its last sweep: the 1% the static-load tests (test_suspension.cpp)
      // allow.
      // At least 95% of steps converge, and warm starting keeps the mean below 5 sweeps of the 8
      // a cold solve may take.
      const double weight = 9.81 / rig.chassis().getInvMass();  // N
      const double convergedShare = double(measured.converged) / measured.steps;
      const double meanSweeps = double(measured.sweeps) / measured.steps;
      CAPTURE(convergedShare);
      CAPTURE(meanSweeps);
      CAPTURE(measured.mostSweeps);
      CAPTURE(measured.largestUnconvergedResidual);
      CHECK(measured.largestUnconvergedResidual <= 0.01 * weight);
      CHECK(convergedShare >= 0.95);
      CHECK(meanSweeps < 5);
    }
  }
}

// The busy drive (throttle and steering weaving, a brake and handbrake every 2.5 s) at 1/60 s,
// a game's common step: at least 95% of steps converge and the mean stays below 5 sweeps, the
// budgets above. The truck's tandem rear axles scrub against each other through the chassis'
// yaw, and its lateral rows, solved one at a time, met slowly: 85.3% of its steps converged,
// 5.86 sweeps a step, until slowly contracting sweeps took a joint step of the lateral rows
// (ContactSolver's solveLateralTogether): 98.7%, 4.92. Not bounded here: the last change of the
// steps that stay unconverged, the wheels braked and handbraked past their curves' peaks, where
// the sweeps swing (up to 1.7 kN, the sedan's).
TEST_CASE("the busy drive at 1/60 s: the solve converges in a few sweeps") {
  for (const char* vehicle : {"sedan", "coupe", "jeep", "truck", "parking_car"}) {
    CAPTURE(std::string(vehicle));
    RoadSpec spec;
    spec.vehicle = vehicle;
    spec.step = btScalar(1.0 / 60);
    RoadRig rig(spec);
    Convergence measured;
    rig.run(20, [&](RoadRig& road) {
      const SolveReport& report = road.vehicle().solveReport();
      if (road.time() > 0.5) {  // after the spawn's settling
        ++measured.steps;
        measured.converged += report.converged;
        measured.sweeps += report.sweeps;
      }
      return busyDriver(road.time());
    });
    const double convergedShare = double(measured.converged) / measured.steps;
    const double meanSweeps = double(measured.sweeps) / measured.steps;
    CAPTURE(convergedShare);
    CAPTURE(meanSweeps);
    CHECK(convergedShare >= 0.95);
    CHECK(meanSweeps < 5);
  }
}

// The sedan's front wheels turn the engine through an open differential, whose counter-rotating
// mode carries only the wheels' own inertia. In the busy drive at 1/30 s the sedan pulls away
// from 2.3 m/s at 0.6 to 0.9 pedal after a stop (2.5 s in); its traction control, a step late,
// lets the front wheels spin up and the clutch locks. Where both driving wheels' laws were past
// their peak, one each way, the sweeps went round a two-sweep cycle that the driving rows' joint
// step (which leaves such rows out) did not break: six of the ten steps from 2.77 s stopped
// unconverged (up to 6.5 kN), with the front wheels as far apart as +42 and -17 rad/s on a road
// of 9.7 and pushing 2.5 kN each in opposite directions. The counter-rotation is now solved as
// one unknown on the laws themselves (ContactSolver's solveCounterRotation): at most 64 N.
// Asserted: a driven wheel never turns backwards while the car rolls forwards at over 2 m/s (its
// drive and its road both turn it forwards), with the busy drive's handbrake and without it.
// Each step's estimated error was also asserted within 100 N until the handbrake's slide (on
// the tire's laws since) changed the way there. That bound is not this counter-rotation's: one
// step at 2.77 s, its driving wheels at 11.3 and 10.9 rad/s, does not converge at 1/30 s however
// many sweeps it gets (188 N after 8 sweeps, 134 after 12, 60 after 40), and without the
// handbrake it ends 64 N off, 101.7 N in double precision: README's "ABS stops at 1/30 s". The
// counter-rotation left errors of kilonewtons, and a driving wheel turning backwards, which the
// spin check catches.
TEST_CASE("the sedan pulling away at 1/30 s: its driving wheels do not counter-rotate") {
  for (const bool handbrake : {false, true}) {
    CAPTURE(handbrake);
    RoadSpec spec;
    spec.vehicle = "sedan";
    spec.step = btScalar(1.0 / 30);
    RoadRig rig(spec);
    btScalar slowestDrivenSpin = BT_LARGE_FLOAT;  // rad/s, while rolling forwards
    rig.run(3.1, [&](RoadRig& road) {  // the pull-away's first 0.55 s
      const RaycastVehicle& car = road.vehicle();
      if (road.time() > 2.55 && car.forwardSpeed() > 2)
        for (int wheel : {0, 1}) slowestDrivenSpin = std::min(slowestDrivenSpin, car.wheelState(wheel).angularSpeed);
      DriverInput input = busyDriver(road.time());
      input.handbrake = input.handbrake && handbrake;
      return input;
    });
    CAPTURE(slowestDrivenSpin);
    CHECK(slowestDrivenSpin > 0);
  }
}

namespace {

// The sweeps a car's solve takes on partThrottleTurn's bend, from 4 s on (in the bend, the
// clutch locked); every step must converge.
struct BendSweeps {
  double mean = 0;
  double meanAtLeastTwo = 0;  // each step counted as max(its sweeps, 2)
};
BendSweeps sweepsInTheBend(const char* vehicle, const std::function<void(VehicleSettings&)>& tune) {
  RoadSpec spec;
  spec.vehicle = vehicle;
  spec.tune = tune;
  RoadRig rig(spec);
  int steps = 0, sweeps = 0, sweepsAtLeastTwo = 0, converged = 0;
  rig.run(12, [&](RoadRig& road) {
    if (road.time() > 4) {
      const SolveReport& report = road.vehicle().solveReport();
      ++steps;
      sweeps += report.sweeps;
      sweepsAtLeastTwo += std::max(report.sweeps, 2);
      converged += report.converged;
    }
    return partThrottleTurn(road);
  });
  CHECK(converged == steps);
  return BendSweeps{double(sweeps) / steps, double(sweepsAtLeastTwo) / steps};
}

}  // namespace

// The driving wheels behind a locked clutch turn with the engine: in the sedan's first gear its
// 0.12 kg m^2 is 22 kg m^2 at the wheels against a wheel's 1, so a push on one driving wheel's
// row turns the other by -0.46 rad/s per N m s against its own 0.54. Solved one row at a time
// that shared spin took the sedan 5.71 sweeps a step on this bend, a third of its steps stopping
// at the cap unconverged; with 0.15 kg m^2 the parking car stopped at the cap in every step and
// the jeep in 96% of them. The driving rows' joint step (ContactSolver's solveSharedSpin) takes
// each car to about what it takes with `inertia = 0`, whose engine is no state and whose wheels
// share nothing. Budget: every step converged, and no more sweeps than the uncoupled car would
// take if no step could end after its first sweep: a coupled step cannot, as the first sweep's
// joint step still moves the rows by more than the tolerance. Plus 0.05 a step, one step in
// twenty taking a third sweep: the slack for the steps where a row's regime changes (a brake
// holds or lets go).
TEST_CASE("an engine's inertia behind a locked clutch costs the solve next to no sweeps") {
  auto drive = [](const char* vehicle, btScalar engineInertia) {
    return sweepsInTheBend(vehicle, [engineInertia](VehicleSettings& settings) { settings.engine.inertia = engineInertia; });
  };
  // The sedan's own engine inertia; the others' bundled scripts model none, so they get 0.15.
  const std::pair<const char*, btScalar> cars[] = {
      {"sedan", btScalar(0.12)}, {"coupe", btScalar(0.15)}, {"jeep", btScalar(0.15)},
      {"truck", btScalar(0.15)}, {"parking_car", btScalar(0.15)}};
  for (const auto& [vehicle, inertia] : cars) {
    INFO(vehicle);
    const BendSweeps coupled = drive(vehicle, inertia);
    const BendSweeps uncoupled = drive(vehicle, 0);
    CAPTURE(coupled.mean);
    CAPTURE(uncoupled.mean);
    CHECK(coupled.mean <= uncoupled.meanAtLeastTwo + 0.05);
  }
}

// A limited-slip, Torsen or locked differential's row between two wheels' spins starts each step
// from its last impulse (ContactSolver::solve). Built up from 0 every step instead, through its
// rounds with its wheels' rows, it took the bundled coupe (limited slip) 4.51 sweeps a step on
// this bend against 2.00 with an open differential, the jeep given limited-slip differentials
// 4.11 against 1.73, the sedan given a locked one 7.68 (45.7% of steps converged). Budget and
// slack as for the engine's inertia (above): every step converged, and no more sweeps than the
// same car with open differentials would take if no step could end after one sweep, + 0.05. The
// sedan given a Torsen front axle took 3.56 until its limit stopped chattering from step to step
// (test_drivetrain.cpp); now 2.00. The coupe given a locked axle, at 2.5 m/s on this bend, must
// scrub its rear wheels (the inner one pushes 2.8 kN past its curve's peak, the outer one drags
// 1.9 kN): its row and its wheels' rows, in rounds, swung by 300 N a sweep, 6.90 sweeps a step and
// 19% of steps converged, until the two wheels were solved as one spin (solveLockedAxle): 1.00.
TEST_CASE("a differential's row starts from its last impulse and costs the solve next to no sweeps") {
  struct Case {
    const char* vehicle;
    DifferentialType type;
  };
  const Case cases[] = {
      {"coupe", DifferentialType::LimitedSlip}, {"coupe", DifferentialType::Torsen},
      {"coupe", DifferentialType::Locked},
      {"jeep", DifferentialType::LimitedSlip},  {"jeep", DifferentialType::Locked},
      {"jeep", DifferentialType::Torsen},       {"sedan", DifferentialType::LimitedSlip},
      {"sedan", DifferentialType::Locked},      {"sedan", DifferentialType::Torsen},
  };
  auto withDifferentials = [](DifferentialType type) {
    return [type](VehicleSettings& settings) {
      if (settings.differentials.empty()) settings.differentials.push_back(DifferentialSettings{});
      for (DifferentialSettings& differential : settings.differentials) differential.type = type;
    };
  };
  for (const Case& test : cases) {
    INFO(test.vehicle << ", differential type " << int(test.type));
    const BendSweeps coupled = sweepsInTheBend(test.vehicle, withDifferentials(test.type));
    const BendSweeps open = sweepsInTheBend(test.vehicle, withDifferentials(DifferentialType::Open));
    CAPTURE(coupled.mean);
    CAPTURE(open.mean);
    CHECK(coupled.mean <= open.meanAtLeastTwo + 0.05);
  }
}

// Locked axles step by step: each car with locked axles round partThrottleTurn's bend at 1/30
// and 1/120 s against the same drive at 1/960 s (the truth: its solves take two sweeps or fewer
// there, and 1/480 s gives the same speeds to 1 cm/s), compared by the mean speed from 4 to 12 s
// (in the bend). Budget: a locked axle may make the step matter no more than it matters to these
// cars with open differentials on the same bend at 1/30 s (the largest of the three, 1.9%: the
// coupe's), and no less than 1%. Measured: the coupe 1.3% and 0.4%, the jeep 0.7% and 0.15%, the
// truck 0.8% and 0.3%. Before, the coupe, solved in rounds and unconverged, ran 7% to 8% fast at
// both steps; the jeep and truck, their drive cut by the max-rpm cap (Drivetrain::spinUp), slowed
// to a stop on the bend at 1/30 s.
TEST_CASE("locked axles scrubbing round a bend keep the fine step's speeds at 1/30 and 1/120 s") {
  auto meanSpeedOnTheBend = [](const char* vehicle, DifferentialType type, double stepsPerSecond) {
    RoadSpec spec;
    spec.vehicle = vehicle;
    spec.step = btScalar(1 / stepsPerSecond);
    spec.tune = [type](VehicleSettings& settings) {
      for (DifferentialSettings& differential : settings.differentials) differential.type = type;
    };
    RoadRig rig(spec);
    double sum = 0;  // m/s
    int steps = 0;
    rig.run(12, [&](RoadRig& road) {
      if (road.time() > 4) {
        sum += road.speed();
        ++steps;
      }
      return partThrottleTurn(road);
    });
    REQUIRE(steps > 0);
    return sum / steps;
  };
  const char* const vehicles[] = {"coupe", "jeep", "truck"};
  double budget = 0.01;
  for (const char* vehicle : vehicles) {
    const double truth = meanSpeedOnTheBend(vehicle, DifferentialType::Open, 960);
    budget = std::max(budget, std::fabs(meanSpeedOnTheBend(vehicle, DifferentialType::Open, 30) / truth - 1));
  }
  CAPTURE(budget);
  for (const char* vehicle : vehicles) {
    CAPTURE(std::string(vehicle));
    const double truth = meanSpeedOnTheBend(vehicle, DifferentialType::Locked, 960);
    for (const double stepsPerSecond : {30.0, 120.0}) {
      CAPTURE(stepsPerSecond);
      const double speed = meanSpeedOnTheBend(vehicle, DifferentialType::Locked, stepsPerSecond);
      CAPTURE(speed);
      CAPTURE(truth);
      CHECK(std::fabs(speed / truth - 1) <= budget);
    }
  }
}

namespace {

// The forces one step left on the wheels: load, Fx and Fy of each (N).
std::vector<double> wheelForces(RaycastVehicle& vehicle) {
  std::vector<double> forces;
  for (int wheel = 0; wheel < vehicle.wheelCount(); ++wheel) {
    const WheelState& state = vehicle.wheelState(wheel);
    forces.insert(forces.end(), {double(state.normalLoad), double(state.longitudinalForce),
                                 double(state.lateralForce)});
  }
  return forces;
}

double largestDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::fabs(a[i] - b[i]));
  return largest;
}


// A vehicle's settings with its sweeps run until nothing moves: a tolerance of 1 mN, up to 64
// sweeps (the reference the default solve is compared with).
VehicleSettings solvedToConvergence(const RaycastVehicle& vehicle) {
  VehicleSettings converged = vehicle.settings();
  converged.solver.tolerance = 1e-3f;
  converged.solver.iterations = 64;
  return converged;
}

// Steps a rig's vehicle and, from the very state it begins its step in, two more vehicles on the
// same chassis: one with the same settings (which must repeat it bit for bit: the comparison's
// own check) and one whose sweeps run until nothing moves.
class SideBySide final : public btActionInterface {
 public:
  SideBySide(RoadRig& rig, const VehicleSettings& converged)
      : rig_(rig),
        repeat_(rig.chassis(), rig.vehicle().sharedSettings()),
        reference_(rig.chassis(), converged) {
    rig.world().removeAction(&rig.vehicle());
    rig.world().addAction(this);
  }
  ~SideBySide() override {
    rig_.world().removeAction(this);
    rig_.world().addAction(&rig_.vehicle());
  }
  void updateAction(btCollisionWorld* world, btScalar dt) override {
    const std::vector<std::uint8_t> state = rig_.vehicle().saveState();
    const RigidBodyState body(rig_.chassis());
    for (RaycastVehicle* other : {&repeat_, &reference_}) {
      other->restoreState(state.data(), state.size());
      other->updateAction(world, dt);
      body.restore(rig_.chassis());
    }
    rig_.vehicle().updateAction(world, dt);
  }
  void debugDraw(btIDebugDraw*) override {}
  RaycastVehicle& repeat() { return repeat_; }
  RaycastVehicle& reference() { return reference_; }

 private:
  RoadRig& rig_;
  RaycastVehicle repeat_;
  RaycastVehicle reference_;
};

}  // namespace

// What stopping early costs. The stopping rule (ContactSolver::solve) estimates how far the
// impulses are from converged by a geometric series; the sweeps are only nearly a contraction
// (rows stick and slip, brakes hold and let go, the tire laws curve), so the estimate is checked
// here against the truth: each step of a busy drive is solved again from the same state until
// nothing moves (tolerance 1 mN, up to 64 sweeps), and the wheels' loads and tire forces compared.
// Steps whose reference does not converge in 64 sweeps either (a launching wheel swinging across
// its curve's peak) have no truth to compare with and are left out. Budgets: the median step is
// within the tolerance, the estimate's own claim for a typical step; nine steps in ten within
// twice it, the slack for the steps whose contraction two sweeps misjudge. Not bounded: a few
// steps (0 to 9 of about 900 here; 0 to 5 when the sweeps waited for a change below the
// tolerance) where the sweeps and the reference settle on different answers, a brake holding in
// one and turning in the other, 1% of the car's weight and more apart; they are only counted.
// The bundled cars, and three given locked axles (solved as one spin, ContactSolver::
// solveLockedAxle; its reference the same solve run to 1 mN).
TEST_CASE("the solve stops with its forces within its tolerance of the converged ones") {
  struct Case {
    const char* vehicle;
    bool locked;  // every differential locked
  };
  const Case cases[] = {{"sedan", false}, {"coupe", false},     {"jeep", false}, {"truck", false},
                        {"parking_car", false}, {"coupe", true}, {"jeep", true},  {"truck", true}};
  for (const Case& test : cases) {
    CAPTURE(std::string(test.vehicle));
    CAPTURE(test.locked);
    RoadSpec spec;
    spec.vehicle = test.vehicle;
    if (test.locked)
      spec.tune = [](VehicleSettings& settings) {
        for (DifferentialSettings& differential : settings.differentials) differential.type = DifferentialType::Locked;
      };
    RoadRig rig(spec);
    rig.hold(0.5);  // the spawn's settling
    SideBySide sideBySide(rig, solvedToConvergence(rig.vehicle()));
    const btScalar tolerance = rig.vehicle().settings().solver.tolerance;
    const double weight = 9.81 / rig.chassis().getInvMass();  // N
    int steps = 0, repeated = 0, farOff = 0;
    std::vector<double> errors;  // N: the largest difference of a step's forces
    bool stepped = false;
    rig.run(8, [&](RoadRig& road) {
      if (stepped) {
        const std::vector<double> forces = wheelForces(road.vehicle());
        ++steps;
        repeated += forces == wheelForces(sideBySide.repeat());
        if (sideBySide.reference().solveReport().converged) {
          errors.push_back(largestDifference(forces, wheelForces(sideBySide.reference())));
          farOff += errors.back() > 0.01 * weight;
        }
      }
      stepped = true;
      return busyDriver(road.time());
    });
    CHECK(repeated == steps);  // the comparison itself: the same settings repeat the step exactly
    REQUIRE(steps > 0);
    REQUIRE(errors.size() >= 0.8 * steps);  // enough steps have a converged reference
    std::sort(errors.begin(), errors.end());
    const double medianError = errors[errors.size() / 2];
    const double ninetiethPercentile = errors[errors.size() * 9 / 10];
    CAPTURE(errors.size());
    CAPTURE(farOff);
    CAPTURE(errors.back());
    CHECK(medianError <= tolerance);
    CHECK(ninetiethPercentile <= 2 * tolerance);
  }
}

// What a step that stops at the cap of sweeps claims: its forces are still more than the
// tolerance from where the sweeps are going. Here the same step is solved again from the same
// state with 64 sweeps (SideBySide), and each step the default solve reports unconverged must be
// more than the tolerance from it. The stop test had measured each sweep by the largest single
// move of a row within it: a wheel on its bump stop at the friction ellipse has its longitudinal
// row moved onto its law by the longitudinal pass and back onto the ellipse by the lateral pass,
// every sweep, so steps whose forces were the 64-sweep solve's to the last bit swept to the cap
// and reported themselves unconverged: the coupe 112 of 720 steps of this manoeuvre, the jeep 8,
// the truck 6, the parking car 7 (every one within the tolerance, most at 0 N). The stop test now
// takes the change from where a whole sweep leaves the rows (ContactSolver::solve). What is left
// unconverged (the sedan's 2 steps, 1.3 N and more off) is real. The reference's own report is
// not asked for: it runs the same stop test, which had reported those fixed points unconverged
// too. (Steps reported converged are checked against the reference in the test above.)
TEST_CASE("a step is reported unconverged only while its forces are still off") {
  // Launch for 3 s, then the full brake and full lock: loads thrown onto the outer wheels'
  // bump stops, at the friction ellipse, under ABS.
  auto launchThenBrakeInTurn = [](RoadRig& rig) {
    DriverInput input;
    if (rig.time() < 3) {
      input.pedal = 1;
    } else {
      input.brake = 1;
      input.steer = 1;
    }
    return input;
  };
  for (const char* vehicle : {"sedan", "coupe", "jeep", "truck", "parking_car"}) {
    CAPTURE(std::string(vehicle));
    RoadSpec spec;
    spec.vehicle = vehicle;
    RoadRig rig(spec);
    rig.hold(0.5);  // the spawn's settling
    SideBySide sideBySide(rig, solvedToConvergence(rig.vehicle()));
    const btScalar tolerance = rig.vehicle().settings().solver.tolerance;  // N
    int steps = 0, unconverged = 0, unconvergedWithinTolerance = 0;
    bool stepped = false;
    rig.run(6, [&](RoadRig& road) {
      if (stepped) {
        ++steps;
        if (!road.vehicle().solveReport().converged) {
          ++unconverged;
          unconvergedWithinTolerance +=
              largestDifference(wheelForces(road.vehicle()), wheelForces(sideBySide.reference())) <= tolerance;
        }
      }
      stepped = true;
      return launchThenBrakeInTurn(road);
    });
    CAPTURE(steps);
    CAPTURE(unconverged);
    CHECK(unconvergedWithinTolerance == 0);
  }
}

// A differential's row against the tires it couples: a locked axle in a steady turn drags its
// inner wheel and pushes its outer one, and the tires take back every turn the row gives the
// wheels. Solved once a sweep on the wheels' own spin inertia, the row crept: with 64 sweeps
// not one step of this turn settled to 1 mN (the reference above had no truth to compare with),
// and a kart on a 40 m circle steered 1.8 deg at 1/30 s and 2.8 deg at 1/120 s where its solves
// run to 1 mN say 3.45. ContactSolver now solves the row four times a sweep with its wheels'
// longitudinal rows between, stepping with half the tires' answer (coupledSpinResponse); a
// locked axle's two wheels are now solved as one spin (ContactSolver::solveLockedAxle). Budgets
// as for the busy drive above: the median step within the 1 N tolerance, nine in ten within 2 N
// (measured: medians 2.4 and 0.9 mN; the rounds gave 3.2 and 1.5, this gentle turn never asking
// them to scrub).
TEST_CASE("a locked axle in a steady turn: solves given the sweeps converge to 1 mN") {
  for (const btScalar step : {btScalar(1.0 / 30), btScalar(1.0 / 120)}) {
    CAPTURE(step);
    RoadSpec spec;
    spec.vehicle = "coupe";
    spec.step = step;
    spec.tune = [](VehicleSettings& settings) {
      for (DifferentialSettings& differential : settings.differentials)
        differential.type = DifferentialType::Locked;
    };
    RoadRig rig(spec);
    rig.hold(0.5);
    REQUIRE(rig.vehicle().settings().differentials.size() == 1);
    SideBySide sideBySide(rig, solvedToConvergence(rig.vehicle()));
    std::vector<double> errors;  // N: the default solve's largest force difference, reported
    int steps = 0;
    rig.run(10, [&](RoadRig& road) {
      if (road.time() > 7) {
        ++steps;
        if (sideBySide.reference().solveReport().converged)
          errors.push_back(largestDifference(wheelForces(road.vehicle()), wheelForces(sideBySide.reference())));
      }
      // Up to 8 m/s, then held there in a steady turn of about 0.08 g.
      DriverInput input;
      const double speed = road.chassis().getLinearVelocity().length();  // m/s
      input.pedal = btScalar(std::clamp(0.5 * (8 - speed), 0.0, 1.0));
      input.steer = road.time() > 2 ? 0.05f : 0.0f;
      return input;
    });
    REQUIRE(steps > 0);
    REQUIRE(errors.size() >= 0.8 * steps);  // as the reference above must
    std::sort(errors.begin(), errors.end());
    const double tolerance = rig.vehicle().settings().solver.tolerance;  // N
    CAPTURE(errors.back());
    MESSAGE("locked axle at step " << step << " s: the default sweeps' median force error "
                                   << errors[errors.size() / 2] << " N, 90th percentile "
                                   << errors[errors.size() * 9 / 10] << " N");
    CHECK(errors[errors.size() / 2] <= tolerance);
    CHECK(errors[errors.size() * 9 / 10] <= 2 * tolerance);
  }
}

// A parked 40 t six-wheeler at 1/30 s with no brake: only its rolling resistance, as a brake's
// limit, holds its wheels. No one wheel's could stop the whole truck from the few mm/s its
// settling left, so with every row's hold decided at the pass's start all six let their wheels
// turn at that limit together, threw the truck past standstill, and the next sweep threw it back:
// 99% of its steps did not converge (estimated 3.3 kN off) and its tire forces flipped sign from
// step to step around a truck moving +-3.7 mm/s. Budget: the 95% of steps the busy drive above
// must converge in; and the truck at rest, within 1 mm/s (a third of that swing).
TEST_CASE("a parked 40 t six-wheeler at 1/30 s settles, and its solve converges") {
  TestWorld world(btVector3(0, -9.81f, 0));
  world.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  const btScalar mass = 40000;  // kg
  const btVector3 halfExtents(1.25f, 0.9f, 6.0f);
  btTransform start = btTransform::getIdentity();
  start.setOrigin(btVector3(0, 1.5f, 0));
  btRigidBody* chassis = world.addBox(mass, halfExtents, start, 0.5f);
  chassis->setActivationState(DISABLE_DEACTIVATION);
  VehicleSettings settings;
  for (const auto& [right, forward, axle] : {std::tuple{1.0f, 4.0f, 0}, std::tuple{-1.0f, 4.0f, 0},
                                             std::tuple{0.95f, -0.3f, 1}, std::tuple{-0.95f, -0.3f, 1},
                                             std::tuple{0.95f, -1.6f, 2}, std::tuple{-0.95f, -1.6f, 2}}) {
    WheelSettings wheel;
    wheel.attachmentPoint = btVector3(right, -0.73f, forward);
    wheel.radius = 0.52f;
    wheel.width = 0.3f;
    wheel.suspensionMaxLength = 0.35f;
    wheel.suspensionRestLength = 0.25f;
    wheel.axle = axle;
    wheel.driving = axle > 0;
    wheel.steering = axle == 0 ? SteerMode::Steered : SteerMode::Fixed;
    wheel.spinInertia = 20;
    wheel.tire.referenceLoad = 0;  // a truck tire's nominal load: each wheel's static load
    settings.wheels.push_back(wheel);
  }
  settings.engine.power = 330000;
  settings.engine.maxRpm = 3600;
  settings.engine.minRpm = 500;
  settings.engine.idleRpm = 600;
  settings.engine.startRpm = 900;
  settings.gearbox.gears = {-12, 0, 12, 8, 5.3f, 3.5f, 2.3f, 1.5f};
  settings.gearbox.finalDrive = 3.4f;
  settings.gearbox.shiftUpRpm = 2400;
  settings.gearbox.shiftDownRpm = 1300;
  settings.brakes.brakeTorque = 40000;
  RaycastVehicle truck(*chassis, settings);
  world.world().addAction(&truck);
  const btScalar step = 1.0f / 30;
  int steps = 0, converged = 0;
  for (int i = 0; i < int(11 / step); ++i) {
    world.step(step);
    if (i < int(1 / step)) continue;  // its settling
    ++steps;
    converged += truck.solveReport().converged;
  }
  world.world().removeAction(&truck);
  CAPTURE(converged);
  CHECK(converged >= 0.95 * steps);
  // Along the ground: its vertical velocity holds the g dt the next step's gravity takes back.
  const btVector3 velocity = chassis->getLinearVelocity();
  CHECK(std::hypot(velocity.x(), velocity.z()) < 1e-3);
}
