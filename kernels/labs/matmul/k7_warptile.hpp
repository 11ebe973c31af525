// Rung 7, warp tiling with a double-buffered shared-memory pipeline: the rung that competes
// with cuBLAS.
//
// Three levels of tiles. The block owns BM x BN of C; each of its (BM/WM) * (BN/WN) warps owns a
// WM x WN warp tile; each lane owns TM x TN outputs, held as (TM/4) x (TN/4) fragments of 4 x 4
// spread over the warp tile: a lane's fragments sit WM/(TM/4) rows and WN/(TN/4) columns apart.
//
// Why the warp level matters: shared memory serves a warp at once. With 128x128 / 64x32 / 8x8
// the 32 lanes of a warp are 8 (along M) x 4 (along N); at each k a lane reads its A fragments
// with float4 loads from As[k][...]: the warp touches 8 distinct float4s, 128 contiguous bytes,
// one conflict-free shared-memory wavefront, and 4 distinct float4s of B (broadcast to the 8
// lanes that share them). Rung 6's contiguous 8 x 8 patches made a warp read 512 bytes of B per
// load, so shared memory, not the FMA units, set its speed.
//
// The pipeline: two shared-memory stages. While the block multiplies the tile in stage s, the
// next tile is already on its way: A's float4s into registers (A is transposed on the way into
// shared memory, which a copy engine cannot do), B's straight into stage s^1 with cp.async (no
// registers, no store instructions). After the multiply each thread stores its A registers into
// s^1, waits for its own copies, and ONE barrier per tile separates "stage s^1 is complete and
// everyone finished reading s" from the next step.
//
// What decides the speed once the FMAs are in place is how few other instructions each tile
// costs: a block whose tile lies wholly inside A, B and C (with 16-byte-aligned rows) loads from
// offsets computed once and moved on by one tile per step, without per-float4 checks; only edge
// blocks and the last, partial k-tile take the guarded path (a uniform branch per tile). The
// loop over k is unrolled so the accumulators live in registers. At 4096^3 on an H200 the best
// configuration, 128x128x16 with 4 warps of 64x64 (8 x 16 per lane) and 2 blocks per SM (so one
// block's barrier hides behind the other's FMAs), runs at ~94% of cuBLAS; its per-tile hot path
// is 2048 FFMA against ~140 other instructions, 96 of them 16-byte shared loads (NOTES.md).
//
// Smaller details: each row of the transposed A tile is padded by 4 floats when both stages still
// fit in 48 KB, so that the transposing 4-byte stores of a warp fall in distinct banks (without
// the padding they are 2- to 4-way conflicts on a few stores per tile, against ~50 conflict-free
// 16-byte loads); edge handling is per float4 (vector loads where legal, guarded scalars
// elsewhere).
// Launch: block ((BM/WM) * (BN/WN) * 32, 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "labs/matmul/k6_vectorized.hpp"  // load4_guarded, store4_guarded
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K7Smem {
  static constexpr int kStages = 2;
  // Pad A's rows (16-byte aligned still) where the two stages fit in the 48 KB of static shared
  // memory a block gets without opt-in; 128x256x16 needs all 48 KB unpadded.
  static constexpr int kPadA = kStages * BK * (BM + 4 + BN) * 4 <= 48 * 1024 ? 4 : 0;
  float As[kStages][BK][BM + kPadA];  // A transposed: As[k][row of C]
  float Bs[kStages][BK][BN];
};

namespace k7_detail {

// 16 bytes global -> shared without passing through registers (cp.async.cg: cached in L2 only,
// sm_80 and later). The simulator, and older GPUs, copy at once.
BS_HD void copy16_async(float* shared_dst, const float* global_src) {
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src) : "memory");
#else
  store4(shared_dst, ldg4(global_src));
#endif
}

