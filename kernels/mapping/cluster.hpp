// Thread block clusters (sm_90): which blocks form a cluster, and what a traced launch recorded
// about them. The model is the PTX ISA's definition of the cluster special registers, computed
// from blockIdx, gridDim and the cluster dims the launch used:
//
//   %clusterid        = blockIdx / cluster dims        (per axis)
//   %cluster_ctaid    = blockIdx % cluster dims        (per axis)
//   %cluster_ctarank  = the linear index of %cluster_ctaid, x fastest
//   %nclusterid       = gridDim / cluster dims         (per axis)
//   %cluster_nctarank = blocks per cluster
//
// A launch without clusters is, on sm_90, a grid of clusters of one block each: the same
// formulas with dims (1, 1, 1).
//
// The record (LaunchRecord::schedule, kernels/trace) carries what each block read from those
// registers, with the SM it ran on (%smid) and when (%globaltimer). cluster_schedule() groups
// the blocks by the cluster they recorded, checks the record against the model, and says which
// clusters ran co-scheduled (all their blocks' time windows share a moment, which the hardware
// guarantees for the blocks of a cluster).
//
// The GPC a cluster ran on is not observable: PTX has %smid and %nsmid but no GPC register, and
// SM ids are not documented to be numbered by GPC. What the record does prove: the hardware puts
// all blocks of a cluster on SMs of one GPC, so SMs that held blocks of one cluster are in one
// GPC. sm_groups joins those pairs: each group lies within one GPC (a GPC may hold several).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/launch.hpp"
#include "core/launch_record.hpp"

namespace bs::mapping {

// The model's cluster of block `block` in a launch of `grid` with cluster dims `cluster`
// (explicit_cluster: the dims have more than one block). Dims with a zero are treated as 1.
ClusterPlace cluster_place(Dim3 block, Dim3 grid, Dim3 cluster);

// id.x + count.x * (id.y + count.y * id.z): clusters numbered like blocks, x fastest.
unsigned long long linear_cluster_id(Dim3 id, Dim3 count);

// Blocks of the grid in cluster `linear` of the model, in rank order (linear block ids).
std::vector<unsigned long long> cluster_blocks(unsigned long long linear, Dim3 grid, Dim3 cluster);

// One cluster of a traced launch.
struct ClusterRun {
  Dim3 id;                                              // as recorded (the model's where nothing was recorded)
  unsigned long long linear = 0;                        // linear_cluster_id
  std::vector<unsigned long long> blocks;               // linear block ids, in rank order
  std::vector<unsigned> units;                          // the SM (or worker) of each, same order
  std::uint64_t first_start_ns = 0, last_start_ns = 0;  // over its blocks
  std::uint64_t first_end_ns = 0, last_end_ns = 0;
  // Every block of the cluster was running at one moment: the latest start is before the
  // earliest end (a block of zero recorded length counts as 1 ns, as in the schedule summary).
  bool co_scheduled = false;
  unsigned sm_group = 0;  // index into ClusterSchedule::sm_groups
};

struct ClusterSchedule {
  Dim3 dims{1, 1, 1};     // blocks per cluster along each axis, as launched (LaunchConfig::cluster)
  Dim3 count{1, 1, 1};    // clusters along each axis (the model: grid / dims)
  bool recorded = false;  // every block of the trace carries the cluster it read on the GPU
  unsigned long long recorded_blocks = 0;
  // Blocks whose recorded cluster (id, rank, count, blocks per cluster) is not the model's, and
  // the first of them in words.
  unsigned long long mismatches = 0;
  std::string first_mismatch;
  std::vector<ClusterRun> clusters;     // ordered by linear cluster id; only clusters with blocks in the trace
  unsigned long long co_scheduled = 0;  // clusters whose blocks all ran at one moment
  // SMs joined by having held blocks of one cluster (see the header): sorted, each sorted.
  std::vector<std::vector<unsigned>> sm_groups;
};

// Groups `trace` (LaunchRecord::schedule, indexed by linear block id) by cluster. Blocks that
// recorded their cluster are grouped by what they recorded; the rest by the model. With
// `config.cluster` of one block every block is its own cluster.
ClusterSchedule cluster_schedule(const std::vector<BlockTrace>& trace, const LaunchConfig& config);

// One line for the legend: "cluster (2,1,1): blocks 4-5 ran on SM 4 and 5, together for 812 us"
// (blocks listed as a range when consecutive; "worker" instead of "SM" for a simulated trace).
std::string cluster_line(const ClusterRun& c, bool simulated = false);

// The launch's cluster in words: "clusters of 2 x 1 x 1 blocks (2 blocks each), 66 clusters",
// or "no clusters: every block is its own cluster of one".
std::string cluster_dims_text(const LaunchConfig& config);

}  // namespace bs::mapping
