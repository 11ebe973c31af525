// The lab-neutral panels, one file each. Each takes plain read-only inputs (records, the kernel
// list, timings) plus what it may change, and returns what it wants done; none of them names a
// lab or includes the shell.
//   kernel_picker.cpp      the lab's kernel list and the configuration editor (free blockDim with
//                          sliders, typed values applied on Enter or leaving the field, presets;
//                          or the compiled configurations)
//   result_card.cpp        what ran (or why nothing did): time, throughput, ceilings, the check
//   timings_panel.cpp      per-configuration last/median/min/max with the 95% interval, history
//   launch_stats_panel.cpp threads, warps, idle threads, occupancy and its limiter, waves
//   schedule_panel.cpp     per-SM (or per-worker) timeline of blocks, summary, JSON copy
//   runs_panel.cpp         every configuration run this session, side by side
//   inspector.cpp          the thread that stores an element: blockIdx, threadIdx, warp, lane,
//                          pass, slot, what else it stores
#pragma once
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "lab/lab.hpp"
#include "mapping/thread_map.hpp"
#include "state/app_state.hpp"
#include "state/timing_book.hpp"

namespace bs::ui {

// --- kernel picker ----------------------------------------------------------------------------

// Typed blockDim values are staged here while the user types, and applied only on Enter or when
// the field loses focus, so typing 2048 never launches 2, then 20.
struct PickerState {
  int staged[3] = {0, 0, 0};
  bool staging = false;
  std::string typed_note;  // why the last typed shape was not taken (a negative count), or ""
};

// What a kernel reached on this problem and device: "1.35 TB/s  34%" (the best median of its
// configurations and its share of the lab's first ceiling), and, for simulated times, a sentence
// when that best was timed under another machine load than the fastest kernel's (so the two do
// not rank the kernels; core/timing.hpp load_changed), else "".
struct KernelFigure {
  std::string text;
  std::string load_note;
};

// Each kernel's figure from the timings of `lab` on `problem` (kernels not run yet, and runs
// that failed their check, have none).
std::map<std::string, KernelFigure> kernel_figures(const app::TimingBook& book, const std::string& lab,
                                                   const std::string& problem, const lab::ProblemInfo& info);

struct PickerInput {
  const std::vector<lab::KernelInfo>* kernels = nullptr;
  const DeviceLimits* limits = nullptr;
  const LaunchRecord* last = nullptr;                            // the latest attempt of the selection (may be refused)
  const std::map<std::string, KernelFigure>* figures = nullptr;  // by kernel id, shown beside its name
};

// Edits *kernel and *config; returns true when either changed.
bool draw_kernel_picker(const PickerInput& in, std::string* kernel, KernelConfig* config, PickerState* state);

// --- what ran ---------------------------------------------------------------------------------

struct ResultInput {
  const LaunchRecord* last = nullptr;       // the selection's latest attempt
  const LaunchRecord* shown = nullptr;      // the launch the views show (the last that ran)
  const app::TimingEntry* entry = nullptr;  // the selection's timings (nullptr before its first run)
  const lab::ProblemInfo* problem = nullptr;
  bool paused_slow = false;  // continuous runs paused: one run takes too long
  double slow_ms = 0;
  bool uses_barriers = false;  // the kernel calls __syncthreads (slow to simulate)
  // A launch of the selection simulating on the worker thread, long enough to say so: what runs
  // ("k3_smem_tiled, 16 x 16") and for how long; empty when none.
  std::string running;
  double running_s = 0;
};
// Returns true when the user asked to cancel the launch that is running.
bool draw_result_card(const ResultInput& in);

// --- side tabs --------------------------------------------------------------------------------

struct SideInput {
  const LaunchRecord* shown = nullptr;  // what the data view shows
  const app::TimingBook* book = nullptr;
  const app::TimingEntry* entry = nullptr;  // shown's timings
  const lab::ProblemInfo* problem = nullptr;
  const std::vector<lab::KernelInfo>* kernels = nullptr;
  const DeviceLimits* limits = nullptr;
  BackendKind backend = BackendKind::CpuSimulation;
  std::string copy_note;
};
void draw_timings_panel(const SideInput& in);
void draw_launch_stats_panel(const SideInput& in);
void draw_schedule_panel(const SideInput& in);
// Returns the (kernel, config) of a row the user clicked, to load it into the lab.
std::optional<std::pair<std::string, KernelConfig>> draw_runs_panel(const SideInput& in);

// --- inspector --------------------------------------------------------------------------------

// The common lines of an inspector: which thread stores the element, in CUDA's own terms.
void draw_owner(const mapping::ElementOwner& owner, const LaunchRecord& launch);

}  // namespace bs::ui
