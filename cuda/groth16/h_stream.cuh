// SPDX-License-Identifier: MIT
// H of a GPU proof (CUDA-only), the part of prove.cuh's gpu_parts that runs beside the MSMs: the
// a, b, c uploads (or the witness-only mat-vec) on the copy stream and H's kernels on the h
// stream, enqueued by an uploader thread of their own (upload_abc_and_enqueue_h), with the
// kernels, the quotient's convention per key format (QuotientPlan) and the coset steps. Where
// H's kernels start (GpuHPlacement): beside the A and B_G1 MSMs, as soon as a is on the device,
// or beside B_G2, once the proof's thread has reached it (HStartGate).
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <span>
#include <utility>

#include "common/cs/witness_bundle.hpp"
#include "cuda/cs/pce_spmv.cuh"
#include "cuda/groth16/context.cuh"

namespace zkmill::cuda::g16 {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// bad[0] = min(bad[0], i) for every row i < rows with a_i b_i != c_i.
template <class F>
__global__ void check_rows_kernel(const F* a, const F* b, const F* c, uint64_t rows, unsigned long long* bad) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  if (!(a[i] * b[i] == c[i])) atomicMin(bad, static_cast<unsigned long long>(i));
}

// a_i <- (a_i b_i - c_i) zinv on the coset.
template <class F>
__global__ void quotient_kernel(F* a, const F* b, const F* c, uint64_t n, F zinv) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  a[i] = (a[i] * b[i] - c[i]) * zinv;
}

// Index i of snarkjs's domain is index k i mod n of ours (k odd, so i -> k i is a bijection):
// scatter: dst[k i mod n] = src[i] (snarkjs order -> ours); gather: dst[i] = src[k i mod n].
template <class F>
__global__ void permute_kernel(const F* src, F* dst, uint64_t n, uint64_t k, bool scatter) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t j = (k * i) & (n - 1);
  if (scatter)
    dst[j] = src[i];
  else
    dst[i] = src[j];
}

