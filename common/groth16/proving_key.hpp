// SPDX-License-Identifier: MIT
// Typed Groth16 keys over a curve E (curves::Bn254 / curves::Bls12381): the verifying key,
// and the proving key as spans that point either into a memory-mapped key file (read in
// place, never copied whole) or into vectors owned by the key (fresh from setup).
#pragma once

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/groth16/key_file.hpp"

namespace zkmill::groth16 {

// Which basis a native key's H points are in, i.e. which scalars the prover pairs them with
// (docs/formats.md). n = 2^domain_log2, w the domain's root of unity, g = Fr::generator(),
// Z(X) = X^n - 1, h = (A B - C) / Z the Groth16 quotient (deg h <= n - 2):
//   kMonomial (keys written before the field existed, "monomial"): H_i = tau^i Z(tau) / delta,
//     scalars the n - 1 coefficients of h (three NTTs to the coset g<w>, then the inverse coset
//     NTT back to coefficients);
//   kCosetLagrange ("coset_lagrange"): H_i = L_i(tau) Z(tau) / (delta (g^n - 1)) with L_i the
//     Lagrange basis of the coset x_i = g w^i, scalars the n values (A B - C)(x_i) (no division
//     and no seventh NTT: sum_i (A B - C)(x_i) H_i = sum_i h(x_i) L_i(tau) Z(tau)/delta =
//     h(tau) Z(tau)/delta, since Z(x_i) = g^n - 1 on the whole coset and deg h < n).
enum class HBasis { kMonomial, kCosetLagrange };

inline const char* h_basis_name(HBasis b) { return b == HBasis::kMonomial ? "monomial" : "coset_lagrange"; }
inline SectionId h_section(HBasis b) { return b == HBasis::kMonomial ? SectionId::H : SectionId::HCosetLagrange; }

// What the key was made for; stored as JSON in the Meta section.
struct KeyMeta {
  std::string circuit;         // built-in circuit name ("chain", "merkle", "porep")
  uint64_t size = 0;           // the --size it was made with
  uint64_t n_inputs = 0;       // public inputs including the constant ONE
  uint64_t n_aux = 0;          // private variables
  uint64_t n_constraints = 0;  // R1CS rows including the input rows
  uint32_t domain_log2 = 0;
  std::string created_by;
  // What setup writes; a key file without the field predates it and is monomial.
  HBasis h_basis = HBasis::kCosetLagrange;

  nlohmann::json to_json() const {
    return {{"circuit", circuit},
            {"size", size},
            {"n_inputs", n_inputs},
            {"n_aux", n_aux},
            {"n_constraints", n_constraints},
            {"domain_log2", domain_log2},
            {"created_by", created_by},
            {"h_basis", h_basis_name(h_basis)}};
  }
  static KeyMeta from_json(const nlohmann::json& j) {
    KeyMeta m;
    m.circuit = j.at("circuit").get<std::string>();
    m.size = j.at("size").get<uint64_t>();
    m.n_inputs = j.at("n_inputs").get<uint64_t>();
    m.n_aux = j.at("n_aux").get<uint64_t>();
    m.n_constraints = j.at("n_constraints").get<uint64_t>();
    m.domain_log2 = j.at("domain_log2").get<uint32_t>();
    m.created_by = j.value("created_by", "");
    const std::string basis = j.value("h_basis", "monomial");
    if (basis == "monomial")
      m.h_basis = HBasis::kMonomial;
    else if (basis == "coset_lagrange")
      m.h_basis = HBasis::kCosetLagrange;
    else
      throw std::invalid_argument("unknown h_basis \"" + basis +
                                  "\" (this build knows \"monomial\" and \"coset_lagrange\")");
    return m;
  }
};

template <class E>
struct VerifyingKey {
  using G1A = typename E::G1Affine;
  using G2A = typename E::G2Affine;
  G1A alpha_g1, beta_g1, delta_g1;
  G2A beta_g2, gamma_g2, delta_g2;
  std::vector<G1A> ic;  // one per public input, ic[0] for the constant ONE
};

template <class E>
class ProvingKey {
 public:
  using G1A = typename E::G1Affine;
  using G2A = typename E::G2Affine;
  // Points are stored in the file exactly as these in-memory structs (Montgomery limbs,
  // then the infinity flag byte, then zero padding), so a mapped section is a valid array.
  static_assert(std::is_trivially_copyable_v<G1A> && std::is_standard_layout_v<G1A>);
  static_assert(std::is_trivially_copyable_v<G2A> && std::is_standard_layout_v<G2A>);

