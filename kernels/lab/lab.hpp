// The lab interface. A lab is a problem (an image, two matrices, a vector) plus a ladder of
// kernels that solve it, a reference that checks them, and the facts the views need to show how
// a grid covers that problem. Everything else (the window's shell, bench, sweeps, comparisons,
// exports, headless outputs) is written once against this interface and never names a lab.
//
// A lab object runs on one backend: the CUDA device or the CPU grid simulator are two backends
// of the same lab (make_*_lab(Backend) picks), never two code paths in its callers.
//
//   kernels()   the ladder: ids, teaching notes, the configurations each accepts
//   problem()   what the lab holds now (set through the lab's own API: set_image, set_matrices)
//   plan()      the launch a configuration would make, validated, without running it
//   run()       validates, launches (warm-up, repeats, optional L2 flush: lab/measure.hpp),
//               verifies against the reference, and returns the LaunchRecord of what ran
//   owner()     who computes element (x, y) of the data in a launch, for hover and inspectors
//   warp_accesses()  one warp's memory requests in a launch, for the memory and compare views
//   shared_memory_model()  a launch's shared-memory wavefronts as the lab models them (Measured tab)
//   fork()      the same problem on the same backend in a second object (sweeps run it on a
//               worker thread while the window keeps drawing)
//   suggested_block()  the block size CUDA's occupancy API suggests for a kernel, where the lab
//               can ask it (sweeps mark it and compare it with the measured best)
//   wrapped()   a lab that adds kernels to another (the user's own kernels,
//               labs/custom/user_kernel_lab.hpp) returns the lab it wraps; layer<T>() finds one
//   user_kernel_spec()  the kernel forms a lab accepts from the user, how it packs its problem
//               for them and checks their output (user_kernel_spec.hpp); null: it takes none
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch_counters.hpp"
#include "core/launch_record.hpp"
#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "core/timing.hpp"
#include "mapping/memory_access.hpp"
#include "mapping/shared_banks.hpp"
#include "mapping/thread_map.hpp"

namespace bs::sim {
class GridSimulator;
}

