// SPDX-License-Identifier: MIT
// The GPU Groth16 prover's body (CUDA-only), templated on the curve E; prover_<curve>.cu
// instantiate it for native keys (prove_impl, below) and snarkjs keys (prove_zkey.cuh). Both
// key formats have the same five sections (A, B1, B2 over all variables, L or C over the aux
// variables, H over the domain) and differ only in the H scalars' convention (QuotientPlan).
// Pipeline of one proof on a device context:
//   host thread                         copy stream              compute stream (high priority)
//   [CPU-G2 mode: B_G2 MSM started on the CPU pool (std::async), first of all]
//   key: cache hit, or chunks -> image -> affine (pinned pool)
//   z = (inputs, aux) through the pool   H2D z                  waits z
//   uploader thread: a, b, c via pool,   H2D a, then b, c       digits of z sorted once;
//     then H's kernels on the h stream                          MSM A, B_G1, B_G2 [, L]
//   join uploader, wait for the h stream                        MSM L + H: one MSM over [L; H] with the scalars
//                                                               [aux; a[0 .. n-1]] (monomial-H: t[0 .. n-2]),
//                                                               or (apart) the H MSM alone after L above
//   [CPU-G2 mode: join G2]; groth16::assemble_proof on the host, as the CPU provers.
// h stream (default priority), beside the MSMs (h_stream.cuh): [beside B_G2: waits for B_G2's
// start;] waits a; a -> coefficients; waits b, c; row check; a -> coset; b, c: iNTT -> coset;
// a <- a b - c (monomial-H keys: a <- a/(g^n - 1), t <- icoset iNTT(a) = h; snarkjs: see
// quotient_scalars).
// The a, b, c uploads (host memcpy into pinned slots + DMA) thus overlap the A, B_G1, B_G2 and L
// MSMs, and H's kernels those from A (GpuHPlacement::kBesideAB) or from B_G2 (kBesideG2) on;
// they run in the gaps the MSMs leave while they sync with the host and in the SM slots the
// MSMs' kernels leave free (DeviceContext). The default runs B_G2 on the GPU (cuda/bench/NOTES.md: 30-100x faster
// than the CPU pool at 2^20-2^24); GpuProveOptions::g2_on_cpu keeps the former CPU path.
#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <future>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "common/cs/witness_expand.hpp"
#include "common/groth16/assemble.hpp"
#include "common/msm/pippenger.hpp"
#include "common/util/thread_pool.hpp"
#include "cuda/cs/witness_unpack.cuh"
#include "cuda/groth16/context.cuh"
#include "cuda/groth16/h_stream.cuh"
#include "cuda/groth16/key_room.hpp"
#include "cuda/groth16/pce_resident.cuh"
#include "cuda/groth16/resident_key.cuh"

