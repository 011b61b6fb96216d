#pragma once
// Relative comparisons for the tests. doctest's Approx(x).epsilon(e) compares against
// e * (1 + max(|a|, |b|)), an absolute tolerance for small values; within() is purely relative.
#include <doctest/doctest.h>

namespace raycar::test {

inline doctest::Approx within(double expected, double relativeTolerance) {
  return doctest::Approx(expected).epsilon(relativeTolerance).scale(0);
}

}  // namespace raycar::test
