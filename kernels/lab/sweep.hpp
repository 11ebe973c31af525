// Sweeps, written once for every lab: run kernels over a set of configurations on the lab's
// current problem, each point validated first (plan(): a refused point is listed with its reason
// and never launched), then timed with the adaptive policy (warm-up, repeats until the 95%
// interval of the median is within 1% or the point's budget is spent, optional L2 flush), and
// verified (a wrong result is flagged and never ranked). The GPU's SM clock is measured before
// and after, so a clock that moved during the sweep is visible in its results.
//
//   SweepSpec spec;  spec.kernels = {"gray_2d"};            // blocks empty: every shape
//   spec.timing = default_sweep_policy(lab.backend().kind);
//   SweepResult r = run_sweep(lab, spec, {.cancel = &stop, .progress = show});
//   for (const Ranked& k : rank_records(r.records)) ...      // "cannot be ranked" where
//                                                            // intervals overlap
//
// A sweep runs on whatever thread calls run_sweep; the app runs it on a lab.fork() on a worker
// thread so the window keeps drawing (app/experiments/sweep_runner.hpp). Cancel keeps every
// point already measured; a sticky device fault stops the sweep with its partial results.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch_record.hpp"
#include "core/timing.hpp"
#include "lab/lab.hpp"
#include "lab/rank.hpp"
#include "lab/report.hpp"

namespace bs::lab {

// Every block shape a free-blockDim kernel is swept over: x and y powers of two from 1 to 1024,
// z as well where the kernel maps blockDim.z (block_rank 3), x * y * z <= max_threads. Rank 1
// kernels flatten the block, so only x varies. Ordered by y, then x (then z).
std::vector<Dim3> all_block_shapes(unsigned block_rank, unsigned max_threads = 1024);

// A user's list, e.g. "32x8,16x16,256": the shapes it names, in order, and one line for each
// entry that is not a shape at all ("32y8: not X, XxY or XxYxZ"). Shapes CUDA or the kernel
// cannot run (0x8, 2048) are the lab's to refuse, with its own reason, at plan().
struct BlockList {
  std::vector<Dim3> shapes;
  std::vector<std::string> refused;
};
BlockList parse_block_list(std::string_view text);

struct SweepSpec {
  std::vector<std::string> kernels;         // ids; empty: every kernel of the lab (a ladder sweep)
  std::vector<Dim3> blocks;                 // free-blockDim kernels: these; empty: all_block_shapes()
  std::vector<std::string> refused_inputs;  // list entries already refused (parse_block_list)
  TimingPolicy timing;
  bool measure_clock = true;  // the SM clock before and after (CUDA only)
};

// The policy sweeps use unless told otherwise: one warm-up, at least 5 timed repeats on the GPU
// (6 on the CPU), then until the median's 95% interval is within 1% of it or the point has used
// its budget: 100 ms on the GPU, 60 ms on the CPU simulation. A fast point (0.1 ms) takes dozens
// of repeats and gets a tight interval; a slow one (a 1 x 1 block over 8192^2 pixels takes tens
// of ms a launch) stops early with a wide one (below 6 repeats the interval is the whole range),
// which the ranking then honours: it ties more, it is never falsely precise.
TimingPolicy default_sweep_policy(BackendKind backend);

struct SweepPoint {
  std::string kernel;
  KernelConfig config;
  std::string label;  // "32x8" or the compiled configuration's label
};

// The points a spec names on this lab, in the lab's kernel order; unknown ids go to *unknown.
std::vector<SweepPoint> sweep_points(const Lab& lab, const SweepSpec& spec, std::vector<std::string>* unknown);

struct SweepProgress {
  std::size_t done = 0, total = 0;  // points finished (measured or refused) of all planned
  std::size_t measured = 0, refused = 0, wrong = 0, failed = 0;
  double elapsed_s = 0;
  double eta_s = -1;       // time left, from the mean time per launched point so far; -1: unknown
  bool measuring = false;  // `current` is being measured now
  SweepPoint current;
};

struct SweepResult {
  std::string lab, title, problem, backend, device, versions;
  ThroughputUnit unit = ThroughputUnit::GBPerS;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<KernelInfo> kernels;  // the lab's kernel list (the views and the report read it)
  std::vector<Ceiling> ceilings;
  DeviceLimits limits;
  TimingPolicy policy;
  // Every point in order: measured ones (ok, wrong, failed) and refused ones (refused = true,
  // never launched), each with what the lab said.
  std::vector<LaunchRecord> records;
  std::vector<std::string> refusals;  // one line per refused point and per refused list entry
  std::vector<std::pair<std::string, BlockSuggestion>> suggestions;  // kernel id -> suggestion
  double clock_mhz_before = 0, clock_mhz_after = 0;                  // 0: not measured (see clock_note)
  std::string clock_method, clock_note;
  std::size_t planned = 0;  // points the spec named
  bool complete = true;     // every planned point finished
  bool cancelled = false;
  Status fault;                // a sticky device fault that stopped the sweep
  std::string note;            // why it is incomplete, in a sentence
  double wall_s = 0;           // the whole sweep, clock measurements included
  double first_point_s = 0;    // from the sweep's start to its first launched point's start
  double kernel_ms_total = 0;  // the sum of every timed repeat of every point

  bool simulated() const { return backend == to_string(BackendKind::CpuSimulation); }
};

struct SweepHooks {
  const std::atomic<bool>* cancel = nullptr;
  // Called before each point (measuring = true) and after it; on the sweep's thread.
  std::function<void(const SweepProgress&)> progress;
  // Called with each finished point's record (refused ones too); on the sweep's thread.
  std::function<void(const LaunchRecord&)> point_done;
};

SweepResult run_sweep(Lab& lab, const SweepSpec& spec, const SweepHooks& hooks = {});

// The occupancy API's suggestion against what was measured, per kernel that has one: the
// fastest point of the kernel and the fastest point with the suggested thread count (the API
// names a count, not a shape), their ratio, and whether their intervals overlap.
struct SuggestionVerdict {
  std::string kernel;
  BlockSuggestion suggestion;
  int best = -1;                   // index of the kernel's fastest rankable record (-1: none)
  int suggested = -1;              // index of its fastest rankable record with suggestion.threads threads
  double slower_by = 0;            // suggested median / best median - 1 (0: the suggestion is the best)
  bool indistinguishable = false;  // the two intervals overlap: the sweep cannot tell them apart
  std::string text;                // one sentence saying all of that
};
std::vector<SuggestionVerdict> compare_with_suggestions(const SweepResult& r);

// The header the one writer (report.hpp) needs for a sweep's JSON, CSV and table.
ResultsHeader sweep_header(const SweepResult& r);

// A few lines for the sweep command and headless runs: points, best (and what ties with it),
// the suggestion's verdict, wall time against the kernels' time, the clock before and after.
std::string sweep_summary(const SweepResult& r);

}  // namespace bs::lab