namespace bs::lab {

class UserKernelSpec;  // user_kernel_spec.hpp

// Where a lab runs: the CUDA device, or the CPU grid simulator with CUDA's rules.
struct Backend {
  BackendKind kind = BackendKind::CpuSimulation;
  int cuda_device = -1;      // CUDA only
  DeviceLimits limits;       // the device's (or the simulator's, which mirrors CUDA's)
  std::string label;         // "NVIDIA H200 (sm_90)" or "CPU simulation (2 workers)"
  std::string versions;      // CUDA driver and runtime
  unsigned sim_workers = 0;  // CPU only: 0 = one per hardware thread
  double copy_gbs = 0;       // measured device-to-device copy bandwidth (read + write), 0: none
  std::string copy_note;     // how it was measured, or why it is missing
};

enum class ConfigStyle {
  FreeBlock,  // any blockDim CUDA allows (the lab refuses what the kernel cannot take)
  Compiled,   // one of `configs`, each compiled into the binary with its own launch shape
};

struct CompiledConfig {
  std::string label;  // "BM=128 BN=128 BK=8 TM=8 TN=8 | 256 threads"
  Dim3 block;         // the blockDim it launches with
};

struct KernelInfo {
  std::string id;       // registry id: LaunchRecord::kernel, --kernel, JSON
  std::string label;    // for the kernel list, e.g. "1. naive (the lecture's)"
  std::string teaches;  // one sentence: what this rung changes and why
  std::string file;     // the file holding its body, e.g. "kernels/labs/matmul/k1_naive.hpp"
  KernelGroup group = KernelGroup::Ladder;
  ConfigStyle style = ConfigStyle::FreeBlock;
  unsigned block_rank = 3;  // blockDim dimensions the kernel maps: 1 (x*y*z flattened), 2 or 3
  Dim3 default_block{256, 1, 1};
  std::vector<Dim3> presets;            // FreeBlock: shapes the UI offers
  std::vector<CompiledConfig> configs;  // Compiled: the compiled set
  int default_config = 0;
  std::string grid_rule;            // how the grid follows from the data, e.g. "ceil(n / blockDim.x)"
  bool fixed_grid_allowed = false;  // the kernel loops, so any grid covers the data
  bool uses_barriers = false;       // __syncthreads (the simulator runs its threads as fibers)
  bool timed_only = false;          // a library anchor (CUB, cuBLAS): timed and verified; its grid is
                                    // not ours to draw
  // KernelGroup::Ceiling: whether it bounds the other kernels of its problem (the copy bounds the
  // grayscale kernels: their %ceil). False: timed beside them for comparison only, as the FP32
  // cuBLAS runs beside the BF16 ladder (a BF16 kernel may beat TF32 cuBLAS: that is no ceiling).
  bool bounds_others = true;
  std::string unavailable;  // why this backend cannot run it (a GPU without the instructions it
                            // needs, the simulator for device-only rungs); empty: it can. Still
                            // listed, so its layouts draw; a run is refused with this reason.
};

// A figure the lab's results are measured against: the memory system's copy bandwidth, the
// FP32 peak. (Library anchors such as cuBLAS are kernels of the lab, timed in the same run.)
struct Ceiling {
  std::string name;                              // "device-to-device copy", "FP32 peak"
  double value = 0;                              // in `unit`
  ThroughputUnit unit = ThroughputUnit::GBPerS;  // compared with the record's throughput in that unit
  std::string note;                              // how it was measured or derived
  // The records it bounds (LaunchRecord::problem, e.g. "4096x4096x4096 bf16"); empty: every record
  // of the lab. A bench over several sizes or precisions lists each problem's own ceilings, and a
  // record is divided only by its own problem's.
  std::string problem;
};

// What the lab holds now.
struct ProblemInfo {
  bool ready = false;
  Status status;                    // why there is nothing to run on, when not ready
  std::string name;                 // short: the image's file name, "A x B (512x512x512)"
  std::string summary;              // "astronaut.png, 512 x 512, planar RGB" / "4096 x 4096 x 4096"
  long long width = 0, height = 0;  // the data the overlay covers (the image; C)
  ThroughputUnit throughput_unit = ThroughputUnit::GBPerS;  // GB/s (memory-bound labs) or GFLOP/s
  std::vector<Ceiling> ceilings;
  StepTimes made;  // how the problem was made, step by step ("generate + convert on the host", "upload")
};

// A choice about the problem that is not its size, e.g. the grayscale source's layout (planar or
// RGBA). The shell draws each as a combo under the problem; bench and sweeps take
// `--set key=value[,value...]` and run every value; every record carries the values it ran with.
struct Setting {
  std::string key;                   // "layout": --set, JSON
  std::string label;                 // "source layout"
  std::string help;                  // one sentence for the tooltip and --help
  std::vector<std::string> choices;  // "planar", "rgba"
  std::string value;                 // the current one
};

struct RunOptions {
  TimingPolicy timing;          // TimingPolicy::once() for an interactive relaunch
  bool trace_schedule = false;  // one more, untimed launch of the traced wrapper
  bool verify = true;           // compare the output with the lab's reference
  // Write the result here instead of the lab's own output buffer: memory of this backend (a
  // CUDA-mapped GL buffer for zero-copy interop, or host memory on the CPU), output_bytes() long.
  void* output = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // stops a long simulated launch or a repeat loop
};

// What cudaOccupancyMaxPotentialBlockSize suggests for a kernel: the block size (threads) that
// reaches the highest occupancy the kernel's registers and shared memory allow, and the smallest
// grid that fills the device with it. The API knows nothing of the data, so it names a thread
// count, not a shape.
struct BlockSuggestion {
  unsigned threads = 0;
  unsigned min_grid = 0;
  std::string source;  // "cudaOccupancyMaxPotentialBlockSize (gray_2d, planar, 16 registers)"
};

// Success when `value` is one of the setting's choices, else the Status naming them.
Status check_setting_value(const Setting& s, std::string_view value);

class Lab {
 public:
  virtual ~Lab() = default;

  virtual std::string_view id() const = 0;     // "gray", "matmul"
  virtual std::string_view title() const = 0;  // "Grayscale", "Matmul"
  virtual const Backend& backend() const = 0;
  virtual const std::vector<KernelInfo>& kernels() const = 0;
  virtual ProblemInfo problem() const = 0;

  // The record a run would produce up to the launch: kernel, grid and block, attributes, index
  // scheme, bytes and FLOPs counted, and the refusal if the configuration cannot run (status).
  virtual LaunchRecord plan(std::string_view kernel, const KernelConfig& config) = 0;
  virtual LaunchRecord run(std::string_view kernel, const KernelConfig& config, const RunOptions& options) = 0;

  // Bytes of the output run() writes; the lab's own copy of the last result, to host memory.
  virtual std::size_t output_bytes() const = 0;
  virtual Status download_output(void* host) = 0;

