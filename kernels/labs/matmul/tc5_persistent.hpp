// Tensor-core rung 5 (BF16, Hopper): persistent blocks, tiles in an L2-friendly order.
//
// What changes from rung 4:
//   - persistent: the grid is as many blocks as can be resident at once (one per SM here), and
//     each block loops over output tiles. The producer starts loading the next tile while the
//     consumers still store the last one, so the epilogue's stores of C overlap the next tile's
//     loads instead of leaving the SM without work, and no block waits for a wave to end;
//   - the tile order is grouped: consecutive tiles walk down a column of 8 tile rows before
//     moving right, so the blocks resident at one time share A rows and B columns in L2. Rung 4
//     walks whole rows of tiles: at 8192^3 the 128 MB of Bt no longer fit the 50 MB L2, and
//     every row of blocks streams B from DRAM again (measured: 61% of cuBLAS there, 87% at
//     4096^3).
// Launch: block (384, 1, 1), grid (min(tiles, resident blocks), 1, 1), 193 KB dynamic shared
// memory, one block per SM; sm_90a. The same body with clusters of two is rung 6.
#pragma once
#include <algorithm>

#include "labs/matmul/tc4_warp_specialized.hpp"

namespace bs::matmul {

inline constexpr int kTcGroupRows = 8;  // tile rows per L2 group

// Tile t of a tiles_m x tiles_n grid of tiles, in grouped order.
inline BS_HOST_DEVICE void grouped_tile(int t, int tiles_m, int tiles_n, int* tm, int* tn) {
  const int per_group = kTcGroupRows * tiles_n, group = t / per_group;
  const int first = group * kTcGroupRows;
  const int rows = tiles_m - first < kTcGroupRows ? tiles_m - first : kTcGroupRows;
  const int in_group = t % per_group;
  *tm = first + in_group % rows;
  *tn = in_group / rows;
}
// Its inverse: the position of tile (tm, tn) in that order.
inline int grouped_index(int tm, int tn, int tiles_m, int tiles_n) {
  const int group = tm / kTcGroupRows, first = group * kTcGroupRows;
  const int rows = tiles_m - first < kTcGroupRows ? tiles_m - first : kTcGroupRows;
  return group * kTcGroupRows * tiles_n + tn * rows + (tm - first);
}

#if defined(BS_MATMUL_HOPPER_TU)
// Clusters of ClusterSize blocks share each Bt slice: every block's producer loads 1 / ClusterSize
// of the 256 rows and multicasts it into the shared memory of all (rung 6, ClusterSize 2). A
// stage may then be refilled only when the consumers of every block of the cluster are done
// with it, so each consumer arrives on the "empty" barrier of every block.
// `sink` and `probe`: as tc4_ws_block's (the rung passes neither).
template <int ClusterSize, class Sink = NoFragmentSink, class Probe = NoPipelineProbe>
__device__ __forceinline__ void tc_persistent_block(const CUtensorMap* map_a, const CUtensorMap* map_b,
                                                    const Bf16Args& a, unsigned char* raw, const Sink& sink = Sink{},
                                                    Probe probe = {}) {
  using namespace hopper;
  using Ev = PipelineEventKind;
  static_assert(kTc4BN % (ClusterSize * 64) == 0);
  constexpr int kTileM = kTc4BM * ClusterSize, kBRowsPerBlock = kTc4BN / ClusterSize;
  Tc4Smem* s = align_1024<Tc4Smem>(raw);
  const int warpgroup = static_cast<int>(threadIdx.x / 128), tid = static_cast<int>(threadIdx.x % 128);
  const unsigned rank = ClusterSize > 1 ? cluster_cta_rank() : 0;
  probe.bind(warpgroup);
  if (threadIdx.x == 0) {
    for (int st = 0; st < kTc4Stages; ++st) {
      mbar_init(&s->full[st], 1);
      mbar_init(&s->empty[st], 2 * ClusterSize);  // both consumers of every block
    }
    mbar_init_fence();
  }
  if constexpr (ClusterSize > 1) cluster_sync();  // every block's barriers exist before anyone
  else __syncthreads();                           // multicasts or arrives remotely

  const int tiles_m = (a.M + kTileM - 1) / kTileM, tiles_n = (a.N + kTc4BN - 1) / kTc4BN;
  const int tiles = tiles_m * tiles_n, slices = (a.K + kTc4BK - 1) / kTc4BK;
  const int cluster = static_cast<int>(blockIdx.x) / ClusterSize;
  const int clusters = static_cast<int>(gridDim.x) / ClusterSize;

  if (warpgroup == 0) {
    warpgroup_regs_down<kProducerRegs>();
    if (tid == 0) {
      int it = 0;  // slices issued so far, over all tiles: stage it % 4, use it / 4
      for (int t = cluster; t < tiles; t += clusters) {
        int tm, tn;
        grouped_tile(t, tiles_m, tiles_n, &tm, &tn);
        const int row0 = tm * kTileM + static_cast<int>(rank) * kTc4BM, col0 = tn * kTc4BN;
        for (int kt = 0; kt < slices; ++kt, ++it) {
          const int st = it % kTc4Stages;
          probe.template stamp<Ev::EmptyWaitBegin>();
          if (it >= kTc4Stages) mbar_wait(&s->empty[st], static_cast<unsigned>((it / kTc4Stages - 1) & 1));
          probe.template stamp<Ev::EmptyWaitEnd>();
          mbar_arrive_expect_tx(&s->full[st], kTc4StageBytes);  // A, and every part of Bt
          tma_load_2d(s->A[st], map_a, &s->full[st], kt * kTc4BK, row0);
          for (int h = 0; h < kTc4BN / 128; ++h) {  // 128-row boxes of Bt
            const int part = h * 128;
            if constexpr (ClusterSize > 1) {
              if (part / kBRowsPerBlock != static_cast<int>(rank)) continue;  // another block's
              tma_load_2d_multicast(s->B[st] + part * kTc4BK, map_b, &s->full[st], kt * kTc4BK, col0 + part,
                                    static_cast<std::uint16_t>((1u << ClusterSize) - 1));
            } else {
              tma_load_2d(s->B[st] + part * kTc4BK, map_b, &s->full[st], kt * kTc4BK, col0 + part);
            }
          }
          probe.template write<Ev::EmptyWaitBegin, Ev::EmptyWaitEnd>(st, kt, t);
          probe.template now<Ev::TmaIssued>(st, kt, t);
        }
      }
    }
  } else {
    warpgroup_regs_up<kConsumerRegs>();
    const int c = warpgroup - 1;
    float d[kTc4BN / 2];
    int it = 0;
    for (int t = cluster; t < tiles; t += clusters) {
      int tm, tn;
      grouped_tile(t, tiles_m, tiles_n, &tm, &tn);
      const int row0 = tm * kTileM + static_cast<int>(rank) * kTc4BM, col0 = tn * kTc4BN;
      probe.template stamp<Ev::FullWaitBegin>();  // later slices: stamped with the wait before
      for (int kt = 0; kt < slices; ++kt, ++it) {
        const int st = it % kTc4Stages;
        mbar_wait(&s->full[st], static_cast<unsigned>((it / kTc4Stages) & 1));
        probe.template stamp<Ev::FullWaitEnd>();
        wgmma_fence();
        const std::uint64_t da = sw128_descriptor(s->A[st] + c * 64 * kTc4BK), db = sw128_descriptor(s->B[st]);
#pragma unroll
        for (int k = 0; k < kTc4BK / 16; ++k) wgmma_m64nNk16<kTc4BN>(d, da + 2 * k, db + 2 * k, kt > 0 || k > 0);
        wgmma_commit();
        // The tensor cores work: the probe writes what it stamped (pipeline_probe.cuh).
        if (kt > 0) probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((it - 1) % kTc4Stages, kt - 1, t);
        probe.template write<Ev::FullWaitBegin, Ev::FullWaitEnd>(st, kt, t);
        probe.template now<Ev::WgmmaCommit>(st, kt, t);
        wgmma_wait<0>();
        // One clock reading: the products are in; the arrive and the next slice's wait follow at once.
        probe.template stamp<Ev::WgmmaWaitEnd, Ev::EmptyArrive, Ev::FullWaitBegin>();
        // The stage is free again, in every block of the cluster: thread b tells block b.
        if constexpr (ClusterSize > 1) {
          if (tid < ClusterSize) mbar_arrive_cluster(&s->empty[st], static_cast<unsigned>(tid));
        } else {
          if (tid == 0) mbar_arrive(&s->empty[st]);
        }
      }
      if (slices > 0) probe.template write<Ev::WgmmaWaitEnd, Ev::EmptyArrive>((it - 1) % kTc4Stages, slices - 1, t);
      probe.template now<Ev::EpilogueBegin>(0, slices, t);
      tag_wgmma_tile<kTc4BN>(sink, d, row0, col0, 0);
      store_wgmma_tile<kTc4BN>(d, a, row0 + 64 * c, col0);
      probe.template now<Ev::EpilogueEnd>(0, slices, t);
    }
  }
  probe.finish();
  if constexpr (ClusterSize > 1) {
    __syncwarp();
    cluster_sync();  // no block leaves while another may still write into its memory
  }
}
#endif  // BS_MATMUL_HOPPER_TU

// ---------------------------------------------------------------------------------------------
// The rungs, to the lab (matmul_rung.hpp): what rungs 5 and 6 share
// ---------------------------------------------------------------------------------------------
// One compiled kernel: the persistent body with clusters of ClusterSize blocks. Rung 5 is
// PersistentDevice<1>; rung 6 offers 2 (its own), 4, and 1 (rung 5's kernel, the same machine
// code, as the baseline); matmul_hopper.cu instantiates each once, plain, traced and tagged
// (fragment_record.hpp).
template <int ClusterSize>
struct PersistentDevice {
  static constexpr unsigned kThreads = 384;
  static constexpr std::size_t kSmemBytes = kAlignedSmemBytes<Tc4Smem>;
  static constexpr int kBRows = 128;
#if defined(BS_MATMUL_HOPPER_TU)
  __device__ static void block(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args, unsigned char* smem) {
    tc_persistent_block<ClusterSize>(a, b, args, smem);
  }
  __device__ static void block_tagged(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, const TagFragments& sink) {
    tc_persistent_block<ClusterSize>(a, b, args, smem, sink);
  }
  // The pipeline-traced variant (MatmulLab::trace_pipeline).
  __device__ static void block_probed(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args,
                                      unsigned char* smem, PipelineProbe probe) {
    tc_persistent_block<ClusterSize>(a, b, args, smem, NoFragmentSink{}, probe);
  }
#endif
};

struct PersistentRungBase : HopperRungBase {
  static constexpr bool kPersistent = true;
  static constexpr bool kPipeline = true;  // block_probed (T5 below, T6 through its Device)
  static constexpr unsigned kThreads = 384;
  static constexpr std::size_t kSmemBytes = kAlignedSmemBytes<Tc4Smem>;
  static constexpr int kBRows = 128;
  // The grid before the device is asked how many clusters fit at once (MatmulLab::plan clips it
  // to that): one cluster of `cluster_size` blocks per tile of (128 x cluster_size) x 256.
  static LaunchConfig persistent_launch(unsigned cluster_size, int M, int N) {
    const int tile_m = kTc4BM * static_cast<int>(cluster_size);
    LaunchConfig lc;
    lc.grid = Dim3{cluster_size * ceil_div_u(M, tile_m) * ceil_div_u(N, kTc4BN), 1, 1};
    lc.block = Dim3{kThreads, 1, 1};
    lc.cluster = Dim3{cluster_size, 1, 1};
    lc.dynamic_shared_bytes = kSmemBytes;
    return lc;
  }
  static MatmulGeometry geometry(const MatmulConfig&) { return tc4_geometry(kTc4BM); }
  static Result<FragmentPlace> fragment_place(int r, int c) { return tc4_fragment_place(r, c); }
  static std::size_t shared_bytes(const MatmulConfig&) { return kSmemBytes; }
  static IndexScheme scheme(const MatmulConfig&) {
    IndexScheme s = IndexScheme::tiled(kTc4BN, kTc4BM);
    s.tiles_loop = true;
    return s;
  }
  // Which block of a persistent launch of `lc` computes the tile holding C[row][col]: the tile's
  // place in the grouped order, modulo the clusters resident, and the block's rank in its
  // cluster. The cluster size is the launch's own (lc.cluster.x). Also the tile's first row and
  // column.
  static Result<Dim3> persistent_block(const LaunchConfig& lc, int M, int N, int row, int col,
                                       long long* row0 = nullptr, long long* col0 = nullptr) {
    const int cluster_size = static_cast<int>(std::max(1u, lc.cluster.x)), tile_m = kTc4BM * cluster_size;
    const int clusters = static_cast<int>(lc.grid.x) / cluster_size;
    if (clusters <= 0) return Status::failure("the launch has no blocks", "", "element_owner");
    const int tiles_m = static_cast<int>(ceil_div_u(M, tile_m)), tiles_n = static_cast<int>(ceil_div_u(N, kTc4BN));
    const int tm = row / tile_m, tn = col / kTc4BN, rank = (row % tile_m) / kTc4BM;
    const int t = grouped_index(tm, tn, tiles_m, tiles_n);
    if (row0) *row0 = static_cast<long long>(tm) * tile_m + rank * kTc4BM;
    if (col0) *col0 = static_cast<long long>(tn) * kTc4BN;
    return Dim3{static_cast<unsigned>((t % clusters) * cluster_size + rank), 0, 0};
  }
  // The thread that stores C[row][col], in the block Rung::persistent_block names (a rung with
  // its own schedule, T7, passes itself).
  template <class Rung>
  static Result<ElementOwner> owner_through(const LaunchConfig& lc, int M, int N, int row, int col) {
    long long row0 = 0, col0 = 0;
    auto block = Rung::persistent_block(lc, M, N, row, col, &row0, &col0);
    if (!block) return block.status();
    ElementOwner o;
    o.block = *block;
    return tc4_tile_owner(o, row0, col0, static_cast<int>(row - row0), static_cast<int>(col - col0));
  }
  static Result<ElementOwner> persistent_owner(const MatmulConfig&, const LaunchConfig& lc, int M, int N, int row,
                                               int col) {
    return owner_through<PersistentRungBase>(lc, M, N, row, col);
  }
};

struct Tc5Persistent : PersistentRungBase {
  template <std::size_t>
  using Device = PersistentDevice<1>;
  static constexpr const char* kConfig = "128 x 256 tiles, persistent, grouped order, 4 stages | 384 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i = hopper_info();
    i.id = "tc5_persistent";
    i.label = "T5. persistent, L2-grouped tile order";
    i.teaches =
        "one block per SM loops over tiles in groups of 8 tile rows: the next tile's loads "
        "overlap this one's stores, and the resident blocks share A and B in L2";
    i.file = "kernels/labs/matmul/tc5_persistent.hpp";
    i.configs = one_config(Dim3{kThreads, 1, 1}, kConfig);
    i.persistent = true;
    i.grid_rule = "grid = min(tiles of 128 x 256, blocks resident at once)";
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
  static LaunchConfig launch_config(const MatmulConfig&, int M, int N, int) { return persistent_launch(1, M, N); }
};

}  // namespace bs::matmul