namespace zkmill::cuda::g16 {

// The largest L and H MSM run as one (gpu_parts): 2^30 digits, 16 GiB of sort arrays.
constexpr uint64_t kMaxJoinedDigits = uint64_t(1) << 30;

template <class E>
struct GpuParts {
  typename E::G1 a, b1, l, h;
  typename E::G2 b2 = E::G2::identity();
  bool has_b2 = false;  // b2 computed here (key.b2 was given)
};

// The MSMs of a proof on the device, with H computed there from the bundle's a, b, c as `plan`
// says (no default: the plan must match the key's H points, QuotientPlan::native(basis) or a
// .zkey's, else the proof fails verification): the four G1 MSMs and, when key.b2 is set, B_G2.
// The key's sections are read from `key` (device-resident). log_n: the key's domain. A, B_G1
// and B_G2 take the same scalars z, so their digits are sorted once; the MSMs run while the a,
// b, c uploads (host staging, the slowest part of the upload) are still going on, and H runs on
// its own stream beside them (at 2^27 the three vectors are 12 GiB: 0.23 s of PCIe at 55 GB/s,
// more than the BN254 MSMs take): beside A and B_G1, a's interpolation as soon as a is there;
// beside B_G2 (`beside`), from B_G2's start.
//
// Witness-only bundles: `matrices` (the circuit's, resident) compute a, b, c on the device from
// z instead of uploading them, and z's aux is uploaded as the bundle holds it (bit-packed) and
// unpacked on the device (cuda/cs/witness_unpack.cuh).
template <class E>
GpuParts<E> gpu_parts(DeviceContext& ctx, const DeviceKeyView<curve::G1Device<E>>& key, const cs::WitnessBundle& w,
                      uint32_t log_n, GpuProveTimings& t, const QuotientPlan<typename E::Fr>& plan,
                      GpuHPlacement beside,
                      const pce::DeviceMatrices<typename curve::G1Device<E>::Fr>* matrices = nullptr) {
  using G = curve::G1Device<E>;
  using F = typename G::Fr;
  using HostFr = typename E::Fr;
  const bool witness_only = w.kind() == cs::BundleKind::Witness;
  if ((matrices != nullptr) != witness_only)
    throw std::invalid_argument("GPU prover: a witness-only bundle needs the circuit's PCE matrices, and only it");
  const std::span<const HostFr> aux = w.aux<HostFr>();  // witness-only: the whole values alone
  const uint64_t n = uint64_t(1) << log_n;
  const uint64_t rows = w.n_rows(), n_in = w.n_inputs(), n_aux = w.n_aux();
  if (key.n_vars != n_in + n_aux || key.n_aux != n_aux || key.n_h + 1 < n || (plan.lagrange() && key.n_h < n) ||
      rows > n)
    throw std::invalid_argument("GPU prover: device key shape does not match the witness bundle");
  CurveState<G>& st = ctx.state<G>();
  st.a.reserve(n, "prover a");
  st.b.reserve(n, "prover b");
  st.c.reserve(n, "prover c");
  st.t.reserve(n, "prover h");
  if (plan.snarkjs && plan.k != 1) st.u.reserve(n, "prover permutation scratch");
  // L and H as one MSM over the point set [L; H] with the scalars [aux; h], when the key holds
  // them as one set: the proof's C needs only the sum of the two (groth16::assemble_proof), and one
  // MSM pays one sort, one set of batch-affine rounds and one bucket reduction instead of two. H's
  // scalars are copied after z's aux for it (z's buffer is n_h longer). Not when H starts beside
  // B_G2 and B_G2 is not on the GPU (there L's MSM is what hides H's kernels), nor beyond
  // kMaxJoinedDigits (the joint sort's arrays, 16 bytes a digit, would crowd the card: a 130M
  // PoRep partition's L and H would be 3.4 G digits).
  const bool h_beside_g2 = beside == GpuHPlacement::kBesideG2;
  const bool join_lh =
      key.lh_one_set && lh_msm_joined() && !(h_beside_g2 && key.b2 == nullptr) &&
      pippenger::make_plan(n_aux + key.n_h, int(F::kBits), 0, key.copies_of_lh(0)).digits() <= kMaxJoinedDigits;
  st.z.reserve(n_in + n_aux + (join_lh ? key.n_h : 0), "prover scalars");
  st.bad_row.reserve(1, "prover row check");
  const cudaStream_t cs = ctx.compute.get(), cp = ctx.copy.get(), hs = ctx.h.get();
  // Device F and host Fr have the same bytes (G1Device static_asserts it).
  auto dev = [](F* p) { return reinterpret_cast<HostFr*>(p); };

  auto t0 = std::chrono::steady_clock::now();
  Event z_ready, unpack0, unpack1;
  bool unpacked_on_device = false;
  ctx.pinned.upload(dev(st.z.get()), w.inputs<HostFr>().data(), n_in, cp);
  const auto map = witness_only ? w.packed(cs::PackedMap::Full) : std::span<const uint64_t>{};
  if (!witness_only || (map.empty() && aux.size() == n_aux)) {
    ctx.pinned.upload(dev(st.z.get()) + n_in, aux.data(), aux.size(), cp);  // every aux whole
  } else {
    // The packed aux (whole values, map, bits) is uploaded and unpacked into z on the device.
    const auto bits = w.packed(cs::PackedMap::Bits);
    st.packed_full.reserve(aux.size(), "prover packed witness");
    st.packed_words.reserve(map.size() + bits.size(), "prover packed witness maps");
    st.unpack_scratch.reserve(pce::unpack_aux_scratch_bytes<HostFr>(map.size()), "prover witness unpack");
    ctx.pinned.upload(dev(st.packed_full.get()), aux.data(), aux.size(), cp);
    ctx.pinned.upload(st.packed_words.get(), map.data(), map.size(), cp);
    ctx.pinned.upload(st.packed_words.get() + map.size(), bits.data(), bits.size(), cp);
    const pce::DevicePackedAux<F> packed{
        st.packed_full.get(), st.packed_words.get(), st.packed_words.get() + map.size(), n_aux, aux.size(), map.size()};
    unpack0.record(cp);
    pce::unpack_aux<HostFr>(packed, st.z.get() + n_in, st.unpack_scratch.get(), cp);
    unpack1.record(cp);
    unpacked_on_device = true;
  }
  z_ready.record(cp);
  ZK_CUDA_OK(cudaStreamWaitEvent(cs, z_ready.get(), 0));
  const double upload_ms = ms_since(t0);
  const double z_ms = upload_ms;  // the compute stream has nothing to do before z is there

  // a, b, c and H on a second host thread, concurrent with the MSMs below
  // (upload_abc_and_enqueue_h). Its errors reach the proof's thread at the join. Beside B_G2,
  // H's start waits for `g2_start`, recorded on the compute stream just before B_G2 (before L
  // when B_G2 is not on the GPU), and for the gate this thread opens after that record.
  const int device = ctx.device;
  HEvents ev;
  Event g2_start;
  HStartGate gate;
  // Declared after the events and before the uploader: on every exit, the uploader is joined
  // first, then this waits for H's kernels, so that no later proof's uploads overwrite a, b, c
  // while H still reads them, and no event is destroyed before the work that records it.
  const StreamDrain h_drain{hs};
  auto uploader = std::async(std::launch::async, [&, device]() -> HPart<F> {
    ZK_CUDA_OK(cudaSetDevice(device));
    return upload_abc_and_enqueue_h<G>(ctx, st, w, log_n, plan, matrices, ev, h_beside_g2 ? &gate : nullptr,
                                       g2_start.get());
  });
  const HStartGateGuard gate_guard{h_beside_g2 ? &gate : nullptr};  // after the uploader: HStartGateGuard says why
  auto start_h_here = [&] {
    if (!h_beside_g2) return;
    g2_start.record(cs);
    gate.open();
  };

  // An MSM step that runs out of device memory runs once more after both engines release their
  // rounds' buffers, which they keep from the proof's earlier MSMs to skip reallocations. On a
  // 130M BLS12-381 partition with both keys resident those are ~16 GiB (the 1-scalar sums of A, B_G1
  // and B_G2), and the H MSM's digit sort (26 GiB) lacked ~1 GiB of them (2026-12-04,
  // docs/benchmarks/gpu-porep.md). A second failure is the proof's.
  auto with_room = [&](auto&& step) {
    try {
      return step();
    } catch (const DeviceAllocError&) {
      st.msm.release_round_scratch();
      st.msm2.release_round_scratch();
      ++t.msm_room_retries;
      return step();
    }
  };
  GpuParts<E> out;
  auto m0 = std::chrono::steady_clock::now();
  with_room([&] {  // one sort shared by A, B_G1 and B_G2
    st.msm.prepare(st.z.get(), n_in + n_aux, 0, false, key.copies_of(key.n_vars));
  });
  out.a = with_room([&] { return st.msm.sum(key.a); });
  t.msm_a_ms = ms_since(m0);
  m0 = std::chrono::steady_clock::now();
  out.b1 = with_room([&] { return st.msm.sum(key.b1); });
  t.msm_b_g1_ms = ms_since(m0);
  start_h_here();  // beside B_G2, or beside L when there is no B_G2 here
  if (key.b2 != nullptr) {
    m0 = std::chrono::steady_clock::now();
    out.b2 = with_room([&] { return st.msm2.sum(key.b2); });
    out.has_b2 = true;
    t.msm_b_g2_ms = ms_since(m0);
  }
  if (!join_lh) {
    m0 = std::chrono::steady_clock::now();
    out.l =
        with_room([&] { return st.msm.run(key.l, st.z.get() + n_in, n_aux, 0, nullptr, key.copies_of_lh(key.n_aux)); });
    t.msm_l_ms = ms_since(m0);
  }

  // The uploads and H, as far as the MSMs above did not hide them: the join (rethrows the
  // uploader's error), then the h stream's end with the row check's result.
  m0 = std::chrono::steady_clock::now();
  const HPart<F> hp = uploader.get();
  unsigned long long bad = 0;
  ZK_CUDA_OK(cudaMemcpyAsync(&bad, st.bad_row.get(), sizeof bad, cudaMemcpyDeviceToHost, hs));
  ZK_CUDA_OK(cudaStreamSynchronize(hs));
  t.h_wait_ms = ms_since(m0);
  ZK_CUDA_OK(cudaStreamWaitEvent(cs, ev.h1.get(), 0));  // done already; the H MSM's order, stated
  t.upload_ms = upload_ms + hp.upload_ms;
  t.abc_wait_ms = ev.wait1.since(ev.wait0);
  // The proof waited for b and c at most as long as the h stream did, and at most as long as
  // it waited for H at all.
  t.upload_wait_ms = z_ms + std::min(t.abc_wait_ms, t.h_wait_ms);
  t.h_ms = ev.h1.since(ev.h0) - t.abc_wait_ms;
  if (matrices) {
    t.spmv_ms = ev.spmv1.since(ev.spmv0);
    if (unpacked_on_device) t.unpack_ms = unpack1.since(unpack0);
  }
  if (bad != ULLONG_MAX)
    throw std::invalid_argument("unsatisfied witness: constraint row " + std::to_string(bad) + " has a*b != c");

  m0 = std::chrono::steady_clock::now();
  if (join_lh) {
    // [aux; h; zeros up to n_h] against [L; H]: out.l is the sum of both MSMs, out.h the identity.
    F* tail = st.z.get() + n_in + n_aux;
    ZK_CUDA_OK(cudaMemcpyAsync(tail, hp.scalars, hp.count * sizeof(F), cudaMemcpyDeviceToDevice, cs));
    if (hp.count < key.n_h) ZK_CUDA_OK(cudaMemsetAsync(tail + hp.count, 0, (key.n_h - hp.count) * sizeof(F), cs));
    out.l = with_room(
        [&] { return st.msm.run(key.l, st.z.get() + n_in, n_aux + key.n_h, 0, nullptr, key.copies_of_lh(0)); });
    out.h = E::G1::identity();
    t.lh_joined = true;
  } else {
    out.h = with_room([&] { return st.msm.run(key.h, hp.scalars, hp.count, 0, nullptr, key.copies_of_lh(key.n_h)); });
  }
  t.msm_h_ms = ms_since(m0);
  return out;
}

// The device side of a proof holds the prover's own kernels (row check, quotient, snarkjs
// permutation); prover_<curve>.cu instantiates it once per curve and the benchmark suite links
// to that instantiation.
extern template GpuParts<curves::Bn254> gpu_parts<curves::Bn254>(DeviceContext&, const DeviceKeyView<curve::Bn254G1>&,
                                                                 const cs::WitnessBundle&, uint32_t, GpuProveTimings&,
                                                                 const QuotientPlan<curves::Bn254::Fr>&, GpuHPlacement,
                                                                 const pce::DeviceMatrices<curve::Bn254G1::Fr>*);
extern template GpuParts<curves::Bls12381> gpu_parts<curves::Bls12381>(
    DeviceContext&, const DeviceKeyView<curve::Bls12381G1>&, const cs::WitnessBundle&, uint32_t, GpuProveTimings&,
    const QuotientPlan<curves::Bls12381::Fr>&, GpuHPlacement, const pce::DeviceMatrices<curve::Bls12381G1::Fr>*);

// One proof of either key format: `validate` (throws std::invalid_argument) checks the bundle
// against the key, then the key is found in (or uploaded to) the device's key cache, the MSMs
// and H run on the device (H as `plan` says) and groth16::assemble_proof combines them. The
// caller has checked that the key's sections have the shapes its metadata states, and that
// n = 2^log_n is within the NTT's range.
template <class E, class Validate>
GpuResult prove_key(const HostKey<E>& pk, Validate&& validate, const cs::WitnessBundle& w, uint32_t log_n,
                    const QuotientPlan<typename E::Fr>& plan, const typename E::Fr& r, const typename E::Fr& s,
                    groth16::Proof<E>* out, GpuProveTimings* timings, const GpuProveOptions& o) noexcept {
  using G = curve::G1Device<E>;
  using Fr = typename E::Fr;
  using G2 = typename E::G2;
  if (out == nullptr) return {GpuErrc::kInvalidArgument, "GPU prover: output pointer is null"};
  GpuResult refused;
  GpuResult res = run_guarded([&] {
    const auto t_all = std::chrono::steady_clock::now();
    if (w.empty()) throw std::invalid_argument("GPU prover: empty witness bundle");
    if (w.curve() != E::kId)
      throw std::invalid_argument(std::string("GPU prover: witness bundle is for curve ") + curve_name(w.curve()) +
                                  ", key is for " + E::kName);
    validate();
    if (log_n > uint32_t(ntt::Engine<Fr>::max_log_n()))
      throw std::invalid_argument("GPU prover: domain 2^" + std::to_string(log_n) + " too large");
    const uint64_t nvars = pk.a.size();
    const GpuHPlacement beside = h_placement(o.h_beside);  // the environment's, read once, unless set
    GpuProveTimings t;
    const auto inputs = w.inputs<Fr>();
    // A witness-only bundle holds its aux bit-packed: it is unpacked into z on the device, and
    // a, b, c come from the circuit's matrices there.
    const bool witness_only = w.kind() == cs::BundleKind::Witness;
    if (witness_only) {
      if (o.pce == nullptr)
        throw std::invalid_argument("GPU prover: a witness-only bundle needs the circuit's PCE matrices (options.pce)");
      try {
        cs::check_witness_for(w, *o.pce);
      } catch (const cs::BundleError& e) {
        throw std::invalid_argument(std::string("GPU prover: ") + e.what());
      }
    }
    // B_G2 runs on the GPU unless asked otherwise (skip_g2, a benchmark mode, never runs it).
    const bool gpu_g2 = !o.g2_on_cpu && !o.skip_g2;
    // CPU-G2 mode needs the aux on the host: a witness-only bundle's is unpacked here for it.
    std::vector<Fr> unpacked;
    if (witness_only && o.g2_on_cpu) {
      unpacked.resize(w.n_aux());
      w.unpack_aux<Fr>(unpacked);
    }
    const std::span<const Fr> aux = witness_only ? std::span<const Fr>(unpacked) : w.aux<Fr>();
    // CPU mode: B_G2 on the CPU pool, concurrently with the GPU work. std::async's future waits in its
    // destructor (declared before the lease, so it outlives it), so an exception on this thread
    // never leaves the task with dangling references.
    std::future<std::pair<G2, double>> g2;
    auto start_g2 = [&] {
      g2 = std::async(std::launch::async, [&]() -> std::pair<G2, double> {
        const auto g0 = std::chrono::steady_clock::now();
        if (o.skip_g2) return {G2::identity(), 0.0};
        using G2P = typename E::G2Params;
        auto& pool = util::ThreadPool::global();
        G2 b2 = msm::msm<G2P>(pk.b2.first(inputs.size()), inputs, pool);
        b2 += msm::msm<G2P>(pk.b2.subspan(inputs.size()), aux, pool);
        return {b2, ms_since(g0)};
      });
    };

    ContextLease lease = acquire_context(o.device);
    DeviceContext& ctx = *lease.ctx;
    // Precomputed copies (fixed bases): t copies of every section for one width, within the
    // key-cache budget (fewer copies when t do not fit, none when two do not: never a refusal).
    const uint64_t plain_bytes = (2 * nvars + pk.l.size() + pk.h.size()) * sizeof(typename G::Affine) +
                                 (gpu_g2 ? nvars * sizeof(typename G2Of<G>::Affine) : 0);
    const auto [copies, copy_c] =
        key_copies(pippenger::precompute_factor(o.precompute), std::max<uint64_t>({nvars, pk.l.size(), pk.h.size()}),
                   pk.l.size() + pk.h.size(), plain_bytes, Fr::kBits, ctx.cache.budget(), o.device);
    // A key cached with its B_G2 section, or with copies, is a different entry from one without.
    const std::string id = std::string(E::kName) + "|" + (o.key_id.empty() ? key_fingerprint(pk) : o.key_id) +
                           (gpu_g2 ? "|with-g2" : "") +
                           (copies > 1 ? "|copies-" + std::to_string(copies) + "-c" + std::to_string(copy_c) : "");
    const uint64_t bytes = plain_bytes * uint64_t(copies);
    // Above the budget, one key (and its matrices) still goes in alone when the device holds it
    // beside a proof's scratch (key_room.hpp); evict_until_fits then empties the cache for it.
    size_t free_b = 0, total_b = 0;
    ZK_CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    const KeyRoom room{ctx.cache.budget(), uint64_t(total_b),
                       proof_scratch_bytes(nvars, pk.h.size(), uint64_t(1) << log_n, sizeof(Fr), int(Fr::kBits))};
    KeyEntryBase* found = ctx.cache.find(id);
    if (found != nullptr && found->bytes != bytes)
      throw std::invalid_argument("GPU prover: key id '" + id + "' is resident with a different shape");
    if (found == nullptr) {
      if (!room.admits(bytes)) {
        refused = {GpuErrc::kOutOfMemory, room.refusal("proving key", bytes, o.device)};
        return;
      }
      if (!gpu_g2) start_g2();  // before the key upload: the CPU's G2 MSM overlaps it
      const auto k0 = std::chrono::steady_clock::now();
      ctx.cache.evict_until_fits(bytes, nullptr);
      std::unique_ptr<KeyEntry<G>> entry;
      try {
        entry = upload_key<E>(ctx, pk, id, bytes, gpu_g2, copies, copy_c);
      } catch (const DeviceAllocError&) {  // make room from everything else, then once more
        ctx.cache.evict_all_but(nullptr);
        ctx.drop_scratch();
        entry = upload_key<E>(ctx, pk, id, bytes, gpu_g2, copies, copy_c);
      }
      found = ctx.cache.insert(std::move(entry));
      t.key_upload_ms = ms_since(k0);
    } else {
      t.key_cache_hit = true;
    }
    if (!gpu_g2 && !g2.valid()) start_g2();
    const auto& key = static_cast<const KeyEntry<G>&>(*found);  // ids start with the curve name

    // The circuit's matrices, resident beside the key under the same budget (never evicting it).
    const PceEntry<typename G::Fr>* matrices = nullptr;
    if (witness_only) {
      const std::string pid = pce_cache_id(E::kName, *o.pce);
      const uint64_t pbytes = pce_resident_bytes(*o.pce, sizeof(Fr));
      KeyEntryBase* pf = ctx.cache.find(pid);
      if (pf == nullptr) {
        if (!room.admits(bytes + pbytes)) {
          refused = {GpuErrc::kOutOfMemory, room.refusal("proving key and PCE matrices", bytes + pbytes, o.device)};
          return;
        }
        const auto p0 = std::chrono::steady_clock::now();
        ctx.cache.evict_until_fits(pbytes, found);
        std::unique_ptr<PceEntry<typename G::Fr>> entry;
        try {
          entry = upload_pce<Fr>(ctx, *o.pce, pid);
        } catch (const DeviceAllocError&) {  // make room from everything but the key, then once more
          ctx.cache.evict_all_but(found);
          ctx.drop_scratch();
          entry = upload_pce<Fr>(ctx, *o.pce, pid);
        }
        pf = ctx.cache.insert(std::move(entry));
        t.pce_upload_ms = ms_since(p0);
      }
      matrices = static_cast<const PceEntry<typename G::Fr>*>(pf);  // pce ids name the curve too
    }

    GpuParts<E> p;
    try {
      if (matrices) {
        const auto mv = matrices->view();
        p = gpu_parts<E>(ctx, view_of(key), w, log_n, t, plan, beside, &mv);
      } else {
        p = gpu_parts<E>(ctx, view_of(key), w, log_n, t, plan, beside);
      }
    } catch (const DeviceAllocError&) {
      ctx.drop_scratch();  // the next proof starts from clean buffers
      throw;
    }
    G2 b2 = p.b2;
    t.g2_on_gpu = p.has_b2;
    if (!gpu_g2) {
      const auto w0 = std::chrono::steady_clock::now();
      double g2_ms = 0;
      std::tie(b2, g2_ms) = g2.get();
      t.g2_wait_ms = ms_since(w0);
      t.g2_cpu_ms = g2_ms;
    }

    const auto c0 = std::chrono::steady_clock::now();
    *out = groth16::assemble_proof<E>(*pk.vk, {p.a, p.b1, b2, p.l, p.h}, r, s);
    t.combine_ms = ms_since(c0);
    t.total_ms = ms_since(t_all);
    if (timings) *timings = t;
  });
  if (res.ok() && !refused.ok()) return refused;
  return res;
}

// Native keys (groth16::ProvingKey): the H scalars as the key's meta.h_basis says
// (QuotientPlan::native), so keys written before the basis field still prove.
template <class E>
GpuResult prove_impl(const groth16::ProvingKey<E>& pk, const cs::WitnessBundle& w, const typename E::Fr& r,
                     const typename E::Fr& s, groth16::Proof<E>* out, GpuProveTimings* timings,
                     const GpuProveOptions& o) noexcept {
  HostKey<E> key;
  GpuResult made = run_guarded([&] {  // the shape text allocates
    key = {pk.a, pk.b_g1, pk.l, pk.h, pk.b_g2, &pk.vk, o.key_id.empty() ? pk.meta.to_json().dump() : std::string()};
  });
  if (!made.ok()) return made;
  auto validate = [&] {
    if (w.n_inputs() != pk.meta.n_inputs || w.n_aux() != pk.meta.n_aux)
      throw std::invalid_argument("GPU prover: witness bundle shape (" + std::to_string(w.n_inputs()) + " inputs, " +
                                  std::to_string(w.n_aux()) + " aux) does not match the proving key (" +
                                  std::to_string(pk.meta.n_inputs) + ", " + std::to_string(pk.meta.n_aux) + ")");
    const uint64_t n = uint64_t(1) << pk.meta.domain_log2;
    if (w.n_rows() > n || pk.h.size() != n)
      throw std::invalid_argument("GPU prover: witness bundle has more rows than the key's domain");
    const uint64_t nvars = pk.meta.n_inputs + pk.meta.n_aux;
    if (pk.a.size() != nvars || pk.b_g1.size() != nvars || pk.b_g2.size() != nvars || pk.l.size() != pk.meta.n_aux)
      throw std::invalid_argument("GPU prover: proving key sections do not match its metadata");
  };
  return prove_key<E>(key, validate, w, pk.meta.domain_log2, QuotientPlan<typename E::Fr>::native(pk.meta.h_basis), r,
                      s, out, timings, o);
}

}  // namespace zkmill::cuda::g16
