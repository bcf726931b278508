// SPDX-License-Identifier: MIT
// The PoRep rows of the GPU benchmark suite (bench_porep, suite_common.cuh): a PoRep-sized
// partition (BN254 and BLS12-381) on a device-made key, with a synthetic witness or real `porep`
// witnesses proved as one pipelined job. Its own translation unit: the `porep` circuit's synthesis is the
// largest host code of the suite, and here it compiles beside the other parts, not after them.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/circuits/porep.hpp"
#include "common/groth16/builtin.hpp"
#include "cuda/bench/suite_common.cuh"
#include "cuda/groth16/pce_resident.cuh"
#include "cuda/groth16/prove.cuh"

namespace zkmill::cuda::bench {
namespace {

// out[i] = src[(i * stride + offset) mod m], m a power of two.
template <class T>
__global__ void tile_kernel(const T* src, uint64_t m, T* out, uint64_t n, uint64_t stride, uint64_t offset) {
  const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[(i * stride + offset) & (m - 1)];
}

// A PoRep-sized partition on a key generated on the device (tiled from 2^20 distinct
// points: a synthetic key, so its proofs do not verify; the witness side is what is measured).
// Witness: synthetic (porep_size 0: the progression bundle of 2^porep_log rows, as the other
// rows) or real: porep_partitions partitions of the `porep` circuit at porep_size constraints,
// synthesized on host threads while the GPU proves the ones before (a pipelined job), as full
// bundles (plain ProvingCS, a, b, c in the same pass: 16.8 GB over PCIe at 130M constraints) or,
// with --porep-bundle witness, as witness-only bundles (the farm's default, worker.bundle_kind:
// the circuit's PCE matrices are recorded once on the host, uploaded once, and a, b, c are
// computed on the device from z). The device checks a o b = c row by row before the MSMs
// (gpu_parts), so a real witness that the circuit does not satisfy is an error, not a figure.

// The key meta of porep at `size` without a recording pass (seconds at 130M constraints): the
// circuit is a prologue plus C identical challenges, so inputs, aux and constraints are affine
// in C; count them at C = 1, 2, 3 and extrapolate. ProvingCS refuses a bundle whose counts do
// not match, so a wrong extrapolation cannot go unnoticed.
template <class E>
groth16::KeyMeta porep_meta(uint64_t size) {
  using Fr = typename E::Fr;
  using Porep = circuits::PorepCircuit<Fr>;
  const circuits::PorepShape shape = Porep::choose_shape(size);
  uint64_t in[3], aux[3], con[3];
  for (uint64_t c = 1; c <= 3; ++c) {
    circuits::PorepShape s = shape;
    s.challenges = c;
    cs::CountingCS<Fr> counter;
    Porep(s, size, 0, 0).synthesize(counter);
    in[c - 1] = counter.num_inputs(), aux[c - 1] = counter.num_aux(), con[c - 1] = counter.num_constraints();
  }
  auto at = [&](const uint64_t* v) {
    if (v[2] - v[1] != v[1] - v[0]) throw std::logic_error("porep counts are not affine in the challenges");
    return v[0] + (shape.challenges - 1) * (v[1] - v[0]);
  };
  groth16::KeyMeta meta;
  meta.circuit = "porep";
  meta.size = size;
  meta.n_inputs = at(in);
  meta.n_aux = at(aux);
  meta.n_constraints = at(con) + meta.n_inputs;  // with the input rows, as a key's meta counts them
  return meta;
}

// Produces the partitions' bundles on `threads` host threads, in partition order, at most
// `threads` alive at once (each is ~16 GiB at 130M constraints): take(i) waits for partition i
// and hands it over; the caller frees it, which lets the next synthesis start.
template <class E>
class PorepPipeline {
 public:
  // `pce` valid: witness-only bundles by those matrices (each synthesis waits for them).
  PorepPipeline(const groth16::KeyMeta& meta, int partitions, int threads,
                std::shared_future<std::shared_ptr<const cs::PceMatrices>> pce = {})
      : meta_(meta), n_(partitions), limit_(size_t(threads)), pce_(std::move(pce)) {
    for (int t = 0; t < threads; ++t) workers_.emplace_back([this] { run(); });
  }
  ~PorepPipeline() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  // Partition i's bundle and the host time its synthesis took (ms); rethrows a synthesis error.
  std::pair<cs::WitnessBundle, double> take(int i) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return ready_.count(i) || error_; });
    if (error_) std::rethrow_exception(error_);
    auto out = std::move(ready_.at(i));
    ready_.erase(i);
    return out;
  }
  void release() {  // the caller freed a bundle: one more may be synthesized
    {
      std::lock_guard lock(m_);
      --alive_;
    }
    cv_.notify_all();
  }

 private:
  void run() {
    for (;;) {
      int i;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stop_ || error_ || (next_ < n_ && alive_ < limit_); });
        if (stop_ || error_ || next_ >= n_) return;
        i = next_++;
        ++alive_;
      }
      try {
        const auto t0 = std::chrono::steady_clock::now();
        cs::WitnessBundle w;
        double ms = 0;
        if (pce_.valid()) {
          const std::shared_ptr<const cs::PceMatrices> m = pce_.get();  // rethrows a recording error
          const auto t1 = std::chrono::steady_clock::now();
          w = groth16::synthesize_builtin_witness<E>(*m, meta_, /*seed=*/42, uint64_t(i));
          ms = g16::ms_since(t1);
        } else {
          w = groth16::synthesize_builtin<E>(meta_, /*seed=*/42, uint64_t(i));
          ms = g16::ms_since(t0);
        }
        std::printf("porep %s partition %d synthesized on the host in %.1f s (%s bundle)\n", E::kName, i, ms / 1000,
                    pce_.valid() ? "witness-only" : "full");
        std::fflush(stdout);
        std::lock_guard lock(m_);
        ready_.emplace(i, std::make_pair(std::move(w), ms));
      } catch (...) {
        std::lock_guard lock(m_);
        error_ = std::current_exception();
      }
      cv_.notify_all();
    }
  }
  const groth16::KeyMeta meta_;
  const int n_;
  const size_t limit_;  // bundles alive at once: synthesizing, ready, or being proved
  const std::shared_future<std::shared_ptr<const cs::PceMatrices>> pce_;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<int, std::pair<cs::WitnessBundle, double>> ready_;
  int next_ = 0;
  size_t alive_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
};

