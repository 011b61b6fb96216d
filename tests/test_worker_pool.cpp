// WorkerPool, the threads a VehicleGroup steps its cars on: every index of a run is handed out
// exactly once, whatever the thread count, the range's length and how long each chunk takes, and
// run() returns only when every chunk is done.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "parallel/WorkerPool.h"

using namespace raycar;

namespace {

struct Visits {
  std::vector<std::atomic<int>> perIndex;
  std::atomic<int> outside{0};  // indices handed out beyond [0, count)
  std::thread::id caller;
  // Slow workers: the caller's first chunk waits until a worker has taken a chunk, and each of a
  // worker's chunks takes 1 ms, longer than the caller polls (200 us) before it sleeps. So the
  // caller finishes first and sleeps, and run() must still wait for the workers' last chunk.
  bool slowWorkers = false;
  std::atomic<bool> workerStarted{false};
  explicit Visits(int count) : perIndex(size_t(count)) {}
};

void visit(void* context, int begin, int end) {
  auto& visits = *static_cast<Visits*>(context);
  if (visits.slowWorkers) {
    if (std::this_thread::get_id() != visits.caller) {
      visits.workerStarted.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else {
      while (!visits.workerStarted.load()) std::this_thread::yield();
    }
  }
  for (int i = begin; i < end; ++i) {
    if (i < 0 || size_t(i) >= visits.perIndex.size())
      visits.outside.fetch_add(1, std::memory_order_relaxed);
    else
      visits.perIndex[size_t(i)].fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace

TEST_CASE("a worker pool hands out every index of a run exactly once and returns when all are done") {
  struct Case {
    int threads;
    int count;
    bool slowWorkers;
  };
  // One index or one thread: the caller steps them itself, without waking the pool. Slow
  // workers need a range of at least two chunks, one for the caller and one for a worker.
  const Case cases[] = {
      {1, 1, false},    {1, 1000, false}, {2, 1, false},    {2, 2, false},   {2, 3, false},
      {2, 127, false},  {2, 1000, false}, {2, 4099, false}, {3, 7, false},   {3, 1000, false},
      {4, 65, false},   {4, 1000, false}, {2, 1000, true},  {3, 100, true},  {4, 9, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.threads);
    CAPTURE(c.count);
    CAPTURE(c.slowWorkers);
    WorkerPool pool(c.threads);
    CHECK(pool.threadCount() == c.threads);
    // Several runs on one pool: the workers wait for each new run and take part in it.
    for (int run = 0; run < 5; ++run) {
      Visits visits(c.count);
      visits.caller = std::this_thread::get_id();
      visits.slowWorkers = c.slowWorkers;
      pool.run(c.count, visit, &visits);
      int once = 0;
      for (const std::atomic<int>& visitsOfIndex : visits.perIndex) once += visitsOfIndex.load() == 1;
      CHECK(once == c.count);
      CHECK(visits.outside.load() == 0);
    }
  }
}

TEST_CASE("a worker pool given an empty range calls nothing") {
  WorkerPool pool(2);
  Visits visits(1);
  pool.run(0, visit, &visits);
  CHECK(visits.perIndex[0].load() == 0);
}
