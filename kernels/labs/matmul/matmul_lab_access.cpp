// The matmul lab's model of one warp's global-memory requests (lab::Lab::warp_accesses, for the
// Memory and Compare views): the byte addresses each lane loads from A and B and stores to C at
// step k of a launch, from the rung's index expressions and its traits (GlobalLoads, matmul_rung.hpp).
//
//   Direct, PhaseTile   each thread's own loads, at the place its scheme gives it (rungs 1-3)
//   BlockTile           the block's threads copy the tiles of A and B in strided items (rungs 4-7)
//   Bf16Chunks          the same in 16-byte chunks of BF16 (T1, T2)
#include <algorithm>
#include <string>
#include <vector>

#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "labs/matmul/matmul_registry.hpp"
#include "mapping/thread_map.hpp"

namespace bs::matmul {
namespace {

using mapping::kNoAccess;
using mapping::kWarpSize;
constexpr long long F = sizeof(float);

bool any_access(const std::vector<long long>& at) {
  return std::any_of(at.begin(), at.end(), [](long long a) { return a != kNoAccess; });
}

// A tile staged through shared memory: the block's `threads` threads copy its `items` items,
// thread tid taking items tid, tid + T, tid + 2T, ... (one load instruction a round). One
// WarpAccess for each round in which warp `warp` loads anything; `address(i)` is item i's byte
// address, or kNoAccess past the matrix (guarded or zero-filled: no load).
template <class Address>
void staged_loads(std::vector<mapping::WarpAccess>& out, const std::string& name, const char* buffer, long long items,
                  long long threads, unsigned warp, unsigned bytes, Address&& address) {
  const long long rounds = (items + threads - 1) / threads;
  for (long long j = 0; j < rounds; ++j) {
    std::vector<long long> at(kWarpSize, kNoAccess);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      const long long tid = static_cast<long long>(warp) * kWarpSize + l, i = tid + j * threads;
      if (tid < threads && i < items) at[l] = address(i);
    }
    if (!any_access(at)) continue;
    const std::string round = rounds > 1 ? " (" + std::to_string(j + 1) + " of " + std::to_string(rounds) + ")" : "";
    out.push_back(mapping::make_warp_access(name + round, buffer, false, bytes, std::move(at)));
  }
}

// The byte address of the first element of C each lane of warp `warp` of `block` stores, from the
// owner map over the block's tile (rows x cols from row0, col0); kNoAccess for a lane that stores none.
std::vector<long long> first_store_per_lane(MatmulKernel kern, const MatmulConfig& mc, const MatrixSpec& spec,
                                            Dim3 block, unsigned warp, long long row0, long long rows, long long col0,
                                            long long cols) {
  std::vector<long long> c(kWarpSize, kNoAccess);
  for (long long r = row0; r < std::min<long long>(spec.M, row0 + rows); ++r)
    for (long long cc = col0; cc < std::min<long long>(spec.N, col0 + cols); ++cc) {
      auto o = element_owner(kern, mc, spec.M, spec.N, static_cast<int>(r), static_cast<int>(cc));
      if (!o || o->warp != warp || o->block.x != block.x || o->block.y != block.y) continue;
      if (c[o->lane] == kNoAccess) c[o->lane] = (r * spec.N + cc) * F;
    }
  return c;
}

// Rungs 1-3: each lane loads A[row][k] and B[k][col] and stores C[row][col] itself (rung 3 in
// phases of its T x T tile: thread (tx, ty) loads A[row][k0 + tx] and B[k0 + ty][col] to shared).
std::vector<mapping::WarpAccess> thread_accesses(const LaunchRecord& r, const MatrixSpec& spec, Dim3 block,
                                                 unsigned warp, int k, bool tiled) {
  std::vector<mapping::WarpAccess> out;
  const auto lanes = mapping::warp_lanes(r.scheme, r.config, spec.N, spec.M, block, warp);
  if (!lanes[0]) return out;
  const long long M = spec.M, N = spec.N, K = spec.K;
  std::vector<long long> a(kWarpSize, kNoAccess), b(kWarpSize, kNoAccess), c(kWarpSize, kNoAccess);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!lanes[l]) continue;
    if (tiled) {
      const long long T = r.config.block.x, k0 = (k / T) * T;
      const long long tx = lanes[l]->thread.x, ty = lanes[l]->thread.y;
      const long long row = static_cast<long long>(block.y) * T + ty;
      const long long col = static_cast<long long>(block.x) * T + tx;
      if (row < M && k0 + tx < K) a[l] = (row * K + k0 + tx) * F;
      if (k0 + ty < K && col < N) b[l] = ((k0 + ty) * N + col) * F;
      if (row < M && col < N) c[l] = (row * N + col) * F;
      continue;
    }
    if (!lanes[l]->in_range) continue;
    const long long row = lanes[l]->y, col = lanes[l]->x;
    a[l] = (row * K + k) * F;
    b[l] = (static_cast<long long>(k) * N + col) * F;
    c[l] = (row * N + col) * F;
  }
  out.push_back(mapping::make_warp_access(tiled ? "load  A[row][k0 + tx] to shared" : "load  A[row][k]", "A", false, F,
                                          std::move(a)));
  out.push_back(mapping::make_warp_access(tiled ? "load  B[k0 + ty][col] to shared" : "load  B[k][col]", "B", false, F,
                                          std::move(b)));
  out.push_back(mapping::make_warp_access("store C[row][col]", "C", true, F, std::move(c)));
  return out;
}

