#pragma once
// RAYCAR_ALWAYS_INLINE: a function the compiler must put in line at every call, where the call
// itself (its arguments and result through memory) would cost a hot loop more than the body.

#if defined(__GNUC__) || defined(__clang__)
#define RAYCAR_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define RAYCAR_ALWAYS_INLINE inline
#endif
