// Hardware counters for one launch: what the GPU measured, beside what blockscope predicts.
//
// A CounterSession profiles a launch in this process through CUPTI's range profiler (the library
// Nsight Compute is built on) and returns the counters the Measured tab shows: DRAM bytes read
// and written and the bandwidth they imply, the L2 hit rate, global load and store sectors per
// request, achieved occupancy, SM and memory throughput as a share of peak, and the warp stall
// reasons that dominate.
//
//   auto session = counters::CounterSession::create(device);            // once, off the UI thread
//   if (!session) show(session.status());                               // why not, and the fix
//   auto m = (*session)->profile([&] { return launch_my_kernel_once(); });
//   if (m) use(m->dram_read_bytes, m->ld_sectors_per_request(), m->stalls, ...);
//
// How it measures. The hardware can count only a few signals at once, so the counters are
// collected in several passes (about 15 for the full set on Hopper): `profile` calls the
// callback once per pass (user replay), and the callback must enqueue exactly one launch of the
// kernel under test on the calling thread's current device, on any stream, and nothing else. The
// kernel must give the same result when run again (it must not read what it writes). Before each
// pass the session evicts the L2 cache by reading a scratch buffer twice its size, so every pass
// starts cold, as Nsight Compute's default `--cache-control all` does.
//
// Threading and cost. Use it from a worker thread, never in a per-frame path. One profile of the
// full set took about 0.4 s of wall time on an H200 (15 passes; 0.22 s for the 3 passes without
// stall reasons and throughput shares), almost all of it CUPTI's per-pass work, not the kernel.
// While it runs, profiling serialises kernel launches: the session synchronises the device
// before and after every pass, so launches the app makes meanwhile from other threads wait for
// the pass in flight and run outside the measured range. Profiles are serialised process-wide
// (CUPTI's profiler state is per process), and one session per process is the intended use.
//
// Where counters cannot be read (no permission, an unsupported or virtualised GPU, another
// profiler such as ncu attached, CUPTI missing at run time) `create` or `profile` returns a
// Status that names the cause and the fix. Nothing else in blockscope depends on this: the CUDA
// build loads libcupti with dlopen only when a session is created, so a machine with the driver
// but without the toolkit's CUPTI still runs everything else. The CPU-only build has no CUPTI at
// all and answers that hardware counters are a GPU feature.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace bs::counters {

// One value as the profiler named it (e.g. "dram__bytes_read.sum"), with its unit.
struct Counter {
  std::string name;
  double value = 0.0;
  std::string unit;  // "byte", "ns", "%", "sector", "request", "cycles per instruction", ...
};

// One warp stall reason: warp cycles per issued instruction spent stalled for it (what Nsight
// Compute's Warp State Statistics chart shows), and its share of all stalled cycles.
struct StallReason {
  std::string reason;             // e.g. "long_scoreboard"
  double cycles_per_issue = 0.0;  // smsp__average_warps_issue_stalled_<reason>_per_issue_active
  double share_pct = 0.0;         // of the sum over all reasons
};

// Where the wall time of one profile went, in milliseconds.
struct ProfileCost {
  double enable_ms = 0.0;     // enabling the range profiler on the context (0 when kept enabled)
  double configure_ms = 0.0;  // counter data image and SetConfig
  double passes_ms = 0.0;     // every pass: L2 eviction, start, the launch, stop, synchronise
  double decode_ms = 0.0;     // decoding the counter data
  double evaluate_ms = 0.0;   // computing the metric values on the host
  double disable_ms = 0.0;    // disabling the range profiler (0 when kept enabled)
};

// What one profiled launch measured. Values the session did not collect are NaN.
struct Measurement {
  std::string chip;    // CUPTI's chip name, e.g. "GH100"
  std::string device;  // e.g. "NVIDIA H200"

  double dram_read_bytes = 0.0;  // dram__bytes_read.sum
  // dram__bytes_write.sum: write-backs that reached DRAM before the kernel ended. Output still
  // dirty in L2 at the end is not counted (by ncu neither), so this is at most the bytes written.
  double dram_write_bytes = 0.0;
  double duration_ns = 0.0;          // gpu__time_duration.sum (one pass of the range)
  double dram_bandwidth_gbs = 0.0;   // (read + write) / duration, in GB/s (1e9 bytes per second)
  double dram_throughput_pct = 0.0;  // dram__throughput: DRAM traffic as a share of its peak

