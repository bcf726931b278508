// SPDX-License-Identifier: MIT
// zkey new (zkey_new.hpp): the circuit's terms grouped by signal (terms_by_signal.hpp, across
// the pool), then each section made in chunks of signals (per-signal sums of Lagrange points
// across the pool), handed to the sink and hashed as it goes, in snarkjs's order.
#include "common/setup/zkey_new.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/curves/dispatch.hpp"
#include "common/formats/bin_writer.hpp"
#include "common/serde/snarkjs_binary.hpp"
#include "common/setup/group_ops.hpp"
#include "common/setup/ptau_points.hpp"
#include "common/setup/snarkjs_points.hpp"
#include "common/setup/terms_by_signal.hpp"

namespace zkmill::setup {

namespace {

// Steps run one at a time, in the order given, on a thread of their own: a chunk's write, or
// its hash (two streams: file order, hash order), while the pool makes the next chunk, so the
// pool does not idle between chunks. An exception of a step reaches then() or wait(). One
// thread for the object's life (a section has hundreds of chunks); at most one step is queued,
// since then() first waits for the one before (the pool must not run ahead of the writes by
// more than a chunk: each chunk holds MiBs of encoded points).
class InOrder {
 public:
  InOrder() : thread_([this] { loop(); }) {}
  InOrder(const InOrder&) = delete;
  InOrder& operator=(const InOrder&) = delete;
  ~InOrder() {
    if (done_.valid()) done_.wait();  // unwinding: the step still uses what it captured
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  template <class F>
  void then(F&& f) {
    wait();
    std::packaged_task<void()> step(std::forward<F>(f));  // move-only captures are fine
    done_ = step.get_future();
    {
      std::lock_guard lock(mu_);
      next_ = std::move(step);
    }
    cv_.notify_one();
  }
  void wait() {
    if (done_.valid()) done_.get();
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return next_.valid() || stop_; });
      if (!next_.valid()) return;  // stop_, nothing queued
      auto step = std::move(next_);
      lock.unlock();
      step();  // an exception is stored in the step's future
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::packaged_task<void()> next_;
  bool stop_ = false;
  std::future<void> done_;
  std::thread thread_;  // last: starts after the members above exist
};

// Signals per chunk of a section, and points per chunk of H: a few MiB of Jacobian points.
constexpr size_t kSignalChunk = size_t(1) << 15;
constexpr size_t kHPointChunk = size_t(1) << 14;

// snarkjs misc.js log2: floor(log2(v)), 0 for v = 0.
uint32_t floor_log2(uint64_t v) {
  uint32_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

template <size_t N>
void put_limbs(std::vector<uint8_t>& b, const ff::Limbs<N>& v) {
  for (size_t i = 0; i < 8 * N; ++i) b.push_back(uint8_t(v[i / 8] >> (8 * (i % 8))));
}

template <class C>
void append_lem(std::vector<uint8_t>& out, std::span<const ec::Affine<C>> pts) {
  using Codec = serde::snarkjs::Lem<C>;
  const size_t at = out.size();
  out.resize(at + pts.size() * Codec::kSize);
  for (size_t i = 0; i < pts.size(); ++i) Codec::encode(pts[i], out.data() + at + i * Codec::kSize);
}

// A byte buffer left uninitialised when made: the pool's encoders touch its pages first, in
// parallel, rather than the calling thread zeroing them (about 250 MB over a 500k circuit).
struct Bytes {
  std::unique_ptr<uint8_t[]> p;
  size_t n = 0;
  explicit Bytes(size_t size) : p(std::make_unique_for_overwrite<uint8_t[]>(size)), n(size) {}
  std::span<const uint8_t> span() const { return {p.get(), n}; }
};

// The U encodings (the circuit hash's input) of a chunk of points, across the pool.
template <class C>
Bytes encode_u_parallel(const std::vector<ec::Affine<C>>& pts, util::ThreadPool& pool) {
  Bytes u(pts.size() * kUSize<C>);
  pool.parallel_for(
      pts.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) encode_u<C>(pts[i], u.p.get() + i * kUSize<C>);
      },
      1024);
  return u;
}

// A chunk's file bytes (snarkjs LEM) and U encodings, across the pool: the streams that follow
// (write, hash) then do only what cannot be split.
template <class C>
std::pair<Bytes, Bytes> encode_both(const std::vector<ec::Affine<C>>& pts, util::ThreadPool& pool) {
  using Codec = serde::snarkjs::Lem<C>;
  Bytes lem(pts.size() * Codec::kSize), u(pts.size() * kUSize<C>);
  pool.parallel_for(
      pts.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          Codec::encode(pts[i], lem.p.get() + i * Codec::kSize);
          encode_u<C>(pts[i], u.p.get() + i * kUSize<C>);
        }
      },
      1024);
  return {std::move(lem), std::move(u)};
}

