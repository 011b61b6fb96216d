// raycar against Bullet's btRaycastVehicle, side by side in one process on the same work: N cars
// driving circles on a 512 m hill terrain (btBvhTriangleMeshShape, 1 m cells, 524,288 triangles)
// at 1/120 s. Each benchmark iteration steps one world per kind, interleaved, so that every kind
// is timed under the same machine load; the figures are microseconds per vehicle-step of the
// vehicle updates alone (BenchScene.h):
//   raycar          RaycastVehicle::updateAction, cached wheel queries (the default)
//   raycar_nocache  the same with a full rayTest per wheel
//   raycar_sphere, raycar_cylinder  the same with sphere or cylinder wheels
//   group1, group2  a VehicleGroup on one and on two threads
//   group2_game     a VehicleGroup on a game's job system of two threads (setParallelFor)
//   bullet          btRaycastVehicle::updateAction
//   rays4           four plain btCollisionWorld::rayTest calls per car, cast beside the raycar
//                   cars (the floor for a vehicle that casts its wheel rays through Bullet)
//   raycar_frame, bullet_frame, group2_frame  the whole stepSimulation of those kinds' worlds
// and, at N = 100, raycar, bullet and rays4 as the terrain's cells shrink from 4 m to 0.5 m.
//
//   raycar_bench [--csv=FILE] [Google Benchmark flags, e.g. --benchmark_repetitions=3]
//   raycar_bench --profile=KIND --vehicles=N --steps=S [--cell=M]
//       runs one kind for S steps after the warm-up, without Google Benchmark, for callgrind:
//       valgrind --tool=callgrind --toggle-collect='raycar::bench::Fleet::updateVehicles*' ...
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "BenchScene.h"

using namespace raycar::bench;