  KeyMeta meta;
  VerifyingKey<E> vk;
  std::span<const G1A> a, b_g1, l, h;
  std::span<const G2A> b_g2;

  // Fresh key from setup: takes ownership of the vectors.
  ProvingKey(KeyMeta m, VerifyingKey<E> v, std::vector<G1A> a_, std::vector<G1A> b1_, std::vector<G2A> b2_,
             std::vector<G1A> l_, std::vector<G1A> h_)
      : meta(std::move(m)), vk(std::move(v)), owned_(std::make_shared<Owned>()) {
    owned_->a = std::move(a_);
    owned_->b1 = std::move(b1_);
    owned_->b2 = std::move(b2_);
    owned_->l = std::move(l_);
    owned_->h = std::move(h_);
    a = owned_->a;
    b_g1 = owned_->b1;
    b_g2 = owned_->b2;
    l = owned_->l;
    h = owned_->h;
  }

  // Maps a key file; validates header, curve, section sizes against the metadata and
  // every point's flag byte (so no invalid bool is ever read). Throws KeyFileError.
  static ProvingKey open(const std::string& path) {
    auto reader = std::make_shared<KeyFileReader>(path, E::kId);
    uint64_t n = 0;
    auto meta_bytes = reader->section(SectionId::Meta, 1, &n);
    KeyMeta meta;
    try {
      meta = KeyMeta::from_json(nlohmann::json::parse(meta_bytes.begin(), meta_bytes.end()));
    } catch (const std::exception& e) {
      throw KeyFileError(path + ": bad metadata section: " + e.what());
    }
    return ProvingKey(std::move(meta), VerifyingKey<E>{}, std::move(reader));
  }

  // Writes the key file (atomically: temp file then rename).
  void write(const std::string& path) const {
    KeyFileWriter w(path, E::kId);
    std::string m = meta.to_json().dump();
    w.add_section(SectionId::Meta, 1, m.size(), {reinterpret_cast<const uint8_t*>(m.data()), m.size()});
    std::vector<uint8_t> vkb;
    append_points<G1A>(vkb, std::vector<G1A>{vk.alpha_g1, vk.beta_g1, vk.delta_g1});
    append_points<G2A>(vkb, std::vector<G2A>{vk.beta_g2, vk.gamma_g2, vk.delta_g2});
    w.add_section(SectionId::Vk, 1, vkb.size(), vkb);
    write_points<G1A>(w, SectionId::Ic, vk.ic);
    write_points<G1A>(w, SectionId::A, a);
    write_points<G1A>(w, SectionId::BG1, b_g1);
    write_points<G2A>(w, SectionId::BG2, b_g2);
    write_points<G1A>(w, SectionId::L, l);
    write_points<G1A>(w, h_section(meta.h_basis), h);
    w.finish();
  }

 private:
  struct Owned {
    std::vector<G1A> a, b1, l, h;
    std::vector<G2A> b2;
  };