// Closes the group of copies issued since the last commit.
BS_HD void async_commit() {
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until all of this thread's committed copies have landed. Other threads' copies become
// visible only after the barrier that follows.
BS_HD void async_wait_all() {
#if BS_ON_DEVICE && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Guarded path, global -> registers: this thread's float4s of A's tile (rows row0.., columns k0..).
template <int BK, int kThreads, int kLoads>
BS_HD void fetch_a(Float4 (&staged)[kLoads], const MatmulArgs& a, int row0, int k0, int tid, bool a_vec) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
    const int gr = row0 + r, gk = k0 + c;
    staged[l] = load4_guarded(a.A + offset2d(gr < a.M ? gr : 0, gk, a.K), gr < a.M, a_vec, a.K - gk);
  }
}

// Guarded path, global -> one stage of Bs: cp.async where a whole aligned float4 is inside B;
// the ragged edges (odd N, the last k-tile) take guarded loads and ordinary stores, which the
// same barrier orders.
template <int BK, int BN, int kThreads, int kLoads, class Ctx>
BS_HD void copy_b(const Ctx& t, float (&Bs)[BK][BN], const MatmulArgs& a, int col0, int k0, int tid, bool b_vec) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
    const int gk = k0 + r, gc = col0 + c;
    // cp.async or a 16-byte store: the same 16 bytes of shared memory either way.
    note_shared(t, &Bs[r][c], 16, SharedOp::AsyncCopy, "Bs[r][c..c+3]");
    if (gk < a.K && b_vec && a.N - gc >= 4) copy16_async(&Bs[r][c], a.B + offset2d(gk, gc, a.N));
    else store4(&Bs[r][c], load4_guarded(a.B + offset2d(gk < a.K ? gk : 0, gc, a.N), gk < a.K, b_vec, a.N - gc));
  }
}

// The interior fast path. A thread's float4s of a tile sit a fixed number of rows apart, so one
// global offset per operand, computed once and moved on by one tile per step, addresses them
// all; the distance between them (rows apart x row length) is the same for every thread.
struct K7Cursor {
  long long at;   // offset of this thread's first float4 of the next tile
  int l_step;     // offset between its consecutive float4s
  int tile_step;  // offset from one tile to the next
};

template <int BK, int kThreads>
BS_HD K7Cursor a_cursor(const MatmulArgs& m, int row0, int tid) {
  return {offset2d(row0 + tid / (BK / 4), (tid % (BK / 4)) * 4, m.K), kThreads / (BK / 4) * m.K, BK};
}

template <int BN, int BK, int kThreads>
BS_HD K7Cursor b_cursor(const MatmulArgs& m, int col0, int tid) {
  return {offset2d(tid / (BN / 4), col0 + (tid % (BN / 4)) * 4, m.N), kThreads / (BN / 4) * m.N, BK * m.N};
}

template <int kLoads>
BS_HD void fetch_a_fast(Float4 (&staged)[kLoads], const float* A, const K7Cursor& c) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) staged[l] = ldg4(A + c.at + l * c.l_step);
}

template <int BK, int BN, int kThreads, int kLoads, class Ctx>
BS_HD void copy_b_fast(const Ctx& t, float (&Bs)[BK][BN], const float* B, const K7Cursor& c, int tid) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    note_shared(t, &Bs[i / (BN / 4)][(i % (BN / 4)) * 4], 16, SharedOp::AsyncCopy, "Bs[r][c..c+3]");
    copy16_async(&Bs[i / (BN / 4)][(i % (BN / 4)) * 4], B + c.at + l * c.l_step);
  }
}

// Registers -> one stage of As, transposed on the way.
template <int BK, int kRow, int kThreads, int kLoads, class Ctx>
BS_HD void stash_a(const Ctx& t, float (&As)[BK][kRow], const Float4 (&staged)[kLoads], int tid) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
    shared_store(t, As[c + 0][r], staged[l].x, "As[c + 0][r]");
    shared_store(t, As[c + 1][r], staged[l].y, "As[c + 1][r]");
    shared_store(t, As[c + 2][r], staged[l].z, "As[c + 2][r]");
    shared_store(t, As[c + 3][r], staged[l].w, "As[c + 3][r]");
  }
}

