#include "parallel/WheelBlockPool.h"

#include <algorithm>
#include <new>

namespace raycar {

WheelBlockPool::~WheelBlockPool() {
  for (SizeClass& sizeClass : classes_)
    for (void* chunk : sizeClass.chunks)
      ::operator delete(chunk, std::align_val_t(kChunkAlignment));
}

WheelBlockPool::SizeClass& WheelBlockPool::sizeClass(size_t bytes) {
  for (SizeClass& known : classes_)
    if (known.bytes == bytes) return known;
  SizeClass& added = classes_.emplace_back();
  added.bytes = bytes;
  return added;
}

void* WheelBlockPool::do_allocate(size_t bytes, size_t alignment) {
  // Blocks in a chunk are `bytes` apart: an alignment above the chunk's needs `bytes` to be a
  // multiple of it too, which no WheelArray asks for; such a request goes to the heap.
  if (alignment > kChunkAlignment || bytes % alignment != 0)
    return ::operator new(bytes, std::align_val_t(alignment));
  SizeClass& sizeClass = this->sizeClass(bytes);
  if (sizeClass.free.empty()) {
    const size_t blocks = sizeClass.nextChunkBlocks;
    auto* chunk = static_cast<unsigned char*>(
        ::operator new(blocks * bytes, std::align_val_t(kChunkAlignment)));
    sizeClass.chunks.push_back(chunk);
    // Handed out from the back of `free`: pushed in reverse, the blocks go out in ascending order.
    sizeClass.free.reserve(sizeClass.free.size() + blocks);
    for (size_t i = blocks; i-- > 0;) sizeClass.free.push_back(chunk + i * bytes);
    sizeClass.nextChunkBlocks = std::min(2 * blocks, kMaxBlocksPerChunk);
  }
  void* block = sizeClass.free.back();
  sizeClass.free.pop_back();
  return block;
}

void WheelBlockPool::do_deallocate(void* block, size_t bytes, size_t alignment) {
  if (alignment > kChunkAlignment || bytes % alignment != 0) {
    ::operator delete(block, std::align_val_t(alignment));
    return;
  }
  sizeClass(bytes).free.push_back(block);
}

}  // namespace raycar
