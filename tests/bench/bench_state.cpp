// Save and restore (RaycastVehicle::saveState, restoreState) against a step, side by side in one
// process: 100 raycar cars driving circles on the 1 m hill terrain at 1/120 s (BenchScene.h);
// each iteration steps the world once (timing the vehicles' updates), then saves every car into
// its own buffer, then restores every car from it. Reported per vehicle: the step, the save and
// the restore (microseconds), the save and restore over the step, and the bytes a car's state
// takes. A rollback of k steps costs one restore and k steps per car.
//
//   raycar_bench_state [Google Benchmark flags, e.g. --benchmark_repetitions=3]
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <vector>

#include "BenchScene.h"

using namespace raycar::bench;

namespace {

void saveAndRestore(benchmark::State& state) {
  const int cars = int(state.range(0));
  static HillTerrain terrain(512, 1);
  BenchWorld world(terrain);
  Fleet fleet(world, FleetKind::Raycar, cars);
  for (int i = 0; i < 240; ++i) fleet.step();  // settle and reach speed
  std::vector<std::vector<std::uint8_t>> buffers{size_t(cars)};
  double stepSeconds = 0, saveSeconds = 0, restoreSeconds = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    stepSeconds += fleet.step();
    const auto saveStart = Clock::now();
    for (int car = 0; car < cars; ++car) fleet.raycar(car).saveState(buffers[size_t(car)]);
    const auto restoreStart = Clock::now();
    for (int car = 0; car < cars; ++car)
      fleet.raycar(car).restoreState(buffers[size_t(car)].data(), buffers[size_t(car)].size());
    const auto end = Clock::now();
    saveSeconds += std::chrono::duration<double>(restoreStart - saveStart).count();
    restoreSeconds += std::chrono::duration<double>(end - restoreStart).count();
    state.SetIterationTime(std::chrono::duration<double>(end - saveStart).count());
  }
  const double perVehicle = 1e6 / double(state.iterations()) / cars;  // us per vehicle
  state.counters["step_us"] = stepSeconds * perVehicle;
  state.counters["save_us"] = saveSeconds * perVehicle;
  state.counters["restore_us"] = restoreSeconds * perVehicle;
  state.counters["save_per_step"] = saveSeconds / stepSeconds;
  state.counters["restore_per_step"] = restoreSeconds / stepSeconds;
  state.counters["bytes"] = double(buffers[0].size());
}

}  // namespace

BENCHMARK(saveAndRestore)->Arg(100)->Iterations(600)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
