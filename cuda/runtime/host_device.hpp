// SPDX-License-Identifier: MIT
// Spellings shared by code compiled for both the host and the device: ZK_HD marks a function
// callable from either side (plain `inline` when a C++ compiler builds it, so the same headers
// are unit-tested on a machine without a GPU), ZK_UNROLL asks each compiler for full unrolling.
#pragma once

#if defined(__CUDACC__)
#define ZK_HD __host__ __device__ __forceinline__
#else
#define ZK_HD inline
#endif
// Full unrolling keeps limb arrays in registers on the device. nvcc's host pass gets nothing
// (its front end rejects GCC's spelling; host speed of .cu code does not matter), g++ gets
// GCC's, which the host-emulation tests build with.
#if defined(__CUDA_ARCH__)
#define ZK_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define ZK_UNROLL
#else
#define ZK_UNROLL _Pragma("GCC unroll 32")
#endif
// ZK_NO_UNROLL keeps a long loop rolled on the device: nvcc unrolls a loop of constant trip count
// (an exponentiation by a constant exponent: hundreds of inlined multiplications) on its own, at
// a compile-time cost of minutes per kernel that calls it and no run-time gain worth having.
#if defined(__CUDA_ARCH__)
#define ZK_NO_UNROLL _Pragma("unroll 1")
#else
#define ZK_NO_UNROLL
#endif
