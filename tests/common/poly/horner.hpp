// SPDX-License-Identifier: MIT
// The tests' reference evaluation of a polynomial from its coefficients, against which the
// FFTs and the Groth16 quotient are checked: sum_j c_j x^j by Horner's rule, O(n).
#pragma once

#include <cstddef>
#include <vector>

namespace zkmill::test {

template <class F>
F horner(const std::vector<F>& c, const F& x) {
  F acc = F::zero();
  for (size_t j = c.size(); j-- > 0;) acc = acc * x + c[j];
  return acc;
}

}  // namespace zkmill::test
