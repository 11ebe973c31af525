// Warp-collective tensor-core operations, written once for both backends: on the GPU each is one
// PTX instruction (or the nvcuda::wmma call a learner meets first); on the CPU simulator the 32
// lanes of a warp swap their registers through a scratch area of the warp (HostCtx::warp_scratch)
// between two barriers, and each lane then computes its own result by the PTX ISA's fragment
// layouts (tc_common.hpp). So a rung's body is the same code on both backends, and the
// simulator's answer depends on which lane holds which element exactly as the hardware's does.
//
// Simulated collectives need every thread of the block to execute them the same number of times
// (they are block barriers there, warp-wide on the GPU); the tensor-core rungs' loops do.
//
//   mma_bf16_16816   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 (sm_80+)
//   ldmatrix_x4      ldmatrix.sync.aligned.m8n8.x4.shared.b16 (sm_75+)
//   cp_async_16      cp.async.cg.shared.global, 16 bytes, zero-filled when not `valid` (sm_80+);
//                    the simulator copies at once, so commit and wait are no-ops there
//   wmma_*           nvcuda::wmma 16x16x16 BF16 fragments. Their layout is opaque in CUDA C++;
//                    the simulator gives them the layout of the two mma.m16n8k16 the compiler
//                    emits for them on sm_80 and later.
//
// linecount: fold into the calling line. (On the CPU, Count lines adds the executions of these
// stand-ins to the kernel lines that call them: on the GPU each call is one instruction.)
#pragma once
#include <cstdint>
#include <cstring>

#include "core/exec.hpp"
#include "labs/matmul/tc_common.hpp"

// Three cases: the device pass for sm_80 and later (the instructions), the device pass for
// older architectures in the same build (a trap: the lab refuses these rungs there before
// launch, RungNeeds::Sm80), and the host (the simulator).
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
#define BS_TC_DEVICE 1
#define BS_TC_OLD_DEVICE 0
#elif BS_ON_DEVICE
#define BS_TC_DEVICE 0
#define BS_TC_OLD_DEVICE 1
#else
#define BS_TC_DEVICE 0
#define BS_TC_OLD_DEVICE 0
#endif

#if BS_TC_DEVICE
#include <cuda_bf16.h>
#include <mma.h>
#endif

namespace bs::matmul {

// ---------------------------------------------------------------------------------------------
// The simulator's side: lanes exchange registers through their warp's scratch.
// ---------------------------------------------------------------------------------------------
#if !BS_ON_DEVICE
namespace sim_tc {

template <class Ctx>
unsigned lane_of(const Ctx& t) {
  return linear_thread_in_block(t) & 31u;
}

// 16 floats a lane: A (8), B (4), C (4).
template <class Ctx>
void mma_16816(const Ctx& t, const float (&a)[8], const float (&b)[4], float (&c)[4]) {
  const unsigned lane = lane_of(t);
  float* ex = reinterpret_cast<float*>(t.warp_scratch());
  float* mine = ex + 16 * lane;
  std::memcpy(mine, a, sizeof a);
  std::memcpy(mine + 8, b, sizeof b);
  std::memcpy(mine + 12, c, sizeof c);
  t.sync();  // every lane's registers are in the scratch
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const float* r = ex + 16 * l;
    for (int e = 0; e < 8; ++e) {
      const FragCoord p = mma_a_coord(l, e);
      A[p.row][p.col] = r[e];
    }
    for (int e = 0; e < 4; ++e) {
      const FragCoord p = mma_b_coord(l, e);
      B[p.row][p.col] = r[8 + e];
      const FragCoord q = mma_c_coord(l, e);
      C[q.row][q.col] = r[12 + e];
    }
  }
  float d[4];
  for (int e = 0; e < 4; ++e) {
    const FragCoord p = mma_c_coord(static_cast<int>(lane), e);
    float acc = C[p.row][p.col];
    for (int k = 0; k < 16; ++k) acc += A[p.row][k] * B[k][p.col];
    d[e] = acc;
  }
  t.sync();  // every lane has read before anyone writes the scratch again
  std::memcpy(c, d, sizeof d);
}

template <class Ctx>
void ldmatrix_x4(const Ctx& t, const void* row, std::uint32_t (&r)[4]) {
  const unsigned lane = lane_of(t);
  const void** ex = reinterpret_cast<const void**>(t.warp_scratch());
  ex[lane] = row;
  t.sync();
  for (int q = 0; q < 4; ++q) {
    const auto* src = static_cast<const Bf16*>(ex[ldmatrix_source_lane(static_cast<int>(lane), q)]);
    const int e = ldmatrix_first_element(static_cast<int>(lane));
    r[q] = pack_bf16x2(src[e], src[e + 1]);
  }
  t.sync();
}

}  // namespace sim_tc
#endif

