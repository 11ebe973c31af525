// Rung 8, rung 7 with A transposed by the copy engine: both operands stream into a 3-stage
// pipeline by cp.async, A by 4-byte copies into an XOR-swizzled tile, fragments double-buffered in
// registers.
//
// What changes from rung 7 (k7_warptile.hpp), and why each change should help:
//
// 1. A no longer passes through registers. Rung 7 loads A's float4s with LDG.128 into 16 staging
//    registers per thread (128x128x16, 128 threads) and, after the tile's FMAs, stores them
//    transposed with 16 STS.32: a copy engine cannot transpose 16 bytes. It can transpose 4 bytes:
//    rung 8 issues one cp.async of 4 bytes per element (16 LDGSTS.32 per thread and tile at
//    128x128x16, against rung 7's 4 LDG + 16 STS). The 16 staging registers are free, and no
//    instruction after the FMAs waits on a global load: a tile's whole copy is in flight from the
//    moment it is issued until the barrier that needs it.
// 2. Three shared-memory stages where they fit in the 48 KB of static shared memory (all of
//    kK8Params do: 128x128x16 is 16 KB a stage). The copies of tile t+2 are issued after the
//    barrier of tile t, so they have two tiles of FMAs to land, and the barrier waits
//    (cp.async.wait_group 1) only for the tile about to be read. One barrier a tile, as in rung 7.
// 3. The transposed A tile is unpadded (three padded stages of 128x128x16 are 49.9 KB, over the
//    limit) and swizzled instead: row k of As keeps 16-byte chunk c at chunk c ^ (k % 8). A warp's
//    4-byte copies of one request cover 4 rows x 8 consecutive k of A (4 sectors of global
//    memory); in shared memory those are 8 rows k of As, and the XOR puts their 8 groups of 4
//    words in 8 distinct bank groups: conflict-free. The fragment loads stay LDS.128 (the swizzle
//    moves whole 16-byte chunks) and stay conflict-free (XOR with one k permutes a warp's 8 chunks).
// 4. Fragments double-buffered in registers: step k+1's A and B fragments load while step k's
//    FMAs run. The loop is unrolled, so ptxas could schedule this on its own; writing it down
//    asks for it.
// 5. With 2 blocks per SM (MB = 2) the next tile's copies are issued after step 0's fragment
//    loads, not before them, so the first LDS after the barrier waits behind no copies.
//
// What stays: the block, warp and lane tiles (rung 7's owner map and launch), B by 16-byte
// cp.async into an unswizzled tile, the interior fast path (blocks wholly inside the matrices move
// one offset per operand per tile, no per-element checks), the epilogue's 16-byte stores of C.
// Edges: a 4-byte copy has no alignment rule, so A needs no vector check; elements outside A are
// zeros written by an ordinary store, which the same barrier orders. B keeps rung 7's guarded
// path.
//
// Measured (H200, 4096^3, SM clock 1980 MHz max, L2 flushed before every timed launch, median of
// 30, the lab's bench path (lab::run_bench), one run; rung 7 and cuBLAS SGEMM in the same run):
// 128x128x16 MB=2 3.011 ms (90.0% of cuBLAS's 2.710 ms; rung 7's same tile 2.848 ms, 95.2%),
// 128x128x8 MB=2 3.059, 128x256x8 MB=1 2.979 (rung 7: 2.975), 256x128x8 t16x8 MB=1 3.192 (rung 7:
// 3.110); 244 / 255 / 237 / 230 registers, no spills. Rung 8 is 5.7% slower than rung 7's best,
// not faster. What each change gave (earlier runs, one each): change 4 +5% (3.33 -> 3.15 ms
// at 128x128x16, 255 -> 254 registers, no spills), change 5 +5% with MB = 2 (3.15 -> 3.01) but
// -14% with MB = 1 (2.98 -> 3.39 at 128x256x8), hence only with MB = 2. Tried and dropped on the
// way: A row-major (As[row][k], 16-byte cp.async for both operands, lanes owning rows 8 apart so
// that A's LDS.128 along k stay conflict-free under a row swizzle): 3.28-3.47 ms at 255 registers
// (a lane's A values for 4 k-steps, 32 registers, live at once); rung 7's own body with change 4
// written out: 2.877 vs 2.848 ms, no gain (ptxas already schedules rung 7's loads ahead). Not
// profiled (ncu) in this session: where the 5.7% goes is open; the suspects are the 16 LDGSTS.32
// per thread and tile and their 64-bit addresses, and the swizzle's XOR in every A fragment
// address.
// Launch: block ((BM/WM) * (BN/WN) * 32, 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "labs/matmul/k7_warptile.hpp"  // rung 7's B copies, cursors, owner map and launch
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K8Smem {
  // Three stages where they fit in the 48 KB of static shared memory a block gets without opt-in.
  static constexpr int kStageBytes = BK * (BM + BN) * 4;
  static constexpr int kStages = 3 * kStageBytes <= 48 * 1024 ? 3 : 2;
  float As[kStages][BK][BM];  // A transposed, As[k][row of C]; 16-byte chunks swizzled by k % 8
  float Bs[kStages][BK][BN];
};

