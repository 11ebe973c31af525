#include "labs/matmul/matmul_fragments.hpp"

#include <algorithm>

#include "labs/matmul/matmul_owner.hpp"
#include "labs/matmul/matmul_registry.hpp"
#include "mapping/cluster.hpp"

namespace bs::matmul {

Result<FragmentPlace> fragment_place(MatmulKernel kernel, int r, int c) {
  Result<FragmentPlace> p = Status::failure("no such rung", "", "fragment_place");
  with_rung(kernel, [&]<class R>() { p = R::fragment_place(r, c); });
  return p;
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
  h.lines.push_back("block (" + s(h.block.x) + ", " + s(h.block.y) + "): tile rows " +
                    range(h.block_row0, g.block_rows) + ", cols " + range(h.block_col0, g.block_cols));
  if (p.warpgroup >= 0)
    h.lines.push_back("warpgroup " + s(p.warpgroup) + " (threads " + range(128LL * p.warpgroup, 128) + ")" +
                      (p.producer && p.warpgroup > 0
                           ? ", consumer " + s(p.warpgroup - 1) + " (warpgroup 0 is the TMA producer)"
                           : ""));
  h.lines.push_back("warp " + s(p.warp) + (p.warpgroup >= 0 ? " (warp " + s(p.warp % 4) + " of its warpgroup)" : "") +
                    ", lane " + s(p.lane) + ", thread " + s(p.thread));
  h.lines.push_back("accumulator register " + s(p.reg) + " of the lane's " +
                    s(p.kind == MmaKind::Wgmma  ? p.mma_n / 2 * p.mma_count
                      : p.kind == MmaKind::Wmma ? 32
                                                : 64) +
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
  h.lines.push_back("k-step " + s(h.step) + " of " + s(h.k_steps) + " (k " + range(16LL * h.step, 16) +
                    "): " + s(h.k_steps) + " instructions accumulate into it");
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