  // The thread that stores element (x, y) in this launch and everything else it stores; nullopt
  // where no thread of the launch stores it.
  virtual std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x, long long y) const = 0;
  // The memory requests warp `warp` of block `block` makes at step `step` of its loop (the k of
  // a matmul, the pass of a grid-stride loop): one WarpAccess per load or store instruction.
  virtual std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                         int step) const = 0;

  // The lab's model of a launch's shared-memory traffic (wavefronts and their ideal, loads and
  // stores, the whole grid), for the Measured tab beside the bank counters; nullopt where it has
  // none. `sample` (may be null) says what the model counted.
  virtual std::optional<mapping::SharedTotals> shared_memory_model(const LaunchRecord& launch,
                                                                   std::string* sample) const {
    (void)launch, (void)sample;
    return std::nullopt;
  }

  // One warp's shared-memory requests recorded where the lab records them in another process (a
  // user kernel, labs/custom/shared_recording.hpp): warp `warp` of block `block` of `launch`, the
  // i-th access of every lane a request, with the user's source line. nullopt for a kernel this
  // lab does not record that way (the matmul rungs record through their own lab).
  struct SharedRequests {
    std::vector<SharedRequest> requests;
    std::vector<std::string> variables;  // "Ms at byte 0, 1024 bytes"
    bool truncated = false;
    std::string note;  // how it was recorded
  };
  virtual std::optional<Result<SharedRequests>> recorded_shared_requests_elsewhere(const LaunchRecord& launch,
                                                                                   Dim3 block, unsigned warp,
                                                                                   unsigned max_requests) {
    (void)launch, (void)block, (void)warp, (void)max_requests;
    return std::nullopt;
  }

  virtual Result<std::unique_ptr<Lab>> fork() const = 0;

  // Stall samples per source line of `kernel`'s launches where another process makes them: the
  // user's kernels run in a runner process of their own, which samples them (labs/custom).
  // nullopt for a kernel this process launches: measured::profile_lines samples it here.
  virtual std::optional<Result<LineProfile>> profile_lines_elsewhere(std::string_view kernel,
                                                                     const KernelConfig& config,
                                                                     const LineSampling& sampling) {
    (void)kernel, (void)config, (void)sampling;
    return std::nullopt;
  }

  // Hardware counters of one launch of `kernel` where another process launches it (a user
  // kernel's runner reads them with the same range profiler, labs/custom/counters_wire.hpp):
  // the measured half of LaunchCounters, and the planned record of that launch (grid, block,
  // attributes, the lab's byte count) for the model half. nullopt for a kernel this process
  // launches: measured::profile_launch profiles lab.run here.
  struct CountersElsewhere {
    LaunchCounters counters;
    LaunchRecord launch;
  };
  virtual std::optional<Result<CountersElsewhere>> profile_counters_elsewhere(std::string_view kernel,
                                                                              const KernelConfig& config,
                                                                              const CounterRequest& request) {
    (void)kernel, (void)config, (void)request;
    return std::nullopt;
  }

  // The occupancy API's suggestion for `kernel` with the problem's current settings; nullopt
  // where the lab cannot ask it (the CPU simulation, compiled configurations, library kernels).
  virtual std::optional<BlockSuggestion> suggested_block(std::string_view kernel) {
    (void)kernel;
    return std::nullopt;
  }

  // A problem of fresh random data of the size `size` names (bench and sweep commands): the
  // syntax is the lab's (size_syntax(), e.g. "WxH" or "MxNxK"); a bad size is a Status saying it.
  virtual Status set_random_problem(std::string_view size) = 0;
  virtual std::string size_syntax() const = 0;
  virtual std::vector<std::string> default_sizes() const = 0;

  // The problem's settings (none by default). set_setting refuses an unknown key or value with a
  // Status naming the choices, and leaves the lab as it was.
  virtual std::vector<Setting> settings() const { return {}; }
  virtual Status set_setting(std::string_view key, std::string_view value);
  // key = value of every setting now: what a run's LaunchRecord::settings holds.
  std::vector<std::pair<std::string, std::string>> setting_values() const;

  // Changes whenever the kernel list or a kernel's code changes (a user kernel installed,
  // rebuilt or removed): a fork made before is stale. Labs whose kernels are fixed keep 0.
  virtual std::uint64_t kernels_version() const { return 0; }

  // A lab that wraps another and adds to it (labs/custom/user_kernel_lab.hpp adds the user's own
  // kernels to any lab) returns the wrapped one, so a view can reach the lab it draws through
  // layer<T>(); everything else reaches the whole stack through this interface.
  virtual Lab* wrapped() { return nullptr; }
  virtual const Lab* wrapped() const { return nullptr; }

  // What the lab offers the user's own kernels (user_kernel_spec.hpp), written in the lab's own
  // folder; null for a lab that takes none. labs/custom wraps a lab that offers one.
  virtual const UserKernelSpec* user_kernel_spec() const { return nullptr; }

  // Helpers over kernels().
  const KernelInfo* find_kernel(std::string_view id_or_key) const;
  // The configuration the kernel opens with (its default block or default compiled config).
  KernelConfig default_config(const KernelInfo& k) const;
};

// The first lab of type T in the stack `lab` heads (itself, then what it wraps), or nullptr.
template <class T>
T* layer(Lab& lab) {
  for (Lab* l = &lab; l; l = l->wrapped())
    if (auto* t = dynamic_cast<T*>(l)) return t;
  return nullptr;
}

template <class T>
const T* layer(const Lab& lab) {
  for (const Lab* l = &lab; l; l = l->wrapped())
    if (const auto* t = dynamic_cast<const T*>(l)) return t;
  return nullptr;
}

}  // namespace bs::lab
