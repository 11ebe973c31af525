// Tensor-core rung 6 (BF16, Hopper): rung 5 in thread block clusters, Bt multicast by TMA.
//
// What changes from rung 5: the blocks of a cluster, placed by the hardware on SMs of one GPC,
// compute the 128-row slices of one (128 x cluster size) x 256 tile. They need the same 256 rows
// of Bt, so the producers split its 128-row boxes between them and multicast each
// (cp.async.bulk.tensor .multicast::cluster) into the shared memory of every block of the
// cluster. With clusters of 2 every stage brings in 48 KB, but only 32 KB of it crosses from L2
// per block. A stage can be refilled only when the consumers of every block are done with it:
// each consumer arrives on the "empty" barrier of every block (mapa + a remote arrive).
//
// Why it should help: at this tile size the SMs ask L2 for about 12 TB/s at the tensor cores'
// peak; multicast cuts that by a third. Measured on an H100 (NOTES.md): rung 5 at 85% of cuBLAS
// BF16, this rung at 98.5% (4096^3) and 101% (8192^3); with a cluster-scope release on the
// remote arrive it ran at half speed (the arriving warp waits, and its warpgroup's next wgmma
// with it).
//
// The cluster size is a compiled configuration (the body is templated on it; each size is one
// more kernel, plain and traced, in matmul_hopper.cu):
//   2  the rung as measured: each block loads one 128-row box of Bt and multicasts it to both;
//   4  a 512 x 256 cluster tile: Bt has two 128-row boxes, so blocks of rank 0 and 2 load and
//      multicast one each (ranks 1 and 3 load only their A): half the Bt traffic of clusters of
//      2, and four blocks that must fit in one GPC at once;
//   1  no cluster and no multicast: rung 5's kernel (the same machine code), the baseline.
// Launch: block (384, 1, 1), cluster (size, 1, 1), grid (size x min(cluster tiles, clusters
// resident), 1, 1) (cudaOccupancyMaxActiveClusters), 193 KB dynamic shared memory; sm_90a.
#pragma once
#include <iterator>

#include "labs/matmul/tc5_persistent.hpp"

namespace bs::matmul {

// The cluster sizes compiled, in configuration order: 2 first (the rung as measured, its
// default), then 4, then 1 (rung 5's kernel).
inline constexpr int kTc6ClusterSizes[] = {2, 4, 1};

struct Tc6ClusterMulticast : PersistentRungBase {
  static constexpr std::size_t kCompiled = std::size(kTc6ClusterSizes);
  template <std::size_t I>
  using Device = PersistentDevice<kTc6ClusterSizes[I]>;

  // A configuration names its cluster size through the cluster's tile: BM = 128 x size rows,
  // BN = 256, BK = 64.
  static TileParams tile_of(int cluster_size) { return TileParams{kTc4BM * cluster_size, kTc4BN, kTc4BK}; }
  static int compiled_index(const MatmulConfig& c) {
    for (std::size_t i = 0; i < kCompiled; ++i)
      if (c.tile == tile_of(kTc6ClusterSizes[i])) return static_cast<int>(i);
    return -1;
  }
  static unsigned cluster_size(const MatmulConfig& c) {
    const int i = compiled_index(c);
    return i < 0 ? 1u : static_cast<unsigned>(kTc6ClusterSizes[i]);  // 1: refused anyway (check_matmul_config)
  }
  static std::string describe(const MatmulConfig& c) {
    const unsigned n = cluster_size(c);
    const std::string tile = std::to_string(c.tile.BM) + " x " + std::to_string(c.tile.BN);
    if (compiled_index(c) < 0) return "a cluster tile of " + tile + " | 384 threads";
    if (n == 1) return "clusters of 1: " + tile + " tiles, no multicast (rung 5's kernel), 4 stages | 384 threads";
    return "clusters of " + std::to_string(n) + ": " + tile + " cluster tiles, Bt multicast to " +
           (n == 2 ? std::string("both") : "all " + std::to_string(n)) + ", 4 stages | 384 threads";
  }
  static MatmulKernelInfo info() {
    MatmulKernelInfo i = hopper_info();
    i.id = "tc6_cluster_multicast";
    i.label = "T6. clusters (of 2, 4 or 1), TMA multicast";
    i.teaches =
        "the blocks of a cluster share each Bt slice: each loads part and TMA multicasts "
        "it into all of them, so less traffic crosses from L2 (clusters of 2: a third "
        "less; compare 4, and 1 without multicast)";
    i.file = "kernels/labs/matmul/tc6_cluster_multicast.hpp";
    for (int n : kTc6ClusterSizes) {
      MatmulConfig c;
      c.block = Dim3{kThreads, 1, 1};
      c.tile = tile_of(n);
      c.label = describe(c);
      i.configs.push_back(c);
    }
    i.persistent = true;
    i.grid_rule = "grid = cluster size x min(cluster tiles of (128 x cluster size) x 256, clusters resident at once)";
    i.gpu_default_config = 0;
    return i;
  }
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    return persistent_launch(cluster_size(c), M, N);
  }
};

}  // namespace bs::matmul