// A device-made key: `n` points tiled from `base` (2^20 distinct points) at offset `off`.
template <class A>
void tile_into(DeviceBuffer<A>& buf, const DeviceBuffer<A>& base, uint64_t off, cudaStream_t st) {
  tile_kernel<A><<<unsigned((buf.size() + 255) / 256), 256, 0, st>>>(base.get(), uint64_t(1) << 20, buf.get(),
                                                                     buf.size(), 3, off);
  ZK_CUDA_OK_LAUNCH();
}

// 2^20 distinct affine points of group G (Q_j + R_k, see make_points) on the device.
template <class E, class G, class Gen>
DeviceBuffer<typename G::Affine> distinct_points(const Gen& gen, std::mt19937_64& rng, cudaStream_t st,
                                                 const char* what) {
  using Fr = typename E::Fr;
  const auto qh = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << kQLog, gen);
  const auto rh = progression<E>(Fr::random(rng), Fr::random(rng), size_t(1) << 4, gen);
  std::vector<typename G::Affine> qd(qh.size()), rd(rh.size());
  for (size_t i = 0; i < qh.size(); ++i) qd[i] = G::to_device_affine(qh[i]);
  for (size_t i = 0; i < rh.size(); ++i) rd[i] = G::to_device_affine(rh[i]);
  DeviceBuffer<typename G::Affine> d_q(qd.size(), what), d_r(rd.size(), what), base(size_t(1) << 20, what);
  ZK_CUDA_OK(cudaMemcpyAsync(d_q.get(), qd.data(), qd.size() * sizeof(qd[0]), cudaMemcpyHostToDevice, st));
  ZK_CUDA_OK(cudaMemcpyAsync(d_r.get(), rd.data(), rd.size() * sizeof(rd[0]), cudaMemcpyHostToDevice, st));
  make_points<G>(d_q.get(), d_r.get(), base.get(), 1u << 20, st);
  ZK_CUDA_OK(cudaStreamSynchronize(st));
  return base;
}