  double l2_hit_pct = 0.0;  // lts__t_sector_hit_rate.pct

  double global_ld_sectors = 0.0, global_ld_requests = 0.0;  // l1tex global loads
  double global_st_sectors = 0.0, global_st_requests = 0.0;  // l1tex global stores
  double ld_sectors_per_request() const;                     // NaN where no request
  double st_sectors_per_request() const;

  // Shared memory through the LSU pipe: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st and
  // l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st (wavefronts beyond the ideal).
  double shared_ld_wavefronts = 0.0, shared_st_wavefronts = 0.0;
  double shared_ld_conflicts = 0.0, shared_st_conflicts = 0.0;

  double achieved_occupancy_pct = 0.0;  // sm__warps_active.avg.pct_of_peak_sustained_active
  double sm_throughput_pct = 0.0;       // sm__throughput.avg.pct_of_peak_sustained_elapsed
  double memory_throughput_pct = 0.0;   // gpu__compute_memory_throughput...elapsed

  double warp_cycles_per_issued_instruction = 0.0;  // all reasons together
  std::vector<StallReason> stalls;                  // every reason measured, largest first

  std::vector<Counter> raw;  // every metric as collected, in the order requested

  int passes = 0;        // launches the profile needed (one per pass)
  double wall_ms = 0.0;  // wall time of the whole profile, passes, flushes and decoding included
  ProfileCost cost;
  // "kernel": the range is the kernel itself (CUPTI's auto range), so the duration and the
  // shares of peak over elapsed time are the kernel's, as in ncu. "user": the range is opened
  // before the launch and closed after it, and the duration includes the launch's latency; used
  // only where the driver refuses auto ranges with user replay (CounterSession::range_note).
  std::string range;

  const Counter* find(const std::string& name) const;  // nullptr if not collected
};

struct CounterOptions {
  // On GH100 the full set needs 15 passes; without stall reasons and throughput shares, 3.
  bool stall_reasons = true;  // the ~20 stall ratios of the chip
  bool throughput = true;     // SM and memory throughput as shares of peak
  // Keep CUPTI's range profiler enabled on the context between profiles instead of enabling it
  // for each one. Measured on an H200: a profile after the first took 0.25 s instead of 0.4 s,
  // and the app's own launches were no slower while it stayed enabled; but after the first
  // profile, DRAM bytes written came out lower (6.6 MB against 9.5 MB for the 1D grayscale
  // kernel at 4096x4096, whose output fits in L2), as ncu's do after its first launch when it
  // needs one pass (NOTES.md); the default (off) is what was compared with ncu's 15-pass replay.
  // A kept-enabled session must be the only session.
  bool keep_enabled = false;
  // Which CUPTI to load; empty tries, in order: libcupti.so.<major> through the loader's search
  // path (LD_LIBRARY_PATH), then the toolkit this build was configured with.
  std::string cupti_library{};
};

// How the L2 is emptied before each pass (l2_evict.hpp says why both exist).
enum class L2Eviction {
  ReadAndDiscard,  // read twice the L2, then discard the scratch lines (default; sm_80+)
  Read,            // read twice the L2 only (the first device run's method: 2.7% fewer DRAM
                   // bytes written than ncu for the 1D grayscale kernel)
};

struct ProfileOptions {
  bool flush_l2 = true;  // evict L2 before every pass, so each pass starts cold (as ncu does)
  L2Eviction eviction = L2Eviction::ReadAndDiscard;
};

class CounterSession {
 public:
  // Loads CUPTI, checks that this device can be profiled by this user, and builds the metric
  // configuration once; keep the session and profile many launches with it.
  static Result<std::unique_ptr<CounterSession>> create(int device, const CounterOptions& options = {});

  // Profiles one launch: calls `launch_once` once per pass (see the header comment). A non-ok
  // Status from the callback ends the profile and is returned as is.
  Result<Measurement> profile(const std::function<Status()>& launch_once, const ProfileOptions& options = {});

  const std::vector<std::string>& metric_names() const;
  int passes_per_profile() const;
  const std::string& chip() const;
  const std::string& cupti_path() const;  // the libcupti that was loaded
  // Why the session fell back from kernel ranges to user ranges ("" while it has not).
  const std::string& range_note() const;

  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  struct Impl;

 private:
  explicit CounterSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// False in the CPU-only build, where every session answers with gpu_feature_status().
bool counters_built();
Status gpu_feature_status();

}  // namespace bs::counters