// The table of a matrix's +-2^k terms over one Lagrange series: entry i = 2^(p2_k[i]) L[p2_row[i]],
// one doubling chain per row up to its largest k, made and normalised a block of rows at a time.
template <class C, class Fr>
std::vector<ec::Affine<C>> pow2_points(const BySignal<Fr>& t, std::span<const ec::Affine<C>> L,
                                       util::ThreadPool& pool) {
  using J = ec::Jacobian<C>;
  const size_t n = t.p2_row.size();
  std::vector<ec::Affine<C>> out(n);
  std::vector<size_t> group;  // first pair of each row
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || t.p2_row[i] != t.p2_row[i - 1]) group.push_back(i);
  group.push_back(n);
  std::vector<J> j;
  constexpr size_t kBlock = size_t(1) << 14;  // pairs per block, about
  for (size_t g0 = 0; g0 + 1 < group.size();) {
    size_t g1 = g0 + 1;
    while (g1 + 1 < group.size() && group[g1] - group[g0] < kBlock) ++g1;
    const size_t base = group[g0];
    j.assign(group[g1] - base, J::identity());
    pool.parallel_for(
        g1 - g0,
        [&](size_t lo, size_t hi) {
          std::vector<std::pair<uint8_t, size_t>> ks;
          for (size_t g = g0 + lo; g < g0 + hi; ++g) {
            ks.clear();
            for (size_t i = group[g]; i < group[g + 1]; ++i) ks.emplace_back(t.p2_k[i], i);
            std::sort(ks.begin(), ks.end());
            J cur = J::from_affine(L[t.p2_row[group[g]]]);
            unsigned e = 0;
            for (const auto& [k, i] : ks) {
              for (; e < k; ++e) cur = cur.dbl();
              j[i - base] = cur;
            }
          }
        },
        64);
    const auto aff = normalize_parallel<C>(j, pool);
    std::copy(aff.begin(), aff.end(), out.begin() + ptrdiff_t(base));
    g0 = g1;
  }
  return out;
}

// acc += sum over signal s's terms of coef * L[row] (P2: pow2_points of the same t and L).
template <class C, class Fr>
void add_terms(ec::Jacobian<C>& acc, const BySignal<Fr>& t, size_t s, std::span<const ec::Affine<C>> L,
               std::span<const ec::Affine<C>> P2) {
  using T = BySignal<Fr>;
  for (uint64_t k = t.start[s]; k < t.start[s + 1]; ++k) {
    const uint32_t g = t.tag[k], idx = g & T::kIndexMask;
    switch (g & T::kKindMask) {
      case T::kUnit:
        acc = acc.add_mixed((g & T::kNeg) ? -L[t.row[k]] : L[t.row[k]]);
        break;
      case T::kPow2:
        acc = acc.add_mixed((g & T::kNeg) ? -P2[idx] : P2[idx]);
        break;
      default:
        acc += mul_fr<C>(ec::Jacobian<C>::from_affine(L[t.row[k]]), t.other[idx]);
        break;
    }
  }
}

