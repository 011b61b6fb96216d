#include "parallel/WorkerPool.h"

#include <algorithm>

namespace raycar {
namespace {
// Chunks per thread: small enough to even out uneven vehicles, large enough that the shared
// counter is touched rarely.
constexpr int kChunksPerThread = 8;
}  // namespace

WorkerPool::WorkerPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void WorkerPool::run(int count, Task task, void* context) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    task(context, 0, count);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = task;
    context_ = context;
    count_ = count;
    chunk_ = std::max(1, count / (threadCount() * kChunksPerThread));
    next_.store(0, std::memory_order_relaxed);
    busyWorkers_ = int(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  takeChunks();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return busyWorkers_ == 0; });
}

void WorkerPool::takeChunks() {
  for (;;) {
    const int begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= count_) return;
    task_(context_, begin, std::min(begin + chunk_, count_));
  }
}

void WorkerPool::workerLoop() {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    takeChunks();
    std::lock_guard<std::mutex> lock(mutex_);
    if (--busyWorkers_ == 0) done_.notify_one();
  }
}

}  // namespace raycar