// Rungs 4-7 stage A and B through shared memory: in the phase holding k, the block's threads
// copy the BM x BK tile of A and the BK x BN tile of B in strided items, `floats` floats an item
// (scalar in rungs 4-5, float4 in rungs 6-7: the index expressions of k4_blocktile_1d.hpp ...
// k7_warptile.hpp). Then the epilogue's first store of C per lane: from the thread's TM x TN
// patch, or (rung 7) the first float4 of the lane's first fragment, from the owner map.
std::vector<mapping::WarpAccess> block_tile_accesses(MatmulKernel kern, const MatmulConfig& mc, const MatrixSpec& spec,
                                                     Dim3 block, unsigned warp, int k, int floats,
                                                     bool store_from_owner) {
  std::vector<mapping::WarpAccess> out;
  const TileParams& t = mc.tile;
  if (t.BM <= 0 || t.BN <= 0 || t.BK <= 0) return out;
  const long long M = spec.M, N = spec.N, K = spec.K, threads = mc.block.volume();
  const bool vec = floats > 1;
  const long long width = floats;
  const long long k0 = (k / t.BK) * t.BK;
  const long long row0 = static_cast<long long>(block.y) * t.BM, col0 = static_cast<long long>(block.x) * t.BN;
  // Item i of a tile `per_row` items wide whose corner is (top, left) of a rows x cols matrix.
  auto loads = [&](const char* name, const char* buffer, long long items, long long per_row, long long top,
                   long long left, long long rows, long long cols) {
    staged_loads(out, name, buffer, items, threads, warp, static_cast<unsigned>(width * F), [&](long long i) {
      const long long gr = top + i / per_row, gc = left + (i % per_row) * width;
      return gr < rows && gc < cols ? (gr * cols + gc) * F : kNoAccess;
    });
  };
  loads(vec ? "load  A tile (float4) to shared" : "load  A tile to shared", "A", t.BM * t.BK / width, t.BK / width,
        row0, k0, M, K);
  loads(vec ? "load  B tile (float4) to shared" : "load  B tile to shared", "B", t.BK * t.BN / width, t.BN / width, k0,
        col0, K, N);
  std::vector<long long> c(kWarpSize, kNoAccess);
  if (store_from_owner) {
    c = first_store_per_lane(kern, mc, spec, block, warp, row0, t.BM, col0, t.BN);
  } else {
    const long long tn = std::max(1, t.TN);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      const long long tid = static_cast<long long>(warp) * kWarpSize + l;
      if (tid >= threads) continue;
      const long long per_row = t.BN / tn;
      const long long row = row0 + (tid / per_row) * t.TM, col = col0 + (tid % per_row) * tn;
      if (row < M && col < N) c[l] = (row * N + col) * F;
    }
  }
  if (any_access(c))
    out.push_back(mapping::make_warp_access(vec ? "store C (first float4 per lane)" : "store C (first per lane)", "C",
                                            true, static_cast<unsigned>((vec ? 4 : 1) * F), std::move(c)));
  return out;
}

