// Tensor-core rung 2 (BF16): mma.sync.m16n8k16 fed by ldmatrix from swizzled shared memory,
// with a three-stage cp.async pipeline: the Ampere form, still correct on Hopper.
//
// What changes from rung 1: the instructions WMMA hides are written out. Block tile 128 x 128,
// eight warps of 64 x 32 (4 x 4 mma tiles, 64 FP32 accumulators a lane). Global -> shared by
// cp.async (no registers on the way, zero-filled past the edges), three K slices of 32 in flight
// so the loads of slice k + 2 overlap the math on slice k. ldmatrix.x4 moves four 8 x 8 BF16
// tiles from shared memory straight into the fragment layout mma wants (tc_common.hpp).
//
// The swizzle: a tile row is 64 bytes (32 BF16), so the eight rows one ldmatrix reads at the same
// column would fall on the same banks (rows 2 apart are 128 bytes apart). Each 16-byte chunk c of
// row r is stored at chunk c ^ ((r / 2) % 4): the eight rows now cover all 32 banks, and so do
// the cp.async writes (tc2_swizzle below; the bank view shows both).
// Why it should help: operands reused from registers across 4 x 4 mma, loads overlapped, no bank
// conflicts; what still limits it on Hopper: mma.sync is a warp instruction whose operands pass
// through registers, so it reaches well under the wgmma rungs.
// Launch: block (256, 1, 1), grid (ceil(N / 128), ceil(M / 128)); 48 KB shared; needs sm_80.
#pragma once
#include "labs/matmul/fragment_tags.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"
#include "labs/matmul/tc_warp_ops.hpp"

