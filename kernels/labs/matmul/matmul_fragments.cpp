#include "labs/matmul/matmul_fragments.hpp"

#include <algorithm>

#include "labs/matmul/matmul_owner.hpp"
#include "mapping/cluster.hpp"

namespace bs::matmul {
namespace {

// The C layout of mma.m16n8 (tc_common.hpp's mma_c_coord) inverted: element (r, c) of a 16 x 8
// tile is held by lane 4 (r % 8) + c / 2 in its register 2 (r / 8) + c % 2.
struct LaneReg {
  unsigned lane;
  int e;
};
LaneReg mma_c_owner(int r, int c) {
  return {static_cast<unsigned>((r % 8) * 4 + c / 2), (r / 8) * 2 + c % 2};
}

Status outside(int r, int c, int rows, int cols) {
  return Status::failure("(" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the block's " +
                             std::to_string(rows) + " x " + std::to_string(cols) + " tile",
                         "", "fragment_place");
}

// A wgmma m64nNk16 accumulator tile at (tile_r, tile_c) of the block's tile, held by the
// warpgroup whose threads start at `first_thread`; (r, c) inside it; `reg_base` the first of its
// N / 2 registers in the thread's accumulators.
FragmentPlace wgmma_place(int n, int tile_r, int tile_c, int r, int c, int warpgroup, unsigned first_thread,
                          int reg_base) {
  FragmentPlace p;
  p.kind = MmaKind::Wgmma;
  p.warpgroup = warpgroup;
  const int w = r / 16;  // warp w of the group holds rows 16 w .. 16 w + 15
  const LaneReg lr = mma_c_owner(r % 16, c % 8);
  p.thread = first_thread + static_cast<unsigned>(w) * 32 + lr.lane;
  p.warp = p.thread / 32, p.lane = lr.lane;
  p.reg = reg_base + (c / 8) * 4 + lr.e;
  p.store_lane = static_cast<int>(p.lane);
  p.mma_m = 64, p.mma_n = n;
  p.tile_r = tile_r, p.tile_c = tile_c, p.in_r = r, p.in_c = c;
  return p;
}

}  // namespace

Result<FragmentPlace> fragment_place(MatmulKernel kernel, int r, int c) {
  FragmentPlace p;
  switch (kernel) {
    case MatmulKernel::Tc1Wmma: {
      // Block 64 x 64: warps 2 x 2 of 32 x 32, each 2 x 2 WMMA fragments of 16 x 16, each two
      // mma.m16n8k16 halves (columns 0-7, 8-15): acc[i][j].x[4 h + e] (tc1_wmma.hpp, tc_warp_ops.hpp).
      if (r < 0 || c < 0 || r >= kTc1Tile || c >= kTc1Tile) return outside(r, c, kTc1Tile, kTc1Tile);
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
    case MatmulKernel::Tc2MmaSync: {
      // Block 128 x 128: warps 2 x 4 of 64 x 32, each 4 x 4 mma tiles of 16 x 8; register
      // 16 i + 4 j + e (tc2_mma_sync.hpp's owner).
      if (r < 0 || c < 0 || r >= kTc2BM || c >= kTc2BN) return outside(r, c, kTc2BM, kTc2BN);
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
    case MatmulKernel::Tc3Wgmma: {
      // Block 128 x 128, one warpgroup issuing two m64n128k16 (rows 0-63: registers 0-63, rows
      // 64-127: registers 64-127).
      if (r < 0 || c < 0 || r >= kTc3BM || c >= kTc3BN) return outside(r, c, kTc3BM, kTc3BN);
      const int half = r / 64;
      p = wgmma_place(kTc3BN, 64 * half, 0, r % 64, c, 0, 0, half * (kTc3BN / 2));
      p.mma_index = half, p.mma_count = 2;
      p.owner_r = 0, p.owner_c = 0, p.owner_rows = kTc3BM, p.owner_cols = kTc3BN;
      return p;
    }
    case MatmulKernel::Tc4WarpSpecialized:
    case MatmulKernel::Tc5Persistent:
    case MatmulKernel::Tc6ClusterMulticast: {
      // Block tile 128 x 256: warpgroup 0 produces (TMA), consumer c = warpgroup c + 1 holds rows
      // 64 c .. 64 c + 63 as one m64n256k16 accumulator (tc4_warp_specialized.hpp).
      if (r < 0 || c < 0 || r >= kTc4BM || c >= kTc4BN) return outside(r, c, kTc4BM, kTc4BN);
      const int consumer = r / 64;
      p = wgmma_place(kTc4BN, 64 * consumer, 0, r % 64, c, 1 + consumer, 128u * static_cast<unsigned>(1 + consumer), 0);
      p.mma_index = 0, p.mma_count = 1;
      p.owner_r = 64 * consumer, p.owner_c = 0, p.owner_rows = 64, p.owner_cols = kTc4BN;
      return p;
    }
    default:
      return Status::failure("an FP32 rung: no tensor-core fragments (each thread's outputs are its own registers)",
                             "pick a tensor-core rung (T1..T6, --set precision=bf16)", "fragment_place");
  }
}

std::string mma_name(const FragmentPlace& p) {
  switch (p.kind) {
    case MmaKind::Wmma: return "wmma 16x16x16 (2 x mma.m16n8k16)";
    case MmaKind::MmaSync: return "mma.sync.m16n8k16";
    case MmaKind::Wgmma: return "wgmma.m64n" + std::to_string(p.mma_n) + "k16";
    case MmaKind::None: break;
  }
  return "no tensor-core instruction";
}

int mma_k_steps(const MatmulGeometry& g, int K) {
  if (K <= 0) return 0;
  if (g.k_step <= 0) return (K + 15) / 16;
  return (K + g.k_step - 1) / g.k_step * (g.k_step / 16);
}

FedOperands fed_operands(const FragmentPlace& p, long long block_row0, long long block_col0, int step) {
  FedOperands f;
  const long long k0 = 16LL * step;
  const long long m0 = block_row0 + p.tile_r, n0 = block_col0 + p.tile_c;
  f.a_tile = {m0, k0, p.mma_m, 16};
  f.b_tile = {k0, n0, 16, p.mma_n};
  if (p.kind == MmaKind::Wgmma) {
    f.from_shared = true;
    return f;
  }
  if (p.kind == MmaKind::None) return f;
  const int lane = static_cast<int>(p.lane);
  for (int e = 0; e < 8; ++e) {
    const FragCoord a = mma_a_coord(lane, e);
    f.a.push_back({m0 + a.row, k0 + a.col, 1, 1});
  }
  for (int e = 0; e < 4; ++e) {
    const FragCoord b = mma_b_coord(lane, e);
    f.b.push_back({k0 + b.row, n0 + b.col, 1, 1});
  }
  return f;
}

Result<FragmentHierarchy> fragment_hierarchy(MatmulKernel kernel, const MatmulConfig& config, const LaunchConfig& lc,
                                             int M, int N, int K, int row, int col, int step) {
  const MatmulGeometry g = matmul_geometry(kernel, config);
  if (g.block_rows <= 0 || g.block_cols <= 0)
    return Status::failure("the configuration has an empty block tile", "", "fragment_hierarchy");
  auto owner = element_owner(kernel, config, M, N, row, col, &lc);
  if (!owner) return owner.status();
  FragmentHierarchy h;
  h.block_row0 = static_cast<long long>(row / g.block_rows) * g.block_rows;
  h.block_col0 = static_cast<long long>(col / g.block_cols) * g.block_cols;
  auto place = fragment_place(kernel, static_cast<int>(row - h.block_row0), static_cast<int>(col - h.block_col0));
  if (!place) return place.status();
  FragmentPlace& p = h.place = *place;
  h.block = owner->block;
  h.k_steps = mma_k_steps(g, K);
  h.step = std::clamp(step, 0, std::max(0, h.k_steps - 1));
  auto s = [](long long v) { return std::to_string(v); };
  auto range = [&](long long a, int n) { return s(a) + ".." + s(a + n - 1); };
  if (lc.cluster.volume() > 1) {
    const ClusterPlace cp = mapping::cluster_place(h.block, lc.grid, lc.cluster);
    h.lines.push_back("cluster (" + s(cp.id.x) + ", " + s(cp.id.y) + ") of " + s(cp.blocks) + " blocks, rank " +
                      s(cp.rank) + " (%clusterid, %cluster_ctarank)");
  }
  h.lines.push_back("block (" + s(h.block.x) + ", " + s(h.block.y) + "): tile rows " + range(h.block_row0, g.block_rows) +
                    ", cols " + range(h.block_col0, g.block_cols));
  if (p.warpgroup >= 0)
    h.lines.push_back("warpgroup " + s(p.warpgroup) + " (threads " + range(128LL * p.warpgroup, 128) + ")" +
                      (p.warpgroup > 0 && kernel != MatmulKernel::Tc3Wgmma ? ", consumer " + s(p.warpgroup - 1) +
                                                                                 " (warpgroup 0 is the TMA producer)"
                                                                           : ""));
  h.lines.push_back("warp " + s(p.warp) + (p.warpgroup >= 0 ? " (warp " + s(p.warp % 4) + " of its warpgroup)" : "") +
                    ", lane " + s(p.lane) + ", thread " + s(p.thread));
  h.lines.push_back("accumulator register " + s(p.reg) + " of the lane's " +
                    s(p.kind == MmaKind::Wgmma ? p.mma_n / 2 * p.mma_count : p.kind == MmaKind::Wmma ? 32 : 64) +
                    " FP32 accumulators");
  if (p.kind == MmaKind::Wmma)
    h.lines.push_back("  held by lane " + s(p.lane) + ", stored to C by lane " + s(p.store_lane) +
                      ": WMMA's store (store_matrix_sync) writes the whole fragment to the warp's 16 x 16 "
                      "staging tile in shared memory, then each lane l copies elements l, l + 32, ... of that tile "
                      "to C within bounds, so the lane that stores an element is seldom the lane that held it "
                      "(WMMA's own register layout is opaque: the model is the two mma.m16n8k16 it compiles to)");
  const long long tr = h.block_row0 + p.tile_r, tc = h.block_col0 + p.tile_c;
  h.lines.push_back(mma_name(p) + " tile " + s(p.mma_index) + " of the " + s(p.mma_count) + " of its " +
                    (p.kind == MmaKind::Wgmma ? "warpgroup" : "warp") + "'s " + s(p.owner_rows) + " x " +
                    s(p.owner_cols) + ": C rows " + range(tr, p.mma_m) + ", cols " + range(tc, p.mma_n) +
                    "; element (" + s(p.in_r) + ", " + s(p.in_c) + ")");
  h.lines.push_back("k-step " + s(h.step) + " of " + s(h.k_steps) + " (k " + range(16LL * h.step, 16) + "): " +
                    s(h.k_steps) + " instructions accumulate into it");
  return h;
}

Result<FragmentKeys> fragment_keys(MatmulKernel kernel, const MatmulConfig& config, FragmentColour colour) {
  const MatmulGeometry g = matmul_geometry(kernel, config);
  if (g.block_rows <= 0 || g.block_cols <= 0)
    return Status::failure("the configuration has an empty block tile", "", "fragment_keys");
  if (static_cast<long long>(g.block_rows) * g.block_cols > (1 << 22))
    return Status::failure("the block tile is too large to colour element by element", "", "fragment_keys");
  FragmentKeys k;
  k.rows = g.block_rows, k.cols = g.block_cols;
  k.keys.resize(static_cast<std::size_t>(k.rows) * k.cols);
  const bool tensor = matmul_kernel_info(kernel).precision == Precision::Bf16;
  if (!tensor && (colour == FragmentColour::Warpgroup || colour == FragmentColour::Mma))
    return Status::failure(std::string(colour == FragmentColour::Mma ? "mma tiles" : "warpgroups") +
                               " belong to the tensor-core rungs; an FP32 rung's threads multiply on their own",
                           "pick a tensor-core rung (T1..T6), or colour by warp or lane", "fragment_keys");
  for (int r = 0; r < k.rows; ++r)
    for (int c = 0; c < k.cols; ++c) {
      std::uint32_t key = 0;
      if (tensor) {
        auto p = fragment_place(kernel, r, c);
        if (!p) return p.status();
        if (colour == FragmentColour::Warpgroup) {
          if (p->warpgroup < 0)
            return Status::failure("T1 and T2 issue their mma per warp: no warpgroups (wgmma, T3..T6, has them)",
                                   "colour by warp", "fragment_keys");
          key = static_cast<std::uint32_t>(p->warpgroup);
        } else if (colour == FragmentColour::Warp) {
          key = p->warp;
        } else if (colour == FragmentColour::Lane) {
          key = p->lane;
        } else {
          // The instruction tile: its corner in the block's tile, numbered row-major.
          key = static_cast<std::uint32_t>((p->tile_r / p->mma_m) * (k.cols / p->mma_n) + p->tile_c / p->mma_n);
        }
      } else {
        // FP32 rungs: a block's tile is the same for every block, so block 0's owners say it.
        auto o = element_owner(kernel, config, k.rows, k.cols, r, c);
        if (!o) return o.status();
        key = colour == FragmentColour::Warp ? o->warp : o->lane;
      }
      k.keys[static_cast<std::size_t>(r) * k.cols + c] = key;
      k.distinct = std::max(k.distinct, key + 1);
    }
  return k;
}

}  // namespace bs::matmul
