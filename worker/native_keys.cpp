// SPDX-License-Identifier: MIT
// NativeKeys (see native_keys.hpp): open once per key file and circuit id.
#include "worker/native_keys.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>

#include "farm/sha256.hpp"

namespace zkmill::farm {

template <class E>
std::shared_ptr<const groth16::ProvingKey<E>> NativeKeys::open(const KeyDirectory::Key& key) {
  if (key.format != KeyDirectory::Format::Native)
    throw std::invalid_argument(key.path + " is not a native zkmill proving key");
  if (key.curve != E::kId)
    throw std::invalid_argument(key.path + " is a " + curve_name(key.curve) + " key, asked for as " + E::kName);
  std::lock_guard lock(mu_);
  if (auto it = open_.find(key.path);
      it != open_.end() && it->second.digest == key.digest && it->second.curve == E::kId)
    return std::static_pointer_cast<const groth16::ProvingKey<E>>(it->second.key);
  const auto t0 = std::chrono::steady_clock::now();
  auto pk = std::make_shared<const groth16::ProvingKey<E>>(groth16::ProvingKey<E>::open(key.path));
  spdlog::info("worker: opened proving key {} (circuit {}, {} constraints, {:.1f} ms)", key.path,
               Sha256::hex(key.digest).substr(0, 16), pk->meta.n_constraints,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  open_[key.path] = Entry{key.digest, E::kId, pk};
  return pk;
}

void NativeKeys::retain(const KeyDirectory& dir) {
  std::lock_guard lock(mu_);
  std::erase_if(open_, [&](const auto& kv) {
    const KeyDirectory::Key* k = dir.find(Sha256::hex(kv.second.digest));
    return k == nullptr || k->path != kv.first;
  });
}

size_t NativeKeys::size() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

template std::shared_ptr<const groth16::ProvingKey<curves::Bn254>> NativeKeys::open<curves::Bn254>(
    const KeyDirectory::Key&);
template std::shared_ptr<const groth16::ProvingKey<curves::Bls12381>> NativeKeys::open<curves::Bls12381>(
    const KeyDirectory::Key&);

}  // namespace zkmill::farm
