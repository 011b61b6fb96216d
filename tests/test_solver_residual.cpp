// The contact solve's convergence (RaycastVehicle::solveReport): how many Gauss-Seidel sweeps a
// step takes and the residual it stops at, for every bundled vehicle through the manoeuvres a
// driver asks of it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "RoadRig.h"

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
  };
  for (const char* vehicle : {"sedan", "coupe", "jeep", "truck", "parking_car"}) {
    for (const Manoeuvre& manoeuvre : manoeuvres) {
      CAPTURE(vehicle);
      CAPTURE(manoeuvre.name);
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
          CHECK(report.converged == (report.residual <= settings.tolerance));
        }
        return manoeuvre.driver(road);
      });
      // Budgets. A step that stops unconverged still moved no row by more than 1% of the car's
      // weight in its last sweep: the 1% the static-load tests (test_suspension.cpp) allow.
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
