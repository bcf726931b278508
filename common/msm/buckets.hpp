// SPDX-License-Identifier: MIT
// The MSM inner loop: bucket accumulation for one window and chunk, and the bucket reduction.
// Two variants: XYZZ buckets and batch-affine buckets.
//
// Window sum. With signed digits d_j of the window, S = sum_j d_j P_j = sum_{k=1}^{B} k T_k where
// T_k = sum_{d_j = k} P_j - sum_{d_j = -k} P_j (B = 2^{c-1} buckets; Pippenger, "On the
// evaluation of powers and related problems", FOCS 1976; the signed form as in Bernstein et al.,
// "Faster batch forgery identification", INDOCRYPT 2012). The weighted sum is read off with
// 2B additions by the running-sum trick: R_k = T_B + ... + T_k, S = R_B + ... + R_1.
//
// Variant 1, XYZZ: each point is one madd-2008-s into its bucket (8M + 2S).
// Variant 2, batch-affine: buckets are affine points; additions are collected into batches of
// independent additions (at most one per bucket) and every addition of a batch shares one field
// inversion by Montgomery's trick (Montgomery, "Speeding the Pollard and elliptic curve methods
// of factorization", Math. Comp. 1987, sec. 10.3.1): 3M per element plus one inversion per
// batch, then the affine chord rule lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
// y3 = lambda (x1 - x3) - y1 (2M + 1S), about 6M per point against 10M. A point whose bucket
// already has an addition in the current batch is deferred once to the next batch; if it
// collides again (or the deferral queue is full, as with many equal scalars: a "hot" bucket) it
// goes into a per-bucket XYZZ overflow accumulator, so a hot bucket costs one madd per point
// and never serialises the batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/ec/xyzz.hpp"
#include "common/msm/signed_digits.hpp"

namespace zkmill::msm::detail {

// The points of one window task: the j-th point is bases[idx[j]] with digit code digits[j].
template <class C>
struct WindowInput {
  const ec::Affine<C>* bases;
  const uint32_t* idx;
  const uint16_t* digits;  // this window's row
  size_t begin, end;
};

// Running-sum reduction of XYZZ buckets: S = sum_k (k+1) buckets[k].
template <class C>
ec::XYZZ<C> reduce_buckets(const std::vector<ec::XYZZ<C>>& buckets) {
  ec::XYZZ<C> running, sum;
  for (size_t k = buckets.size(); k-- > 0;) {
    running += buckets[k];
    sum += running;
  }
  return sum;
}

template <class C>
ec::XYZZ<C> window_sum_xyzz(const WindowInput<C>& in, unsigned c) {
  std::vector<ec::XYZZ<C>> buckets(size_t(1) << (c - 1));
  constexpr size_t kAhead = 4;  // the loop body is ~10 field multiplications: prefetch a bit ahead
  for (size_t j = in.begin; j < in.end; ++j) {
    if (j + kAhead < in.end) {
      uint16_t fc = in.digits[j + kAhead];
      if (fc) {
        int32_t fd = decode_digit(fc);
        __builtin_prefetch(&buckets[size_t(fd > 0 ? fd - 1 : -fd - 1)], 1);
        __builtin_prefetch(&in.bases[in.idx[j + kAhead]]);
      }
    }
    uint16_t code = in.digits[j];
    if (!code) continue;
    int32_t d = decode_digit(code);
    const ec::Affine<C>& p = in.bases[in.idx[j]];
    if (d > 0)
      buckets[size_t(d - 1)].add_mixed(p, false);
    else
      buckets[size_t(-d - 1)].add_mixed(p, true);
  }
  return reduce_buckets(buckets);
}

template <class C>
class BatchAffineBuckets {
 public:
  using Base = typename C::Base;
  using AffineT = ec::Affine<C>;
  using XYZZT = ec::XYZZ<C>;

  // buckets = 2^{c-1}; batch = additions per shared inversion.
  BatchAffineBuckets(size_t buckets, size_t batch)
      : bucket_(buckets), stamp_(buckets, 0), batch_(batch < 2 ? 2 : batch), defer_cap_(batch_ / 2) {
    ops_.reserve(batch_);
    den_.resize(batch_);
    pre_.resize(batch_);
    deferred_.reserve(defer_cap_);
    retry_.reserve(defer_cap_);
  }

