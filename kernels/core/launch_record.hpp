// One launch, one truth: everything the UI, the bench and sweep JSON, the exports and the tests
// say about a launch comes from this record, filled by the lab with what it really ran: the grid
// and block as launched, the kernel's attributes, how its threads map onto the data, the timing
// with its repeats and spread, the bytes and FLOPs counted, and the verdict of the lab's
// reference. A refused or failed launch is a record too, with the reason in `status`.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/index_scheme.hpp"
#include "core/kernel_config.hpp"
#include "core/launch.hpp"
#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "core/timing.hpp"
#include "core/units.hpp"

namespace bs {

// Hardware counters of a launch (core/launch_counters.hpp): attached by `bench --counters` and
// the Measured tab, absent otherwise. A pointer so the record stays cheap to copy every frame.
struct LaunchCounters;

enum class BackendKind { Cuda, CpuSimulation };

inline const char* to_string(BackendKind k) { return k == BackendKind::Cuda ? "CUDA" : "CPU simulation"; }

// Which thread block cluster a block ran in, as the block itself read it on the GPU (sm_90 and
// later: the PTX special registers %clusterid, %cluster_ctarank, %nclusterid,
// %cluster_nctarank, %is_explicit_cluster). A launch without clusters runs every block as its
// own cluster of one. mapping/cluster.hpp computes the same from blockIdx and the cluster dims
// (the model) and compares.
struct ClusterPlace {
  Dim3 id;                        // %clusterid: the cluster's index in the grid of clusters
  unsigned rank = 0;              // %cluster_ctarank: the block's linear index in its cluster (x fastest)
  Dim3 count;                     // %nclusterid: clusters along each axis of the grid
  unsigned blocks = 1;            // %cluster_nctarank: blocks in the cluster
  bool explicit_cluster = false;  // %is_explicit_cluster: launched with cluster dims
  friend bool operator==(const ClusterPlace&, const ClusterPlace&) = default;
};

// Where and when one block ran. On the GPU `unit` is the SM (%smid) and times come from
// %globaltimer; in the simulator `unit` is the worker thread and times come from steady_clock.
struct BlockTrace {
  Dim3 block;
  unsigned unit = 0;
  std::uint64_t start_ns = 0;  // relative to the earliest start in the launch
  std::uint64_t end_ns = 0;
  // Threads that ran this block, counted as they ran (on the GPU each warp adds its live lanes
  // at the block's end; the simulator counts the body calls): the census tests compare with the
  // grid computed by hand.
  unsigned threads = 0;
  // The block's cluster, read by the block on GPUs that have clusters (sm_90+); empty elsewhere
  // (older GPUs, the simulator): nothing was recorded, and the views say so.
  std::optional<ClusterPlace> cluster = std::nullopt;
};

// What the GPU says about a launch with thread block clusters: cudaOccupancyMaxActiveClusters
// for its block, cluster dims and shared memory (how many whole clusters fit on the device at
// once: each cluster's blocks must fit on the SMs of one GPC together, so this can be less than
// blocks per SM x SMs / blocks per cluster).
struct ClusterOccupancy {
  int max_active_clusters = 0;  // 0: not asked (no clusters) or not answered (see `note`)
  std::string note;             // the call that answered, or why there is no answer
  bool asked() const { return max_active_clusters > 0 || !note.empty(); }
};

// Owners recorded by running the kernel's own code (IndexScheme::Recorded): for each element of
// the width x height data, the global linear thread id that stored it (blockIdx linear * threads
// per block + thread in block), or kNobody.
struct OwnerMap {
  static constexpr std::uint32_t kNobody = 0xffffffffu;
  long long width = 0, height = 0;
  std::vector<std::uint32_t> thread;  // width * height entries
};

struct LaunchRecord {
  std::string lab;           // "gray", "matmul"
  std::string kernel;        // the kernel's registry id, e.g. "gray_1d_flat", "k7_warptile"
  KernelConfig request;      // what was asked for
  std::string config_label;  // "block 16x16" or "BM=128 BN=128 BK=8 TM=8 TN=8 | 256 threads"
  std::string problem;       // "512 x 512 image, planar RGB", "4096x4096x4096"
  std::vector<std::pair<std::string, std::string>> settings;  // the lab's settings it ran with
  BackendKind backend = BackendKind::CpuSimulation;
  LaunchConfig config;   // exactly what was launched (or would have been, if refused)
  Status status;         // refusal, launch error or success
  bool refused = false;  // refused before launch (the configuration cannot run), nothing ran

  // Launches with clusters (config.cluster has more than one block): the GPU's occupancy answer.
  ClusterOccupancy clusters;

  KernelAttributes attributes;       // registers, shared memory, local (spill) bytes
  bool attributes_measured = false;  // from cudaFuncGetAttributes (false: the simulator's own)

  IndexScheme scheme;                         // how a thread maps onto the data
  long long data_width = 0, data_height = 0;  // the array the scheme indexes
  std::shared_ptr<const OwnerMap> owners;     // IndexScheme::Recorded only

  Timing timing;  // CUDA events on the GPU, steady_clock on the CPU
  // Where the launch's wall time went, on the host: the lab's plan, timed launches, trace and
  // check; the view's interop map, unmap and copy to the texture (the frame phases itemise it).
  StepTimes steps;
  double bytes_moved = 0;  // the napkin count the bandwidth figure uses
  std::string bytes_note;  // what was counted, e.g. "3 bytes read + 1 written per pixel"
  double flops = 0;

  Check check;  // against the lab's reference

  std::vector<BlockTrace> schedule;  // filled when tracing was asked for
  bool schedule_simulated = false;

  std::shared_ptr<const LaunchCounters> counters;  // null unless counters were asked for
  std::shared_ptr<const LineProfile> lines;        // stall samples per line (bench --lines)

  bool ok() const { return status.ok(); }
  double kernel_ms() const { return timing.median_ms; }
  double gbytes_per_s() const { return timing.median_ms > 0 ? bytes_moved / (timing.median_ms * 1e6) : 0; }
  double gflops() const { return timing.median_ms > 0 ? flops / (timing.median_ms * 1e6) : 0; }
  // In a lab's unit: what was counted (bytes or FLOPs), and that over the median time.
  double counted(ThroughputUnit u) const { return u == ThroughputUnit::GflopPerS ? flops : bytes_moved; }
  double throughput(ThroughputUnit u) const { return u == ThroughputUnit::GflopPerS ? gflops() : gbytes_per_s(); }
};

}  // namespace bs
