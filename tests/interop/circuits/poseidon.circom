// circomlib's Poseidon over two private inputs, hash public: the standard circom gadget.
pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

template PoseidonHash() {
    signal input x;
    signal input y;
    signal output h;
    component p = Poseidon(2);
    p.inputs[0] <== x;
    p.inputs[1] <== y;
    h <== p.out;
}

component main = PoseidonHash();