  void run(const WindowInput<C>& in) {
    constexpr size_t kAhead = 8;
    for (size_t j = in.begin; j < in.end; ++j) {
      if (j + kAhead < in.end) {
        uint16_t fc = in.digits[j + kAhead];
        if (fc) {
          int32_t fd = decode_digit(fc);
          __builtin_prefetch(&bucket_[size_t(fd > 0 ? fd - 1 : -fd - 1)]);
          __builtin_prefetch(&in.bases[in.idx[j + kAhead]]);
        }
      }
      uint16_t code = in.digits[j];
      if (!code) continue;
      int32_t d = decode_digit(code);
      Item it{&in.bases[in.idx[j]], uint32_t(d > 0 ? d - 1 : -d - 1), d < 0, false};
      schedule(it, false);
      if (ops_.size() >= batch_) flush();
    }
    while (!ops_.empty() || !deferred_.empty()) flush();
  }

  // S = sum_k (k+1) (bucket[k] + overflow[k]).
  XYZZT reduce() const {
    XYZZT running, sum;
    for (size_t k = bucket_.size(); k-- > 0;) {
      running += bucket_[k];
      if (!overflow_.empty()) running += overflow_[k];
      sum += running;
    }
    return sum;
  }

  size_t overflow_count() const { return overflowed_; }

 private:
  struct Item {
    const AffineT* p;
    uint32_t bucket;
    bool neg;
    bool dbl;
  };

  void to_overflow(const Item& it) {
    if (overflow_.empty()) overflow_.resize(bucket_.size());
    overflow_[it.bucket].add_mixed(*it.p, it.neg);
    ++overflowed_;
  }

  // Either resolves the item at once (empty bucket, or the point cancels the bucket), queues an
  // addition for the next batch inversion, or defers it when its bucket is busy in this batch.
  void schedule(Item it, bool is_retry) {
    if (stamp_[it.bucket] == epoch_) {
      if (!is_retry && deferred_.size() < defer_cap_)
        deferred_.push_back(it);
      else
        to_overflow(it);
      return;
    }
    AffineT& b = bucket_[it.bucket];
    if (b.infinity) {
      b = *it.p;
      if (it.neg) b.y = -b.y;
      return;
    }
    if (b.x == it.p->x) {
      // Same x: the point is either the bucket (double it) or its negation (bucket empties).
      bool same = it.neg ? (b.y == -it.p->y) : (b.y == it.p->y);
      if (!same || b.y.is_zero()) {
        b = AffineT::identity();
        return;
      }
      it.dbl = true;
    }
    stamp_[it.bucket] = epoch_;
    ops_.push_back(it);
  }

  // Performs the queued additions with one shared inversion, then re-schedules the deferred
  // points (as retries: they overflow rather than defer again, so every point is handled after
  // at most two batches).
  void flush() {
    const size_t n = ops_.size();
    if (n) {
      // Denominators: x_P - x_B for a chord, 2 y_B for a tangent; never zero by construction.
      Base acc = Base::one();
      for (size_t i = 0; i < n; ++i) {
        const Item& it = ops_[i];
        const AffineT& b = bucket_[it.bucket];
        den_[i] = it.dbl ? b.y.dbl() : it.p->x - b.x;
        pre_[i] = acc;
        acc *= den_[i];
      }
      Base inv = acc.inverse();
      for (size_t i = n; i-- > 0;) {
        const Item& it = ops_[i];
        Base t = inv * pre_[i];  // 1 / den_i
        inv *= den_[i];
        AffineT& b = bucket_[it.bucket];
        Base lambda;
        if (it.dbl) {
          Base x2 = b.x.square();
          lambda = (x2.dbl() + x2) * t;  // 3 x^2 / 2y
        } else {
          lambda = (it.neg ? -(it.p->y + b.y) : it.p->y - b.y) * t;
        }
        Base x3 = lambda.square() - b.x - (it.dbl ? b.x : it.p->x);
        b.y = lambda * (b.x - x3) - b.y;
        b.x = x3;
      }
      ops_.clear();
    }
    ++epoch_;
    retry_.swap(deferred_);
    deferred_.clear();
    for (const Item& it : retry_) schedule(it, true);
    retry_.clear();
  }

  std::vector<AffineT> bucket_;
  std::vector<uint32_t> stamp_;  // epoch_ of the batch holding a pending addition into the bucket
  std::vector<XYZZT> overflow_;  // allocated on first use
  std::vector<Item> ops_, deferred_, retry_;
  std::vector<Base> den_, pre_;
  size_t batch_, defer_cap_;
  uint32_t epoch_ = 1;
  size_t overflowed_ = 0;
};

template <class C>
ec::XYZZ<C> window_sum_batch_affine(const WindowInput<C>& in, unsigned c, size_t batch) {
  BatchAffineBuckets<C> acc(size_t(1) << (c - 1), batch);
  acc.run(in);
  return acc.reduce();
}

}  // namespace zkmill::msm::detail