namespace bs::matmul {

inline constexpr int kTc2BM = 128, kTc2BN = 128, kTc2BK = 32, kTc2Stages = 3;

struct alignas(128) Tc2Smem {
  unsigned char A[kTc2Stages][kTc2BM * kTc2BK * 2];  // 128 rows x 64 bytes, swizzled
  unsigned char B[kTc2Stages][kTc2BN * kTc2BK * 2];  // rows of Bt (columns of C), swizzled
};
static_assert(sizeof(Tc2Smem) == 48 * 1024);

// Byte offset of 16-byte chunk c (0..3) of row r in a swizzled tile.
BS_HD int tc2_swizzle(int r, int c) { return r * 64 + ((c ^ ((r >> 1) & 3)) << 4); }

// `sink`: NoFragmentSink for the rung as it runs; TagFragments for its tagged variant (the probe
// launches of fragment_record.hpp), which also records who held each accumulator and, at the
// first k-step of block (0, 0), which lane received which operand element.
template <class Ctx, class Sink = NoFragmentSink>
BS_HD void tc2_mma_sync_thread(const Ctx& t, Tc2Smem& s, const Bf16Args& a, const Sink& sink = Sink{}) {
  const int tid = static_cast<int>(linear_thread_in_block(t)), warp = tid >> 5, lane = tid & 31;
  const int wm = warp >> 2, wn = warp & 3;  // 2 x 4 warps of 64 x 32
  const int row0 = static_cast<int>(t.blockIdx.y) * kTc2BM;
  const int col0 = static_cast<int>(t.blockIdx.x) * kTc2BN;
  const int slices = (a.K + kTc2BK - 1) / kTc2BK;

  auto load_slice = [&](int stage, int slice) {
    const int k0 = slice * kTc2BK;
    for (int i = tid; i < kTc2BM * 4; i += 256) {  // 2 chunks of A and 2 of Bt per thread
      const int r = i >> 2, c = i & 3, k = k0 + c * 8;
      const bool a_ok = row0 + r < a.M && k < a.ld, b_ok = col0 + r < a.N && k < a.ld;
      note_shared(t, s.A[stage] + tc2_swizzle(r, c), 16, SharedOp::AsyncCopy, "A[stage] + swizzle(r, c)");
      cp_async_16(s.A[stage] + tc2_swizzle(r, c), a_ok ? a.A + static_cast<long long>(row0 + r) * a.ld + k : a.A, a_ok);
      note_shared(t, s.B[stage] + tc2_swizzle(r, c), 16, SharedOp::AsyncCopy, "B[stage] + swizzle(r, c)");
      cp_async_16(s.B[stage] + tc2_swizzle(r, c), b_ok ? a.Bt + static_cast<long long>(col0 + r) * a.ld + k : a.Bt,
                  b_ok);
    }
  };

  float acc[4][4][4] = {};
  for (int st = 0; st < kTc2Stages - 1; ++st) {
    if (st < slices) load_slice(st, st);
    cp_async_commit();
  }
  for (int kt = 0; kt < slices; ++kt) {
    cp_async_wait<kTc2Stages - 2>();  // slice kt has landed (this thread's part) ...
    t.sync();                         // ... and everyone's; slice kt - 1 is no longer read
    if (kt + kTc2Stages - 1 < slices) load_slice((kt + kTc2Stages - 1) % kTc2Stages, kt + kTc2Stages - 1);
    cp_async_commit();
    const unsigned char* As = s.A[kt % kTc2Stages];
    const unsigned char* Bs = s.B[kt % kTc2Stages];
    for (int kk = 0; kk < kTc2BK / 16; ++kk) {
      std::uint32_t af[4][4], bf[4][2];
      for (int i = 0; i < 4; ++i) {  // matrices: rows 0-7 / 8-15 x k 0-7 / 8-15 -> a0..a3
        const int r = wm * 64 + i * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
        ldmatrix_x4(t, As + tc2_swizzle(r, kk * 2 + (lane >> 4)), af[i], "As + swizzle(r, 2kk + lane/16)");
      }
      for (int p = 0; p < 2; ++p) {  // two 8-column tiles: (b0, b1) of each
        const int n = wn * 32 + p * 16 + (lane & 7) + 8 * (lane >> 4);
        std::uint32_t r4[4];
        ldmatrix_x4(t, Bs + tc2_swizzle(n, kk * 2 + ((lane >> 3) & 1)), r4, "Bs + swizzle(n, 2kk + lane/8%2)");
        bf[2 * p][0] = r4[0], bf[2 * p][1] = r4[1], bf[2 * p + 1][0] = r4[2], bf[2 * p + 1][1] = r4[3];
      }
      if constexpr (Sink::kOn) {
        if (kt == 0 && kk == 0 && t.blockIdx.x == 0 && t.blockIdx.y == 0)
          for (int h = 0; h < 2; ++h) {
            for (int i = 0; i < 4; ++i)
              for (int q = 0; q < 4; ++q)
                tag_operand(sink.s, true, static_cast<std::uint16_t>(af[i][q] >> (16 * h)), wm * 64, warp, tid,
                            (4 * i + q) * 2 + h);
            for (int j = 0; j < 4; ++j)
              for (int q = 0; q < 2; ++q)
                tag_operand(sink.s, false, static_cast<std::uint16_t>(bf[j][q] >> (16 * h)), wn * 32, warp, tid,
                            (2 * j + q) * 2 + h);
          }
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) mma_bf16_16816(t, af[i], bf[j], acc[i][j]);
    }
  }
  cp_async_wait<0>();

  if constexpr (Sink::kOn) {  // each lane decodes the values its accumulators hold
    const int block = static_cast<int>(t.blockIdx.x + t.gridDim.x * t.blockIdx.y);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int e = 0; e < 4; ++e) tag_accumulator(sink.s, acc[i][j][e], row0, col0, tid, 16 * i + 4 * j + e, block);
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 4; ++e) {
        const FragCoord f = mma_c_coord(lane, e);
        const int r = row0 + wm * 64 + i * 16 + f.row, c = col0 + wn * 32 + j * 8 + f.col;
        if (r < a.M && c < a.N) a.C[static_cast<long long>(r) * a.N + c] = acc[i][j][e];
      }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct Tc2MmaSync : TcRungBase {
  static constexpr bool kFragments = true;  // a tagged body (fragment_record.hpp)
  static constexpr const char* kConfig = "128 x 128 tile, 8 warps of 64 x 32, BK=32, 3 cp.async stages | 256 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "tc2_mma_sync";
    i.label = "T2. mma.sync + ldmatrix, swizzled, 3 stages";
    i.teaches =
        "the instructions WMMA hides, written out: cp.async fills three stages of swizzled "
        "tiles, ldmatrix feeds 4 x 4 mma.sync.m16n8k16 per warp from registers";
    i.file = "kernels/labs/matmul/tc2_mma_sync.hpp";
    i.configs = one_config(Dim3{256, 1, 1}, kConfig);
    i.uses_shared = i.uses_barriers = true;
    i.precision = Precision::Bf16;
    i.needs = RungNeeds::Sm80;
    i.grid_rule = "grid = (ceil(N / 128), ceil(M / 128))";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) {
    return {Dim3{ceil_div_u(N, kTc2BN), ceil_div_u(M, kTc2BM), 1}, Dim3{256, 1, 1}};
  }
  static MatmulGeometry geometry(const MatmulConfig&) {
    MatmulGeometry g;
    g.block_rows = kTc2BM, g.block_cols = kTc2BN, g.k_step = kTc2BK, g.stages = kTc2Stages;
    g.warp_rows = 64, g.warp_cols = 32;
    g.thread_cols = 2;
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return sizeof(Tc2Smem); }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    return c.block == Dim3{256, 1, 1}
               ? Status::success()
               : refuse("tc2_mma_sync", "block " + to_string(c.block) + ": the rung's 8 warps are fixed",
                        "use blockDim (256, 1, 1)");
  }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::tiled(kTc2BN, kTc2BM); }
  // Warp (r / 64) * 4 + c / 32 holds its 64 x 32 tile as 4 x 4 mma tiles of 16 x 8; the lane and
  // register of an element come from mma.m16n8's C layout (tc_common.hpp).
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    auto cell = block_cell(geometry(c), row, col);
    if (!cell) return cell.status();
    ElementOwner o;
    o.block = cell->block;
    const int wm = cell->r / 64, wn = cell->c / 32;
    const unsigned warp = static_cast<unsigned>(wm * 4 + wn);
    const CRect tile{cell->row0 + wm * 64, cell->col0 + wn * 32, 64, 32};
    return fragment_owner(o, tile, 64, cell->r % 64, cell->c % 32, warp * 32, 32, [](int lane, int reg) {
      const FragCoord f = mma_c_coord(lane, reg & 3);
      return FragCoord{(reg >> 4) * 16 + f.row, ((reg >> 2) & 3) * 8 + f.col};
    });
  }
  // The shared-memory model (shared_model.hpp): A[3][128 rows x 64 bytes], B[3][...], 16-byte
  // chunk c of row r at r*64 + 16 (c ^ (r/2 % 4)) (tc2_swizzle; options.swizzle = false stores the
  // chunks in order, the "before" picture).
  static constexpr bool kSharedModel = true;
  static constexpr bool kSwizzledShared = true;
  static SwizzleMap swizzle_map() {
    SwizzleMap m;
    m.title = "T2's A tile: first bank of each 16-byte chunk, rows 0-15";
    m.help =
        "A row of the tile is 64 bytes (32 BF16), so rows 2 apart start 128 bytes apart, in the same banks: the "
        "8 rows one ldmatrix phase reads at one chunk fall on 2 groups of 4 banks. T2 stores chunk c of row r "
        "at chunk c ^ ((r / 2) % 4) (tc2_swizzle): the same 8 rows now cover all 32 banks.";
    m.before = "before (chunk c at c)", m.after = "after: c ^ ((r / 2) % 4)";
    m.rows = 16, m.chunks = 4;
    m.plain = [](int r, int c) { return r * 64LL + 16 * c; };
    m.swizzled = [](int r, int c) { return static_cast<long long>(tc2_swizzle(r, c)); };
    return m;
  }
  static void shared_lane(SharedLane l, const MatmulConfig&, int K, int tid, const SharedModelOptions& o) {
    const int row_bytes = 64 + 4 * o.pad_words;
    const long long tile = 128LL * row_bytes;
    auto swz = [&](int r, int c) -> long long {
      return static_cast<long long>(r) * row_bytes + ((o.swizzle ? (c ^ ((r >> 1) & 3)) : c) << 4);
    };
    const long long b_base = 3 * tile;
    const int warp = tid >> 5, lane = tid & 31, wm = warp >> 2, wn = warp & 3;
    const int slices = model_ceil_div(K, 32);
    auto load_slice = [&](int stage) {
      for (int i = tid; i < 128 * 4; i += 256) {
        const int r = i >> 2, c = i & 3;
        l.add(stage * tile + swz(r, c), 16, SharedOp::AsyncCopy, "A[stage] + swizzle(r, c)");
        l.add(b_base + stage * tile + swz(r, c), 16, SharedOp::AsyncCopy, "B[stage] + swizzle(r, c)");
      }
    };
    for (int st = 0; st < 2; ++st)
      if (st < slices) load_slice(st);
    for (int kt = 0; kt < slices; ++kt) {
      if (kt + 2 < slices) load_slice((kt + 2) % 3);
      const int stage = kt % 3;
      for (int kk = 0; kk < 2; ++kk) {
        for (int i = 0; i < 4; ++i) {
          const int r = wm * 64 + i * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
          l.add(stage * tile + swz(r, kk * 2 + (lane >> 4)), 16, SharedOp::LdMatrix, "As + swizzle(r, 2kk + lane/16)");
        }
        for (int q = 0; q < 2; ++q) {
          const int n = wn * 32 + q * 16 + (lane & 7) + 8 * (lane >> 4);
          l.add(b_base + stage * tile + swz(n, kk * 2 + ((lane >> 3) & 1)), 16, SharedOp::LdMatrix,
                "Bs + swizzle(n, 2kk + lane/8%2)");
        }
      }
    }
  }
  // The fragment layout (fragment_place.hpp). Block 128 x 128: warps 2 x 4 of 64 x 32, each 4 x 4
  // mma tiles of 16 x 8; register 16 i + 4 j + e (owner() above).
  static Result<FragmentPlace> fragment_place(int r, int c) {
    if (r < 0 || c < 0 || r >= kTc2BM || c >= kTc2BN) return fragment_outside(r, c, kTc2BM, kTc2BN);
    FragmentPlace p;
    const int wm = r / 64, wn = c / 32, i = (r % 64) / 16, j = (c % 32) / 8;
    const LaneReg lr = mma_c_owner(r % 16, c % 8);
    p.kind = MmaKind::MmaSync;
    p.warp = static_cast<unsigned>(wm * 4 + wn), p.lane = lr.lane, p.thread = p.warp * 32 + p.lane;
    p.reg = i * 16 + j * 4 + lr.e;
    p.store_lane = static_cast<int>(p.lane);
    p.mma_m = 16, p.mma_n = 8;
    p.tile_r = r - r % 16, p.tile_c = c - c % 8, p.in_r = r % 16, p.in_c = c % 8;
    p.mma_index = i * 4 + j, p.mma_count = 16;
    p.owner_r = wm * 64, p.owner_c = wn * 32, p.owner_rows = 64, p.owner_cols = 32;
    return p;
  }
  // The operand record (fragment_record.hpp): ldmatrix hands each lane its A and B elements, so
  // a tagged run records who received which, for the 8 warps; warp w's tile starts (w / 4) warp
  // tiles down and (w % 4) across.
  static constexpr int kOperandWarps = 8;
  static int operand_first_row(int w, const MatmulGeometry& g) { return (w >> 2) * g.warp_rows; }
  static int operand_first_col(int w, const MatmulGeometry& g) { return (w & 3) * g.warp_cols; }
  template <std::size_t>
  struct At {
    using Smem = Tc2Smem;
    static constexpr unsigned threads = 256;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const Bf16Args& a) {
      tc2_mma_sync_thread(t, s, a);
    }
    template <class Ctx>
    static BS_HD void tagged_body(const Ctx& t, Smem& s, const Bf16Args& a, const TagFragments& sink) {
      tc2_mma_sync_thread(t, s, a, sink);
    }
  };
};

}  // namespace bs::matmul
