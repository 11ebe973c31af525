// What every matmul kernel body shares: the argument struct, the 16-byte vector type and the
// helpers that let one body be both CUDA and plain C++.
//
// C = A * B, all row-major FP32: A is M x K (a_ik at A[i*K + k]), B is K x N, C is M x N.
// Indices that can exceed 2^31 (row * K for big matrices) are computed in 64 bits; tile-local
// indices stay in int, which the GPU handles faster.
//
// Vector loads: on the GPU a float4 load is one 16-byte instruction (LDG.128 / LDS.128) and needs
// a 16-byte aligned address; the CPU simulator copies the same 16 bytes with memcpy, which has
// no alignment rule and compiles to one vector move. The kernels decide at run time (uniformly
// for a whole block) whether a tile may use vectors (see vec4_ok) and fall back to scalar,
// guarded loads otherwise, so odd sizes stay correct.
#pragma once
#include <cstdint>

#include "core/hd.hpp"
#include "core/shared_access.hpp"  // shared_load, shared_store, note_shared

#if !BS_ON_DEVICE
#include <cstring>
#endif

// Unrolling: nvcc's pragma on the GPU (register arrays must be indexed by constants, or they
// spill to local memory); GCC's own spelling on the host, so -Wall stays quiet.
#if defined(__CUDACC__)
#define BS_UNROLL _Pragma("unroll")
#else
#define BS_UNROLL _Pragma("GCC unroll 16")
#endif

namespace bs::matmul {

struct MatmulArgs {
  const float* A;  // M x K, row-major
  const float* B;  // K x N, row-major
  float* C;        // M x N, row-major
  int M, N, K;
};

// Kernels without shared memory still take a Smem& so every body has the same shape.
struct NoSmem {};

struct alignas(16) Float4 {
  float x, y, z, w;
  BS_HD float operator[](int i) const { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
};

BS_HD Float4 load4(const float* p) {
#if BS_ON_DEVICE
  const float4 v = *reinterpret_cast<const float4*>(p);
  return Float4{v.x, v.y, v.z, v.w};
#else
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}

// Global-memory reads of A and B, which no thread writes during the launch: on the GPU they take
// the read-only (non-coherent) cache path (__ldg), on the CPU they are plain reads.
BS_HD Float4 ldg4(const float* p) {
#if BS_ON_DEVICE
  const float4 v = __ldg(reinterpret_cast<const float4*>(p));
  return Float4{v.x, v.y, v.z, v.w};
#else
  return load4(p);
#endif
}

BS_HD float ldg(const float* p) {
#if BS_ON_DEVICE
  return __ldg(p);
#else
  return *p;
#endif
}

BS_HD void store4(float* p, const Float4& v) {
#if BS_ON_DEVICE
  *reinterpret_cast<float4*>(p) = make_float4(v.x, v.y, v.z, v.w);
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// A 16-byte access at p + 4*j (j integer) is aligned for every j when p is 16-byte aligned and
// the row length is a multiple of 4 floats: the condition for vector loads of a whole matrix.
BS_HD bool vec4_ok(const void* base, int row_length) {
  return (reinterpret_cast<std::uintptr_t>(base) & 15u) == 0 && (row_length & 3) == 0;
}

BS_HD long long offset2d(int row, int col, int row_length) { return static_cast<long long>(row) * row_length + col; }

}  // namespace bs::matmul
