// A small MiMC-style hash chain, x <- (x + k + c_i)^5 for 40 rounds, with a private key and
// a public seed: a few hundred constraints of degree-5 rounds, like real hash gadgets.
pragma circom 2.0.0;

template Round(c) {
    signal input x;
    signal input k;
    signal output y;
    signal s2;
    signal s4;
    signal t <== x + k + c;
    s2 <== t * t;
    s4 <== s2 * s2;
    y <== s4 * t;
}

template HashChain(n) {
    signal input seed;
    signal input key;
    signal output out;
    component r[n];
    for (var i = 0; i < n; i++) {
        r[i] = Round(i * 7919 + 3);
        r[i].x <== i == 0 ? seed : r[i - 1].y;
        r[i].k <== key;
    }
    out <== r[n - 1].y;
}

component main {public [seed]} = HashChain(40);
