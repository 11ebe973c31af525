// Tensor-core rung 1 (BF16): WMMA, the CUDA C++ API a learner meets first.
//
// What changes from the FP32 ladder: the multiply-adds move from the FP32 lanes to the tensor
// cores. A warp asks for a whole 16 x 16 x 16 product at once (nvcuda::wmma::mma_sync): every
// lane hands in pieces of the A and B tiles it loaded (a "fragment"), and every lane gets back
// pieces of C. Block tile 64 x 64, four warps of 32 x 32 (2 x 2 fragments each), K staged 32 at a
// time through shared memory with plain 16-byte loads; edges load zeros, the epilogue stores
// through a per-warp staging tile with bounds checks.
//
// Why it is slow on Hopper (the lab shows it beside the next rungs): WMMA compiles to the
// Ampere-era warp-level mma.sync (HMMA in the SASS), which reaches only a part of what Hopper's
// warpgroup instruction (wgmma, HGMMA) does; every fragment is reloaded from shared memory by
// every warp that needs it; and nothing overlaps the global loads with the math (one stage, two
// barriers per K step).
// Launch: block (128, 1, 1), grid (ceil(N / 64), ceil(M / 64)); any M, N, K; needs sm_80.
#pragma once
#include "labs/matmul/fragment_tags.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/tc_warp_ops.hpp"

namespace bs::matmul {

inline constexpr int kTc1Tile = 64, kTc1K = 32, kTc1Pitch = kTc1K + 8;  // +8: 80-byte rows

struct alignas(128) Tc1Smem {
  Bf16 As[kTc1Tile][kTc1Pitch];  // A[row0 + r][k0 + k]
  Bf16 Bs[kTc1Tile][kTc1Pitch];  // Bt[col0 + n][k0 + k], i.e. B[k0 + k][col0 + n]
  float Cs[4][16][16];           // each warp's staging for one output fragment
};

// 16 bytes (8 BF16) at p, or zeros.
struct alignas(16) Chunk16 {
  std::uint32_t w[4];
};
BS_HD Chunk16 load_chunk16(const Bf16* p, bool valid) {
  Chunk16 c{{0, 0, 0, 0}};
  if (!valid) return c;
#if BS_ON_DEVICE
  const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
  c.w[0] = v.x, c.w[1] = v.y, c.w[2] = v.z, c.w[3] = v.w;
#else
  std::memcpy(&c, p, sizeof c);
#endif
  return c;
}
BS_HD void store_chunk16(Bf16* p, const Chunk16& c) {
#if BS_ON_DEVICE
  *reinterpret_cast<uint4*>(p) = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
#else
  std::memcpy(static_cast<void*>(p), &c, sizeof c);
#endif
}

// `sink`: NoFragmentSink for the rung as it runs; TagFragments for its tagged variant (the probe
// launch of fragment_record.hpp), which also records who held each accumulator.
template <class Ctx, class Sink = NoFragmentSink>
BS_HD void tc1_wmma_thread(const Ctx& t, Tc1Smem& s, const Bf16Args& a, const Sink& sink = Sink{}) {
  const int tid = static_cast<int>(linear_thread_in_block(t)), warp = tid >> 5, lane = tid & 31;
  const int wm = warp >> 1, wn = warp & 1;  // 2 x 2 warps of 32 x 32
  const int row0 = static_cast<int>(t.blockIdx.y) * kTc1Tile;
  const int col0 = static_cast<int>(t.blockIdx.x) * kTc1Tile;
  WmmaC acc[2][2];
  for (auto& r : acc)
    for (auto& c : r) wmma_zero(c);

  for (int k0 = 0; k0 < a.K; k0 += kTc1K) {
    // 64 rows x 4 chunks of 8 BF16, for A and for Bt: two chunks of each per thread.
    for (int i = tid; i < kTc1Tile * 4; i += 128) {
      const int r = i >> 2, k = (i & 3) * 8;
      const bool in_k = k0 + k < a.ld;  // the pad past K is zeros
      store_chunk16(&s.As[r][k],
                    load_chunk16(a.A + static_cast<long long>(row0 + r) * a.ld + k0 + k, row0 + r < a.M && in_k));
      store_chunk16(&s.Bs[r][k],
                    load_chunk16(a.Bt + static_cast<long long>(col0 + r) * a.ld + k0 + k, col0 + r < a.N && in_k));
    }
    t.sync();
    for (int kk = 0; kk < kTc1K; kk += 16) {
      WmmaA fa[2];
      WmmaB fb[2];
      for (int i = 0; i < 2; ++i) wmma_load_a(t, fa[i], &s.As[wm * 32 + i * 16][kk], kTc1Pitch);
      for (int j = 0; j < 2; ++j) wmma_load_b(t, fb[j], &s.Bs[wn * 32 + j * 16][kk], kTc1Pitch);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma_mma(t, acc[i][j], fa[i], fb[j]);
    }
    t.sync();
  }

  // Tagged variant: each lane decodes the values its accumulator fragments hold (frag.x[e], the
  // layout CUDA keeps opaque) into the elements they are; register (2 i + j) * 8 + e.
  if constexpr (Sink::kOn) {
#if BS_TC_DEVICE
    static_assert(WmmaC::num_elements == 8);
#endif
    const int block = static_cast<int>(t.blockIdx.x + t.gridDim.x * t.blockIdx.y);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int e = 0; e < 8; ++e)
          tag_accumulator(sink.s, acc[i][j].x[e], row0, col0, tid, (i * 2 + j) * 8 + e, block);
  }