// The witness side of one curve's PoRep row: its shape and, for real witnesses, the pipeline
// that synthesizes them on host threads, started at construction (so both curves' syntheses run
// while the first curve's key is made and proved).
template <class E>
struct PorepWitnesses {
  groth16::KeyMeta meta;
  uint32_t lg = 0;
  bool real = false;
  int parts = 1;
  std::optional<PorepPipeline<E>> pipeline;
  // --porep-bundle witness: the circuit's matrices, recorded on a host thread of their own.
  std::shared_future<std::shared_ptr<const cs::PceMatrices>> pce;
  cs::WitnessBundle synthetic;
  double synthetic_ms = 0;
  std::chrono::steady_clock::time_point job0 = std::chrono::steady_clock::now();

  PorepWitnesses(const GpuBenchOptions& o, std::mt19937_64& rng) {
    real = o.porep_size > 0;
    parts = real ? std::max(1, o.porep_partitions) : 1;
    lg = uint32_t(o.porep_log);
    if (!real) {
      const auto t0 = std::chrono::steady_clock::now();
      synthetic = synthetic_bundle<E>(lg, rng);
      synthetic_ms = g16::ms_since(t0);
      return;
    }
    meta = porep_meta<E>(o.porep_size);
    lg = 0;
    while ((uint64_t(1) << lg) < meta.n_constraints) ++lg;
    const double bundle_gib = double(32 * (meta.n_inputs + meta.n_aux + 3 * meta.n_constraints)) / double(1 << 30);
    int threads = o.porep_threads;
    if (threads <= 0) {  // as many as 60% of the host's memory holds, leaving a core for the GPU's host side
      const double mem_gib = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE)) / double(1 << 30);
      threads = std::max(1, std::min(int(std::thread::hardware_concurrency()) - 1, int(0.6 * mem_gib / bundle_gib)));
    }
    threads = std::min(threads, parts);
    const bool witness_only = o.porep_bundle == "witness";
    std::printf(
        "porep %s: real witnesses, %llu constraints (+%llu input rows), %llu aux, domain 2^%u, %.1f GiB per full "
        "bundle; %d partition(s), %d synthesized at once on host threads (%s)\n",
        E::kName, (unsigned long long)(meta.n_constraints - meta.n_inputs), (unsigned long long)meta.n_inputs,
        (unsigned long long)meta.n_aux, lg, bundle_gib, parts, threads,
        witness_only ? "witness-only bundles: PCE matrices recorded first" : "full bundles, plain ProvingCS");
    std::fflush(stdout);
    if (witness_only) {
      const groth16::KeyMeta m = meta;
      pce = std::async(std::launch::async, [m] {
              const auto t0 = std::chrono::steady_clock::now();
              auto image = groth16::record_pce_image<E>(m);
              auto out = std::make_shared<const cs::PceMatrices>(
                  cs::PceMatrices::from_image(std::move(image), groth16::pce_shape<E>(m), "porep (in memory)"));
              std::printf("porep %s: PCE matrices recorded on the host in %.1f s (%llu non-zeros, %.1f GiB)\n",
                          E::kName, g16::ms_since(t0) / 1000, (unsigned long long)out->nnz(),
                          double(out->image_bytes()) / double(1 << 30));
              std::fflush(stdout);
              return std::shared_ptr<const cs::PceMatrices>(std::move(out));
            }).share();
    }
    pipeline.emplace(meta, parts, threads, pce);
  }
};

