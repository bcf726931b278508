// SPDX-License-Identifier: MIT
// Worker, the tasks themselves: a synth claim (the partition's witness, by PCE unless that
// fails, then its bundle published) and a prove claim (the bundle taken from this worker's own
// server or fetched, checked against the coordinator's statement, a, b, c expanded for a
// witness-only bundle, then proved on a proving slot). The event loop that starts the tasks
// and reports their results is worker.cpp.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stop_token>
#include <thread>

#include "common/cs/witness_expand.hpp"
#include "common/curves/dispatch.hpp"
#include "common/groth16/builtin.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/snarkjs_json.hpp"
#include "common/util/cancellation.hpp"
#include "common/wire/bundle_fetch.hpp"
#include "farm/cache_dir.hpp"
#include "farm/clock.hpp"
#include "farm/log_text.hpp"
#include "farm/sha256.hpp"
#include "worker/worker.hpp"

namespace zkmill::farm {

template <class E>
std::shared_ptr<const cs::PceMatrices> Worker::pce_for(const KeyDirectory::Key& key, const groth16::KeyMeta& meta) {
  const std::string& key_path = key.path;
  std::lock_guard lock(pce_mu_);
  if (auto it = pce_.find(key_path); it != pce_.end()) return it->second;
  const std::string path = key_path + ".pce";
  // Where the key's directory cannot take the file (read-only under systemd), the cache
  // directory does, named by the circuit id: recorded once per host, not at every start.
  const std::string cache = default_cache_dir();
  const std::string fallback = cache.empty() ? std::string() : cache + "/pce/" + Sha256::hex(key.digest) + ".pce";
  const bool existed = std::filesystem::exists(path);
  const auto t0 = std::chrono::steady_clock::now();
  std::string why, used;
  bool recorded = false;
  auto m = std::make_shared<const cs::PceMatrices>(groth16::load_or_build_pce<E>(
      path, meta, &why,
      [&](const std::string& reason) {
        recorded = true;
        spdlog::info(
            "worker {}: recording the PCE matrices of {} ({} constraints; {}): this once per key and "
            "host, about 1 s per million constraints on one core (130M on 16 cores: ~40 s); `zkmill setup` writes "
            "them beside a new key",
            id_, key_path, meta.n_constraints, reason);
      },
      fallback, &used));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (why.empty())
    spdlog::info("worker {}: PCE matrices {} opened ({:.1f} ms)", id_, path, ms);
  else if (!recorded)
    spdlog::info("worker {}: PCE matrices {} opened ({:.1f} ms; {})", id_, used, ms, why);
  else if (existed)
    spdlog::warn("worker {}: PCE file refused: {} ({:.1f} ms)", id_, why, ms);
  else
    spdlog::info("worker {}: PCE matrices recorded for {} ({}; {:.1f} ms)", id_, key_path,
                 used.empty() ? std::string("kept in memory: ") + why : "written to " + used, ms);
  spdlog::info("worker {}: PCE {}: {} rows, {} entries, {} MiB mapped, id {}", id_, used.empty() ? path : used,
               m->n_rows(), m->nnz(), m->image_bytes() >> 20, cs::short_hex(m->id()));
  pce_[key_path] = m;
  return m;
}

void Worker::forget_pce(const std::string& key_path) {
  std::lock_guard lock(pce_mu_);
  pce_.erase(key_path);
}

namespace {

// A bundle's statement (its public inputs without the constant ONE), as public.json writes it.
std::vector<std::string> bundle_statement(const cs::WitnessBundle& w) {
  return curves::with_curve(w.curve(), [&]<class E>(E) {
    std::vector<std::string> out;
    for (const auto& x : groth16::public_inputs<E>(w)) out.push_back(x.to_dec());
    return out;
  });
}

}  // namespace

ControlMessage Worker::run_synth(const Synth& s, const std::string& wtns, std::stop_token stop) {
  const uint64_t part = s.at.part;
  const KeyDirectory::Key* key = keys_.find(s.circuit);
  if (!key) throw std::runtime_error("worker " + id_ + " has no key for circuit " + s.circuit);
  const bool zkey = key->format == KeyDirectory::Format::Zkey;
  if (zkey != !wtns.empty())
    throw std::runtime_error(zkey ? "synth of a .zkey circuit came without its witness frame"
                                  : "synth of a native circuit came with a witness frame");
  auto t0 = std::chrono::steady_clock::now();
  auto bundle = zkey ? zkeys_.synthesize(*key, wtns, part) : curves::with_curve(key->curve, [&]<class E>(E) {
    const auto pk = native_keys_.open<E>(*key);
    if (cfg_.worker.pce) {
      // Precompiled constraint evaluation; any failure falls back to plain synthesis for this
      // task, and the key's matrices are opened (or rebuilt) afresh next time. A witness-only
      // bundle needs the witness pass alone (the prove worker computes a, b, c).
      try {
        const auto pce = pce_for<E>(*key, pk->meta);
        if (cfg_.worker.bundle_kind == "witness")
          return groth16::synthesize_builtin_witness<E>(*pce, pk->meta, s.seed, part, key->digest, nullptr,
                                                        util::ThreadPool::global(), stop);
        return groth16::synthesize_builtin_pce<E>(*pce, pk->meta, s.seed, part, key->digest, util::ThreadPool::global(),
                                                  nullptr, stop);
      } catch (const util::Cancelled&) {
        throw;
      } catch (const std::exception& e) {
        forget_pce(key->path);
        spdlog::warn("worker {}: PCE synthesis of {} failed ({}); synthesizing without it", id_, key->path, e.what());
      }
    }
    return groth16::synthesize_builtin<E>(pk->meta, s.seed, part, key->digest, stop);
  });
  // Not published when its job ended meanwhile: nothing would fetch it.
  util::throw_if_cancelled(stop, "synthesis");
  if (!zkey && cfg_.worker.bundle_kind == "witness" && bundle.kind() != cs::BundleKind::Witness)
    bundle = curves::with_curve(key->curve, [&]<class E>(E) {
      // Witness only: the prove worker recomputes a, b, c from the circuit's PCE matrices (the
      // same KEY.pce, named by its id), so only inputs and the (bit-packed) aux travel.
      using Fr = typename E::Fr;
      const auto pce = pce_for<E>(*key, native_keys_.open<E>(*key)->meta);
      return cs::WitnessBundle::pack_witness<Fr>(bundle.header(), pce->id(), bundle.template inputs<Fr>(),
                                                 bundle.template aux<Fr>());
    });
  const std::string bundle_key = s.at.job + "/" + std::to_string(part) + "/" + s.at.token;
  const uint64_t bytes = bundle.bytes().size();
  SynthDone done;
  done.at = s.at;
  done.bundle_key = bundle_key;
  done.public_inputs = bundle_statement(bundle);
  server_->publish(bundle_key, std::make_shared<const cs::WitnessBundle>(std::move(bundle)));
  const double synth_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("worker {}: {} partition {} synthesized ({} bytes, {:.1f} ms)", id_, s.at.job, part, bytes, synth_ms);
  // synth_ms and bundle_bytes are optional telemetry, for `zkmill status --json` and the metrics.
  done.synth_ms = synth_ms;
  done.bundle_bytes = bytes;
  return done;
}

ControlMessage Worker::run_prove(const Prove& p, Task& t) {
  const uint64_t part = p.at.part;
  const KeyDirectory::Key* key = keys_.find(p.circuit);
  if (!key) throw std::runtime_error("worker " + id_ + " has no key for circuit " + p.circuit);
  auto t0 = std::chrono::steady_clock::now();
  // A partition this worker synthesized itself (the coordinator prefers that for `both`
  // workers) is proved from the bundle its server publishes, not fetched from itself over
  // loopback TCP: no connection, handshake, chunking and checksums of bytes that never left
  // this process, and no copy (for a large bundle, seconds and its size in memory). The test
  // hook that corrupts a served chunk keeps the network path, which is what it tests.
  std::shared_ptr<const cs::WitnessBundle> local;
  if (server_ && p.bundle_endpoint == server_->endpoint() && !corrupt_once_.load()) local = server_->find(p.bundle_key);
  const std::stop_token stop = t.stop.get_token();
  cs::WitnessBundle fetched;  // the fetched bundle, or the expanded one below
  if (local) {
    ++local_bundles_;
  } else {
    wire::FetchOptions fo;
    fo.max_total_bytes = cfg_.worker.max_bundle_mb << 20;
    fo.timeout = std::chrono::milliseconds(10000);
    if (curve_) {
      if (!CurveKeys::is_z85_key(p.bundle_server_key))
        throw std::runtime_error("no CURVE public key for the bundle server at " + p.bundle_endpoint +
                                 " (its synth worker has not registered with this coordinator)");
      fo.curve = wire::CurveClientKeys{curve_->own, p.bundle_server_key};
    }
    fetched = wire::fetch_bundle(ctx_, p.bundle_endpoint, p.bundle_key, fo);
  }
  const cs::WitnessBundle* wp = local ? local.get() : &fetched;
  if (wp->header().circuit_id != key->digest || wp->header().partition != part || wp->curve() != key->curve)
    throw std::runtime_error("fetched bundle is for another circuit, curve or partition");
  // The statement is the coordinator's: a bundle of other public inputs (a synth worker's bug,
  // or a bundle server serving the wrong bundle) is not proved, and the partition is redone.
  const auto statement = bundle_statement(*wp);
  if (statement != p.public_inputs)
    throw std::runtime_error("fetched bundle's public inputs are not the partition's statement (the coordinator's)");
  double fetch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t fetched_bytes = wp->bytes().size();  // telemetry: the partition's bundle bytes
  double expand_ms = 0;
  std::shared_ptr<const cs::PceMatrices> device_pce;  // GPU: a, b, c computed on the device from these
  if (wp->kind() == cs::BundleKind::Witness) {
    // a, b, c from the circuit's PCE matrices (KEY.pce, opened or recorded once): on the GPU
    // (worker.gpu_pce: the matrices stay resident there), or on our CPU threads before taking
    // a proving slot, which overlaps the proofs running there.
    if (key->format != KeyDirectory::Format::Native)
      throw std::runtime_error("fetched a witness-only bundle for a .zkey circuit");
    const auto te = std::chrono::steady_clock::now();
    curves::with_curve(key->curve, [&]<class E>(E) {
      const auto pce = pce_for<E>(*key, native_keys_.open<E>(*key)->meta);
      try {
        if (gpu_ && cfg_.worker.gpu_pce) {
          cs::check_witness_for(*wp, *pce);
          device_pce = pce;
        } else {
          fetched = cs::expand_witness<typename E::Fr>(*wp, *pce);
          wp = &fetched;
        }
      } catch (const cs::BundleError&) {
        // Another PCE id: the partition is retried; the file is opened afresh then, in case it
        // was replaced meanwhile (a worker of the new circuit version rebuilt it).
        forget_pce(key->path);
        throw;
      }
    });
    expand_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - te).count();
  }
  // Fetched: wait for a proving slot (a device, or the CPU). Meanwhile our other tasks fetch,
  // which is the point of prefetching; the wait is not part of prove_ms.
  // Cancellation points (an `abort`: the job ended): before the wait for a slot, in it, and
  // after it; the CPU prover checks between its phases too. A GPU proof (seconds) and a zkey
  // proof run to the end.
  util::throw_if_cancelled(stop, "proof");
  t.stage = TaskStage::Prefetched;
  ProverPool::Lease slot = provers_->acquire(stop);
  t.stage = TaskStage::Proving;
  const auto t1 = std::chrono::steady_clock::now();
  // Test hooks: the slot held 3 s longer, or (once) until the task is aborted.
  if (const bool stuck = stuck_prove_once_.exchange(false); slow_prove_ || stuck) {
    std::mutex mu;
    std::unique_lock lock(mu);
    std::condition_variable_any().wait_for(lock, stop, std::chrono::seconds(stuck ? 600 : 3), [] { return false; });
  }
  util::throw_if_cancelled(stop, "proof");
  const int device = slot.device();
  nlohmann::json proof_json;
  std::string backend;
  if (key->format == KeyDirectory::Format::Zkey) {
    auto proved = zkeys_.prove(*key, p.circuit, *wp, bad_proof_once_.exchange(false), gpu_.get(), device);
    backend = proved.backend;
    proof_json = std::move(proved.proof);
  } else if (wp->kind() != cs::BundleKind::Native && !device_pce) {
    throw std::runtime_error(std::string("fetched bundle is of kind ") + cs::bundle_kind_name(wp->kind()) +
                             ", the circuit's key is a native key");
  } else {
    curves::with_curve(key->curve, [&]<class E>(E) {
      const auto pk = native_keys_.open<E>(*key);
      auto proof = gpu_ ? gpu_->prove(*pk, *wp, p.circuit, device, device_pce.get())
                        : groth16::prove<E>(*pk, *wp, util::ThreadPool::global(), nullptr, stop);
      backend = gpu_ ? "GPU " + std::to_string(device) : std::string("CPU");
      if (bad_proof_once_.exchange(false)) proof.c = proof.a;  // test hook: well-formed but wrong
      proof_json = groth16::snarkjs::proof_to_json<E>(proof);
    });
  }
  const auto t2 = std::chrono::steady_clock::now();
  const double prove_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  const double wait_ms =
      std::max(0.0, std::chrono::duration<double, std::milli>(t1 - t0).count() - fetch_ms - expand_ms);
  spdlog::info(
      "worker {}: {} partition {} proved on the {} ({} {:.1f} ms, expand {:.1f} ms, waited {:.1f} ms for "
      "a slot, prove {:.1f} ms, {} bytes fetched)",
      id_, p.at.job, part, backend, local ? "own bundle" : "fetch", fetch_ms, expand_ms, wait_ms, prove_ms,
      fetched_bytes);
  // fetch_ms, expand_ms (witness-only bundles: a, b, c computed here), slot_wait_ms, prove_ms
  // and bundle_bytes (the partition's wire bytes) are optional telemetry: `zkmill status JOB
  // --json` shows them per partition.
  ProveDone done;
  done.at = p.at;
  done.proof = std::move(proof_json);
  done.public_inputs = statement;
  done.fetch_ms = fetch_ms;
  done.expand_ms = expand_ms;
  done.prove_ms = prove_ms;
  done.slot_wait_ms = wait_ms;
  done.bundle_bytes = fetched_bytes;
  return done;
}

}  // namespace zkmill::farm
