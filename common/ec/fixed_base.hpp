// SPDX-License-Identifier: MIT
// Fixed-base scalar multiplication with a precomputed window table: for a base G and
// window width w, table[k][d-1] = d * 2^(w k) * G (affine), so s*G is one mixed addition
// per non-zero w-bit digit of s and no doublings. Used by the trusted setup, which
// multiplies the same generator by millions of scalars.
#pragma once

#include <span>
#include <vector>

#include "common/ec/short_weierstrass.hpp"
#include "common/util/thread_pool.hpp"

namespace zkmill::ec {

template <class C>
class FixedBaseTable {
 public:
  using Scalar = typename C::Scalar;
  using J = Jacobian<C>;
  using A = Affine<C>;

  explicit FixedBaseTable(const J& base, size_t window = 8) : w_(window) {
    windows_ = (Scalar::kBits + w_ - 1) / w_;
    size_t per = (size_t(1) << w_) - 1;
    std::vector<J> all;
    all.reserve(windows_ * per);
    J b = base;
    for (size_t k = 0; k < windows_; ++k) {
      J acc = b;
      for (size_t d = 1; d <= per; ++d) {
        all.push_back(acc);
        acc += b;
      }
      b = acc;  // (per + 1) * b = 2^w * b
    }
    table_ = batch_normalize<C>(all);
  }

  J mul(const Scalar& s) const {
    auto k = s.to_canonical();
    J acc = J::identity();
    size_t per = (size_t(1) << w_) - 1;
    for (size_t win = 0; win < windows_; ++win) {
      size_t digit = 0;
      for (size_t b = 0; b < w_; ++b) {
        size_t bit_index = win * w_ + b;
        if (bit_index < Scalar::kBits && ff::bit(k, bit_index)) digit |= size_t(1) << b;
      }
      if (digit) acc = acc.add_mixed(table_[win * per + digit - 1]);
    }
    return acc;
  }

  // s_i * G for all i, multi-threaded, returned in affine form.
  std::vector<A> batch_mul(std::span<const Scalar> scalars, util::ThreadPool& pool = util::ThreadPool::global()) const {
    std::vector<A> out(scalars.size());
    pool.parallel_for(
        scalars.size(),
        [&](size_t b, size_t e) {
          std::vector<J> tmp(e - b);
          for (size_t i = b; i < e; ++i) tmp[i - b] = mul(scalars[i]);
          auto aff = batch_normalize<C>(tmp);
          std::copy(aff.begin(), aff.end(), out.begin() + std::ptrdiff_t(b));
        },
        256);
    return out;
  }

 private:
  size_t w_, windows_ = 0;
  std::vector<A> table_;
};

}  // namespace zkmill::ec