// The accumulations of the extra warm runs of partition 0 (--porep-accumulate xyzz,affine,...):
// every MSM engine of the proof forced to one (xyzz, affine), or only the 1-scalar sums forced
// with the windows automatic (ones-xyzz: the policy before the ones could run batch-affine;
// ones-affine), in the same process, key and memory state as the automatic runs (the real setting
// of the H MSM: key resident, card nearly full).
struct ForcedRun {
  std::string name;
  MsmAccumulation windows, ones;
};
std::vector<ForcedRun> forced_runs(const std::string& list) {
  constexpr auto X = MsmAccumulation::kXyzz, A = MsmAccumulation::kBatchAffine, U = MsmAccumulation::kAuto;
  std::vector<ForcedRun> out;
  for (const std::string& item : split_list(list)) {
    if (item == "xyzz")
      out.push_back({item, X, X});
    else if (item == "affine")
      out.push_back({item, A, A});
    else if (item == "ones-xyzz")
      out.push_back({item, U, X});
    else if (item == "ones-affine")
      out.push_back({item, U, A});
    else if (!item.empty())
      throw std::invalid_argument("--porep-accumulate takes xyzz, affine, ones-xyzz and ones-affine, got '" + item +
                                  "'");
  }
  return out;
}

// The device side of one curve's PoRep row: key, proofs, rows.
// A host key of the partition's shape, tiled from 2^16 distinct points of each group
// (section[i] = base[(i * stride + offset) mod 2^16], as the device key): what a prove worker
// holds, so that cuda::prove_gpu runs the product's whole path on it (key admission and upload
// into the key cache, the matrices beside it, the proof). Synthetic: its proofs do not verify.
template <class E>
groth16::ProvingKey<E> tiled_host_key(groth16::KeyMeta meta) {
  using G1A = typename E::G1Affine;
  using G2A = typename E::G2Affine;
  constexpr uint64_t kDistinct = uint64_t(1) << 16;
  auto& pool = util::ThreadPool::global();
  auto distinct = [&](auto gen) {  // (i + 1) gen for i < 2^16, in parallel runs of 2^10
    std::vector<decltype(gen)> jac(kDistinct);
    pool.run_tasks(kDistinct >> 10, [&](size_t task) {
      auto p = gen * E::Fr::from_u64(uint64_t(task << 10) + 1);
      for (uint64_t i = task << 10; i < (task + 1) << 10; ++i, p += gen) jac[i] = p;
    });
    return jac;
  };
  const auto j1 = distinct(E::G1::generator());
  const auto j2 = distinct(E::G2::generator());
  const std::vector<G1A> g1 = ec::batch_normalize<typename E::G1Params>(std::span(j1));
  const std::vector<G2A> g2 = ec::batch_normalize<typename E::G2Params>(std::span(j2));
  auto tiled = [&](const auto& base, uint64_t n, uint64_t offset) {
    std::vector<typename std::decay_t<decltype(base)>::value_type> out(n);
    pool.parallel_for(
        n,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) out[i] = base[(i * 77777 + offset) & (kDistinct - 1)];
        },
        size_t(1) << 20);
    return out;
  };
  const uint64_t nvars = meta.n_inputs + meta.n_aux, n = uint64_t(1) << meta.domain_log2;
  groth16::VerifyingKey<E> vk;
  vk.alpha_g1 = vk.beta_g1 = vk.delta_g1 = g1[1];
  vk.beta_g2 = vk.gamma_g2 = vk.delta_g2 = g2[1];
  auto a = tiled(g1, nvars, 1), b1 = tiled(g1, nvars, 2), l = tiled(g1, meta.n_aux, 3), h = tiled(g1, n, 4);
  auto b2 = tiled(g2, nvars, 7);
  return groth16::ProvingKey<E>(std::move(meta), std::move(vk), std::move(a), std::move(b1), std::move(b2),
                                std::move(l), std::move(h));
}

