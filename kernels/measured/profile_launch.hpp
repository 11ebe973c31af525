// A lab's launch measured by the GPU's counters, beside blockscope's own model of it (issue 12).
//
// Written once against the lab interface, so the Measured tab, `bench --counters` and sweeps
// (the opt-in counter columns) share it:
//
//   auto session = counters::CounterSession::create(device);   // once, off the UI thread
//   auto c = measured::profile_launch(lab, "k1_naive", config, **session, &shown_record);
//   record.counters = std::make_shared<LaunchCounters>(*c);    // report.* writes it
//
// The profiled callback enqueues exactly one launch: lab.run with TimingPolicy::once(), no L2
// flush, no schedule trace, no verification (each lab's run() then makes one launch of the
// kernel, plus CUDA events around it; cuBLAS's SGEMM and CUB's transform are one kernel each for
// the lab's problems, and a library that splits its work into several kernels is reported as
// such). The copy ceiling (a cudaMemcpy, not a kernel) is refused with the reason. A user kernel
// runs in a runner process of its own: its launch is profiled there, by the same counters code
// with this session's metric set and L2 handling (Lab::profile_counters_elsewhere, issue 32), and
// compared here with the same model (the lab's bytes, the planned launch's occupancy).
//
// The model side: LaunchRecord::bytes_moved; sectors per request from lab.warp_accesses over a
// sample of the launch's warps (model_sectors); theoretical occupancy from mapping/occupancy.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch_counters.hpp"
#include "core/launch_record.hpp"
#include "counters/counters.hpp"
#include "lab/lab.hpp"

namespace bs::measured {

// Why `kernel` of `lab` cannot be profiled, before anything runs (success when it can): the CPU
// backend (counters are a GPU feature), a build without counters, an unknown kernel, the copy
// ceiling.
Status profile_refusal(const lab::Lab& lab, std::string_view kernel);

// Bytes in decimal units, as DRAM traffic is quoted ("50.3 MB"); `b` finite.
std::string decimal_bytes(double b);

// Profiles one launch of `kernel` with `config` on `lab` (its backend's device must be the
// session's). `model_record` is the launch the model side describes (the one the window shows,
// or a bench record, so the reported bandwidth uses its timed median); nullptr: the profiled
// run's own record. `passes_done` (may be null) counts the passes as they run, for progress.
// The result carries the measured values and the model; a failure is the Status, with the
// cause and the fix where the counter library gave one.
Result<LaunchCounters> profile_launch(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                      counters::CounterSession& session, const LaunchRecord* model_record = nullptr,
                                      std::atomic<int>* passes_done = nullptr,
                                      const counters::ProfileOptions& options = {});

// What a profile made in another process asks for: `session`'s metric set (stall reasons and
// throughput shares, read from its metric names), `options`' L2 handling and its libcupti.
CounterRequest counter_request(const counters::CounterSession& session, const counters::ProfileOptions& options);

// profile_launch's path for a kernel launched in another process (a user kernel's runner), which
// needs no session of this process: the lab's profile_counters_elsewhere, then the same model
// half as for the lab's own kernels (`model_record`, else the planned launch it returned).
// nullopt: `kernel` launches in this process.
std::optional<Result<LaunchCounters>> profile_elsewhere(lab::Lab& lab, const std::string& kernel,
                                                        const KernelConfig& config, const CounterRequest& request,
                                                        const LaunchRecord* model_record = nullptr);

// A LaunchCounters that says why there are none (bench and sweep results carry it).
LaunchCounters unavailable(Status why);

// The measured half, from what the session returned.
LaunchCounters from_measurement(const counters::Measurement& m);

// Sectors per request as the memory view models them: lab.warp_accesses for every warp of up to
// `max_blocks` blocks spread evenly over the grid (the first and the last included, so edge
// blocks count), each at steps 0, 1, ... of its loop until the lab has no more, at most
// `max_steps` (a step-independent lab is read once). Sectors summed over requests, divided by
// requests, separately for loads and stores, as the hardware's counters divide them.
struct SectorModel {
  double ld = LaunchCounters::kNone, st = LaunchCounters::kNone;
  double ld_requests = 0, st_requests = 0;  // in the sample
  std::string sample;                       // what was averaged, or why there is nothing
};
SectorModel model_sectors(const lab::Lab& lab, const LaunchRecord& record, unsigned max_blocks = 64,
                          int max_steps = 32);

// Fills the model half of `c` for `record` (bytes, bandwidth, sectors, theoretical occupancy).
// The sample sizes are model_sectors'; the window's preview (on the UI thread) takes a smaller
// one: 16 blocks and 8 steps cover every alignment a 4-byte element can have in a sector.
// The shared-memory half of the model (lab::Lab::shared_memory_model of the lab, or of a lab it
// wraps): wavefronts and bank conflicts of loads and stores for the whole launch.
void add_shared_model(LaunchCounters& c, const lab::Lab& lab, const LaunchRecord& record);

void add_model(LaunchCounters& c, const lab::Lab& lab, const LaunchRecord& record, unsigned max_blocks = 64,
               int max_steps = 32);

// One row of the Measured tab: the hardware's value beside the model's.
struct CounterRow {
  std::string name;
  double measured = LaunchCounters::kNone;
  double model = LaunchCounters::kNone;  // NaN: no model for this counter
  std::string unit;                      // "B", "GB/s", "%", "" (a plain ratio)
  bool points = false;                   // compared as a difference in percentage points (occupancy)
  std::string help;                      // what the counter is, for a tooltip
  // measured / model, or measured - model in points; NaN without both.
  double comparison() const;
};
std::vector<CounterRow> counter_rows(const LaunchCounters& c);

// One sentence: where model and hardware disagree most, and the likely reason.
std::string largest_disagreement(const LaunchCounters& c);

}  // namespace bs::measured
