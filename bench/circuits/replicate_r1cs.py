#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""replicate_r1cs.py IN.r1cs COPIES OUT.r1cs: COPIES independent copies of a circom circuit in
one .r1cs, for setup benchmarks at sizes circom takes too long to compile on the dev box (the
wasm circom needed 2 minutes for the 2-block SHA-256 of sha256_512.circom). Copy 0 is IN as is
(its public signals stay public); copy c >= 1 renumbers every wire w >= 1 to
nWires + (c - 1) (nWires - 1) + w - 1, private, and shares wire 0 (ONE). The constraints, and so
their coefficients (1, -1, powers of two for SHA-256), are IN's, repeated: 8 copies of
sha256_512.r1cs (62,528 constraints) make the ~500k-constraint circuit of docs/benchmarks.md.
The result is a valid r1cs that snarkjs and zkmill read alike; it has no witness generator."""
import struct
import sys


def sections(data):
    n = struct.unpack_from("<I", data, 8)[0]
    pos, out = 12, {}
    for _ in range(n):
        t, size = struct.unpack_from("<IQ", data, pos)
        pos += 12
        out[t] = data[pos:pos + size]
        pos += size
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    copies = int(sys.argv[2])
    if data[:4] != b"r1cs" or copies < 1:
        sys.exit("not an .r1cs file, or COPIES < 1")
    sec = sections(data)
    hd = sec[1]
    n8 = struct.unpack_from("<I", hd, 0)[0]
    n_wires, n_out, n_in, n_prv, n_labels, n_cons = struct.unpack_from("<IIIIQI", hd, 4 + n8)
    cons = sec[2]
    # Split the constraints section into its terms once: (offset of each wire index).
    wire_at = []
    pos = 0
    for _ in range(n_cons):
        for _ in range(3):
            terms = struct.unpack_from("<I", cons, pos)[0]
            pos += 4
            for _ in range(terms):
                wire_at.append(pos)
                pos += 4 + n8
    assert pos == len(cons)
    out_cons = [cons]
    for c in range(1, copies):
        base = n_wires + (c - 1) * (n_wires - 1) - 1
        b = bytearray(cons)
        for at in wire_at:
            w = struct.unpack_from("<I", b, at)[0]
            if w:
                struct.pack_into("<I", b, at, base + w)
        out_cons.append(bytes(b))
    total_wires = n_wires + (copies - 1) * (n_wires - 1)
    header = hd[:4 + n8] + struct.pack("<IIIIQI", total_wires, n_out, n_in, n_prv,
                                       n_labels * copies, n_cons * copies)
    labels = bytearray(sec[3])
    for c in range(1, copies):
        for w in range(1, n_wires):
            labels += struct.pack("<Q", n_labels * c + struct.unpack_from("<Q", sec[3], 8 * w)[0])
    body = [(1, header), (2, b"".join(out_cons)), (3, bytes(labels))]
    with open(sys.argv[3], "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, len(body)))
        for t, payload in body:
            f.write(struct.pack("<IQ", t, len(payload)))
            f.write(payload)


if __name__ == "__main__":
    main()