// --porep-product: partition 0's witness-only bundle proved twice through cuda::prove_gpu (the
// prove worker's call) on a tiled host key, with the context's default key-cache budget: the
// first proof admits and uploads the key and the matrices (over the budget at 130M constraints on
// BLS12-381: key_room.hpp), the second is warm. Rows porep_product; a refused or failed proof
// prints the prover's message and fails the run.
template <class E>
bool porep_product(const PorepWitnesses<E>& in, const cs::WitnessBundle& w, groth16::HBasis basis, std::mt19937_64& rng,
                   std::vector<Row>& rows) {
  groth16::KeyMeta meta = in.meta;
  meta.domain_log2 = in.lg;
  meta.h_basis = basis;
  const auto k0 = std::chrono::steady_clock::now();
  const groth16::ProvingKey<E> pk = tiled_host_key<E>(meta);
  std::printf("porep_product %s: host key tiled in %.1f s\n", E::kName, g16::ms_since(k0) / 1000);
  std::fflush(stdout);
  const std::shared_ptr<const cs::PceMatrices> m = in.pce.get();
  bool ok = true;
  for (int rep = 0; rep < 2; ++rep) {
    GpuProveOptions po;
    po.pce = m.get();
    po.key_id = "porep-product";
    groth16::Proof<E> proof;
    GpuProveTimings t;
    const auto p0 = std::chrono::steady_clock::now();
    const GpuResult res = prove_gpu(pk, w, E::Fr::random(rng), E::Fr::random(rng), &proof, &t, po);
    const double ms = g16::ms_since(p0);
    KeyCacheStats st{};
    (void)key_cache_stats(0, &st);
    char note[640];
    std::snprintf(note, sizeof note, "prove_gpu on a host key, %s | %s | cache %llu MiB of budget %llu MiB",
                  res.ok() ? (rep == 0 ? "first (key and matrices uploaded)" : "warm") : res.message.c_str(),
                  phase_note(t).c_str(), (unsigned long long)(st.resident_bytes >> 20),
                  (unsigned long long)(st.budget_bytes >> 20));
    rows.push_back({"porep_product", E::kName, int(in.lg), float(ms), float(ms), note});
    std::printf("porep_product %s 2^%u total %.1f ms  %s\n", E::kName, in.lg, ms, note);
    std::fflush(stdout);
    ok = ok && res.ok();
  }
  return ok;
}

