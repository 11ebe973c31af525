// Sections:
//   1. the model, one function a rung, from its index expressions
//   2. the recording (the simulator with a SharedRecorder)
//   3. a launch's totals
#include "labs/matmul/matmul_shared.hpp"

#include <algorithm>

namespace bs::matmul {
namespace {

constexpr long long F = 4;  // bytes of a float

// One lane's sequence, in program order.
struct Lane {
  std::vector<SharedAccess>& seq;
  void add(long long offset, unsigned bytes, SharedOp op, const char* what) {
    SharedAccess a;
    a.index = static_cast<unsigned>(seq.size());
    a.offset = offset, a.bytes = bytes, a.op = op;
    a.site.what = what;
    seq.push_back(a);
  }
};

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ---- 1. the model -----------------------------------------------------------------------------

// k3: K3Smem<T> = As[T][T], Bs[T][T]; thread (tx, ty) stores As[ty][tx], Bs[ty][tx], then reads
// As[ty][k] and Bs[k][tx] for k < T; ceil(K / T) phases.
void k3_lane(Lane l, int T, int K, int tid, int pad) {
  const int tx = tid % T, ty = tid / T, row = T + pad;
  const long long bs = static_cast<long long>(T) * row * F;
  for (int p = 0; p < ceil_div(K, T); ++p) {
    l.add((ty * row + tx) * F, 4, SharedOp::Store, "As[ty][tx]");
    l.add(bs + (ty * row + tx) * F, 4, SharedOp::Store, "Bs[ty][tx]");
    for (int k = 0; k < T; ++k) {
      l.add((ty * row + k) * F, 4, SharedOp::Load, "As[ty][k]");
      l.add(bs + (k * row + tx) * F, 4, SharedOp::Load, "Bs[k][tx]");
    }
  }
}

// k4 and k5: As[BM][BK], Bs[BK][BN], filled by strided loops over the block's threads.
void fill_plain_tiles(Lane& l, const TileParams& p, int threads, int tid, int rowa, int rowb, long long bs) {
  for (int i = tid; i < p.BM * p.BK; i += threads)
    l.add((static_cast<long long>(i / p.BK) * rowa + i % p.BK) * F, 4, SharedOp::Store, "As[r][c]");
  for (int i = tid; i < p.BK * p.BN; i += threads)
    l.add(bs + (static_cast<long long>(i / p.BN) * rowb + i % p.BN) * F, 4, SharedOp::Store, "Bs[r][c]");
}

void k4_lane(Lane l, const TileParams& p, int K, int tid, int pad) {
  const int threads = (p.BM / p.TM) * p.BN, tcol = tid % p.BN, trow = tid / p.BN;
  const int rowa = p.BK + pad, rowb = p.BN + pad;
  const long long bs = static_cast<long long>(p.BM) * rowa * F;
  for (int t = 0; t < ceil_div(K, p.BK); ++t) {
    fill_plain_tiles(l, p, threads, tid, rowa, rowb, bs);
    for (int k = 0; k < p.BK; ++k) {
      l.add(bs + (static_cast<long long>(k) * rowb + tcol) * F, 4, SharedOp::Load, "Bs[k][tcol]");
      for (int m = 0; m < p.TM; ++m)
        l.add((static_cast<long long>(trow * p.TM + m) * rowa + k) * F, 4, SharedOp::Load, "As[trow*TM + m][k]");
    }
  }
}

void k5_lane(Lane l, const TileParams& p, int K, int tid, int pad) {
  const int per_row = p.BN / p.TN, threads = (p.BM / p.TM) * per_row;
  const int tcol = tid % per_row, trow = tid / per_row;
  const int rowa = p.BK + pad, rowb = p.BN + pad;
  const long long bs = static_cast<long long>(p.BM) * rowa * F;
  for (int t = 0; t < ceil_div(K, p.BK); ++t) {
    fill_plain_tiles(l, p, threads, tid, rowa, rowb, bs);
    for (int k = 0; k < p.BK; ++k) {
      for (int m = 0; m < p.TM; ++m)
        l.add((static_cast<long long>(trow * p.TM + m) * rowa + k) * F, 4, SharedOp::Load, "As[trow*TM + m][k]");
      for (int n = 0; n < p.TN; ++n)
        l.add(bs + (static_cast<long long>(k) * rowb + tcol * p.TN + n) * F, 4, SharedOp::Load, "Bs[k][tcol*TN + n]");
    }
  }
}

// k6: As transposed, As[BK][BM]; the A float4 of element i goes to column r = i / (BK/4), rows
// c..c+3 = (i % (BK/4)) * 4 + 0..3 as four 4-byte stores; B float4s as 16-byte stores.
void k6_lane(Lane l, const TileParams& p, int K, int tid, int pad) {
  const int per_row = p.BN / p.TN, threads = (p.BM / p.TM) * per_row;
  const int tcol = tid % per_row, trow = tid / per_row;
  const int rowa = p.BM + pad, rowb = p.BN + pad;
  const long long bs = static_cast<long long>(p.BK) * rowa * F;
  for (int t = 0; t < ceil_div(K, p.BK); ++t) {
    for (int i = tid; i < p.BM * p.BK / 4; i += threads) {
      const int r = i / (p.BK / 4), c = (i % (p.BK / 4)) * 4;
      for (int j = 0; j < 4; ++j)
        l.add((static_cast<long long>(c + j) * rowa + r) * F, 4, SharedOp::Store, "As[c + j][r]");
    }
    for (int i = tid; i < p.BK * p.BN / 4; i += threads) {
      const int r = i / (p.BN / 4), c = (i % (p.BN / 4)) * 4;
      l.add(bs + (static_cast<long long>(r) * rowb + c) * F, 16, SharedOp::Store, "Bs[r][c..c+3]");
    }
    for (int k = 0; k < p.BK; ++k) {
      for (int m = 0; m < p.TM; m += 4)
        l.add((static_cast<long long>(k) * rowa + trow * p.TM + m) * F, 16, SharedOp::Load, "As[k][trow*TM + m..+3]");
      for (int n = 0; n < p.TN; n += 4)
        l.add(bs + (static_cast<long long>(k) * rowb + tcol * p.TN + n) * F, 16, SharedOp::Load, "Bs[k][tcol*TN + n..+3]");
    }
  }
}

// k7: K7Smem = As[2][BK][BM + padA], Bs[2][BK][BN]; padA = 4 where both stages still fit in 48 KB.
// Prologue: tile 0's B (cp.async) and A (transposing stores) into stage 0; then per tile: the next
// tile's B into the other stage, BK steps of fragment loads, the next tile's A stores.
void k7_lane(Lane l, const TileParams& p, int K, int tid, int pad) {
  const int warps_n = p.BN / p.WN, threads = (p.BM / p.WM) * warps_n * 32;
  const int pad_a = 2 * p.BK * (p.BM + 4 + p.BN) * 4 <= 48 * 1024 ? 4 : 0;
  const int rowa = p.BM + pad_a + pad, rowb = p.BN + pad;
  const long long a_stage = static_cast<long long>(p.BK) * rowa * F, b_stage = static_cast<long long>(p.BK) * rowb * F;
  const long long bs = 2 * a_stage;
  const int loads_a = p.BM * p.BK / 4 / threads, loads_b = p.BK * p.BN / 4 / threads;
  const int warp = tid / 32, lane = tid % 32;
  const int lanes_n = p.WN / p.TN, sub_m = p.WM / (p.TM / 4), sub_n = p.WN / (p.TN / 4);
  const int a_col = (warp / warps_n) * p.WM + (lane / lanes_n) * 4;
  const int b_col = (warp % warps_n) * p.WN + (lane % lanes_n) * 4;
  auto copy_b = [&](int stage) {
    for (int j = 0; j < loads_b; ++j) {
      const int i = tid + j * threads, r = i / (p.BN / 4), c = (i % (p.BN / 4)) * 4;
      l.add(bs + stage * b_stage + (static_cast<long long>(r) * rowb + c) * F, 16, SharedOp::AsyncCopy, "Bs[r][c..c+3]");
    }
  };
  auto stash_a = [&](int stage) {
    for (int j = 0; j < loads_a; ++j) {
      const int i = tid + j * threads, r = i / (p.BK / 4), c = (i % (p.BK / 4)) * 4;
      for (int e = 0; e < 4; ++e)
        l.add(stage * a_stage + (static_cast<long long>(c + e) * rowa + r) * F, 4, SharedOp::Store, "As[c + e][r]");
    }
  };
  const int tiles = ceil_div(K, p.BK);
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

// T2: A[3][128 rows x 64 bytes], B[3][...], 16-byte chunk c of row r at r*64 + 16 (c ^ (r/2 % 4)).
void tc2_lane(Lane l, int K, int tid, const SharedModelOptions& o) {
  const int row_bytes = 64 + 4 * o.pad_words;
  const long long tile = 128LL * row_bytes;
  auto swz = [&](int r, int c) -> long long {
    return static_cast<long long>(r) * row_bytes + ((o.tc2_swizzle ? (c ^ ((r >> 1) & 3)) : c) << 4);
  };
  const long long b_base = 3 * tile;
  const int warp = tid >> 5, lane = tid & 31, wm = warp >> 2, wn = warp & 3;
  const int slices = ceil_div(K, 32);
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

}  // namespace

bool has_shared_model(MatmulKernel k) {
  switch (k) {
    case MatmulKernel::SmemTiled:
    case MatmulKernel::Blocktile1D:
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized:
    case MatmulKernel::Warptile:
    case MatmulKernel::Tc2MmaSync: return true;
    default: return false;
  }
}

Result<std::vector<std::vector<SharedAccess>>> model_shared_lanes(MatmulKernel kernel, const MatmulConfig& config,
                                                                  int M, int N, int K, Dim3 block, unsigned warp,
                                                                  const SharedModelOptions& o) {
  if (!has_shared_model(kernel))
    return Status::failure(matmul_kernel_info(kernel).id + " has no shared-memory model",
                           "the bank view covers k3..k7 and T2", "model_shared_lanes");
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  const unsigned long long threads = lc.block.volume();
  if (block.x >= lc.grid.x || block.y >= lc.grid.y || block.z >= lc.grid.z || warp * 32ull >= threads)
    return Status::failure("no warp " + std::to_string(warp) + " in block (" + std::to_string(block.x) + ", " +
                               std::to_string(block.y) + ") of this launch",
                           "", "model_shared_lanes");
  std::vector<std::vector<SharedAccess>> lanes(32);
  for (unsigned ln = 0; ln < 32; ++ln) {
    const unsigned long long tid = warp * 32ull + ln;
    if (tid >= threads) continue;
    const int t = static_cast<int>(tid);
    Lane l{lanes[ln]};
    const TileParams& p = config.tile;
    switch (kernel) {
      case MatmulKernel::SmemTiled: k3_lane(l, static_cast<int>(config.block.x), K, t, o.pad_words); break;
      case MatmulKernel::Blocktile1D: k4_lane(l, p, K, t, o.pad_words); break;
      case MatmulKernel::Blocktile2D: k5_lane(l, p, K, t, o.pad_words); break;
      case MatmulKernel::Vectorized: k6_lane(l, p, K, t, o.pad_words); break;
      case MatmulKernel::Warptile: k7_lane(l, p, K, t, o.pad_words); break;
      case MatmulKernel::Tc2MmaSync: tc2_lane(l, K, t, o); break;
      default: break;
    }
  }
  return lanes;
}

// ---- 2. the recording -------------------------------------------------------------------------

Result<std::unique_ptr<sim::SharedRecorder>> record_shared(MatmulKernel kernel, const MatmulConfig& config,
                                                           const MatmulBuffers& buffers, int M, int N, int K,
                                                           const std::vector<Dim3>& blocks,
                                                           unsigned max_per_thread) {
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  std::vector<unsigned long long> linear;
  for (Dim3 b : blocks)
    linear.push_back(b.x + static_cast<unsigned long long>(lc.grid.x) * (b.y + static_cast<unsigned long long>(lc.grid.y) * b.z));
  auto rec = std::make_unique<sim::SharedRecorder>(std::move(linear), max_per_thread);
  rec->run_only_recorded = true;
  sim::GridSimulator simulator(1);
  sim::SimOptions o;
  o.workers = 1;
  o.shared_recorder = rec.get();
  const sim::SimResult r = simulate_kernel(simulator, kernel, config, lc, o, buffers);
  if (!r.status) return r.status;
  return rec;
}

// ---- 3. a launch's totals ---------------------------------------------------------------------

Result<SharedLaunchModel> model_shared_launch(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K,
                                              unsigned max_blocks) {
  if (!has_shared_model(kernel))
    return Status::failure(matmul_kernel_info(kernel).id + " has no shared-memory model", "", "model_shared_launch");
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  const unsigned long long blocks = lc.grid.volume();
  const unsigned warps = static_cast<unsigned>((lc.block.volume() + 31) / 32);
  if (blocks == 0 || warps == 0) return Status::failure("an empty launch", "", "model_shared_launch");
  const unsigned long long n = std::min<unsigned long long>(blocks, std::max(1u, max_blocks));
  SharedLaunchModel out;
  unsigned long long sampled = 0, previous = ~0ull;
  for (unsigned long long i = 0; i < n; ++i) {
    const unsigned long long lin = n == 1 ? 0 : i * (blocks - 1) / (n - 1);
    if (lin == previous) continue;
    previous = lin;
    ++sampled;
    const Dim3 b{static_cast<unsigned>(lin % lc.grid.x), static_cast<unsigned>((lin / lc.grid.x) % lc.grid.y),
                 static_cast<unsigned>(lin / (static_cast<unsigned long long>(lc.grid.x) * lc.grid.y))};
    for (unsigned w = 0; w < warps; ++w) {
      auto lanes = model_shared_lanes(kernel, config, M, N, K, b, w);
      if (!lanes) return lanes.status();
      for (const SharedRequest& r : group_requests(*lanes)) out.totals.add(r);
    }
  }
  out.totals.scale(static_cast<double>(blocks) / static_cast<double>(sampled));
  out.sample = std::to_string(sampled) + " of " + std::to_string(blocks) + " blocks (spread evenly), all " +
               std::to_string(warps) + " warps of each, every request, scaled to the grid";
  return out;
}

}  // namespace bs::matmul
