// Tensor-core rung 6 (BF16, Hopper): rung 5 in thread block clusters of two, Bt multicast by TMA.
//
// What changes from rung 5: two blocks, placed by the hardware on SMs of one GPC, compute the
// two 128-row halves of a 256 x 256 tile. They need the same 256 rows of Bt, so each block's
// producer loads one 128-row half and multicasts it (cp.async.bulk.tensor .multicast::cluster)
// into the shared memory of both: every stage brings in 48 KB, but only 32 KB of it crosses
// from L2 per block. A stage can be refilled only when the consumers of both blocks are done
// with it: each consumer arrives on the "empty" barrier of both blocks (mapa + a remote arrive).
//
// Why it should help: at this tile size the SMs ask L2 for about 12 TB/s at the tensor cores'
// peak; multicast cuts that by a third. Measured on an H100 (NOTES.md): rung 5 at 85% of cuBLAS
// BF16, this rung at 98.5% (4096^3) and 101% (8192^3); with a cluster-scope release on the
// remote arrive it ran at half speed (the arriving warp waits, and its warpgroup's next wgmma
// with it).
// Launch: block (384, 1, 1), cluster (2, 1, 1), grid (2 x min(cluster tiles, clusters resident),
// 1, 1) (cudaOccupancyMaxActiveClusters), 193 KB dynamic shared memory; sm_90a.
#pragma once
#include "labs/matmul/tc5_persistent.hpp"

namespace bs::matmul {

struct Tc6ClusterMulticast : PersistentRung<2> {
  static constexpr const char* kConfig =
      "256 x 256 cluster tiles, 2 blocks a cluster, Bt multicast, 4 stages | 384 threads";
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "tc6_cluster_multicast";
    i.label = "T6. clusters of 2, TMA multicast";
    i.teaches = "two blocks of a cluster share each Bt slice: each loads half and TMA multicasts "
                "it into both, so a third less traffic crosses from L2";
    i.file = "kernels/labs/matmul/tc6_cluster_multicast.hpp";
    i.configs = one_config(Dim3{kThreads, 1, 1}, kConfig);
    i.uses_shared = true;
    i.precision = Precision::Bf16;
    i.needs = RungNeeds::Sm90a;
    i.simulated = false;
    i.persistent = true;
    i.grid_rule = "grid = 2 x min(tiles of 256 x 256, clusters resident at once)";
    i.gpu_default_config = 0;
    return i;
  }
  static std::string describe(const MatmulConfig&) { return kConfig; }
#if defined(BS_MATMUL_HOPPER_TU)
  __device__ static void block(const CUtensorMap* a, const CUtensorMap* b, const Bf16Args& args, unsigned char* smem) {
    tc_persistent_block<2>(a, b, args, smem);
  }
#endif
};

}  // namespace bs::matmul
