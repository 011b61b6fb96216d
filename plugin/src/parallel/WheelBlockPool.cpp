#include "parallel/WheelBlockPool.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <new>

namespace raycar {

WheelBlockPool::~WheelBlockPool() {
  for (SizeClass& sizeClass : classes_)
    for (void* chunk : sizeClass.chunks)
      ::operator delete(chunk, std::align_val_t(kChunkAlignment));
}

WheelBlockPool::SizeClass* WheelBlockPool::find(size_t bytes) {
  for (SizeClass& known : classes_)
    if (known.bytes == bytes) return &known;
  return nullptr;
}

bool WheelBlockPool::pooled(size_t bytes, size_t alignment) {
  // Blocks in a chunk are `bytes` apart: an alignment above the chunk's needs `bytes` to be a
  // multiple of it too. WheelArray asks for neither that nor 0 bytes; such requests go to the heap.
  return bytes > 0 && alignment <= kChunkAlignment && bytes % alignment == 0;
}

WheelBlockPool::SizeClass& WheelBlockPool::findOrAdd(size_t bytes) {
  if (SizeClass* known = find(bytes)) return *known;
  SizeClass& added = classes_.emplace_back();
  added.bytes = bytes;
  return added;
}

void WheelBlockPool::addChunk(SizeClass& sizeClass, size_t blocks) {
  // Room for every block of the class, so that giving blocks back never allocates (it runs in
  // destructors); asked for first, so that a failed allocation leaves the class as it was.
  if (blocks > SIZE_MAX / sizeClass.bytes) throw std::bad_alloc();  // the chunk's size would wrap
  sizeClass.free.reserve(sizeClass.blockCount + blocks);
  sizeClass.chunks.reserve(sizeClass.chunks.size() + 1);
  auto* chunk = static_cast<unsigned char*>(
      ::operator new(blocks * sizeClass.bytes, std::align_val_t(kChunkAlignment)));
  sizeClass.chunks.push_back(chunk);
  sizeClass.blockCount += blocks;
  // Handed out from the back of `free`: pushed in reverse, the blocks go out in ascending order,
  // after the free blocks already there.
  sizeClass.free.insert(sizeClass.free.begin(), blocks, nullptr);
  for (size_t i = 0; i < blocks; ++i) sizeClass.free[blocks - 1 - i] = chunk + i * sizeClass.bytes;
}

void WheelBlockPool::reserve(size_t bytes, size_t alignment, size_t blocks) {
  if (!pooled(bytes, alignment)) return;
  SizeClass& sizeClass = findOrAdd(bytes);
  if (blocks > sizeClass.free.size()) addChunk(sizeClass, blocks - sizeClass.free.size());
}

void* WheelBlockPool::do_allocate(size_t bytes, size_t alignment) {
  if (!pooled(bytes, alignment)) return ::operator new(bytes, std::align_val_t(alignment));
  SizeClass& sizeClass = findOrAdd(bytes);
  if (sizeClass.free.empty()) {
    const size_t blocks = sizeClass.nextChunkBlocks;
    addChunk(sizeClass, blocks);
    sizeClass.nextChunkBlocks = std::min(2 * blocks, kMaxBlocksPerChunk);
  }
  void* block = sizeClass.free.back();
  sizeClass.free.pop_back();
  return block;
}

void WheelBlockPool::do_deallocate(void* block, size_t bytes, size_t alignment) {
  if (!pooled(bytes, alignment)) {
    ::operator delete(block, std::align_val_t(alignment));
    return;
  }
  SizeClass* sizeClass = find(bytes);
  assert(sizeClass != nullptr && "a block given back with a size this pool never handed out");
  if (sizeClass != nullptr) sizeClass->free.push_back(block);
}

}  // namespace raycar