// Shared memory -> registers: the lane's TM values of A and TN values of B at step k.
template <int TM, int TN, int kSubM, int kSubN, int BK, int kRowA, int BN, class Ctx>
BS_HD void load_fragments(const Ctx& t, float (&af)[TM], float (&bf)[TN], const float (&As)[BK][kRowA],
                          const float (&Bs)[BK][BN], int k, int a_col, int b_col) {
  BS_UNROLL
  for (int f = 0; f < TM / 4; ++f) {
    note_shared(t, &As[k][a_col + f * kSubM], 16, SharedOp::Load, "As[k][a_col + f*kSubM..+3]");
    const Float4 v = load4(&As[k][a_col + f * kSubM]);
    af[4 * f] = v.x, af[4 * f + 1] = v.y, af[4 * f + 2] = v.z, af[4 * f + 3] = v.w;
  }
  BS_UNROLL
  for (int f = 0; f < TN / 4; ++f) {
    note_shared(t, &Bs[k][b_col + f * kSubN], 16, SharedOp::Load, "Bs[k][b_col + f*kSubN..+3]");
    const Float4 v = load4(&Bs[k][b_col + f * kSubN]);
    bf[4 * f] = v.x, bf[4 * f + 1] = v.y, bf[4 * f + 2] = v.z, bf[4 * f + 3] = v.w;
  }
}

}  // namespace k7_detail

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, class Ctx>
BS_HD void k7_warptile_thread(const Ctx& t, K7Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  constexpr int kWarpsN = BN / WN, kWarpsM = BM / WM;
  constexpr int kThreads = kWarpsM * kWarpsN * 32;
  constexpr int kLanesN = WN / TN, kLanesM = WM / TM;        // lanes along each side of a warp tile
  constexpr int kFragsM = TM / 4, kFragsN = TN / 4;          // 4 x 4 fragments per lane
  constexpr int kSubM = WM / kFragsM, kSubN = WN / kFragsN;  // distance between fragments
  constexpr int kLoadsA = BM * BK / 4 / kThreads, kLoadsB = BK * BN / 4 / kThreads;
  constexpr int kRowA = BM + K7Smem<BM, BN, BK>::kPadA;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0 && TM % 4 == 0 && TN % 4 == 0, "lane tiles are made of 4 x 4 fragments");
  static_assert(kLanesN * kLanesM == 32, "a warp tile must hold exactly 32 lane tiles");
  static_assert(BK % 4 == 0 && kLoadsA >= 1 && kLoadsB >= 1 && kLoadsA * kThreads * 4 == BM * BK &&
                    kLoadsB * kThreads * 4 == BK * BN,
                "every thread loads the same number of float4s per tile");

  const int tid = static_cast<int>(t.threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int lane_m = lane / kLanesN, lane_n = lane % kLanesN;
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;
  const bool a_vec = vec4_ok(a.A, a.K), b_vec = vec4_ok(a.B, a.N), c_vec = vec4_ok(a.C, a.N);
  const int a_col = warp_m * WM + lane_m * 4;  // first column of As (row of C) this lane reads
  const int b_col = warp_n * WN + lane_n * 4;
  const int tiles = (a.K + BK - 1) / BK, full_tiles = a.K / BK;
  // The same for every thread of the block: its tiles before full_tiles load without checks.
  const bool interior = a_vec && b_vec && row0 + BM <= a.M && col0 + BN <= a.N;
  k7_detail::K7Cursor a_next = k7_detail::a_cursor<BK, kThreads>(a, row0, tid);
  k7_detail::K7Cursor b_next = k7_detail::b_cursor<BN, BK, kThreads>(a, col0, tid);

  float acc[TM][TN] = {};
  Float4 staged_a[kLoadsA];
  // Tile `tile`: A into staged_a, B on its way into stage `stage`.
  auto fetch = [&](int tile, int stage) {
    if (interior && tile < full_tiles) {
      k7_detail::fetch_a_fast(staged_a, a.A, a_next);
      k7_detail::copy_b_fast<BK, BN, kThreads, kLoadsB>(t, s.Bs[stage], a.B, b_next, tid);
    } else {
      k7_detail::fetch_a<BK, kThreads>(staged_a, a, row0, tile * BK, tid, a_vec);
      k7_detail::copy_b<BK, BN, kThreads, kLoadsB>(t, s.Bs[stage], a, col0, tile * BK, tid, b_vec);
    }
    k7_detail::async_commit();
    a_next.at += a_next.tile_step;
    b_next.at += b_next.tile_step;
  };
  // Completes stage `stage` as far as this thread is concerned; the barrier after it does the rest.
  auto stash = [&](int stage) {
    k7_detail::stash_a<BK, kRowA, kThreads>(t, s.As[stage], staged_a, tid);
    k7_detail::async_wait_all();
  };

  // Prologue: tile 0 into stage 0.
  fetch(0, 0);
  stash(0);
  t.sync();

  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile & 1;
    const bool has_next = tile + 1 < tiles;    // the same for every thread: barriers stay uniform
    if (has_next) fetch(tile + 1, stage ^ 1);  // lands during the FMAs below
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      float af[TM], bf[TN];
      k7_detail::load_fragments<TM, TN, kSubM, kSubN>(t, af, bf, s.As[stage], s.Bs[stage], k, a_col, b_col);
      BS_UNROLL
      for (int m = 0; m < TM; ++m) BS_UNROLL
      for (int n = 0; n < TN; ++n) acc[m][n] += af[m] * bf[n];
    }
    if (has_next) stash(stage ^ 1);
    t.sync();
  }

  // Epilogue: each lane writes its fragments, 4 consecutive floats per row.
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
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct K7Warptile : RungBase {
  static constexpr GlobalLoads kGlobalLoads = GlobalLoads::BlockTile;
  static constexpr int kLoadFloats = 4;          // float4
  static constexpr bool kStoreFromOwner = true;  // a lane's outputs are spread over its warp tile
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k7_warptile";
    i.label = "7. warp tiling, double-buffered";
    i.teaches =
        "block, warp and thread tiles arranged so every shared-memory read of a warp is "
        "conflict-free, with the next tile's loads in flight during the FMAs (B by "
        "cp.async) and interior blocks loading without per-element checks";
    i.file = "kernels/labs/matmul/k7_warptile.hpp";
    i.configs = tile_configs<K7Warptile>(kK7Params);
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / BN), ceil(M / BM))";
    i.gpu_default_config = kK7FastestConfig;
    return i;
  }
  static unsigned threads(const TileParams& p) {
    return p.WM > 0 && p.WN > 0 ? static_cast<unsigned>((p.BM / p.WM) * (p.BN / p.WN) * 32) : 0u;
  }
  static std::string describe(const MatmulConfig& c) {
    return tile_text(c.tile, TileFields::Warp) + " | " + std::to_string(c.block.volume()) + " threads";
  }
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    return {Dim3{ceil_div_u(N, c.tile.BN), ceil_div_u(M, c.tile.BM), 1}, Dim3{threads(c.tile), 1, 1}};
  }
  static IndexScheme scheme(const MatmulConfig& c) {
    return IndexScheme::tiled(static_cast<unsigned>(c.tile.BN), static_cast<unsigned>(c.tile.BM));
  }
  static constexpr std::size_t kCompiled = std::size(kK7Params);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK7Params, c.tile); }

  static MatmulGeometry geometry(const MatmulConfig& c) {
    const TileParams& p = c.tile;
    MatmulGeometry g;
    g.block_rows = p.BM, g.block_cols = p.BN, g.k_step = p.BK, g.stages = 2;
    g.thread_rows = p.TM, g.thread_cols = p.TN, g.warp_rows = p.WM, g.warp_cols = p.WN;
    return g;
  }
  // K7Smem: two stages; A's rows padded by 4 floats where that still fits in 48 KB.
  static std::size_t shared_bytes(const MatmulConfig& c) {
    const TileParams& p = c.tile;
    const int pad = 2 * p.BK * (p.BM + 4 + p.BN) * 4 <= 48 * 1024 ? 4 : 0;
    return 2 * static_cast<std::size_t>(p.BK * (p.BM + pad) + p.BK * p.BN) * sizeof(float);
  }
  static Status check(const MatmulConfig& c, const DeviceLimits& limits);
  // warp = warp_m * (BN / WN) + warp_n over WM x WN warp tiles; lane = lane_m * (WN / TN) +
  // lane_n; a lane's (TM / 4) x (TN / 4) fragments of 4 x 4 sit kSubM = WM / (TM / 4) rows and
  // kSubN = WN / (TN / 4) columns apart, its first at (lane_m * 4, lane_n * 4).
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col);
  // The shared-memory model (shared_model.hpp): As[2][BK][BM + padA], Bs[2][BK][BN]; padA = 4
  // where both stages still fit in 48 KB. Prologue: tile 0's B (cp.async) and A (transposing
  // stores) into stage 0; then per tile: the next tile's B into the other stage, BK steps of
  // fragment loads, the next tile's A stores.
  static constexpr bool kSharedModel = true;
  static void shared_lane(SharedLane l, const MatmulConfig& cfg, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const TileParams& p = cfg.tile;
    const int warps_n = p.BN / p.WN, threads = (p.BM / p.WM) * warps_n * 32;
    const int pad_a = 2 * p.BK * (p.BM + 4 + p.BN) * 4 <= 48 * 1024 ? 4 : 0;
    const int rowa = p.BM + pad_a + o.pad_words, rowb = p.BN + o.pad_words;
    const long long a_stage = static_cast<long long>(p.BK) * rowa * F,
                    b_stage = static_cast<long long>(p.BK) * rowb * F;
    const long long bs = 2 * a_stage;
    const int loads_a = p.BM * p.BK / 4 / threads, loads_b = p.BK * p.BN / 4 / threads;
    const int warp = tid / 32, lane = tid % 32;
    const int lanes_n = p.WN / p.TN, sub_m = p.WM / (p.TM / 4), sub_n = p.WN / (p.TN / 4);
    const int a_col = (warp / warps_n) * p.WM + (lane / lanes_n) * 4;
    const int b_col = (warp % warps_n) * p.WN + (lane % lanes_n) * 4;
    auto copy_b = [&](int stage) {
      for (int j = 0; j < loads_b; ++j) {
        const int i = tid + j * threads, r = i / (p.BN / 4), c = (i % (p.BN / 4)) * 4;
        l.add(bs + stage * b_stage + (static_cast<long long>(r) * rowb + c) * F, 16, SharedOp::AsyncCopy,
              "Bs[r][c..c+3]");
      }
    };
    auto stash_a = [&](int stage) {
      for (int j = 0; j < loads_a; ++j) {
        const int i = tid + j * threads, r = i / (p.BK / 4), c = (i % (p.BK / 4)) * 4;
        for (int e = 0; e < 4; ++e)
          l.add(stage * a_stage + (static_cast<long long>(c + e) * rowa + r) * F, 4, SharedOp::Store, "As[c + e][r]");
      }
    };
    const int tiles = model_ceil_div(K, p.BK);
    copy_b(0);
    stash_a(0);
    for (int t = 0; t < tiles; ++t) {
      const int stage = t & 1;
      const bool next = t + 1 < tiles;
      if (next) copy_b(stage ^ 1);
      for (int k = 0; k < p.BK; ++k) {
        for (int f = 0; f < p.TM / 4; ++f)
          l.add(stage * a_stage + (static_cast<long long>(k) * rowa + a_col + f * sub_m) * F, 16, SharedOp::Load,
                "As[k][a_col + f*kSubM..+3]");
        for (int f = 0; f < p.TN / 4; ++f)
          l.add(bs + stage * b_stage + (static_cast<long long>(k) * rowb + b_col + f * sub_n) * F, 16, SharedOp::Load,
                "Bs[k][b_col + f*kSubN..+3]");
      }
      if (next) stash_a(stage ^ 1);
    }
  }
  template <std::size_t I>
  struct At {
    static constexpr TileParams P = kK7Params[I];
    using Smem = K7Smem<P.BM, P.BN, P.BK>;
    static constexpr unsigned threads = (P.BM / P.WM) * (P.BN / P.WN) * 32;
    // MB: the occupancy the configuration asks for, the register budget ptxas must meet
    static constexpr int min_blocks = P.MB;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k7_warptile_thread<P.BM, P.BN, P.BK, P.WM, P.WN, P.TM, P.TN>(t, s, a);
    }
  };
};
static_assert(sizeof(K7Smem<128, 256, 8>) == 2 * (8 * (128 + 4) + 8 * 256) * 4);
static_assert(sizeof(K7Smem<128, 128, 16>) == 2 * (16 * (128 + 4) + 16 * 128) * 4);
static_assert(sizeof(K7Smem<128, 256, 16>) == 2 * (16 * 128 + 16 * 256) * 4);  // unpadded: 48 KB