template <class E>
InitZkeyInfo build(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, SectionSink& sink,
                   util::Progress* prog, util::ThreadPool& pool) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1Params;
  using G2 = typename E::G2Params;
  using J1 = ec::Jacobian<G1>;
  using A1 = ec::Affine<G1>;
  using A2 = ec::Affine<G2>;
  using Lem1 = serde::snarkjs::Lem<G1>;
  using Lem2 = serde::snarkjs::Lem<G2>;
  const auto& hd = r1cs.header();
  InitZkeyInfo k;
  k.curve = E::kId;
  k.n_vars = hd.n_wires;
  k.n_public = hd.n_public();
  k.n_constraints = hd.n_constraints;
  const uint32_t m = hd.n_constraints, np = k.n_public;
  if (k.n_vars < np + 1) throw formats::FormatError(r1cs.name() + ": header has fewer wires than public signals + 1");
  k.log_domain = floor_log2(uint64_t(m) + np) + 1;
  if (k.log_domain > ptau.power())
    throw std::runtime_error(ptau.name() + ": powers of tau too small for " + r1cs.name() + ": the circuit needs 2^" +
                             std::to_string(k.log_domain) + " (" + std::to_string(m) + " constraints + " +
                             std::to_string(np) + " public signals + 1), the ceremony has power " +
                             std::to_string(ptau.power()) + " (2^" + std::to_string(ptau.power()) + ")");
  if (!ptau.prepared())
    throw std::runtime_error(ptau.name() +
                             ": not prepared for phase 2 (no Lagrange sections); run `zkmill powersoftau prepare "
                             "phase2` on it first");
  if (k.log_domain >= Fr::kTwoAdicity)
    throw std::runtime_error(r1cs.name() + ": domain 2^" + std::to_string(k.log_domain) + " too large for " + E::kName);
  const uint32_t n = uint32_t(1) << k.log_domain;
  k.domain_size = n;

  // The H points of the circuit hash (below) read tauG1 up to one point past its end, as
  // snarkjs does: check the file holds them before anything is made.
  const uint64_t hash_chunk = uint64_t(1) << 14, hash_per = std::min<uint64_t>(n - 1, hash_chunk);
  uint64_t hash_total = 0;
  for (uint64_t i = 0; i < uint64_t(n) - 1; i += hash_chunk) hash_total += hash_per;
  const auto file_bytes = ptau.file().bytes();
  const size_t tau_base = ptau.tau_g1_file_offset();
  if (tau_base + (hash_total - 1 + n + 1) * Lem1::kSize > file_bytes.size())
    ptau.fail("ends before the points the circuit hash reads (truncated)");

  const auto ix = ConstraintIndex::scan<Fr>(r1cs);
  const auto t = terms_by_signal<Fr>(r1cs, ix, pool);
  const auto &tA = t[0], &tB = t[1], &tC = t[2];
  const size_t rows = size_t(m) + np + 1;
  const size_t off = formats::PtauFile::lagrange_offset(k.log_domain);
  // One series' slice of the domain's rows, decoded (checked on the curve), its mapped pages
  // dropped: the decoded copy is what the sums read, many times per row.
  auto lagrange = [&]<class C>(int series, const char* what) {
    const auto sec = ptau.lagrange(series);
    auto pts = decode_ptau_points<C>(ptau, sec, off, rows, what, pool);
    // (PtauFile::open checked the section holds every power's points, so the slice is in it.)
    ptau.file().release(sec.subspan(off * serde::snarkjs::Lem<C>::kSize, rows * serde::snarkjs::Lem<C>::kSize));
    return pts;
  };

  if (prog) prog->reset(2 * tA.terms() + 5 * tB.terms() + tC.terms() + n);
  Blake2b hs;
  // The circuit hash's updates once points are involved: one stream across the sections, beside
  // the writes (each section's own InOrder), so neither waits for the other, and the pool moves
  // on to the next section's tables while the last chunks are hashed.
  InOrder hashing;

  // Section 1 (protocol 1 = Groth16) and section 2, the Groth16 header; alpha, beta and gamma,
  // delta (both the generators before any contribution) open the circuit hash.
  {
    const uint8_t groth16[4] = {1, 0, 0, 0};
    sink.begin(1);
    sink.write(groth16);
    sink.end();
    const auto alpha1 = ptau.alpha_tau_g1().subspan(0, Lem1::kSize);
    const auto beta1 = ptau.beta_tau_g1().subspan(0, Lem1::kSize);
    const auto beta2 = ptau.beta_g2().subspan(0, Lem2::kSize);
    std::vector<uint8_t> h2;
    put_u32(h2, uint32_t(E::Fq::kBytes));
    put_limbs(h2, E::Fq::modulus());
    put_u32(h2, uint32_t(Fr::kBytes));
    put_limbs(h2, Fr::modulus());
    put_u32(h2, k.n_vars);
    put_u32(h2, np);
    put_u32(h2, n);
    h2.insert(h2.end(), alpha1.begin(), alpha1.end());
    h2.insert(h2.end(), beta1.begin(), beta1.end());
    h2.insert(h2.end(), beta2.begin(), beta2.end());
    const A1 g1 = G1::generator();
    const A2 g2 = G2::generator();
    append_lem<G2>(h2, std::span(&g2, 1));
    append_lem<G1>(h2, std::span(&g1, 1));
    append_lem<G2>(h2, std::span(&g2, 1));
    sink.begin(2);
    sink.write(h2);
    sink.end();
    auto dec1 = [&](std::span<const uint8_t> b, const char* what) {
      try {
        return Lem1::decode(b, serde::Validation::SkipSubgroupCheck);
      } catch (const serde::DecodeError& e) {
        ptau.fail(std::string(what) + ": " + e.what());
      }
    };
    hash_u<G1>(hs, dec1(alpha1, "alpha"));
    hash_u<G1>(hs, dec1(beta1, "beta G1"));
    try {
      hash_u<G2>(hs, Lem2::decode(beta2, serde::Validation::SkipSubgroupCheck));
    } catch (const serde::DecodeError& e) {
      ptau.fail(std::string("beta G2: ") + e.what());
    }
    hash_u<G2>(hs, g2);
    hash_u<G1>(hs, g1);
    hash_u<G2>(hs, g2);
  }

  // Section 4: the coefficients of A and B in constraint order (a third reading of the r1cs, by
  // ranges of constraints across the pool, each encoded into a buffer of its own and written
  // in order once the whole block is done: reading and writing never overlap), then A's
  // (0, m + s, s, 1) rows of the public signals.
  {
    const uint64_t n_coefs = tA.terms() + tB.terms() + np + 1;
    if (n_coefs > UINT32_MAX) r1cs.file().fail("more than 2^32 - 1 coefficients in A and B (the .zkey's limit)");
    sink.begin(4);
    auto coef = [](std::vector<uint8_t>& co, uint32_t mat, uint32_t row, uint32_t sig, const Fr& v) {
      put_u32(co, mat);
      put_u32(co, row);
      put_u32(co, sig);
      uint8_t b[Fr::kBytes];
      serde::snarkjs::encode_zkey_coef(v, b);
      co.insert(co.end(), b, b + Fr::kBytes);
    };
    std::vector<uint8_t> head;
    put_u32(head, uint32_t(n_coefs));
    sink.write(head);
    constexpr uint32_t kPerTask = 2048;  // constraints: about 300 KiB of coefficients for SHA-256
    const uint32_t per_block = kPerTask * uint32_t(2 * pool.size());
    std::vector<std::vector<uint8_t>> parts;
    for (uint32_t b = 0, e = 0; b < m; b = e) {
      e = b + std::min(per_block, m - b);
      parts.resize((e - b + kPerTask - 1) / kPerTask);
      pool.run_tasks(parts.size(), [&](size_t i) {
        auto& co = parts[i];
        co.clear();
        const uint32_t c0 = b + uint32_t(i) * kPerTask;
        // Checked by terms_by_signal already: walk cannot fail here.
        ix.template walk<Fr>(c0, std::min(e, c0 + kPerTask), [&](uint32_t c, uint32_t mat, uint32_t w, const Fr& v) {
          if (mat < 2) coef(co, mat, c, w, v);
        });
      });
      for (const auto& co : parts) sink.write(co);
    }
    parts = {};
    r1cs.file().release(ix.section());
    std::vector<uint8_t> co;
    for (uint32_t s = 0; s <= np; ++s) coef(co, 0, m + s, s, Fr::one());
    sink.write(co);
    sink.end();
  }

  // One section of per-signal sums, signals [first, first + count): made a chunk at a time,
  // normalised, written and hashed (a big-endian u32 count, then U encodings).
  auto signal_section = [&]<class C>(uint32_t type, size_t first, size_t count, auto&& sum, uint64_t weight) {
    static const char* const kNames[] = {"", "", "", "IC", "", "A", "B1", "B2", "C"};
    if (prog) prog->stage(kNames[type]);
    sink.begin(type);
    hashing.then([&hs, count] { hs.update_u32_be(uint32_t(count)); });
    std::vector<ec::Jacobian<C>> acc;
    InOrder out;
    for (size_t b = first; b < first + count; b += kSignalChunk) {
      const size_t e = std::min(first + count, b + kSignalChunk);
      acc.assign(e - b, ec::Jacobian<C>::identity());
      pool.parallel_for(
          e - b,
          [&](size_t lo, size_t hi) {
            for (size_t i = lo; i < hi; ++i) acc[i] = sum(b + i);
          },
          16);
      if (prog) prog->add(weight * (e - b));
      auto [bytes, u] = encode_both<C>(normalize_parallel<C>(acc, pool), pool);
      out.then([&sink, bytes = std::move(bytes)] { sink.write(bytes.span()); });
      hashing.then([&hs, u = std::move(u)] { hs.update(u.span()); });
    }
    out.wait();
    sink.end();
  };
  // Progress counts terms; spread each section's over its signals.
  auto per_signal = [&](uint64_t terms) { return std::max<uint64_t>(1, terms / std::max<uint32_t>(1, k.n_vars)); };

  {
    // IC (section 3) and C (section 8, the key's "L"): beta A_s(tau) + alpha B_s(tau) + C_s(tau),
    // with the public rows' A entries (L_(m+s) for s <= nPublic); H (section 9) between them.
    const auto L1 = lagrange.template operator()<G1>(0, "Lagrange tauG1");
    {
      const auto LA = lagrange.template operator()<G1>(2, "Lagrange alphaTauG1");
      const auto LB = lagrange.template operator()<G1>(3, "Lagrange betaTauG1");
      const auto pAB = pow2_points<G1>(tA, std::span<const A1>(LB), pool),
                 pBA = pow2_points<G1>(tB, std::span<const A1>(LA), pool),
                 pC1 = pow2_points<G1>(tC, std::span<const A1>(L1), pool);
      auto k_sum = [&](size_t s) {
        J1 acc = J1::identity();
        add_terms<G1>(acc, tA, s, std::span<const A1>(LB), std::span<const A1>(pAB));
        add_terms<G1>(acc, tB, s, std::span<const A1>(LA), std::span<const A1>(pBA));
        add_terms<G1>(acc, tC, s, std::span<const A1>(L1), std::span<const A1>(pC1));
        if (s <= np) acc = acc.add_mixed(LB[m + s]);
        return acc;
      };
      const uint64_t w = per_signal(tA.terms() + tB.terms() + tC.terms());
      signal_section.template operator()<G1>(3, 0, size_t(np) + 1, k_sum, w);

      // Section 9: H_i = the odd points of the 2n-point Lagrange tauG1 (power log n + 1),
      // copied. The hash takes instead tau^(i+n) - tau^i from section 2, in snarkjs's chunks
      // of min(n - 1, 2^14) points for i = 0, 2^14, ... < n - 1, each chunk full length: past
      // n - 1 points when 2^14 does not divide n - 1, and, when the circuit fills the ceremony
      // (n = 2^power), one read beyond tauG1's last point into the bytes that follow it in the
      // file (section 3's header and the start of tauG2: snarkjs src/zkey_new.js,
      // hashHPoints/hashHPointsChunk). That "point" is raw words, usually >= q, on which
      // ffjavascript's wasm g1m_subAffine is not group arithmetic mod q; ffjs_sub_affine
      // (snarkjs_points.hpp) repeats its every step. Reproduced as is: the hash is what snarkjs
      // zkey verify compares. Both stream in chunks of 2^14 points.
      const auto lag = ptau.lagrange(0);
      const size_t hbase = formats::PtauFile::lagrange_offset(k.log_domain + 1);
      if (prog) prog->stage("H");
      sink.begin(9);
      std::vector<uint8_t> buf;
      for (size_t b = 0; b < n; b += kHPointChunk) {
        const size_t e = std::min<size_t>(n, b + kHPointChunk);
        buf.resize((e - b) * Lem1::kSize);
        for (size_t i = b; i < e; ++i)
          std::copy_n(lag.data() + (hbase + 2 * i + 1) * Lem1::kSize, Lem1::kSize, buf.data() + (i - b) * Lem1::kSize);
        sink.write(buf);
        ptau.file().release(lag.subspan((hbase + 2 * b) * Lem1::kSize, 2 * (e - b) * Lem1::kSize));
      }
      sink.end();
      hashing.then([&hs, n] { hs.update_u32_be(n - 1); });
      std::vector<J1> d;
      for (uint64_t b = 0; b < hash_total; b += kHPointChunk) {
        const uint64_t e = std::min<uint64_t>(hash_total, b + kHPointChunk);
        d.resize(e - b);
        pool.parallel_for(
            e - b,
            [&](size_t lo, size_t hi) {
              for (size_t i = lo; i < hi; ++i)
                d[i] = ffjs_sub_affine<G1>(file_bytes.data() + tau_base + (b + i + n) * Lem1::kSize,
                                           file_bytes.data() + tau_base + (b + i) * Lem1::kSize);
            },
            1024);
        hashing.then([&hs, u = encode_u_parallel<G1>(normalize_parallel<G1>(d, pool), pool)] { hs.update(u.span()); });
        ptau.file().release(file_bytes.subspan(tau_base + b * Lem1::kSize, (e - b) * Lem1::kSize));
        ptau.file().release(file_bytes.subspan(tau_base + (b + n) * Lem1::kSize, (e - b) * Lem1::kSize));
        if (prog) prog->add((e - b) * n / std::max<uint64_t>(1, hash_total));
      }
      signal_section.template operator()<G1>(8, size_t(np) + 1, k.n_vars - np - 1, k_sum, w);
    }
    // Section 5, A: sum A[c][s] L_c (+ L_(m+s) for the public rows); section 6, B1.
    const auto pA1 = pow2_points<G1>(tA, std::span<const A1>(L1), pool);
    signal_section.template operator()<G1>(
        5, 0, k.n_vars,
        [&](size_t s) {
          J1 acc = J1::identity();
          add_terms<G1>(acc, tA, s, std::span<const A1>(L1), std::span<const A1>(pA1));
          if (s <= np) acc = acc.add_mixed(L1[m + s]);
          return acc;
        },
        per_signal(tA.terms()));
    const auto pB1 = pow2_points<G1>(tB, std::span<const A1>(L1), pool);
    signal_section.template operator()<G1>(
        6, 0, k.n_vars,
        [&](size_t s) {
          J1 acc = J1::identity();
          add_terms<G1>(acc, tB, s, std::span<const A1>(L1), std::span<const A1>(pB1));
          return acc;
        },
        per_signal(tB.terms()));
  }
  {
    // Section 7, B2: the same sums over the Lagrange tauG2.
    const auto L2 = lagrange.template operator()<G2>(1, "Lagrange tauG2");
    const auto pB2 = pow2_points<G2>(tB, std::span<const A2>(L2), pool);
    signal_section.template operator()<G2>(
        7, 0, k.n_vars,
        [&](size_t s) {
          ec::Jacobian<G2> acc = ec::Jacobian<G2>::identity();
          add_terms<G2>(acc, tB, s, std::span<const A2>(L2), std::span<const A2>(pB2));
          return acc;
        },
        3 * per_signal(tB.terms()));
  }

  // Section 10: the circuit hash and no contributions yet.
  hashing.wait();
  k.cs_hash = hs.digest();
  sink.begin(10);
  sink.write(k.cs_hash);
  const uint8_t none[4] = {0, 0, 0, 0};
  sink.write(none);
  sink.end();
  return k;
}