// ---------------------------------------------------------------------------------------------
// mma.sync m16n8k16, BF16 in, FP32 accumulate: c += a * b.
// ---------------------------------------------------------------------------------------------
template <class Ctx>
BS_HD void mma_bf16_16816(const Ctx& t, const std::uint32_t (&a)[4], const std::uint32_t (&b)[2], float (&c)[4]) {
#if BS_TC_DEVICE
  (void)t;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif BS_TC_OLD_DEVICE
  (void)t, (void)a, (void)b, (void)c;
  __trap();
#else
  float af[8], bf[4];
  for (int e = 0; e < 8; ++e) af[e] = bf16_to_float((e & 1) ? bf16_hi(a[e >> 1]) : bf16_lo(a[e >> 1]));
  for (int e = 0; e < 4; ++e) bf[e] = bf16_to_float((e & 1) ? bf16_hi(b[e >> 1]) : bf16_lo(b[e >> 1]));
  sim_tc::mma_16816(t, af, bf, c);
#endif
}

// ldmatrix x4 from shared memory: `row` is this lane's row address (see tc_common.hpp). The
// simulator records the row address as a 16-byte shared load of the lane (core/shared_access.hpp:
// the hardware reads one 8 x 8 matrix, eight lanes' rows, per phase); `what` names it there.
template <class Ctx>
BS_HD void ldmatrix_x4(const Ctx& t, const void* row, std::uint32_t (&r)[4], const char* what = "ldmatrix row",
                       std::source_location loc = std::source_location::current()) {
  note_shared(t, row, 16, SharedOp::LdMatrix, what, loc);
#if BS_TC_DEVICE
  (void)t;
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
#elif BS_TC_OLD_DEVICE
  (void)t, (void)row;
  r[0] = r[1] = r[2] = r[3] = 0;
  __trap();
#else
  sim_tc::ldmatrix_x4(t, row, r);
#endif
}

// 16 bytes global -> shared without passing through registers; zeros when !valid (the source
// is then not read).
BS_HD void cp_async_16(void* dst_shared, const void* src_global, bool valid) {
#if BS_TC_DEVICE
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst_shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :
               : "r"(dst), "l"(src_global), "r"(valid ? 16 : 0)
               : "memory");
#elif BS_TC_OLD_DEVICE
  (void)dst_shared, (void)src_global, (void)valid;
  __trap();
#else
  if (valid) std::memcpy(dst_shared, src_global, 16);
  else std::memset(dst_shared, 0, 16);
#endif
}

