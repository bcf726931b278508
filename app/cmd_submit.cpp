// SPDX-License-Identifier: MIT
// `zkmill submit --key KEYFILE --partitions N [...] [--wait]` (a native key's built-in circuit;
// `--circuit ID` instead of `--key` for one the farm has registered: no key file read or hashed)
// or `zkmill submit --zkey FILE --witness W1.wtns [--witness W2.wtns ...] [...]` (a snarkjs
// circuit, one partition per witness): submits a job to the farm (through Redis) and prints
// its id; the same --idempotency-key gives the same job, and is refused for other parameters.
// Warns on stderr when no live worker serves the job's circuit (the job would wait silently).
// zkmill-cli-links: zk_coordinator
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "app/command.hpp"
#include "coordinator/farm_client.hpp"

namespace zkmill::cli {
namespace {

struct SubmitOptions {
  std::string config;
  farm::SubmitRequest req;
  bool wait = false;
  uint64_t timeout_s = 0;
};

RunFn setup_submit(CLI::App& sub) {
  auto o = std::make_shared<SubmitOptions>();
  sub.add_option("--config", o->config, "Client config (redis section; docs/config.md)")->check(CLI::ExistingFile);
  auto* key = sub.add_option("--key", o->req.key_path, "Native proving key; the circuit is its SHA-256")
                  ->check(CLI::ExistingFile);
  auto* zkey = sub.add_option("--zkey", o->req.zkey_path,
                              "snarkjs Groth16 key (.zkey); the circuit is its SHA-256. Workers need the same file "
                              "in their worker.key_dir")
                   ->check(CLI::ExistingFile)
                   ->excludes(key);
  auto* wtns = sub.add_option("--witness", o->req.witness_paths,
                              "With --zkey: a .wtns (snarkjs wtns calculate); repeat it, one partition per witness")
                   ->check(CLI::ExistingFile)
                   ->needs(zkey);
  zkey->needs(wtns);
  auto* circuit = sub.add_option("--circuit", o->req.circuit_id,
                                 "Instead of --key: the id (the key file's SHA-256) of a native circuit an earlier "
                                 "--key submit registered; nothing is read or hashed here (a PoRep key is ~72 GiB)")
                      ->excludes(key)
                      ->excludes(zkey);
  auto* parts = sub.add_option("--partitions", o->req.partitions, "With --key or --circuit: number of partitions")
                    ->transform(decimal_u64("--partitions"))
                    ->excludes(zkey);
  key->needs(parts);
  circuit->needs(parts);
  sub.add_option("--seed", o->req.seed,
                 "With --key or --circuit: seed of the built-in circuit's private inputs (0 .. 2^64 - 1)")
      ->capture_default_str()
      ->transform(decimal_u64("--seed"))
      ->excludes(zkey);
  sub.add_option("--priority", o->req.priority, "Higher runs first (FIFO within a priority)")->capture_default_str();
  sub.add_option("--idempotency-key", o->req.idempotency_key,
                 "Resubmitting with the same key and parameters returns the same job; other parameters (circuit, "
                 "partitions, seed, witnesses) are refused (exit 1)");
  sub.add_option("--deadline", o->req.deadline_s, "Fail the job if not done within this many seconds");
  sub.add_flag("--wait", o->wait, "Wait for the job (as `zkmill wait`)");
  sub.add_option("--timeout", o->timeout_s, "With --wait: give up after this many seconds (exit 2)");
  return [o](const Context& ctx) {
    if (o->req.key_path.empty() && o->req.zkey_path.empty() && o->req.circuit_id.empty()) {
      std::fprintf(stderr,
                   "zkmill: error: submit needs --key KEYFILE (or --circuit ID) --partitions N, or --zkey FILE "
                   "--witness W.wtns\n");
      return 2;
    }
    auto cfg = farm::load_command_config(o->config.empty() ? ctx.config_path : o->config,
                                         ctx.log_level == ctx.config.log.level ? "" : ctx.log_level);
    o->req.max_witness_bytes = uint64_t(cfg.coordinator.max_witness_mb) << 20;
    farm::FarmClient client(cfg.redis);
    auto [id, created] = client.submit(o->req);
    std::printf("%s\n", id.c_str());
    std::fflush(stdout);
    if (!created) std::fprintf(stderr, "submit: idempotency key already used: existing job %s\n", id.c_str());
    // A job no live worker serves would wait silently; say so now. The coordinator republishes
    // its worker table once per heartbeat, so a worker that registered a moment ago may not be
    // in it yet: one second's grace before warning.
    const auto st = client.status(id);
    if (!st.is_null() && !st.value("warning", std::string()).empty()) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const std::string w = client.coverage_warning(st["circuit"].get<std::string>());
      if (!w.empty()) std::fprintf(stderr, "zkmill: warning: job %s: %s\n", id.c_str(), w.c_str());
    }
    return o->wait ? client.wait(id, o->timeout_s, false) : 0;
  };
}

const RegisterCommand kSubmit{"submit", "Submit a proving job to the farm", setup_submit};

}  // namespace
}  // namespace zkmill::cli
