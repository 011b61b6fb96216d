#pragma once
// A fixed set of worker threads that share a range of indices with the calling thread.
//
// run() hands out chunks of [0, count) from an atomic counter until none are left and returns
// when every chunk is done. Which thread takes which chunk varies from run to run, so the task
// must give the same result for an index whatever thread runs it. Nothing is allocated per run;
// workers sleep on a condition variable between runs.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace raycar {

class WorkerPool {
 public:
  using Task = void (*)(void* context, int begin, int end);

  explicit WorkerPool(int threads);  // threads >= 1: the caller plus threads - 1 workers
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threadCount() const { return int(workers_.size()) + 1; }
  // task(context, begin, end) over disjoint chunks covering [0, count), on all threads.
  void run(int count, Task task, void* context);

 private:
  void workerLoop();
  void takeChunks();
  void waitForWorkers();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::uint64_t generation_ = 0;  // one more per run; workers wait for a new one
  std::atomic<int> busyWorkers_{0};
  bool stopping_ = false;
  // The current run, written under the mutex before generation_ moves on.
  Task task_ = nullptr;
  void* context_ = nullptr;
  int count_ = 0;
  int minimumChunk_ = 1;
  std::atomic<int> next_{0};
};

}  // namespace raycar