  ProvingKey(KeyMeta m, VerifyingKey<E> v, std::shared_ptr<KeyFileReader> reader)
      : meta(std::move(m)), vk(std::move(v)), reader_(std::move(reader)) {
    const std::string& path = reader_->path();
    auto vk_bytes = reader_->section(SectionId::Vk, 1, nullptr);
    if (vk_bytes.size() != 3 * sizeof(G1A) + 3 * sizeof(G2A))
      throw KeyFileError(path + ": verifying-key section has the wrong size");
    auto g1 = checked<G1A>(vk_bytes.subspan(0, 3 * sizeof(G1A)), 3, path, "vk");
    auto g2 = checked<G2A>(vk_bytes.subspan(3 * sizeof(G1A)), 3, path, "vk");
    vk.alpha_g1 = g1[0];
    vk.beta_g1 = g1[1];
    vk.delta_g1 = g1[2];
    vk.beta_g2 = g2[0];
    vk.gamma_g2 = g2[1];
    vk.delta_g2 = g2[2];
    auto ic = section_points<G1A>(SectionId::Ic, meta.n_inputs, "IC");
    vk.ic.assign(ic.begin(), ic.end());
    uint64_t nvars = meta.n_inputs + meta.n_aux;
    a = section_points<G1A>(SectionId::A, nvars, "A");
    b_g1 = section_points<G1A>(SectionId::BG1, nvars, "B_G1");
    b_g2 = section_points<G2A>(SectionId::BG2, nvars, "B_G2");
    l = section_points<G1A>(SectionId::L, meta.n_aux, "L");
    h = section_points<G1A>(h_section(meta.h_basis), uint64_t(1) << meta.domain_log2, "H");
  }

  template <class P>
  std::span<const P> section_points(SectionId id, uint64_t expected, const char* what) const {
    uint64_t n = 0;
    auto bytes = reader_->section(id, sizeof(P), &n);
    if (n != expected)
      throw KeyFileError(reader_->path() + ": section " + what + " has " + std::to_string(n) +
                         " points, metadata says " + std::to_string(expected));
    return checked<P>(bytes, n, reader_->path(), what);
  }

  // The infinity flag must be 0 or 1 before the bytes are viewed as structs.
  template <class P>
  static std::span<const P> checked(std::span<const uint8_t> bytes, uint64_t n, const std::string& path,
                                    const char* what) {
    constexpr size_t flag_at = offsetof(P, infinity);
    for (uint64_t i = 0; i < n; ++i) {
      uint8_t f = bytes[i * sizeof(P) + flag_at];
      if (f > 1) throw KeyFileError(path + ": corrupt point " + std::to_string(i) + " in section " + what);
    }
    return {reinterpret_cast<const P*>(bytes.data()), size_t(n)};
  }

  template <class P>
  static void append_points(std::vector<uint8_t>& out, std::span<const P> pts) {
    size_t at = out.size();
    out.resize(at + pts.size() * sizeof(P), 0);
    for (size_t i = 0; i < pts.size(); ++i) {
      // Copy field by field so padding bytes stay zero (deterministic files).
      uint8_t* d = out.data() + at + i * sizeof(P);
      std::memcpy(d + offsetof(P, x), &pts[i].x, sizeof(pts[i].x));
      std::memcpy(d + offsetof(P, y), &pts[i].y, sizeof(pts[i].y));
      d[offsetof(P, infinity)] = pts[i].infinity ? 1 : 0;
    }
  }
  template <class P>
  static void append_points(std::vector<uint8_t>& out, const std::vector<P>& pts) {
    append_points<P>(out, std::span<const P>(pts));
  }
  template <class P>
  static void write_points(KeyFileWriter& w, SectionId id, std::span<const P> pts) {
    std::vector<uint8_t> buf;
    append_points<P>(buf, pts);
    w.add_section(id, sizeof(P), pts.size(), buf);
  }
  template <class P>
  static void write_points(KeyFileWriter& w, SectionId id, const std::vector<P>& pts) {
    write_points<P>(w, id, std::span<const P>(pts));
  }

  std::shared_ptr<KeyFileReader> reader_;  // keeps the mapping alive for mapped keys
  std::shared_ptr<Owned> owned_;           // owns the points of keys made in memory
};

}  // namespace zkmill::groth16