BS_HD void cp_async_commit() {
#if BS_TC_DEVICE
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
BS_HD void cp_async_wait() {
#if BS_TC_DEVICE
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// WMMA 16x16x16 (BF16 in, FP32 accumulate).
// ---------------------------------------------------------------------------------------------
#if BS_TC_DEVICE
using WmmaA = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major>;
using WmmaB = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::col_major>;
using WmmaC = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;
#else
struct WmmaA {
  Bf16 x[8];
};  // the A layout of mma.m16n8k16
struct WmmaB {
  Bf16 x[8];
};  // two 16 x 8 halves: columns 0-7, then 8-15
struct WmmaC {
  float x[8];
};  // likewise
#endif

BS_HD void wmma_zero(WmmaC& c) {
#if BS_TC_DEVICE
  nvcuda::wmma::fill_fragment(c, 0.0f);
#else
  for (float& v : c.x) v = 0.0f;
#endif
}

// A: 16 x 16 row-major at p, rows ldm elements apart.
template <class Ctx>
BS_HD void wmma_load_a(const Ctx& t, WmmaA& f, const Bf16* p, unsigned ldm) {
#if BS_TC_DEVICE
  (void)t;
  nvcuda::wmma::load_matrix_sync(f, reinterpret_cast<const __nv_bfloat16*>(p), ldm);
#elif BS_TC_OLD_DEVICE
  __trap();
#else
  const int lane = static_cast<int>(sim_tc::lane_of(t));
  for (int e = 0; e < 8; ++e) {
    const FragCoord c = mma_a_coord(lane, e);
    f.x[e] = p[c.row * static_cast<int>(ldm) + c.col];
  }
#endif
}

// B: 16 (k) x 16 (n) column-major at p: element (k, n) at p[n * ldm + k].
template <class Ctx>
BS_HD void wmma_load_b(const Ctx& t, WmmaB& f, const Bf16* p, unsigned ldm) {
#if BS_TC_DEVICE
  (void)t;
  nvcuda::wmma::load_matrix_sync(f, reinterpret_cast<const __nv_bfloat16*>(p), ldm);
#elif BS_TC_OLD_DEVICE
  __trap();
#else
  const int lane = static_cast<int>(sim_tc::lane_of(t));
  for (int h = 0; h < 2; ++h)
    for (int e = 0; e < 4; ++e) {
      const FragCoord c = mma_b_coord(lane, e);
      f.x[4 * h + e] = p[(c.col + 8 * h) * static_cast<int>(ldm) + c.row];
    }
#endif
}

// c += a * b.
template <class Ctx>
BS_HD void wmma_mma(const Ctx& t, WmmaC& c, const WmmaA& a, const WmmaB& b) {
#if BS_TC_DEVICE
  (void)t;
  nvcuda::wmma::mma_sync(c, a, b, c);
#elif BS_TC_OLD_DEVICE
  __trap();
#else
  std::uint32_t ar[4];
  for (int r = 0; r < 4; ++r) ar[r] = pack_bf16x2(a.x[2 * r], a.x[2 * r + 1]);
  for (int h = 0; h < 2; ++h) {
    const std::uint32_t br[2] = {pack_bf16x2(b.x[4 * h], b.x[4 * h + 1]), pack_bf16x2(b.x[4 * h + 2], b.x[4 * h + 3])};
    float acc[4] = {c.x[4 * h], c.x[4 * h + 1], c.x[4 * h + 2], c.x[4 * h + 3]};
    mma_bf16_16816(t, ar, br, acc);
    for (int e = 0; e < 4; ++e) c.x[4 * h + e] = acc[e];
  }
#endif
}

// C: 16 x 16 FP32 row-major at p, rows ldm elements apart (p 32-byte aligned, ldm % 4 == 0).
template <class Ctx>
BS_HD void wmma_store(const Ctx& t, float* p, const WmmaC& f, unsigned ldm) {
#if BS_TC_DEVICE
  (void)t;
  nvcuda::wmma::store_matrix_sync(p, f, ldm, nvcuda::wmma::mem_row_major);
#elif BS_TC_OLD_DEVICE
  __trap();
#else
  const int lane = static_cast<int>(sim_tc::lane_of(t));
  for (int h = 0; h < 2; ++h)
    for (int e = 0; e < 4; ++e) {
      const FragCoord c = mma_c_coord(lane, e);
      p[c.row * static_cast<int>(ldm) + c.col + 8 * h] = f.x[4 * h + e];
    }
#endif
}

}  // namespace bs::matmul
