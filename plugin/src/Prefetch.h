#pragma once
// Asking the memory system early for data a step is about to read. With a thousand cars, each
// car's data was last touched a whole step ago and is no longer in the cache; requested one
// array at a time, each of a car's dozen arrays costs a full memory round trip, while requested
// together at the start of its update they arrive in about one.
//
// Why an assembler instruction and not __builtin_prefetch: GCC 12 treats the builtin as free of
// side effects and deletes a loop whose only statement it is, once it can prove the loop finite
// (a loop over a vector's bytes behind an `empty()` test, at -O1 and up). The deleted loops were
// every array prefetch of the step: a thousand-car fleet ran 15% slower than with them, and
// nothing but the disassembly showed it. An `asm volatile` cannot be deleted.

#include <cstddef>

namespace raycar {

inline void prefetchLine(const char* line) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*line));
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
  asm volatile("prfm pldl1keep, %a0" : : "p"(line));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(line);
#else
  (void)line;
#endif
}

inline void prefetchBytes(const void* begin, std::size_t bytes) {
  constexpr std::size_t kCacheLine = 64;
  const char* address = static_cast<const char*>(begin);
  // Four lines a round: a car asks for about 85 lines as its step begins, and one line a round
  // took four instructions a line (the loop's count, test and branch around each prefetch).
  std::size_t offset = 0;
  for (; offset + 3 * kCacheLine < bytes; offset += 4 * kCacheLine) {
    prefetchLine(address + offset);
    prefetchLine(address + offset + kCacheLine);
    prefetchLine(address + offset + 2 * kCacheLine);
    prefetchLine(address + offset + 3 * kCacheLine);
  }
  for (; offset < bytes; offset += kCacheLine) prefetchLine(address + offset);
}

template <class T>
void prefetchObject(const T& object) {
  prefetchBytes(&object, sizeof(T));
}

}  // namespace raycar