inline unsigned blocks_of(uint64_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

// How a key wants its H scalars from a, b, c (evaluations over the domain): which coset they
// are evaluated on (CosetSteps) and which basis the key's H points are in (quotient_scalars).
//   native keys, basis kMonomial (written before the basis field): the n - 1 coefficients of
//     h = (a b - c) / Z, through the coset g<w> and back (the coset inverse NTT);
//   native keys, basis kCosetLagrange (what setup writes now): the n values a b - c on g<w>,
//     Z(g w^i) = g^n - 1 folded into the H points (groth16/setup.hpp): one NTT fewer;
//   snarkjs keys (snarkjs = true, always kCosetLagrange): the n values a' b' - c' on snarkjs's
//     odd coset zeta <w_snarkjs>, with x' = x interpolated over snarkjs's domain
//     (formats::SnarkjsQuotient, the CPU version), 1/Z folded into the points likewise.
template <class HostFr>
struct QuotientPlan {
  groth16::HBasis basis = groth16::HBasis::kMonomial;
  bool snarkjs = false;  // the coset is snarkjs's (k, zeta) rather than g<w>
  uint64_t k = 1;        // snarkjs's root of unity is ours^k
  // The coset's shift s: g = Fr::generator() for native keys, snarkjs's odd-coset zeta for .zkey
  // keys (prove_zkey.cuh sets it).
  HostFr shift = HostFr::generator();

  // The plan a native key's H basis calls for.
  static QuotientPlan native(groth16::HBasis b) {
    QuotientPlan p;
    p.basis = b;
    return p;
  }
  bool lagrange() const { return basis == groth16::HBasis::kCosetLagrange; }
};

// x -> its values on the coset the plan names, in two halves so that the first can run before
// the row check (which reads x as uploaded): interpolate() reads x only and leaves in st.t the
// coefficients of x(s X) for the coset's shift s (through st.u when snarkjs's order differs from
// ours), evaluate() overwrites x with st.t's forward NTT, x's values on the coset s<w>: the coset
// scaling is paid once, in the inverse's last pass (NttDirection::kInverseToCoset). Native keys:
// s = g. snarkjs keys: x into our domain's order first (k != 1), s = zeta. One point:
// interpolation and evaluation are the identity.
template <class G>
struct CosetSteps {
  using F = typename G::Fr;
  CurveState<G>& st;
  uint32_t log_n;
  const QuotientPlan<typename G::HostFr>& plan;
  cudaStream_t cs;

  uint64_t n() const { return uint64_t(1) << log_n; }
  void interpolate(const F* x) const {
    if (n() == 1) return;
    if (plan.snarkjs && plan.k != 1) {
      permute_kernel<F><<<blocks_of(n(), 256), 256, 0, cs>>>(x, st.u.get(), n(), plan.k, true);
      ZK_CUDA_OK_LAUNCH();
      x = st.u.get();
    }
    st.ntt.run(x, st.t.get(), int(log_n), NttDirection::kInverseToCoset, plan.shift);
  }
  void evaluate(F* x) const {
    if (n() == 1) return;
    st.ntt.run(st.t.get(), x, int(log_n), NttDirection::kForward);
  }
};

// The H scalars from st.a, st.b, st.c already on the coset (CosetSteps; consumed); returns
// where the scalars are (st.a or st.t) and their count. Monomial H: a <- (a b - c) / Z(g w^i)
// pointwise, Z = g^n - 1 on the whole coset, then the coset inverse NTT: the n - 1
// coefficients of h = (a b - c) / Z. Coset-Lagrange H: a b - c pointwise, n values (no
// division: setup folds 1/Z(x_i) into the points, g^n - 1 for native keys, -1/2 for snarkjs's),
// for snarkjs keys back into snarkjs's order. The CPU (groth16_coset_values_in_place,
// groth16_h_in_place, SnarkjsQuotient) does the same steps, so results are identical.
template <class G>
std::pair<const typename G::Fr*, uint64_t> quotient_scalars(CurveState<G>& st, uint32_t log_n,
                                                            const QuotientPlan<typename G::HostFr>& plan,
                                                            cudaStream_t cs) {
  using F = typename G::Fr;
  using HostFr = typename G::HostFr;
  const uint64_t n = uint64_t(1) << log_n;
  if (plan.lagrange()) {
    quotient_kernel<F><<<blocks_of(n, 256), 256, 0, cs>>>(st.a.get(), st.b.get(), st.c.get(), n, F::one());
    ZK_CUDA_OK_LAUNCH();
    if (!plan.snarkjs || plan.k == 1) return {st.a.get(), n};
    permute_kernel<F><<<blocks_of(n, 256), 256, 0, cs>>>(st.a.get(), st.t.get(), n, plan.k, false);
    ZK_CUDA_OK_LAUNCH();
    return {st.t.get(), n};
  }
  if (n == 1) {
    ZK_CUDA_OK(cudaMemsetAsync(st.t.get(), 0, sizeof(F), cs));  // h has no coefficients
    return {st.t.get(), 0};
  }
  HostFr sn = plan.shift;
  for (uint32_t i = 0; i < log_n; ++i) sn = sn.square();
  const F zinv = F::from_host((sn - HostFr::one()).inverse());
  quotient_kernel<F><<<blocks_of(n, 256), 256, 0, cs>>>(st.a.get(), st.b.get(), st.c.get(), n, zinv);
  ZK_CUDA_OK_LAUNCH();
  st.ntt.run(st.a.get(), st.t.get(), int(log_n), NttDirection::kCosetInverse, plan.shift);
  return {st.t.get(), n - 1};
}

// The events of a proof's H part. The proof's thread reads its timings from them after the join;
// they are declared before the uploader thread that records them, so they outlive it.
struct HEvents {
  Event a_ready, abc_ready;  // copy stream: a, then all of a, b, c, on the device
  Event h0, h1;              // h stream: before H's first kernel; the H MSM's scalars ready
  Event wait0, wait1;        // h stream: its wait for b and c after a's interpolation
  Event spmv0, spmv1;        // copy stream: the witness-only mat-vec
};

// What the uploader hands back at the join.
template <class F>
struct HPart {
  double upload_ms;  // host time of the a, b, c uploads (witness-only: the mat-vec's launch)
  const F* scalars;  // the H MSM's scalars (st.a or st.t) and their count
  uint64_t count;
};

// H's start beside B_G2: the proof's thread records, on the compute stream, the event H's
// stream waits for, then open()s the gate; the uploader wait()s for it before it makes its
// stream wait on that event (a wait on an event whose record is not yet issued would not wait
// at all). If the proof's thread leaves without opening it (an exception in an earlier MSM),
// abandon() (HStartGateGuard, on that way out) makes wait() throw, so the uploader gives H up
// instead of blocking the join for ever.
class HStartGate {
 public:
  HStartGate() : f_(p_.get_future()) {}
  void open() {  // the proof's thread, after the record
    p_.set_value();
    settled_ = true;
  }
  void wait() { f_.get(); }  // the uploader, once
  void abandon() noexcept {  // the proof's thread; no effect after open()
    if (settled_) return;
    settled_ = true;
    std::promise<void> dropped(std::move(p_));  // destroyed unset: wait() throws std::future_error
  }

 private:
  std::promise<void> p_;
  std::future<void> f_;
  bool settled_ = false;  // the proof's thread's own record; the uploader reads only f_
};

// Declared after the uploader's future, so that on every exit it runs first: the uploader, if it
// still waits for the gate, is let go before the future's destructor waits for it.
struct HStartGateGuard {
  explicit HStartGateGuard(HStartGate* g) : gate(g) {}
  HStartGate* gate;  // nullptr: placement beside A and B_G1, no gate
  HStartGateGuard(const HStartGateGuard&) = delete;
  HStartGateGuard& operator=(const HStartGateGuard&) = delete;
  ~HStartGateGuard() {
    if (gate) gate->abandon();
  }
};

// The uploader thread's body. a, b, c to the device through the pinned pool on the copy stream
// (a first), or (witness-only bundles, `matrices` set) computed there from z by the PCE mat-vec
// after z's upload; and H enqueued on the h stream: a's interpolation once a is on the device
// (a_ready); once all three are there (abc_ready), the row check on a, b, c as uploaded (before
// any is overwritten), the coset steps and the quotient. `gate` null (beside A and B_G1): H's
// first kernel goes in as soon as a is there, while b and c are still on their way. `gate` set
// (beside B_G2): every upload is issued first, then H waits for the gate and its stream for
// `g2_start`. H writes st.a, b, c, t, u and bad_row only; the MSMs read z (H never writes it)
// and their own scratch, so the two streams share nothing until the H MSM. This thread records
// each event before it makes the h stream wait for it. The caller has set the device.
template <class G>
HPart<typename G::Fr> upload_abc_and_enqueue_h(DeviceContext& ctx, CurveState<G>& st, const cs::WitnessBundle& w,
                                               uint32_t log_n, const QuotientPlan<typename G::HostFr>& plan,
                                               const pce::DeviceMatrices<typename G::Fr>* matrices, HEvents& ev,
                                               HStartGate* gate, cudaEvent_t g2_start) {
  using F = typename G::Fr;
  using HostFr = typename G::HostFr;
  const auto u0 = std::chrono::steady_clock::now();
  const uint64_t n = uint64_t(1) << log_n, rows = w.n_rows();
  const cudaStream_t cp = ctx.copy.get(), hs = ctx.h.get();
  const CosetSteps<G> coset{st, log_n, plan, hs};
  auto start_h = [&] {  // a's interpolation reads a only: the h stream starts with it
    if (gate) {
      gate->wait();
      ZK_CUDA_OK(cudaStreamWaitEvent(hs, g2_start, 0));
    }
    ZK_CUDA_OK(cudaStreamWaitEvent(hs, ev.a_ready.get(), 0));
    ev.h0.record(hs);
    coset.interpolate(st.a.get());
    ev.wait0.record(hs);
  };
  auto a_there = [&] {
    ev.a_ready.record(cp);
    if (!gate) start_h();
  };
  F* dst[3] = {st.a.get(), st.b.get(), st.c.get()};
  for (int k = 0; k < 3; ++k)
    if (rows < n) ZK_CUDA_OK(cudaMemsetAsync(dst[k] + rows, 0, (n - rows) * sizeof(F), cp));
  if (matrices) {
    ev.spmv0.record(cp);
    pce::spmv<HostFr>(*matrices, st.z.get(), dst[0], dst[1], dst[2], cp);
    ev.spmv1.record(cp);
    a_there();
  } else {
    // Device F and host Fr have the same bytes (G1Device static_asserts it).
    const std::span<const HostFr> src[3] = {w.a<HostFr>(), w.b<HostFr>(), w.c<HostFr>()};
    for (int k = 0; k < 3; ++k) {
      ctx.pinned.upload(reinterpret_cast<HostFr*>(dst[k]), src[k].data(), rows, cp);
      if (k == 0) a_there();
    }
  }
  ev.abc_ready.record(cp);
  const double up_ms = ms_since(u0);
  if (gate) start_h();
  // wait0 -> wait1 on the h stream: its idle time waiting for b and c after a's interpolation.
  ZK_CUDA_OK(cudaStreamWaitEvent(hs, ev.abc_ready.get(), 0));
  ev.wait1.record(hs);
  ZK_CUDA_OK(cudaMemsetAsync(st.bad_row.get(), 0xff, sizeof(unsigned long long), hs));
  if (rows > 0) {
    check_rows_kernel<F>
        <<<blocks_of(rows, 256), 256, 0, hs>>>(st.a.get(), st.b.get(), st.c.get(), rows, st.bad_row.get());
    ZK_CUDA_OK_LAUNCH();
  }
  coset.evaluate(st.a.get());
  for (F* v : {st.b.get(), st.c.get()}) {
    coset.interpolate(v);
    coset.evaluate(v);
  }
  const auto [scalars, count] = quotient_scalars<G>(st, log_n, plan, hs);
  ev.h1.record(hs);
  return {up_ms, scalars, count};
}

}  // namespace zkmill::cuda::g16
