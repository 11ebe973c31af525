// Hopper's asynchronous machinery as small device functions, gathered once for the wgmma rungs
// (tc3_wgmma.cuh, tc4_warp_specialized.cuh, tc5_persistent_cluster.cuh). Each is one or two PTX
// instructions; the PTX ISA section is named above each group. Everything here needs sm_90a
// (wgmma, setmaxnreg) or sm_90 (mbarrier tx-counts, TMA, clusters); the translation unit that
// includes it is compiled for sm_90a only (kernels/labs/matmul/CMakeLists.txt).
#pragma once
#include <cuda.h>  // CUtensorMap (the type only: the driver entry point is looked up at run time)

#include <cstdint>

namespace bs::matmul::hopper {

__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// --- mbarrier (PTX ISA 9.7.13.15): a 64-bit shared-memory object with an arrival count and a
//     transaction (tx) count; a phase completes when both reach zero, and its parity flips. ---
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals));
}
// Makes the initialisations visible to the other threads of the cluster and to the async proxy
// (TMA) before they are used.
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// One arrival that also announces `bytes` of transactions (TMA copies) the phase must wait for.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// An arrival on the barrier at the same offset in the shared memory of block `cta` of this
// cluster (itself included). Default semantics (release at CTA scope), not .release.cluster: the
// arrival only says "my reads of this stage are done" (wgmma_wait has already made sure), and a
// cluster-scope release would stall the arriving warp, and with it its warpgroup's next wgmma,
// until all of the thread's earlier memory operations were visible cluster-wide (measured: the
// clustered rung at half speed).
__device__ __forceinline__ void mbar_arrive_cluster(std::uint64_t* bar, unsigned cta) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
      "r"(cta)
      : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, unsigned parity) {
  std::uint32_t done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// Waits until the phase with this parity has completed.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  const std::uint32_t b = smem_u32(bar);
  while (!mbar_try_wait(b, parity)) {}
}

// --- TMA: cp.async.bulk.tensor (PTX ISA 9.7.9.25). One thread copies a box of a tensor,
//     described by a CUtensorMap, into shared memory; the bytes count down the mbarrier's tx.
//     Coordinates are elements, innermost first; parts of the box outside the tensor are
//     filled with zeros. ---
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(x), "r"(y)
      : "memory");
}
// The same box written to the same shared-memory offset of every block of the cluster in
// `cta_mask`, each block's barrier at `bar`'s offset counting its own bytes.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x,
                                                      int y, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_u32(bar)), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

// The other direction (PTX ISA 9.7.9.25, .global.shared::cta, bulk-group completion): one
// thread writes a box from shared memory into the tensor; parts of the box outside the tensor
// are not written. Loads count down an mbarrier; stores are tracked per thread in bulk async-groups
// instead: commit closes a group, wait_read<N> waits until at most N of the thread's groups still
// read their shared memory (the source may be overwritten), wait<N> until their writes are done.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(smem_u32(src)), "r"(x), "r"(y)
               : "memory");
}
// The same box added element by element to what the tensor holds (cp.reduce.async.bulk.tensor
// .add: the additions are done in L2, atomically per element).
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(smem_u32(src)), "r"(x), "r"(y)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
template <int Pending>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}
// Orders this thread's generic-proxy writes of shared memory before later async-proxy reads of
// it (a TMA store of what the thread just wrote).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// A flag in global memory between blocks of one grid (all resident: a persistent launch): the
// writer's earlier TMA writes, already complete (bulk_wait<0>), are ordered before the flag by
// the proxy fence and the release; the reader's acquire and proxy fence order the flag before
// its later TMA reductions into the same memory.
__device__ __forceinline__ void flag_release(unsigned* flag, unsigned value) {
  asm volatile("fence.proxy.async.global;\n st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ __forceinline__ void flag_wait(const unsigned* flag, unsigned value) {
  unsigned v;
  do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory"); } while (v != value);
  asm volatile("fence.proxy.async.global;" ::: "memory");
}
// A barrier for `threads` threads (a multiple of 32) of the block under id `id` (1-15; 0 is
// __syncthreads'): one warpgroup meets without stopping the others.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// --- Clusters (PTX ISA 9.7.13.2, special registers %cluster_ctarank, %clusterid). ---
__device__ __forceinline__ unsigned cluster_cta_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// --- Register reallocation between warpgroups (PTX ISA 9.7.18.x, setmaxnreg, sm_90a). ---
template <int Regs>
__device__ __forceinline__ void warpgroup_regs_down() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void warpgroup_regs_up() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

// --- wgmma (PTX ISA 9.7.15): a warpgroup (4 consecutive warps, the first at a warp index
//     divisible by 4) multiplies a 64 x 16 tile of A by a 16 x N tile of B, both read by the
//     tensor cores from shared memory through 64-bit descriptors, into N / 2 FP32 registers a
//     thread (tc_common.hpp, wgmma_d_coord). Issue is asynchronous: fence before the first
//     instruction that reads registers written by others, commit a group, wait for groups. ---
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// The matrix descriptor of a K-major tile in the 128-byte swizzle TMA writes with
// CU_TENSOR_MAP_SWIZZLE_128B: rows of 64 BF16 (128 bytes), 8-row groups 1024 bytes apart
// (stride byte offset), the leading byte offset unused for this layout (1 by convention),
// swizzle mode 1 (128B) in bits 62-63. The tile must start on a 1024-byte boundary; the K step
// k (16 BF16 = 32 bytes) inside the 128-byte row is start + 32 k.
__device__ __forceinline__ std::uint64_t sw128_descriptor(const void* tile) {
  const std::uint64_t addr = smem_u32(tile);
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

}  // namespace bs::matmul::hopper

#include "labs/matmul/wgmma_ops.cuh"  // wgmma_m64nNk16<N>: generated, one per N
