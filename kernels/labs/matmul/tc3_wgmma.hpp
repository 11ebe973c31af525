// Tensor-core rung 3 (BF16, Hopper): wgmma fed by TMA, one warpgroup per block.
//
// What changes from rung 2: the warpgroup (four warps, 128 threads) is the unit of work. One
// wgmma.mma_async multiplies a 64 x 16 slice of A by a 16 x 128 slice of B with both operands
// read by the tensor cores straight from shared memory (no ldmatrix, no operand registers), the
// 64 x 128 FP32 result accumulating in 64 registers a thread. The tiles arrive by TMA: one thread
// asks the copy engine for a 128 x 64 box of A and of Bt (cuTensorMapEncodeTiled, 128-byte
// swizzle, zeros past the edges), and the block waits on an mbarrier that counts the bytes in.
// Block tile 128 x 128 (two wgmma row halves), K slice 64.
//
// Why it should help: wgmma is Hopper's own tensor-core instruction (HGMMA in the SASS), several
// times the throughput of rung 2's mma.sync per SM, and TMA frees every thread from address
// arithmetic. What it still lacks, on purpose: one stage only, so the copy engine and the tensor
// cores take turns (load, wait, multiply, wait, repeat); the next rung overlaps them.
// Launch: block (128, 1, 1), grid (ceil(N / 128), ceil(M / 128)), 33 KB dynamic shared memory;
// sm_90a.
//
// The device code is compiled in matmul_hopper.cu only (BS_MATMUL_HOPPER_TU, sm_90a); the traits
// at the end are plain C++ that every backend reads.
#pragma once
#include "labs/matmul/fragment_tags.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/tc_common.hpp"
#if defined(BS_MATMUL_HOPPER_TU)
#include "labs/matmul/hopper_ptx.cuh"
#endif

namespace bs::matmul {

inline constexpr int kTc3BM = 128, kTc3BN = 128, kTc3BK = 64;

struct Tc3Smem {
  Bf16 A[kTc3BM * kTc3BK];  // 128 rows x 128 bytes, 128-byte swizzle (TMA)
  Bf16 B[kTc3BN * kTc3BK];
  std::uint64_t full;
};
// Dynamic shared memory: the structure, plus slack to start it on a 1024-byte boundary (the
// swizzle atom).
template <class Smem>
inline constexpr std::size_t kAlignedSmemBytes = sizeof(Smem) + 1024;

#if defined(BS_MATMUL_HOPPER_TU)

template <class Smem>
__device__ __forceinline__ Smem* align_1024(unsigned char* raw) {
  const auto p = (reinterpret_cast<std::uintptr_t>(raw) + 1023) & ~std::uintptr_t{1023};
  return reinterpret_cast<Smem*>(p);
}

// The accumulator of a warpgroup (64 x N_, N_ / 2 registers a thread) into C, within bounds.
template <int N_>
__device__ __forceinline__ void store_wgmma_tile(const float (&d)[N_ / 2], const Bf16Args& a, int row0, int col0) {
  const int tid = static_cast<int>(threadIdx.x & 127);
  const bool pairs = (a.N & 1) == 0;  // 8-byte aligned float2 stores
#pragma unroll
  for (int r = 0; r < N_ / 2; r += 2) {
    const FragCoord f = wgmma_d_coord(tid, r);  // registers r, r + 1: one row, two columns
    const int row = row0 + f.row, col = col0 + f.col;
    if (row >= a.M) continue;
    float* p = a.C + static_cast<long long>(row) * a.N + col;
    if (pairs && col + 1 < a.N) {
      *reinterpret_cast<float2*>(p) = make_float2(d[r], d[r + 1]);
    } else {
      if (col < a.N) p[0] = d[r];
      if (col + 1 < a.N) p[1] = d[r + 1];
    }
  }
}

// The tagged variant's epilogue (fragment_tags.hpp): each thread decodes the values its
// accumulator registers d[0 .. N_ / 2) hold into the elements they are, and records (threadIdx.x,
// reg0 + r) there. Nothing for the untagged rung.
template <int N_, class Sink>
__device__ __forceinline__ void tag_wgmma_tile(const Sink& sink, const float (&d)[N_ / 2], int row_base, int col_base,
                                               int reg0) {
  if constexpr (Sink::kOn) {
    // The registers' values copied out once, then one loop (not unrolled) decodes them: the
    // decoder is compiled once per kernel, not N_ / 2 times (the build compiles this file for
    // every compiled configuration).
    float held[N_ / 2];
#pragma unroll
    for (int r = 0; r < N_ / 2; ++r) held[r] = d[r];
    const int block = static_cast<int>(blockIdx.x + gridDim.x * blockIdx.y);
#pragma unroll 1
    for (int r = 0; r < N_ / 2; ++r)
      tag_accumulator(sink.s, held[r], row_base, col_base, static_cast<int>(threadIdx.x), reg0 + r, block);
  }
}

template <class Sink = NoFragmentSink>
__device__ __forceinline__ void tc3_wgmma_block(const CUtensorMap* map_a, const CUtensorMap* map_b, const Bf16Args& a,
                                                unsigned char* raw, const Sink& sink = Sink{}) {
  using namespace hopper;
  Tc3Smem* s = align_1024<Tc3Smem>(raw);
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.y) * kTc3BM, col0 = static_cast<int>(blockIdx.x) * kTc3BN;
  if (tid == 0) {
    mbar_init(&s->full, 1);
    mbar_init_fence();
  }
  __syncthreads();