inline Status K7Warptile::check(const MatmulConfig& c, const DeviceLimits& limits) {
  const TileParams& p = c.tile;
  const char* id = "k7_warptile";
  if (Status s = check_tile(id, c, threads(p), TileFields::Warp, /*block_last=*/true); !s) return s;
  if (p.MB < 1 || p.MB > static_cast<int>(limits.max_blocks_per_sm))
    return refuse(id,
                  "MB = " + std::to_string(p.MB) +
                      ": the blocks per SM the compiler must fit (1 uncaps registers, 2 caps "
                      "256-thread blocks at 128 registers) must be at least 1",
                  "pick MB from the compiled set");
  if (p.WM <= 0 || p.WN <= 0 || p.BM % p.WM != 0 || p.BN % p.WN != 0)
    return refuse(
        id, "the warp tile " + std::to_string(p.WM) + "x" + std::to_string(p.WN) + " does not divide the block tile",
        "BM must be a multiple of WM and BN of WN");
  if (p.WM % p.TM != 0 || p.WN % p.TN != 0 || (p.WM / p.TM) * (p.WN / p.TN) != 32)
    return refuse(id,
                  "a warp tile must hold exactly 32 thread tiles: (WM/TM) * (WN/TN) = " +
                      std::to_string(p.WM % p.TM == 0 && p.WN % p.TN == 0 ? (p.WM / p.TM) * (p.WN / p.TN) : -1),
                  "choose WM, WN, TM, TN with (WM/TM) * (WN/TN) = 32");
  return check_block_matches(id, c, threads(p), TileFields::Warp);
}