template <class E>
bool porep_on_device(const GpuBenchOptions& o, PorepWitnesses<E>& in, std::mt19937_64& rng, std::vector<Row>& rows) {
  using G = curve::G1Device<E>;
  using G2 = curve::G2Device<E>;
  const bool real = in.real;
  const int parts = in.parts;
  const uint32_t lg = in.lg;
  const groth16::KeyMeta& meta = in.meta;
  const auto forced = forced_runs(o.porep_accumulate);
  // The key's H basis (the tiled points read as either); partition 0 runs once more in each other
  // basis of --h-basis (its H differs, the other parts must not).
  const auto bases = h_bases(o.h_basis);
  const uint64_t n = uint64_t(1) << lg;
  const uint64_t n_vars = real ? meta.n_inputs + meta.n_aux : n;
  const uint64_t n_aux = real ? meta.n_aux : n - 2;

  // The key, made on the device while the host synthesizes. G1 and G2 together when they fit
  // beside the proof's scratch (B_G2 then runs inside gpu_parts, sharing the digit sort), else
  // one after the other (the G1 key is rebuilt per partition: a tiling pass, timed apart).
  g16::ContextLease lease = g16::acquire_context(0);
  g16::DeviceContext& ctx = *lease.ctx;
  const cudaStream_t st = ctx.compute.get();
  const auto k0 = std::chrono::steady_clock::now();
  auto base = distinct_points<E, G>(E::G1::generator().to_affine(), rng, st, "porep distinct G1 points");
  auto base2 = distinct_points<E, G2>(E::G2::generator().to_affine(), rng, st, "porep distinct G2 points");
  DeviceBuffer<typename G::Affine> ka, kb, kl, kh;
  DeviceBuffer<typename G2::Affine> kb2;
  auto make_g1 = [&] {
    ka.reserve(n_vars, "porep key A"), kb.reserve(n_vars, "porep key B_G1");
    kl.reserve(n_aux, "porep key L"), kh.reserve(n, "porep key H");
    uint64_t off = 1;
    for (auto* buf : {&ka, &kb, &kl, &kh}) tile_into(*buf, base, off += 77777, st);
    ZK_CUDA_OK(cudaStreamSynchronize(st));
  };
  auto free_g1 = [&] {
    for (auto* buf : {&ka, &kb, &kl, &kh}) *buf = DeviceBuffer<typename G::Affine>();
  };
  auto make_g2 = [&] {
    kb2.reserve(n_vars, "porep key B_G2");
    tile_into(kb2, base2, 7, st);
    ZK_CUDA_OK(cudaStreamSynchronize(st));
  };
  make_g1();
  bool together = true;
  try {
    make_g2();
  } catch (const DeviceAllocError&) {
    together = false;
  }
  const double key_ms = g16::ms_since(k0);
  std::printf("porep %s: device key (synthetic, tiled, H basis %s) made in %.0f ms, G1 and G2 %s\n", E::kName,
              groth16::h_basis_name(bases[0]), key_ms,
              together ? "resident together" : "one after the other (both do not fit)");
  std::fflush(stdout);

  // Witness-only bundles: the circuit's matrices resident beside the key, uploaded once (as a
  // prove worker's key cache holds them). When they do not fit beside both keys, the G2 key goes.
  std::unique_ptr<g16::PceEntry<pce::DeviceFr<typename E::Fr>>> pce_entry;
  // What did not fit beside both keys (the matrices, the proof's scratch) makes room by dropping
  // the G2 key: B_G2 then runs apart, after the G1 MSMs, on a re-tiled key.
  auto drop_g2_key = [&](const char* what) {
    std::printf("porep: %s not fit beside both keys; G2 key dropped, B_G2 split off\n", what);
    together = false;
    kb2 = DeviceBuffer<typename G2::Affine>();
  };
  auto upload_matrices = [&] {
    const std::shared_ptr<const cs::PceMatrices> m = in.pce.get();
    const auto u0 = std::chrono::steady_clock::now();
    try {
      pce_entry = g16::upload_pce<typename E::Fr>(ctx, *m, g16::pce_cache_id(E::kName, *m));
    } catch (const DeviceAllocError& e) {
      if (!together) throw;
      std::printf("porep: %s\n", e.what());
      drop_g2_key("the PCE matrices do");
      pce_entry = g16::upload_pce<typename E::Fr>(ctx, *m, g16::pce_cache_id(E::kName, *m));
    }
    std::printf("porep %s: PCE matrices uploaded in %.0f ms (%.1f GiB resident)\n", E::kName, g16::ms_since(u0),
                double(pce_entry->bytes) / double(1 << 30));
    std::fflush(stdout);
  };

  // --porep-product: partition 0's bundle is kept for prove_gpu on a host key after the rows.
  const bool product = o.porep_product && real && in.pce.valid();
  cs::WitnessBundle kept;
  bool ok = true;
  double gpu_sum = 0, synth_sum = 0, first_ready_ms = 0;
  std::vector<float> gpu_ms;
  g16::GpuParts<E> first;
  for (int i = 0; i < parts; ++i) {
    double synth_ms = in.synthetic_ms;
    cs::WitnessBundle owned;
    if (real) std::tie(owned, synth_ms) = in.pipeline->take(i);
    const cs::WitnessBundle& w = real ? owned : in.synthetic;
    if (i == 0) first_ready_ms = g16::ms_since(in.job0);
    if (real && in.pce.valid() && !pce_entry) upload_matrices();
    // The first partition twice: the second run is warm, and both must agree (determinism);
    // then once per forced accumulation (same parts again: every MSM is exact either way).
    const int reps = i == 0 ? 1 + int(forced.size() + bases.size()) : 1;
    for (int rep = 0; rep < reps; ++rep) {
      const int basis_at = i == 0 ? std::max(0, rep - 1 - int(forced.size())) : 0;  // > 0: an extra run
      const bool is_forced = i == 0 && rep >= 2 && basis_at == 0;
      const ForcedRun acc =
          is_forced ? forced[size_t(rep - 2)] : ForcedRun{"", MsmAccumulation::kAuto, MsmAccumulation::kAuto};
      auto set_acc = [&] {
        auto& cs = ctx.state<G>();
        cs.msm.set_accumulation(acc.windows);
        cs.msm.set_ones_accumulation(acc.ones);
        cs.msm2.set_accumulation(acc.windows);
        cs.msm2.set_ones_accumulation(acc.ones);
      };
      set_acc();
      GpuProveTimings t;
      double regen_ms = 0, b2_ms = 0, sort_ms = 0;
      if (!together && ka.size() == 0) {
        const auto r0 = std::chrono::steady_clock::now();
        make_g1();
        regen_ms = g16::ms_since(r0);
      }
      const auto p0 = std::chrono::steady_clock::now();
      g16::DeviceKeyView<G> view{ka.get(), kb.get(), kl.get(), kh.get(), n_vars, n_aux, n};
      if (together) view.b2 = kb2.get();
      g16::GpuParts<E> p;
      const auto plan = g16::QuotientPlan<typename E::Fr>::native(bases[size_t(basis_at)]);
      const auto matrices = pce_entry ? std::optional(pce_entry->view()) : std::nullopt;
      const auto* mv = matrices ? &*matrices : nullptr;
      try {
        p = g16::gpu_parts<E>(ctx, view, w, lg, t, plan, h_placement(GpuHPlacement::kDefault), mv);
      } catch (const DeviceAllocError& e) {
        if (!together) throw;
        std::printf("porep: %s\n", e.what());
        drop_g2_key("the proof's scratch does");
        ctx.drop_scratch();
        set_acc();
        view.b2 = nullptr;
        p = g16::gpu_parts<E>(ctx, view, w, lg, t, plan, h_placement(GpuHPlacement::kDefault), mv);
      }
      double total = g16::ms_since(p0);
      if (!together) {
        // B_G2 on its own key: the scalars z are still on the device; the G1 key makes room.
        free_g1();
        const auto r0 = std::chrono::steady_clock::now();
        make_g2();
        regen_ms += g16::ms_since(r0);
        const auto b0 = std::chrono::steady_clock::now();
        auto& cst = ctx.state<G>();
        cst.msm.prepare(cst.z.get(), n_vars);  // inside a proof this sort is shared with A and B_G1
        sort_ms = g16::ms_since(b0);
        p.b2 = cst.msm2.sum(kb2.get());
        p.has_b2 = true;
        b2_ms = g16::ms_since(b0) - sort_ms;
        t.msm_b_g2_ms = b2_ms;
        total += b2_ms;  // the sort is not counted twice
        kb2 = DeviceBuffer<typename G2::Affine>();
      }
      t.total_ms = total;
      t.key_cache_hit = true;
      t.g2_on_gpu = true;
      bool same = true;
      if (i == 0 && rep == 0) first = p;
      if (i == 0 && rep >= 1)
        same = p.a == first.a && p.b1 == first.b1 && p.b2 == first.b2 && p.l == first.l &&
               (basis_at > 0 || p.h == first.h);
      ok = ok && same;
      if (!(i == 0 && rep == 0) && !is_forced && basis_at == 0) gpu_sum += total, gpu_ms.push_back(float(total));
      if (rep == 0) synth_sum += synth_ms;
      const std::string how = is_forced ? " (forced " + acc.name + ")"
                              : basis_at > 0
                                  ? std::string(" (H basis ") + groth16::h_basis_name(bases[size_t(basis_at)]) + ")"
                                  : "";
      char note[640];
      std::snprintf(
          note, sizeof note, "%s%s partition %d%s%s | %s | host synth %.1f s%s",
          same ? "" : "WRONG (differs from the first run) ", real ? "real witness," : "synthetic witness,", i,
          rep == 0 && i == 0 ? " (first run)" : "", how.c_str(), phase_note(t).c_str(), synth_ms / 1000,
          together
              ? ""
              : (" | split: B_G2 apart, key re-tiling " + std::to_string(int(regen_ms)) + " ms not counted").c_str());
      rows.push_back({real ? "porep_real" : "porep_gpu", E::kName, int(lg), float(total), float(total), note});
      std::printf("%s %s 2^%u total %.1f ms  %s\n", rows.back().op.c_str(), E::kName, lg, total, note);
      std::fflush(stdout);
    }
    ctx.state<G>().msm.set_accumulation(MsmAccumulation::kAuto);
    ctx.state<G>().msm2.set_accumulation(MsmAccumulation::kAuto);
    if (real) {
      if (product && i == 0) kept = std::move(owned);
      owned = cs::WitnessBundle();
      in.pipeline->release();
    }
  }
  const double wall_ms = g16::ms_since(in.job0);
  if (real) {
    char note[400];
    std::snprintf(note, sizeof note,
                  "%d partitions: wall %.1f s from the first synthesis to the last proof (first bundle ready at "
                  "%.1f s); GPU %.1f s in all, %.2f s per partition (median %.2f); host synthesis %.1f s per "
                  "partition; device key %.1f s",
                  parts, wall_ms / 1000, first_ready_ms / 1000, gpu_sum / 1000, gpu_sum / 1000 / double(gpu_ms.size()),
                  median(gpu_ms) / 1000, synth_sum / 1000 / parts, key_ms / 1000);
    rows.push_back({"porep_job", E::kName, int(lg), float(wall_ms), float(wall_ms), note});
    std::printf("porep_job %s 2^%u  %s\n", E::kName, lg, note);
  }
  free_g1();
  kb2 = DeviceBuffer<typename G2::Affine>();
  pce_entry.reset();
  ctx.drop_scratch();  // the next curve's row (or the product path's key) starts from an empty card
  lease.lock.unlock();
  if (product) ok = porep_product<E>(in, kept, bases[0], rng, rows) && ok;
  (void)release_gpu_context(0);
  return ok;
}

}  // namespace

bool bench_porep(const GpuBenchOptions& o, bool bn254, bool bls12_381, std::vector<Row>& rows) {
  using Bn = curves::Bn254;
  using Bls = curves::Bls12381;
  std::mt19937_64 rng(27);
  // Both curves' witnesses first (real ones synthesize on host threads meanwhile), then each
  // curve's device side in turn: BLS12-381 first, as the row has always run.
  std::optional<PorepWitnesses<Bls>> bls;
  std::optional<PorepWitnesses<Bn>> bn;
  if (bls12_381) bls.emplace(o, rng);
  if (bn254) bn.emplace(o, rng);
  bool ok = true;
  if (bls) ok = porep_on_device<Bls>(o, *bls, rng, rows) && ok;
  if (bn) ok = porep_on_device<Bn>(o, *bn, rng, rows) && ok;
  return ok;
}

}  // namespace zkmill::cuda::bench
