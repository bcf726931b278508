// SPDX-License-Identifier: MIT
// A Groth16 proof (Groth, "On the Size of Pairing-based Non-interactive Arguments",
// EUROCRYPT 2016): pi = (A in G1, B in G2, C in G1).
#pragma once

namespace zkmill::groth16 {

template <class E>
struct Proof {
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
  friend bool operator==(const Proof& x, const Proof& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
};

}  // namespace zkmill::groth16