inline Result<ElementOwner> K7Warptile::owner(const MatmulConfig& c, int row, int col) {
  const TileParams& p = c.tile;
  if (p.TM < 4 || p.TN < 4 || p.WM <= 0 || p.WN <= 0)
    return Status::failure("rung 7 needs TM, TN >= 4 and a warp tile", "", "element_owner");
  auto cell = block_cell(geometry(c), row, col);
  if (!cell) return cell.status();
  const int r = cell->r, cc0 = cell->c;
  const int frags_m = p.TM / 4, frags_n = p.TN / 4;
  const int sub_m = p.WM / frags_m, sub_n = p.WN / frags_n;
  const int lanes_n = p.WN / p.TN;
  const int warp_m = r / p.WM, warp_n = cc0 / p.WN;
  const int rr = r % p.WM, cc = cc0 % p.WN;
  const int lane_m = (rr % sub_m) / 4, lane_n = (cc % sub_n) / 4;
  ElementOwner o;
  o.warp = static_cast<unsigned>(warp_m * (p.BN / p.WN) + warp_n);
  o.lane = static_cast<unsigned>(lane_m * lanes_n + lane_n);
  o.block = cell->block;
  o.thread = Dim3{o.warp * 32 + o.lane, 0, 0};
  o.linear_thread = o.thread.x;
  const long long wr = cell->row0 + static_cast<long long>(warp_m) * p.WM,
                  wc = cell->col0 + static_cast<long long>(warp_n) * p.WN;
  o.warp_tile = {wr, wc, p.WM, p.WN};
  for (int fm = 0; fm < frags_m; ++fm)
    for (int fn = 0; fn < frags_n; ++fn)
      o.outputs.push_back({wr + lane_m * 4 + static_cast<long long>(fm) * sub_m,
                           wc + lane_n * 4 + static_cast<long long>(fn) * sub_n, 4, 4});
  return o;
}

}  // namespace bs::matmul
