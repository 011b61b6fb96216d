#include "parallel/WorkerPool.h"

#include <algorithm>
#include <chrono>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace raycar {
namespace {
// Chunks shrink as the range empties (each takes a share of what is left), so that the threads
// finish close together: with equal chunks of an eighth of a thread's share, a thread waited on
// average half a chunk for the other's last one. The smallest chunk is a sixty-fourth of a
// thread's share: small enough to even out the end, large enough that the counter is rarely touched.
constexpr int kShareDivisor = 2;         // a chunk: what is left / (threads x this)
constexpr int kSmallestChunkDivisor = 64;  // the smallest: count / (threads x this)
// How long the caller, done with its chunks, polls for the workers' last ones before sleeping.
// Once the workers are under way it waits for one of the last, small chunks, and waking a
// sleeping thread costs more than that on the virtual machines the benchmarks ran on
// (tests/bench/BENCHMARKS.md, "Two threads"). A worker that woke after the caller had finished
// its share outlasts the poll, and the caller sleeps.
constexpr std::chrono::microseconds kPollBeforeSleeping{200};
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
    minimumChunk_ = std::max(1, count / (threadCount() * kSmallestChunkDivisor));
    next_.store(0, std::memory_order_relaxed);
    busyWorkers_.store(int(workers_.size()), std::memory_order_relaxed);
    ++generation_;
  }
  wake_.notify_all();
  takeChunks();
  waitForWorkers();
}

void WorkerPool::takeChunks() {
  const int shares = threadCount() * kShareDivisor;
  int begin = next_.load(std::memory_order_relaxed);
  while (begin < count_) {
    const int end = std::min(count_, begin + std::max(minimumChunk_, (count_ - begin) / shares));
    // On failure begin becomes the counter's new value and the chunk is sized again from it.
    if (!next_.compare_exchange_weak(begin, end, std::memory_order_relaxed)) continue;
    task_(context_, begin, end);
    begin = next_.load(std::memory_order_relaxed);
  }
}

void WorkerPool::waitForWorkers() {
  // acquire: the workers' writes (their cars' states) are seen once their count reaches 0.
  const auto pollUntil = std::chrono::steady_clock::now() + kPollBeforeSleeping;
  while (busyWorkers_.load(std::memory_order_acquire) != 0) {
    if (std::chrono::steady_clock::now() > pollUntil) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return busyWorkers_.load(std::memory_order_acquire) == 0; });
      return;
    }
#if defined(__SSE2__)
    _mm_pause();  // tells the core this is a wait loop: less power, and no stall leaving it
#endif
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
    // release: this thread's cars are written before the caller sees the count fall. The mutex
    // is taken before notifying so that a caller between its last check and its sleep is woken.
    if (busyWorkers_.fetch_sub(1, std::memory_order_release) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace raycar