  float d[2][kTc3BN / 2];
  const int slices = (a.K + kTc3BK - 1) / kTc3BK;
  for (int kt = 0; kt < slices; ++kt) {
    if (tid == 0) {
      mbar_arrive_expect_tx(&s->full, sizeof s->A + sizeof s->B);
      tma_load_2d(s->A, map_a, &s->full, kt * kTc3BK, row0);
      tma_load_2d(s->B, map_b, &s->full, kt * kTc3BK, col0);
    }
    mbar_wait(&s->full, static_cast<unsigned>(kt & 1));
    wgmma_fence();
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      const std::uint64_t da = sw128_descriptor(s->A + m * 64 * kTc3BK), db = sw128_descriptor(s->B);
#pragma unroll
      for (int k = 0; k < kTc3BK / 16; ++k) wgmma_m64nNk16<kTc3BN>(d[m], da + 2 * k, db + 2 * k, kt > 0 || k > 0);
    }
    wgmma_commit();
    wgmma_wait<0>();
    __syncthreads();  // the tiles are read: thread 0 may overwrite them
  }
#pragma unroll
  for (int m = 0; m < 2; ++m) {
    tag_wgmma_tile<kTc3BN>(sink, d[m], row0, col0, m * (kTc3BN / 2));
    store_wgmma_tile<kTc3BN>(d[m], a, row0 + 64 * m, col0);
  }
}
#endif  // BS_MATMUL_HOPPER_TU

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
// The owner of an element in a warpgroup's 64 x n accumulator tile at (row0, col0) of C, the
// warpgroup's threads starting at `first_thread` of the block.
inline Result<ElementOwner> warpgroup_owner(ElementOwner o, long long row0, long long col0, int n, int r, int c,
                                            unsigned first_thread) {
  return fragment_owner(o, CRect{row0, col0, 64, n}, n / 2, r, c, first_thread, 128,
                        [](int t, int reg) { return wgmma_d_coord(t, reg); });
}

// What the Hopper rungs share: BF16, device code only (no simulator body), launched by
// matmul_hopper.cu with dynamic shared memory.
struct HopperRungBase : TcRungBase {
  static constexpr bool kFragments = true;  // a tagged block (block_tagged), matmul_hopper.cu
  static constexpr bool kBody = false;
  static constexpr bool kHopper = true;
  static constexpr bool kPersistent = false;
  static constexpr unsigned kClusterSize = 1;
  // TMA writes the tiles with CU_TENSOR_MAP_SWIZZLE_128B.
  static SwizzleMap swizzle_map() {
    SwizzleMap m;
    m.title = "128-byte TMA swizzle: first bank of each 16-byte chunk, rows 0-7";
    m.help =
        "CU_TENSOR_MAP_SWIZZLE_128B: rows of 128 bytes; in each 1024-byte atom of 8 rows, chunk c of row r is "
        "stored at chunk c ^ (r % 8), so a column of 8 rows spans all 32 banks. Drawn from the CUDA driver's "
        "definition, not recorded: the copy engine writes these tiles and wgmma reads them.";
    m.before = "before (no swizzle)", m.after = "after: c ^ (r % 8)";
    m.modelled = true;
    m.rows = 8, m.chunks = 8;
    m.plain = [](int r, int c) { return r * 128LL + 16 * c; };
    m.swizzled = [](int r, int c) { return static_cast<long long>(r) * 128 + ((c ^ (r & 7)) << 4); };
    return m;
  }
  static Status check(const MatmulConfig&, const DeviceLimits&) { return Status::success(); }
  // What every Hopper rung's info() starts from.
  static MatmulKernelInfo hopper_info() {
    MatmulKernelInfo i;
    i.uses_shared = true;
    i.precision = Precision::Bf16;
    i.needs = RungNeeds::Sm90a;
    i.simulated = false;
    return i;
  }
};