// The tensor-core rungs with per-thread loads (T1, T2) stage the BF16 A and Bt tiles in 16-byte
// chunks (8 BF16): thread tid copies chunks tid, tid + T, ... of the block_rows x k_step tile of A
// and of Bt (plain loads in T1, cp.async in T2), rows ld = bf16_row_pitch(K) elements apart; the
// chunks past the matrix are zero-filled, not loaded. Then each lane's first store of C (from the
// owner map). The Hopper rungs load whole boxes through TMA, issued by one thread: no per-lane
// addresses to show.
std::vector<mapping::WarpAccess> bf16_chunk_accesses(MatmulKernel kern, const MatmulConfig& mc, const MatrixSpec& spec,
                                                     Dim3 block, unsigned warp, int k) {
  std::vector<mapping::WarpAccess> out;
  const MatmulGeometry g = matmul_geometry(kern, mc);
  if (!matmul_kernel_info(kern).simulated || g.k_step <= 0) return out;
  const long long ld = bf16_row_pitch(spec.K), threads = mc.block.volume();
  const long long k0 = (k / g.k_step) * g.k_step, per_row = g.k_step / 8;
  const long long row0 = static_cast<long long>(block.y) * g.block_rows;
  const long long col0 = static_cast<long long>(block.x) * g.block_cols;
  auto chunks = [&](const char* name, const char* buffer, long long first_row, long long rows_total,
                    long long tile_rows) {
    staged_loads(out, name, buffer, tile_rows * per_row, threads, warp, 16, [&](long long i) {
      const long long r = first_row + i / per_row, c = k0 + (i % per_row) * 8;
      return r < rows_total && c < ld ? (r * ld + c) * static_cast<long long>(sizeof(Bf16)) : kNoAccess;
    });
  };
  chunks("load  A tile (16 B chunks) to shared", "A", row0, spec.M, g.block_rows);
  chunks("load  Bt tile (16 B chunks) to shared", "B", col0, spec.N, g.block_cols);
  auto c = first_store_per_lane(kern, mc, spec, block, warp, row0, g.block_rows, col0, g.block_cols);
  if (any_access(c))
    out.push_back(mapping::make_warp_access("store C (first per lane)", "C", true, sizeof(float), std::move(c)));
  return out;
}

}  // namespace

std::vector<mapping::WarpAccess> MatmulLab::warp_accesses(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                          int k) const {
  const auto what = resolve(r.kernel, r.request);
  if (!what || !ready_ || k < 0 || k >= spec_.K) return {};
  const auto [kern, mc] = *what;
  GlobalLoads kind = GlobalLoads::Direct;
  int floats = 1;
  bool store_from_owner = false;
  with_rung(kern,
            [&]<class R>() { kind = R::kGlobalLoads, floats = R::kLoadFloats, store_from_owner = R::kStoreFromOwner; });
  switch (kind) {
    case GlobalLoads::Direct:
    case GlobalLoads::PhaseTile: return thread_accesses(r, spec_, block, warp, k, kind == GlobalLoads::PhaseTile);
    case GlobalLoads::BlockTile: return block_tile_accesses(kern, mc, spec_, block, warp, k, floats, store_from_owner);
    case GlobalLoads::Bf16Chunks: return bf16_chunk_accesses(kern, mc, spec_, block, warp, k);
  }
  return {};
}

}  // namespace bs::matmul