namespace {

constexpr btScalar kTerrainSize = 512;  // m
constexpr int kWarmUpSteps = 240;       // 2 s: the cars settle and reach their speed

HillTerrain& terrainWithCells(btScalar cell) {
  // Built once per resolution (the 0.5 m one takes seconds) and shared by all worlds on it.
  static std::map<btScalar, std::unique_ptr<HillTerrain>> terrains;
  auto& terrain = terrains[cell];
  if (!terrain) terrain = std::make_unique<HillTerrain>(kTerrainSize, cell);
  return *terrain;
}

FleetKind fleetKind(const std::string& kind) {
  if (kind == "raycar_nocache") return FleetKind::RaycarNoCache;
  if (kind == "raycar_sphere") return FleetKind::RaycarSphere;
  if (kind == "raycar_cylinder") return FleetKind::RaycarCylinder;
  if (kind == "group1" || kind == "group2") return FleetKind::RaycarGroup;
  if (kind == "group2_game") return FleetKind::RaycarGroupGameJobs;
  if (kind == "bullet") return FleetKind::Bullet;
  return FleetKind::Raycar;
}

int threadsOf(const std::string& kind) { return kind == "group2" || kind == "group2_game" ? 2 : 1; }

// Four plain rayTests per car from its wheels' attachment points, as both vehicles cast them.
double castFloorRays(BenchWorld& world, const Fleet& fleet) {
  const auto start = std::chrono::steady_clock::now();
  for (int car = 0; car < fleet.count(); ++car) {
    for (int wheel = 0; wheel < 4; ++wheel) {
      btVector3 from, to;
      fleet.wheelRay(car, wheel, from, to);
      btCollisionWorld::ClosestRayResultCallback callback(from, to);
      world.world().rayTest(from, to, callback);
      benchmark::DoNotOptimize(callback.m_closestHitFraction);
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The kinds whose whole stepSimulation is reported too, as "<kind>_frame".
bool isFrameKind(const std::string& kind) {
  return kind == "raycar" || kind == "bullet" || kind == "group2";
}

// One kind's world and cars.
struct Contender {
  std::string kind;
  std::unique_ptr<BenchWorld> world;
  std::unique_ptr<Fleet> fleet;
  double seconds = 0;       // vehicle updates
  double frameSeconds = 0;  // whole stepSimulation
  double raySeconds = 0;    // rays4 beside the raycar cars
};

struct Case {
  btScalar cell;                   // m
  std::vector<std::string> kinds;  // fleets to run; rays4 rides on "raycar"
};

void runCase(benchmark::State& state, Case c) {
  const int vehicles = int(state.range(0));
  HillTerrain& terrain = terrainWithCells(c.cell);
  std::vector<Contender> contenders;
  for (const std::string& kind : c.kinds) {
    Contender contender{kind, std::make_unique<BenchWorld>(terrain), nullptr};
    contender.fleet = std::make_unique<Fleet>(*contender.world, fleetKind(kind), vehicles, threadsOf(kind));
    contenders.push_back(std::move(contender));
  }
  for (int i = 0; i < kWarmUpSteps; ++i)
    for (Contender& contender : contenders) contender.fleet->step();
  for (auto _ : state) {
    double raycarSeconds = 0;  // the time Google Benchmark itself reports
    for (Contender& contender : contenders) {
      const double seconds = contender.fleet->step();
      contender.seconds += seconds;
      contender.frameSeconds += contender.fleet->lastFrameSeconds();
      if (contender.kind != "raycar") continue;
      raycarSeconds = seconds;
      contender.raySeconds += castFloorRays(*contender.world, *contender.fleet);
    }
    state.SetIterationTime(raycarSeconds);
  }
  const double perVehicleStep = 1e6 / double(state.iterations()) / vehicles;
  for (const Contender& contender : contenders) {
    state.counters[contender.kind] = contender.seconds * perVehicleStep;
    if (isFrameKind(contender.kind))
      state.counters[contender.kind + "_frame"] = contender.frameSeconds * perVehicleStep;
    if (contender.kind == "raycar") state.counters["rays4"] = contender.raySeconds * perVehicleStep;
  }
  state.counters["vehicles"] = vehicles;
  state.counters["triangles"] = terrain.triangleCount();
  state.counters["cell_mm"] = std::lround(c.cell * 1000);
}

struct Result {
  std::string kind;
  int vehicles;
  int triangles;
  btScalar cell;
  std::vector<double> samples;  // us per vehicle-step, one per repetition
  double median() const {
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
  }
};

// Prints as Google Benchmark does and keeps every kind's figure of every run.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
      const int vehicles = int(run.counters.at("vehicles").value);
      const int triangles = int(run.counters.at("triangles").value);
      const btScalar cell = btScalar(run.counters.at("cell_mm").value / 1000);
      for (const auto& [name, counter] : run.counters) {
        if (name == "vehicles" || name == "triangles" || name == "cell_mm") continue;
        Result* result = find(name, vehicles, cell);
        if (result == nullptr) {
          results.push_back(Result{name, vehicles, triangles, cell, {}});
          result = &results.back();
        }
        result->samples.push_back(counter.value);
      }
    }
  }
  Result* find(const std::string& kind, int vehicles, btScalar cell) {
    for (Result& r : results)
      if (r.kind == kind && r.vehicles == vehicles && r.cell == cell) return &r;
    return nullptr;
  }
  double median(const std::string& kind, int vehicles, btScalar cell) {
    const Result* r = find(kind, vehicles, cell);
    return r ? r->median() : 0;
  }
  std::vector<Result> results;
};

// printf-style into std::cout, where Google Benchmark's own console output goes.
template <class... Args>
void print(const char* format, Args... args) {
  if constexpr (sizeof...(Args) == 0) {
    std::cout << format;
  } else {
    char line[512];
    std::snprintf(line, sizeof line, format, args...);
    std::cout << line;
  }
}

void printSummary(CollectingReporter& r, double raycarBytes, double groupBytes, double bulletBytes) {
  print("\nPer vehicle-step (us), the vehicle updates alone, 1 m cells (524,288 triangles), "
        "medians of the repetitions:\n");
  print("| N | raycar | btRaycastVehicle | raycar / bullet | 4 rayTests | raycar / 4 rays "
        "| raycar, no cache | group, 1 thread | group, 2 threads | 2-thread speed-up "
        "| group 2 / bullet |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int n : {1, 10, 100, 1000}) {
    const double raycar = r.median("raycar", n, 1), bullet = r.median("bullet", n, 1);
    const double rays = r.median("rays4", n, 1), nocache = r.median("raycar_nocache", n, 1);
    const double group1 = r.median("group1", n, 1), group2 = r.median("group2", n, 1);
    if (bullet == 0) continue;
    print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n,
          raycar, bullet, raycar / bullet, rays, raycar / rays, nocache, group1, group2,
          group1 / group2, group2 / bullet);
  }
  print("\nThe whole frame: stepSimulation of the world with N cars (Bullet's broadphase, the "
        "chassis' contacts and constraint solve, and the vehicles), us per vehicle-step; the "
        "vehicles' share of it:\n");
  print("| N | raycar frame | btRaycastVehicle frame | raycar / bullet | group 2 threads frame "
        "| group 2 / bullet | raycar's share | btRaycastVehicle's share |\n"
        "|---|---|---|---|---|---|---|---|\n");
  for (int n : {1, 10, 100, 1000}) {
    const double raycar = r.median("raycar_frame", n, 1), bullet = r.median("bullet_frame", n, 1);
    const double group2 = r.median("group2_frame", n, 1);
    if (raycar == 0 || bullet == 0) continue;
    print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f%% | %.0f%% |\n", n, raycar, bullet,
          raycar / bullet, group2, group2 / bullet, 100 * r.median("raycar", n, 1) / raycar,
          100 * r.median("bullet", n, 1) / bullet);
  }
  print("\nThe group on the game's job system (VehicleGroup::setParallelFor, two threads), us per "
        "vehicle-step:\n");
  print("| N | group, 1 thread | group, own 2 threads | group, game's 2 threads | game's speed-up "
        "| game's / own |\n|---|---|---|---|---|---|\n");
  for (int n : {1, 10, 100, 1000}) {
    const double group1 = r.median("group1", n, 1), group2 = r.median("group2", n, 1);
    const double game = r.median("group2_game", n, 1);
    if (group1 == 0 || game == 0) continue;
    print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, group1, group2, game, group1 / game, game / group2);
  }
  print("\nWheels with a shape (WheelSettings::groundQuery), us per vehicle-step:\n");
  print("| N | ray | sphere | cylinder | btRaycastVehicle | cylinder / ray | cylinder / bullet |\n"
        "|---|---|---|---|---|---|---|\n");
  for (int n : {1, 10, 100, 1000}) {
    const double ray = r.median("raycar", n, 1), bullet = r.median("bullet", n, 1);
    const double sphere = r.median("raycar_sphere", n, 1), cylinder = r.median("raycar_cylinder", n, 1);
    if (ray == 0 || bullet == 0 || cylinder == 0) continue;
    print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, ray, sphere, cylinder, bullet,
          cylinder / ray, cylinder / bullet);
  }
  print("\nN = 100 as the terrain's triangle count grows (us per vehicle-step):\n");
  print("| cell (m) | triangles | raycar | btRaycastVehicle | raycar / bullet | 4 rayTests |\n"
        "|---|---|---|---|---|---|\n");
  for (btScalar cell : {4.0f, 2.0f, 1.0f, 0.5f}) {
    const Result* raycar = r.find("raycar", 100, cell);
    const double bullet = r.median("bullet", 100, cell);
    if (raycar == nullptr || bullet == 0) continue;
    print("| %.1f | %d | %.2f | %.2f | %.2f | %.2f |\n", double(cell), raycar->triangles,
          raycar->median(), bullet, raycar->median() / bullet, r.median("rays4", 100, cell));
  }
  print("\nHeap per vehicle (bytes): raycar %.0f, raycar in a VehicleGroup %.0f, btRaycastVehicle %.0f\n",
        raycarBytes, groupBytes, bulletBytes);
  std::cout << std::flush;
}