// The sections into a .zkey file (BinWriter: atomic, streaming).
class FileSink final : public SectionSink {
 public:
  explicit FileSink(const std::string& path) : w_(path, "zkey", 1, 10) {}
  void begin(uint32_t type) override { w_.begin(type); }
  void write(std::span<const uint8_t> bytes) override { w_.write(bytes); }
  void end() override { w_.end(); }
  void commit() { w_.commit(); }

 private:
  formats::BinWriter w_;
};

}  // namespace

InitZkeyInfo make_init_zkey(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, SectionSink& sink,
                            util::Progress* progress, util::ThreadPool& pool) {
  const CurveId rc = r1cs.header().curve;
  if (rc != ptau.curve())
    throw std::runtime_error(r1cs.name() + " is a " + curve_snarkjs_name(rc) + " circuit but " + ptau.name() +
                             " is a " + curve_snarkjs_name(ptau.curve()) + " powers of tau");
  return curves::with_curve(rc, [&]<class E>(E) { return build<E>(r1cs, ptau, sink, progress, pool); });
}

InitZkeyInfo write_init_zkey(const formats::R1csFile& r1cs, const formats::PtauFile& ptau, const std::string& path,
                             util::Progress* progress, util::ThreadPool& pool) {
  FileSink sink(path);
  const auto info = make_init_zkey(r1cs, ptau, sink, progress, pool);
  sink.commit();
  return info;
}

std::string format_hash(const Hash64& h, const std::string& indent) {
  std::string s;
  char b[12];
  for (int line = 0; line < 4; ++line) {
    s += indent;
    for (int g = 0; g < 4; ++g) {
      const uint8_t* p = h.data() + line * 16 + g * 4;
      std::snprintf(b, sizeof b, "%02x%02x%02x%02x ", p[0], p[1], p[2], p[3]);
      s += b;
    }
    if (line < 3) s += "\n";
  }
  return s;
}

}  // namespace zkmill::setup
