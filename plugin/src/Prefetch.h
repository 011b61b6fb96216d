#pragma once
// Asking the memory system early for data a step is about to read. With a thousand cars, each
// car's data was last touched a whole step ago and is no longer in the cache; requested one
// array at a time, each of a car's dozen arrays costs a full memory round trip, while requested
// together at the start of its update they arrive in about one.

#include <cstddef>
#include <vector>

namespace raycar {

inline void prefetchBytes(const void* begin, std::size_t bytes) {
  constexpr std::size_t kCacheLine = 64;
  const char* address = static_cast<const char*>(begin);
  for (std::size_t offset = 0; offset < bytes; offset += kCacheLine)
    __builtin_prefetch(address + offset);
}

template <class T>
void prefetchObject(const T& object) {
  prefetchBytes(&object, sizeof(T));
}

template <class T>
void prefetchArray(const std::vector<T>& array) {
  if (!array.empty()) prefetchBytes(array.data(), array.size() * sizeof(T));
}

}  // namespace raycar
