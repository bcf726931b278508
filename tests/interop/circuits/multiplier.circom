// A chain of multiplications with two public inputs and one public output: the smallest
// circuit with more than one public signal, so IC indexing and the C-section offset are exercised.
pragma circom 2.0.0;

template MultiplierChain(n) {
    signal input a;
    signal input b;
    signal output out;
    signal t[n];
    t[0] <== a * b;
    for (var i = 1; i < n; i++) {
        t[i] <== t[i - 1] * a;
    }
    out <== t[n - 1];
}

component main {public [a, b]} = MultiplierChain(8);
