#pragma once
// Where a VehicleGroup keeps its cars' wheel blocks (WheelArray: a car's Wheel objects and their
// cached ground, a few kilobytes). The group steps its cars in order, and a car's step reads its
// whole block, so the blocks are best laid out one after another in the same order: the memory
// system then streams them instead of fetching a dozen scattered places per car.
//
// Blocks of one size (the cars of one model) are cut from chunks of that exact size class, in
// ascending addresses, one chunk after another; a chunk holds twice as many blocks as the one
// before, up to kMaxBlocksPerChunk, so a few cars waste little and many cars need few chunks.
// Cars added one after another therefore lie in the order the group steps them. A game that
// knows how many cars of a model it will add reserves them (VehicleGroup::reserve): one chunk of
// exactly that many, with no half-empty last chunk. A block given
// back is handed out again first: the next car of that model takes a removed car's place in
// memory (though the group steps it last). std::pmr's pool rounds a request up to its own size
// classes (a 6.7 kB block of a four-wheeled car would take 8 kB); this pool keeps the exact size.
//
// Not thread-safe: the group adds and removes cars on the caller's thread only, and a step
// never allocates.

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <vector>

namespace raycar {

class WheelBlockPool final : public std::pmr::memory_resource {
 public:
  static constexpr size_t kFirstBlocksPerChunk = 4;
  static constexpr size_t kMaxBlocksPerChunk = 64;
  static constexpr size_t kChunkAlignment = 64;  // bytes: a cache line

  WheelBlockPool() = default;
  ~WheelBlockPool() override;
  WheelBlockPool(const WheelBlockPool&) = delete;
  WheelBlockPool& operator=(const WheelBlockPool&) = delete;

  // Sets aside, in one chunk, what `blocks` more blocks of `bytes` (aligned as `alignment`) need
  // beyond the free ones, so that they come out one after another with no spare chunk tail.
  // Requests the heap serves (pooled() false) set nothing aside.
  void reserve(size_t bytes, size_t alignment, size_t blocks);

 private:
  struct SizeClass {
    size_t bytes = 0;                 // of each block
    size_t nextChunkBlocks = kFirstBlocksPerChunk;
    size_t blockCount = 0;            // in all its chunks
    std::vector<void*> free;          // the next block handed out last; capacity blockCount
    std::vector<void*> chunks;
  };

  void* do_allocate(size_t bytes, size_t alignment) override;
  void do_deallocate(void* block, size_t bytes, size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  SizeClass* find(size_t bytes);  // null: no block of that size handed out yet
  SizeClass& findOrAdd(size_t bytes);
  void addChunk(SizeClass& sizeClass, size_t blocks);
  static bool pooled(size_t bytes, size_t alignment);  // false: the heap serves it

  std::vector<SizeClass> classes_;
};

}  // namespace raycar