struct Tc3Wgmma : HopperRungBase {
  static constexpr unsigned kThreads = 128;
  static constexpr std::size_t kSmemBytes = kAlignedSmemBytes<Tc3Smem>;
  static constexpr int kBRows = 128;  // the TMA box of Bt
  static constexpr const char* kConfig = "128 x 128 tile, 1 warpgroup, BK=64, 1 TMA stage | 128 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i = hopper_info();
    i.id = "tc3_wgmma";
    i.label = "T3. wgmma + TMA, one warpgroup";
    i.teaches =
        "Hopper's warpgroup instruction: 4 warps multiply 64 x 16 by 16 x 128 with both "
        "operands read by the tensor cores from shared memory that TMA filled; one stage, "
        "so copies and multiplies take turns";
    i.file = "kernels/labs/matmul/tc3_wgmma.hpp";
    i.configs = one_config(Dim3{kThreads, 1, 1}, kConfig);
    i.grid_rule = "grid = (ceil(N / 128), ceil(M / 128))";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) {
    LaunchConfig lc{Dim3{ceil_div_u(N, kTc3BN), ceil_div_u(M, kTc3BM), 1}, Dim3{kThreads, 1, 1}};
    lc.dynamic_shared_bytes = kSmemBytes;
    return lc;
  }
  static MatmulGeometry geometry(const MatmulConfig&) {
    MatmulGeometry g;
    g.block_rows = kTc3BM, g.block_cols = kTc3BN, g.k_step = kTc3BK, g.stages = 1;
    g.warp_rows = 64, g.warp_cols = kTc3BN;
    g.thread_cols = 2;
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return kSmemBytes; }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::tiled(kTc3BN, kTc3BM); }
  // Rows 0-63 of the tile are the first wgmma half's, 64-127 the second's: one warpgroup holds
  // both (registers 0-63, then 64-127).
  // The fragment layout (fragment_place.hpp). Block 128 x 128, one warpgroup issuing two
  // m64n128k16 (rows 0-63: registers 0-63, rows 64-127: registers 64-127).
  static Result<FragmentPlace> fragment_place(int r, int c) {
    if (r < 0 || c < 0 || r >= kTc3BM || c >= kTc3BN) return fragment_outside(r, c, kTc3BM, kTc3BN);
    const int half = r / 64;
    FragmentPlace p = wgmma_place(kTc3BN, 64 * half, 0, r % 64, c, 0, 0, half * (kTc3BN / 2));
    p.mma_index = half, p.mma_count = 2;
    p.owner_r = 0, p.owner_c = 0, p.owner_rows = kTc3BM, p.owner_cols = kTc3BN;
    return p;
  }
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    auto cell = block_cell(geometry(c), row, col);
    if (!cell) return cell.status();
    ElementOwner o;
    o.block = cell->block;
    const int half = cell->r / 64;
    auto w = warpgroup_owner(o, cell->row0 + 64 * half, cell->col0, kTc3BN, cell->r % 64, cell->c, 0);
    if (w) {
      w->reg += half * (kTc3BN / 2);
      w->warp_tile = {cell->row0, cell->col0, kTc3BM, kTc3BN};
    }
    return w;
  }
#if defined(BS_MATMUL_HOPPER_TU)
  __device__ static void block(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args, unsigned char* smem) {
    tc3_wgmma_block(a, b, args, smem);
  }
  __device__ static void block_tagged(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, const TagFragments& sink) {
    tc3_wgmma_block(a, b, args, smem, sink);
  }
#endif
};

}  // namespace bs::matmul