  // Epilogue: fragment -> the warp's staging tile -> C, element by element within bounds.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      wmma_store(t, &s.Cs[warp][0][0], acc[i][j], 16);
      t.sync();  // the warp's lanes see each other's stores (a block barrier on the simulator)
      for (int e = lane; e < 256; e += 32) {
        const int r = row0 + wm * 32 + i * 16 + (e >> 4), c = col0 + wn * 32 + j * 16 + (e & 15);
        if (r < a.M && c < a.N) a.C[static_cast<long long>(r) * a.N + c] = s.Cs[warp][e >> 4][e & 15];
      }
      t.sync();  // read before the next fragment overwrites the staging
    }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct Tc1Wmma : TcRungBase {
  static constexpr bool kFragments = true;  // a tagged body (fragment_record.hpp)
  static constexpr const char* kConfig = "64 x 64 tile, 4 warps of 2 x 2 WMMA 16x16x16 | 128 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "tc1_wmma";
    i.label = "T1. WMMA 16x16x16 (tensor cores)";
    i.teaches =
        "a warp asks the tensor cores for a whole 16 x 16 x 16 product (nvcuda::wmma); on "
        "Hopper this is the older warp-level path (HMMA), one shared-memory stage, "
        "every fragment reloaded by every warp";
    i.file = "kernels/labs/matmul/tc1_wmma.hpp";
    i.configs = one_config(Dim3{128, 1, 1}, kConfig);
    i.uses_shared = i.uses_barriers = true;
    i.precision = Precision::Bf16;
    i.needs = RungNeeds::Sm80;
    i.grid_rule = "grid = (ceil(N / 64), ceil(M / 64))";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) {
    return {Dim3{ceil_div_u(N, kTc1Tile), ceil_div_u(M, kTc1Tile), 1}, Dim3{128, 1, 1}};
  }
  static MatmulGeometry geometry(const MatmulConfig&) {
    MatmulGeometry g;
    g.block_rows = g.block_cols = kTc1Tile, g.k_step = kTc1K, g.stages = 1;
    g.warp_rows = g.warp_cols = 32;
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return sizeof(Tc1Smem); }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    return c.block == Dim3{128, 1, 1}
               ? Status::success()
               : refuse("tc1_wmma", "block " + to_string(c.block) + ": the rung's 4 warps are fixed",
                        "use blockDim (128, 1, 1)");
  }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::tiled(kTc1Tile, kTc1Tile); }
  // The epilogue: warp (r / 32) * 2 + c / 32 stores fragment ((r % 32) / 16, (c % 32) / 16)
  // through its staging tile, lane l copying elements l, l + 32, ... of the 16 x 16 fragment.
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    auto cell = block_cell(geometry(c), row, col);
    if (!cell) return cell.status();
    ElementOwner o;
    o.block = cell->block;
    const int wm = cell->r / 32, wn = cell->c / 32, e = (cell->r % 16) * 16 + cell->c % 16;
    o.warp = static_cast<unsigned>(wm * 2 + wn);
    o.lane = static_cast<unsigned>(e % 32);
    o.linear_thread = o.warp * 32 + o.lane;
    o.thread = Dim3{o.linear_thread, 0, 0};
    o.warp_tile = {cell->row0 + wm * 32, cell->col0 + wn * 32, 32, 32};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int q = static_cast<int>(o.lane); q < 256; q += 32)
          o.outputs.push_back({o.warp_tile.row + i * 16 + q / 16, o.warp_tile.col + j * 16 + q % 16, 1, 1});
    return o;
  }
  // The fragment layout (fragment_place.hpp). Block 64 x 64: warps 2 x 2 of 32 x 32, each 2 x 2
  // WMMA fragments of 16 x 16, each two mma.m16n8k16 halves (columns 0-7, 8-15):
  // acc[i][j].x[4 h + e] (tc_warp_ops.hpp). owner() above names the lane that STORES an element
  // through the staging tile, not the lane that holds it (kOwnerHolds).
  static Result<FragmentPlace> fragment_place(int r, int c) {
    if (r < 0 || c < 0 || r >= kTc1Tile || c >= kTc1Tile) return fragment_outside(r, c, kTc1Tile, kTc1Tile);
    FragmentPlace p;
    const int wm = r / 32, wn = c / 32, i = (r % 32) / 16, j = (c % 32) / 16;
    const int fr = r % 16, fc = c % 16, h = fc / 8;
    const LaneReg lr = mma_c_owner(fr, fc % 8);
    p.kind = MmaKind::Wmma;
    p.warp = static_cast<unsigned>(wm * 2 + wn), p.lane = lr.lane, p.thread = p.warp * 32 + p.lane;
    p.reg = (i * 2 + j) * 8 + 4 * h + lr.e;
    p.store_lane = (fr * 16 + fc) % 32;  // the epilogue: lane l copies elements l, l + 32, ...
    p.mma_m = 16, p.mma_n = 8, p.wmma_m = 16, p.wmma_n = 16;
    p.tile_r = r - fr, p.tile_c = c - fc + 8 * h, p.in_r = fr, p.in_c = fc % 8;
    p.mma_index = ((i * 2 + j) * 2) + h, p.mma_count = 8;
    p.owner_r = wm * 32, p.owner_c = wn * 32, p.owner_rows = p.owner_cols = 32;
    return p;
  }
  static constexpr bool kOwnerHolds = false;
  static constexpr const char* kFragmentNote =
      " WMMA keeps its accumulator layout opaque in CUDA: the model beside it is mma.m16n8k16's C layout twice, "
      "which the ISA does not promise for WMMA; the record shows what this compiler and backend really do.";
  template <std::size_t>
  struct At {
    using Smem = Tc1Smem;
    static constexpr unsigned threads = 128;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const Bf16Args& a) {
      tc1_wmma_thread(t, s, a);
    }
    template <class Ctx>
    static BS_HD void tagged_body(const Ctx& t, Smem& s, const Bf16Args& a, const TagFragments& sink) {
      tc1_wmma_thread(t, s, a, sink);
    }
  };
};

}  // namespace bs::matmul