// Where row `m` of the block's A tile (a row of C) sits in row k of As: its 16-byte chunk m / 4
// XOR k % 8, the word inside the chunk unchanged.
BS_HD constexpr int k8_swizzle(int k, int m) { return (((m >> 2) ^ (k & 7)) << 2) | (m & 3); }

namespace k8_detail {

// 4 bytes global -> shared without registers (cp.async.ca: the only form that copies 4 bytes).
// The simulator, and older GPUs, copy at once.
BS_HD void copy4_async(float* shared_dst, const float* global_src) {
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(global_src) : "memory");
#else
  *shared_dst = ldg(global_src);
#endif
}

// Waits until at most N of this thread's committed copy groups are still in flight.
template <int N>
BS_HD void async_wait_pending() {
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// A thread's 4-byte copies of A's BM x BK tile. A warp's request covers 4 rows x 8 consecutive k
// (lane / 8 picks the row, lane % 8 the k). The 8 groups of 4 rows g0 = warp * (8 / W) + gs that a
// warp of W owns repeat every 32 rows (i), its k every 8 (kc): the thread's rows differ by
// multiples of 4 and 32, its k by multiples of 8, and so its swizzled places in As by constants
// (chunk g0 + 8 i XOR lane % 8 = (g0 XOR lane % 8) + 8 i).
template <int BM, int BK, int kWarps>
struct ACopies {
  static constexpr int kGroupsPerWarp = 8 / kWarps;  // gs
  static constexpr int kRowBlocks = BM / 32;         // i
  static constexpr int kChunksK = BK / 8;            // kc
  static_assert(kWarps >= 1 && kWarps <= 8 && 8 % kWarps == 0,
                "rung 8 splits A's 8 row groups over 1, 2, 4 or 8 warps");
  static_assert(BM % 32 == 0 && BK % 8 == 0, "rung 8's A copies need BM a multiple of 32 and BK of 8");
  static_assert(kGroupsPerWarp * kRowBlocks * kChunksK * kWarps * 32 == BM * BK, "every thread copies alike");

  // This thread's row and k in the tile for copy (gs, i, kc).
  static BS_HD int row(int tid, int gs, int i) {
    return ((tid / 32) * kGroupsPerWarp + gs) * 4 + (tid % 32) / 8 + 32 * i;
  }
  static BS_HD int col(int tid, int kc) { return kc * 8 + tid % 8; }
};

// Guarded path: every element inside A by cp.async, the rest zeros.
template <int BM, int BK, int kWarps, class Ctx>
BS_HD void copy_a(const Ctx& t, float (&As)[BK][BM], const MatmulArgs& a, int row0, int k0, int tid) {
  using C = ACopies<BM, BK, kWarps>;
  BS_UNROLL
  for (int gs = 0; gs < C::kGroupsPerWarp; ++gs) BS_UNROLL
  for (int i = 0; i < C::kRowBlocks; ++i) BS_UNROLL
  for (int kc = 0; kc < C::kChunksK; ++kc) {
    const int r = C::row(tid, gs, i), c = C::col(tid, kc);
    const int gr = row0 + r, gk = k0 + c;
    float* dst = &As[c][k8_swizzle(c, r)];
    note_shared(t, dst, 4, SharedOp::AsyncCopy, "As[k][swz(k, r)]");
    if (gr < a.M && gk < a.K) copy4_async(dst, a.A + offset2d(gr, gk, a.K));
    else *dst = 0.0f;
  }
}

// Interior fast path: the thread's first element of the next tile at `c.at`; its others at
// constant multiples of 4 rows (gs), 32 rows (i) and 8 columns (kc) from it.
template <int BM, int BK, int kWarps, class Ctx>
BS_HD void copy_a_fast(const Ctx& t, float (&As)[BK][BM], const float* A, const k7_detail::K7Cursor& c, int tid) {
  using C = ACopies<BM, BK, kWarps>;
  const float* first = A + c.at;
  BS_UNROLL
  for (int gs = 0; gs < C::kGroupsPerWarp; ++gs) BS_UNROLL
  for (int i = 0; i < C::kRowBlocks; ++i) BS_UNROLL
  for (int kc = 0; kc < C::kChunksK; ++kc) {
    const int r = C::row(tid, gs, i), col = C::col(tid, kc);
    float* dst = &As[col][k8_swizzle(col, r)];
    note_shared(t, dst, 4, SharedOp::AsyncCopy, "As[k][swz(k, r)]");
    copy4_async(dst, first + (gs * 4 + i * 32) * static_cast<long long>(c.l_step) + kc * 8);
  }
}

// Shared memory -> registers: the lane's TM values of A (swizzled chunks) and TN values of B at
// step k.
template <int TM, int TN, int kSubM, int kSubN, int BK, int BM, int BN, class Ctx>
BS_HD void load_fragments(const Ctx& t, float (&af)[TM], float (&bf)[TN], const float (&As)[BK][BM],
                          const float (&Bs)[BK][BN], int k, int a_col, int b_col) {
  BS_UNROLL
  for (int f = 0; f < TM / 4; ++f) {
    const float* p = &As[k][k8_swizzle(k, a_col + f * kSubM)];
    note_shared(t, p, 16, SharedOp::Load, "As[k][swz(k, a_col + f*kSubM)..+3]");
    const Float4 v = load4(p);
    af[4 * f] = v.x, af[4 * f + 1] = v.y, af[4 * f + 2] = v.z, af[4 * f + 3] = v.w;
  }
  BS_UNROLL
  for (int f = 0; f < TN / 4; ++f) {
    note_shared(t, &Bs[k][b_col + f * kSubN], 16, SharedOp::Load, "Bs[k][b_col + f*kSubN..+3]");
    const Float4 v = load4(&Bs[k][b_col + f * kSubN]);
    bf[4 * f] = v.x, bf[4 * f + 1] = v.y, bf[4 * f + 2] = v.z, bf[4 * f + 3] = v.w;
  }
}

}  // namespace k8_detail

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MB, class Ctx>
BS_HD void k8_async_multistage_thread(const Ctx& t, K8Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  constexpr int kStages = K8Smem<BM, BN, BK>::kStages;
  constexpr int kWarpsN = BN / WN, kWarpsM = BM / WM, kWarps = kWarpsM * kWarpsN;
  constexpr int kThreads = kWarps * 32;
  constexpr int kLanesN = WN / TN, kLanesM = WM / TM;
  constexpr int kFragsN = TN / 4;
  constexpr int kSubM = WM / (TM / 4), kSubN = WN / kFragsN;
  constexpr int kLoadsB = BK * BN / 4 / kThreads;
  constexpr bool kFetchLate = MB >= 2;  // change 5: measured better with 2 blocks per SM only
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0 && TM % 4 == 0 && TN % 4 == 0, "lane tiles are made of 4 x 4 fragments");
  static_assert(kLanesN * kLanesM == 32, "a warp tile must hold exactly 32 lane tiles");
  static_assert(kLoadsB >= 1 && kLoadsB * kThreads * 4 == BK * BN, "every thread copies the same number of B float4s");
  static_assert(sizeof(K8Smem<BM, BN, BK>) <= 48 * 1024, "the stages must fit in 48 KB of static shared memory");

  const int tid = static_cast<int>(t.threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int lane_m = lane / kLanesN, lane_n = lane % kLanesN;
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;
  const bool b_vec = vec4_ok(a.B, a.N), c_vec = vec4_ok(a.C, a.N);
  const int a_col = warp_m * WM + lane_m * 4;  // first row of C (column of As) this lane reads
  const int b_col = warp_n * WN + lane_n * 4;
  const int tiles = (a.K + BK - 1) / BK, full_tiles = a.K / BK;
  // The same for every thread of the block: its tiles before full_tiles copy without checks.
  // A's 4-byte copies have no alignment rule; B's 16-byte ones need b_vec.
  const bool interior = b_vec && row0 + BM <= a.M && col0 + BN <= a.N;
  using ACopies = k8_detail::ACopies<BM, BK, kWarps>;
  k7_detail::K7Cursor a_next{offset2d(row0 + ACopies::row(tid, 0, 0), ACopies::col(tid, 0), a.K), a.K, BK};
  k7_detail::K7Cursor b_next = k7_detail::b_cursor<BN, BK, kThreads>(a, col0, tid);

  // Tile `tile` on its way into stage `stage` (A and B by cp.async; edges by ordinary stores).
  auto fetch = [&](int tile, int stage) {
    if (interior && tile < full_tiles) {
      k8_detail::copy_a_fast<BM, BK, kWarps>(t, s.As[stage], a.A, a_next, tid);
      k7_detail::copy_b_fast<BK, BN, kThreads, kLoadsB>(t, s.Bs[stage], a.B, b_next, tid);
    } else {
      k8_detail::copy_a<BM, BK, kWarps>(t, s.As[stage], a, row0, tile * BK, tid);
      k7_detail::copy_b<BK, BN, kThreads, kLoadsB>(t, s.Bs[stage], a, col0, tile * BK, tid, b_vec);
    }
    a_next.at += a_next.tile_step;
    b_next.at += b_next.tile_step;
  };

  // Prologue: tiles 0 .. kStages - 2 into their stages, one commit group each (an empty group
  // past the last tile keeps the count that wait_group relies on).
  BS_UNROLL
  for (int p = 0; p < kStages - 1; ++p) {
    if (p < tiles) fetch(p, p);
    k7_detail::async_commit();
  }

  float acc[TM][TN] = {};
  int stage = 0;                 // where tile `tile` lies
  int next_stage = kStages - 1;  // where tile `tile + kStages - 1` goes
  for (int tile = 0; tile < tiles; ++tile) {
    // This thread's copies of `tile` have landed; after the barrier everyone's have, and every
    // thread has finished reading the stage the next fetch overwrites (tile - 1's).
    k8_detail::async_wait_pending<kStages - 2>();
    t.sync();
    const bool has_next = tile + kStages - 1 < tiles;  // the same for every thread
    if (!kFetchLate && has_next) fetch(tile + kStages - 1, next_stage);

    float af[2][TM], bf[2][TN];  // step k's fragments in [k % 2], step k + 1's on their way
    k8_detail::load_fragments<TM, TN, kSubM, kSubN>(t, af[0], bf[0], s.As[stage], s.Bs[stage], 0, a_col, b_col);
    if (kFetchLate && has_next) fetch(tile + kStages - 1, next_stage);
    k7_detail::async_commit();
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      if (k + 1 < BK)
        k8_detail::load_fragments<TM, TN, kSubM, kSubN>(t, af[(k + 1) % 2], bf[(k + 1) % 2], s.As[stage], s.Bs[stage],
                                                        k + 1, a_col, b_col);
      BS_UNROLL
      for (int m = 0; m < TM; ++m) BS_UNROLL
      for (int n = 0; n < TN; ++n) acc[m][n] += af[k % 2][m] * bf[k % 2][n];
    }
    stage = stage + 1 == kStages ? 0 : stage + 1;
    next_stage = next_stage + 1 == kStages ? 0 : next_stage + 1;
  }

  // Epilogue: each lane writes its fragments, 4 consecutive floats (one 16-byte store) per row.
  BS_UNROLL
  for (int m = 0; m < TM; ++m) {
    const int row = row0 + a_col + (m / 4) * kSubM + m % 4;
    BS_UNROLL
    for (int f = 0; f < kFragsN; ++f) {
      const int col = col0 + b_col + f * kSubN;
      store4_guarded(a.C + offset2d(row < a.M ? row : 0, col, a.N),
                     Float4{acc[m][4 * f], acc[m][4 * f + 1], acc[m][4 * f + 2], acc[m][4 * f + 3]}, row < a.M, c_vec,
                     a.N - col);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp). Block, warp and lane tiles are rung 7's: its launch,
// index scheme and owner map serve unchanged; the stages and the shared layout are its own.
// The Memory tab's model of the global loads (kGlobalLoads, from rung 7) shows A's float4 items,
// not these 4-byte copies; the addresses the block reads are the same.
// ---------------------------------------------------------------------------------------------
struct K8AsyncMultistage : K7Warptile {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k8_async_multistage";
    i.label = "8. A transposed by cp.async, 3 stages";
    i.teaches =
        "rung 7 with A transposed by 4-byte cp.async into an XOR-swizzled tile instead of through "
        "registers, so both operands stream into a 3-stage pipeline and step k + 1's fragments "
        "load while step k's FMAs run; measured slower than rung 7 (its header: what each change gave)";
    i.file = "kernels/labs/matmul/k8_async_multistage.hpp";
    i.configs = tile_configs<K8AsyncMultistage>(kK8Params);
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / BN), ceil(M / BM))";
    return i;
  }
  static constexpr std::size_t kCompiled = std::size(kK8Params);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK8Params, c.tile); }

  static int stages(const TileParams& p) { return 3 * p.BK * (p.BM + p.BN) * 4 <= 48 * 1024 ? 3 : 2; }
  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g = K7Warptile::geometry(c);
    g.stages = stages(c.tile);
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig& c) {
    const TileParams& p = c.tile;
    return static_cast<std::size_t>(stages(p)) * p.BK * (p.BM + p.BN) * sizeof(float);
  }
  static Status check(const MatmulConfig& c, const DeviceLimits& limits);

  // The shared-memory model (shared_model.hpp): As[S][BK][BM] with chunk m / 4 of row k at
  // (m / 4) ^ (k % 8) (o.swizzle), Bs[S][BK][BN] after it. Prologue: tiles 0 .. S - 2 (A's 4-byte
  // copies, then B's 16-byte ones); per tile: step 0's fragment loads and the copies of
  // tile + S - 1 (copies first with MB = 1), then steps 1 .. BK - 1.
  static constexpr bool kSharedModel = true;
  static constexpr bool kSwizzledShared = true;
  static void shared_lane(SharedLane l, const MatmulConfig& cfg, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const TileParams& p = cfg.tile;
    const int warps_n = p.BN / p.WN, warps = (p.BM / p.WM) * warps_n, threads = warps * 32;
    const int S = stages(p);
    const int rowa = p.BM + o.pad_words, rowb = p.BN + o.pad_words;
    const long long a_stage = static_cast<long long>(p.BK) * rowa * F,
                    b_stage = static_cast<long long>(p.BK) * rowb * F;
    const long long bs = S * a_stage;
    const int loads_b = p.BK * p.BN / 4 / threads;
    const int warp = tid / 32, lane = tid % 32;
    const int lanes_n = p.WN / p.TN, sub_m = p.WM / (p.TM / 4), sub_n = p.WN / (p.TN / 4);
    const int a_col = (warp / warps_n) * p.WM + (lane / lanes_n) * 4;
    const int b_col = (warp % warps_n) * p.WN + (lane % lanes_n) * 4;
    auto swz = [&](int k, int m) { return o.swizzle ? k8_swizzle(k, m) : m; };
    auto copy = [&](int stage) {
      const int groups = 8 / warps;
      for (int gs = 0; gs < groups; ++gs)
        for (int i = 0; i < p.BM / 32; ++i)
          for (int kc = 0; kc < p.BK / 8; ++kc) {
            const int r = (warp * groups + gs) * 4 + lane / 8 + 32 * i, c = kc * 8 + lane % 8;
            l.add(stage * a_stage + (static_cast<long long>(c) * rowa + swz(c, r)) * F, 4, SharedOp::AsyncCopy,
                  "As[k][swz(k, r)]");
          }
      for (int j = 0; j < loads_b; ++j) {
        const int i = tid + j * threads, r = i / (p.BN / 4), c = (i % (p.BN / 4)) * 4;
        l.add(bs + stage * b_stage + (static_cast<long long>(r) * rowb + c) * F, 16, SharedOp::AsyncCopy,
              "Bs[r][c..c+3]");
      }
    };
    auto fragments = [&](int stage, int k) {
      for (int f = 0; f < p.TM / 4; ++f)
        l.add(stage * a_stage + (static_cast<long long>(k) * rowa + swz(k, a_col + f * sub_m)) * F, 16, SharedOp::Load,
              "As[k][swz(k, a_col + f*kSubM)..+3]");
      for (int f = 0; f < p.TN / 4; ++f)
        l.add(bs + stage * b_stage + (static_cast<long long>(k) * rowb + b_col + f * sub_n) * F, 16, SharedOp::Load,
              "Bs[k][b_col + f*kSubN..+3]");
    };
    const bool late = p.MB >= 2;
    const int tiles = model_ceil_div(K, p.BK);
    for (int t = 0; t < S - 1 && t < tiles; ++t) copy(t);
    for (int t = 0; t < tiles; ++t) {
      const int stage = t % S;
      const bool next = t + S - 1 < tiles;
      if (!late && next) copy((t + S - 1) % S);
      fragments(stage, 0);
      if (late && next) copy((t + S - 1) % S);
      for (int k = 1; k < p.BK; ++k) fragments(stage, k);
    }
  }
  static SwizzleMap swizzle_map() {
    SwizzleMap m;
    m.title = "Rung 8's A tile (transposed): first bank of each 16-byte chunk, k = 0-7";
    m.help =
        "Row k of As holds A's column k for the block's rows, unpadded (three stages of 128x128x16 fill the "
        "48 KB). A warp's 4-byte cp.async request writes 4 block rows (one chunk) at 8 consecutive k: "
        "unswizzled, all 8 land in the same 4 banks, an 8-way conflict. Rung 8 keeps chunk c of row k at "
        "c ^ (k % 8): the 8 rows now cover all 32 banks, and a fragment load (one k, 8 chunks) stays "
        "conflict-free.";
    m.before = "before (chunk c at c)", m.after = "after: c ^ (k % 8)";
    m.rows = 8, m.chunks = 8;
    m.plain = [](int r, int c) { return r * 512LL + 16 * c; };
    m.swizzled = [](int r, int c) { return r * 512LL + 4 * static_cast<long long>(k8_swizzle(r, 4 * c)); };
    return m;
  }

  template <std::size_t I>
  struct At {
    static constexpr TileParams P = kK8Params[I];
    using Smem = K8Smem<P.BM, P.BN, P.BK>;
    static constexpr unsigned threads = (P.BM / P.WM) * (P.BN / P.WN) * 32;
    static constexpr int min_blocks = P.MB;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k8_async_multistage_thread<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN, P.MB>(t, s, a);
    }
  };
};
static_assert(sizeof(K8Smem<128, 128, 16>) == 48 * 1024 && K8Smem<128, 128, 16>::kStages == 3);
static_assert(k8_swizzle(3, 4 * 5 + 2) == 4 * (5 ^ 3) + 2);