void writeCsv(const std::string& path, const std::vector<Result>& results, double raycarBytes,
              double groupBytes, double bulletBytes) {
  std::ofstream out(path);
  out << "metric,kind,vehicles,cell_m,triangles,value\n";
  for (const Result& r : results)
    out << "us_per_vehicle_step," << r.kind << ',' << r.vehicles << ',' << r.cell << ','
        << r.triangles << ',' << r.median() << '\n';
  out << "heap_bytes_per_vehicle,raycar,,,," << raycarBytes << '\n';
  out << "heap_bytes_per_vehicle,group,,,," << groupBytes << '\n';
  out << "heap_bytes_per_vehicle,bullet,,,," << bulletBytes << '\n';
}

std::string flagValue(int& argc, char** argv, const char* name) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0) continue;
    std::string value = argv[i] + prefix.size();
    for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
    --argc;
    return value;
  }
  return {};
}

int profile(const std::string& kind, int vehicles, int steps, btScalar cell) {
  BenchWorld world(terrainWithCells(cell));
  Fleet fleet(world, fleetKind(kind), vehicles, threadsOf(kind));
  for (int i = 0; i < kWarmUpSteps; ++i) fleet.step();
  double seconds = 0;
  double frameSeconds = 0;
  long sweeps = 0;  // the contact solves' Gauss-Seidel sweeps, lone raycar cars
  long unconverged = 0;  // their solves that stopped at the cap of sweeps
  for (int i = 0; i < steps; ++i) {
    seconds += fleet.step();
    frameSeconds += fleet.lastFrameSeconds();
    for (int c = 0; c < fleet.loneRaycarCount(); ++c) {
      sweeps += fleet.raycar(c).solveReport().sweeps;
      unconverged += !fleet.raycar(c).solveReport().converged;
    }
    if (kind == "rays4") seconds += castFloorRays(world, fleet);
  }
  // A car that left the terrain falls, costing next to nothing: such a figure means nothing.
  int onTerrain = 0;
  double heightSum = 0;  // m: the centre of mass above the terrain, both kinds should agree
  for (int c = 0; c < fleet.count(); ++c) {
    const btVector3 position = fleet.chassis(c).getCenterOfMassPosition();
    heightSum += position.y() - HillTerrain::height(position.x(), position.z());
    const bool on = std::fabs(position.x()) < kTerrainSize / 2 && std::fabs(position.z()) < kTerrainSize / 2 &&
                    position.y() > HillTerrain::height(position.x(), position.z()) - 1;
    if (!on) print("car %d left the terrain: at x %.1f, z %.1f m\n", c, position.x(), position.z());
    onTerrain += on;
  }
  // Chassis boxes touching the terrain (Bullet's contact points), which both kinds should avoid
  // on their suspension: the narrow phase's cost depends on it.
  int touching = 0;
  btDispatcher& dispatcher = *world.world().getDispatcher();
  for (int m = 0; m < dispatcher.getNumManifolds(); ++m) {
    const btPersistentManifold& manifold = *dispatcher.getManifoldByIndexInternal(m);
    bool touches = false;
    for (int p = 0; p < manifold.getNumContacts(); ++p)
      touches = touches || manifold.getContactPoint(p).getDistance() < 0;
    touching += touches;
  }
  print("chassis boxes touching the terrain: %d of %d\n", touching, fleet.count());
  if (onTerrain < fleet.count())
    print("%d of %d cars left the terrain: this figure is not valid\n", fleet.count() - onTerrain, fleet.count());
  print("%s: %d vehicles, %d steps, %.3f us per vehicle-step (rays4: with the raycar update); "
        "%.3f us per vehicle-step of whole frames; centre of mass %.3f m above the terrain\n",
        kind.c_str(), vehicles, steps, seconds / steps / vehicles * 1e6,
        frameSeconds / steps / vehicles * 1e6, heightSum / fleet.count());
  if (fleet.cachedTriangles() > 0)
    print("cached mesh triangles: %.1f per car; heap: %.0f bytes per car; %.2f solver sweeps per step, "
          "%ld steps unconverged\n",
          double(fleet.cachedTriangles()) / fleet.count(), bytesPerVehicle(fleetKind(kind), 100),
          double(sweeps) / steps / fleet.count(), unconverged);
  if (fleetKind(kind) == FleetKind::RaycarGroup || fleetKind(kind) == FleetKind::RaycarGroupGameJobs)
    print("heap: %.0f bytes per car in a group\n", bytesPerVehicle(FleetKind::RaycarGroup, 100));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string csv = flagValue(argc, argv, "csv");
  const std::string profileKind = flagValue(argc, argv, "profile");
  if (!profileKind.empty()) {
    const std::string vehicles = flagValue(argc, argv, "vehicles");
    const std::string steps = flagValue(argc, argv, "steps");
    const std::string cell = flagValue(argc, argv, "cell");
    return profile(profileKind, vehicles.empty() ? 1000 : std::stoi(vehicles),
                   steps.empty() ? 120 : std::stoi(steps), cell.empty() ? 1.0f : std::stof(cell));
  }

  // Steps per run: enough for a stable figure at each N without minutes of warm-up.
  const std::map<int, int> steps = {{1, 20000}, {10, 4000}, {100, 600}, {1000, 150}};
  // Only the two-thread kinds use the second core, and how long it takes to wake depends on how
  // long it has been idle: the one-thread kinds are split between the two so that each finds the
  // core idle about as long (about 50 ms at N = 1000; both workers then woke in 469 us on
  // average, where with 8 and 36 ms between them they had taken 321 and 847 us; BENCHMARKS.md,
  // "Two threads").
  const Case everything{1, {"group2", "raycar", "bullet", "group1", "group2_game", "raycar_nocache",
                            "raycar_sphere", "raycar_cylinder"}};
  for (const auto& [vehicles, iterations] : steps)
    benchmark::RegisterBenchmark("side_by_side/cell_1m", runCase, everything)
        ->Arg(vehicles)->Iterations(iterations)->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (btScalar cell : {4.0f, 2.0f, 0.5f})
    benchmark::RegisterBenchmark(("terrain/cell_" + std::to_string(cell).substr(0, 3) + "m").c_str(),
                                 runCase, Case{cell, {"raycar", "bullet"}})
        ->Arg(100)->Iterations(600)->UseManualTime()->Unit(benchmark::kMicrosecond);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const double raycarBytes = bytesPerVehicle(FleetKind::Raycar, 1000);
  const double groupBytes = bytesPerVehicle(FleetKind::RaycarGroup, 1000);
  const double bulletBytes = bytesPerVehicle(FleetKind::Bullet, 1000);
  printSummary(reporter, raycarBytes, groupBytes, bulletBytes);
  if (!csv.empty()) writeCsv(csv, reporter.results, raycarBytes, groupBytes, bulletBytes);
  return 0;
}
