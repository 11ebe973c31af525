// Rung 3, shared-memory tiling, as in the lecture after the naive one: the tile is the block.
//
// A square block of T x T threads owns a T x T tile of C. The k-loop advances T columns of A and
// T rows of B at a time: every thread copies ONE element of each into shared memory, the block
// waits (sync), every thread does T multiply-adds from shared memory, the block waits again
// (nobody may overwrite the tile while a neighbour still reads it), and the next phase starts.
//
// What it teaches: each element fetched from global memory is now used T times (by the T threads
// of its row or column), so global traffic drops by a factor T; and __syncthreads is what makes
// sharing safe: both barriers are needed, and the CPU simulator gives a wrong answer without them.
// Threads outside C (edge tiles) still take part: they load zeros and reach every barrier, and
// only their final store is skipped. Early-returning before a barrier would be undefined
// behaviour on the GPU (and is reported as barrier divergence by the simulator).
// Launch: block (T, T, 1), grid (ceil(N / T), ceil(M / T)); T is compiled in (8, 16, 32).
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int T>
struct K3Smem {
  float As[T][T];  // As[ty][k]: A[tile row ty][k0 + k]
  float Bs[T][T];  // Bs[k][tx]: B[k0 + k][tile column tx]
};

template <int T, class Ctx>
BS_HD void k3_smem_tiled_thread(const Ctx& t, K3Smem<T>& s, const MatmulArgs& a) {
  const int tx = static_cast<int>(t.threadIdx.x), ty = static_cast<int>(t.threadIdx.y);
  const int row = static_cast<int>(t.blockIdx.y) * T + ty;
  const int col = static_cast<int>(t.blockIdx.x) * T + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < a.K; k0 += T) {
    // Coalesced: consecutive tx read consecutive addresses of A's row and of B's row.
    // (shared_store / shared_load are the plain accesses on the GPU; the simulator can record
    // them for the bank view, core/shared_access.hpp.)
    shared_store(t, s.As[ty][tx], (row < a.M && k0 + tx < a.K) ? a.A[offset2d(row, k0 + tx, a.K)] : 0.0f, "As[ty][tx]");
    shared_store(t, s.Bs[ty][tx], (k0 + ty < a.K && col < a.N) ? a.B[offset2d(k0 + ty, col, a.N)] : 0.0f, "Bs[ty][tx]");
    t.sync();  // the tile is complete before anyone reads it
    BS_UNROLL
    for (int k = 0; k < T; ++k) {
      const float x = shared_load(t, s.As[ty][k], "As[ty][k]");  // one word for the warp's row: a broadcast
      const float y = shared_load(t, s.Bs[k][tx], "Bs[k][tx]");  // consecutive words: 32 banks
      sum += x * y;
    }
    t.sync();  // everyone is done reading before the next phase overwrites it
  }
  if (row < a.M && col < a.N) a.C[offset2d(row, col, a.N)] = sum;
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct K3SmemTiled : RungBase {
  static constexpr GlobalLoads kGlobalLoads = GlobalLoads::PhaseTile;
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k3_smem_tiled";
    i.label = "3. shared-memory tiles (tile = block)";
    i.teaches =
        "each block stages T x T tiles of A and B in shared memory between two "
        "__syncthreads, so each global load serves T threads";
    i.file = "kernels/labs/matmul/k3_smem_tiled.hpp";
    for (int t : kK3Tiles) {
      const auto u = static_cast<unsigned>(t);
      i.configs.push_back(config_of(Dim3{u, u, 1}));
    }
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / T), ceil(M / T))";
    return i;
  }
  static MatmulConfig config_of(Dim3 block) {
    MatmulConfig c;
    c.block = block;
    const int t = static_cast<int>(block.x);
    c.tile = TileParams{t, t, t, 1, 1, 0, 0};
    c.label = describe(c);
    return c;
  }
  static std::string describe(const MatmulConfig& c) {
    return "tile " + std::to_string(c.block.x) + "x" + std::to_string(c.block.y) + " | " +
           std::to_string(c.block.volume()) + " threads";
  }
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    const int t = static_cast<int>(c.block.x);
    return {Dim3{ceil_div_u(N, t), ceil_div_u(M, t), 1}, c.block};
  }
  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g;
    g.block_rows = g.block_cols = g.k_step = static_cast<int>(c.block.x);
    g.stages = 1;
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig& c) {
    return 2 * static_cast<std::size_t>(c.block.x) * c.block.x * sizeof(float);
  }
  static constexpr std::size_t kCompiled = std::size(kK3Tiles);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK3Tiles, static_cast<int>(c.block.x)); }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    if (c.block.x != c.block.y || c.block.z != 1)
      return refuse("k3_smem_tiled",
                    "block " + to_string(c.block) +
                        " is not square: the tile equals the block, and each thread loads one "
                        "element of the A tile (T wide) and one of the B tile (T tall)",
                    "use a T x T x 1 block");
    if (compiled_index(c) < 0) {
      std::string list;
      for (int t : kK3Tiles) list += (list.empty() ? "" : ", ") + std::to_string(t);
      return refuse("k3_smem_tiled",
                    "T = " + std::to_string(c.block.x) +
                        " is not compiled: the shared tiles are fixed-size arrays, T in {" + list + "}",
                    "pick T from {" + list + "}");
    }
    return Status::success();
  }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::grid2d(); }
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return one_output_owner(c, row, col, false);
  }
  // The shared-memory model (shared_model.hpp): thread (tx, ty) stores As[ty][tx], Bs[ty][tx],
  // then reads As[ty][k] and Bs[k][tx] for k < T; ceil(K / T) phases.
  static constexpr bool kSharedModel = true;
  static void shared_lane(SharedLane l, const MatmulConfig& c, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const int T = static_cast<int>(c.block.x);
    const int tx = tid % T, ty = tid / T, row = T + o.pad_words;
    const long long bs = static_cast<long long>(T) * row * F;
    for (int p = 0; p < model_ceil_div(K, T); ++p) {
      l.add((ty * row + tx) * F, 4, SharedOp::Store, "As[ty][tx]");
      l.add(bs + (ty * row + tx) * F, 4, SharedOp::Store, "Bs[ty][tx]");
      for (int k = 0; k < T; ++k) {
        l.add((ty * row + k) * F, 4, SharedOp::Load, "As[ty][k]");
        l.add(bs + (k * row + tx) * F, 4, SharedOp::Load, "Bs[k][tx]");
      }
    }
  }
  template <std::size_t I>
  struct At {
    static constexpr int T = kK3Tiles[I];
    using Smem = K3Smem<T>;
    static constexpr unsigned threads = T * T;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k3_smem_tiled_thread<T>(t, s, a);
    }
  };
};
static_assert(sizeof(K3Smem<16>) == 2 * 16 * 16 * 4);

}  // namespace bs::matmul