inline Status K8AsyncMultistage::check(const MatmulConfig& c, const DeviceLimits& limits) {
  const TileParams& p = c.tile;
  const char* id = "k8_async_multistage";
  if (Status s = check_tile(id, c, threads(p), TileFields::Warp, /*block_last=*/true); !s) return s;
  if (p.MB < 1 || p.MB > static_cast<int>(limits.max_blocks_per_sm))
    return refuse(id, "MB = " + std::to_string(p.MB) + ": the blocks per SM the compiler must fit must be at least 1",
                  "pick MB from the compiled set");
  if (p.WM <= 0 || p.WN <= 0 || p.BM % p.WM != 0 || p.BN % p.WN != 0 || p.WM % p.TM != 0 || p.WN % p.TN != 0 ||
      (p.WM / p.TM) * (p.WN / p.TN) != 32)
    return refuse(id, "the warp tile must divide the block tile and hold exactly 32 thread tiles",
                  "choose WM, WN, TM, TN with (WM/TM) * (WN/TN) = 32");
  const int warps = (p.BM / p.WM) * (p.BN / p.WN);
  if (p.BM % 32 != 0 || p.BK % 8 != 0 || 8 % warps != 0)
    return refuse(id,
                  "A's 4-byte copies cover 4 rows x 8 k a warp request and split 8 row groups over the warps: "
                  "BM must be a multiple of 32, BK of 8, and the warps 1, 2, 4 or 8",
                  "pick a configuration from the compiled set");
  if (shared_bytes(c) > 48 * 1024)
    return refuse(id, "two stages of this tile need more than 48 KB of static shared memory", "use a smaller BK");
  return check_block_matches(id, c, threads(p), TileFields::Warp);
}

}  // namespace bs::matmul
