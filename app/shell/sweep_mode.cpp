// `blockscope sweep LAB ...`: the sweep engine (kernels/lab/sweep.hpp) with no GL, like bench:
// fresh random data of each size asked for, every combination of the settings asked for, one
// line per point as it finishes, then the table, the summary (best, what cannot be ranked
// against it, the occupancy API's suggestion, wall time against the kernels' time, the SM clock
// before and after) and the results through the one writer (lab/report.hpp).
#include <algorithm>
#include <cstdio>
#include <optional>

#include "lab/bench.hpp"
#include "core/launch_counters.hpp"
#include "measured/bench_counters.hpp"
#include "lab/report.hpp"
#include "lab/sweep.hpp"
#include "shell/compute_session.hpp"
#include "shell/run_modes.hpp"

namespace bs::app {
namespace {

// Several sweeps (sizes, settings) as one result for the writer.
void merge_into(lab::SweepResult& total, lab::SweepResult part, bool first) {
  if (first) {
    total = std::move(part);
    return;
  }
  total.records.insert(total.records.end(), part.records.begin(), part.records.end());
  total.refusals.insert(total.refusals.end(), part.refusals.begin(), part.refusals.end());
  total.suggestions.insert(total.suggestions.end(), part.suggestions.begin(), part.suggestions.end());
  add_new_ceilings(total.ceilings, part.ceilings);
  total.planned += part.planned;
  total.wall_s += part.wall_s;
  total.kernel_ms_total += part.kernel_ms_total;
  total.clock_mhz_after = part.clock_mhz_after;
  total.complete = total.complete && part.complete;
  if (!part.note.empty()) total.note += (total.note.empty() ? "" : "; ") + part.note;
  if (!part.fault.ok()) total.fault = part.fault;
  total.cancelled = total.cancelled || part.cancelled;
}

// The sweep's points and timing from the command line over the backend's default policy. False
// when --blocks names no block shape (the reason printed).
bool sweep_spec(const BenchOptions& b, BackendKind backend, lab::SweepSpec* spec) {
  spec->kernels = b.kernels;
  spec->blocks = b.blocks;  // --block X, one at a time
  if (b.block_list != "all") {
    const lab::BlockList list = lab::parse_block_list(b.block_list);
    spec->blocks.insert(spec->blocks.end(), list.shapes.begin(), list.shapes.end());
    spec->refused_inputs = list.refused;
    for (const std::string& r : list.refused) std::fprintf(stderr, "blockscope: --blocks: refused %s\n", r.c_str());
    if (spec->blocks.empty()) {
      std::fprintf(stderr, "blockscope: --blocks %s names no block shape\n", b.block_list.c_str());
      return false;
    }
  }
  spec->timing = lab::default_sweep_policy(backend);
  if (b.repeats_given) {
    spec->timing.min_repeats = b.repeats;
    spec->timing.max_repeats = std::max(spec->timing.max_repeats, b.repeats);
  }
  if (b.warmup_given) spec->timing.warmup = b.warmup;
  if (b.point_budget_ms > 0) spec->timing.budget_ms = b.point_budget_ms;
  if (b.target_ci > 0) spec->timing.target_ci = b.target_ci;
  spec->timing.flush_l2 = b.flush_l2 && backend == BackendKind::Cuda;
  return true;
}

// One line per point as it finishes, "[n/total]"; *failed when a point failed or was wrong.
lab::SweepHooks print_each_point(FILE* text, std::size_t total_points, bool* failed) {
  lab::SweepHooks hooks;
  hooks.point_done = [text, total_points, failed, n = std::size_t{0}](const LaunchRecord& r) mutable {
    ++n;
    if (r.ok()) {
      std::fprintf(text, "  [%zu/%zu] %-16s %-24s %10.4f ms  +-%.2f%%  %3d repeats  %s\n", n, total_points,
                   r.kernel.c_str(), r.config_label.substr(0, 24).c_str(), r.timing.median_ms,
                   100 * r.timing.relative_ci(), r.timing.repeats(),
                   r.check.passed()   ? "correct"
                   : r.check.failed() ? "WRONG"
                                      : "not checked");
      if (r.check.failed()) *failed = true;
    } else {
      std::fprintf(text, "  [%zu/%zu] %-16s %-24s %s: %s\n", n, total_points, r.kernel.c_str(),
                   r.config_label.substr(0, 24).c_str(), lab::outcome(r), r.status.message.c_str());
      if (!r.refused) *failed = true;
    }
    std::fflush(text);
  };
  return hooks;
}

// --counters: each point that ran is profiled once more, on the lab that still holds its
// problem and settings (the timings are unaffected: they were taken first).
void print_counters(measured::BenchCounters& counters, lab::Lab& l, std::vector<LaunchRecord>& records, FILE* text) {
  bool said = false;  // why counters cannot be read: once, not once per point
  counters.attach(l, records, [&said, text](const LaunchRecord& r) {
    if (!r.counters) return;
    if (r.counters->measured())
      std::fprintf(text, "  counters %-16s %-24s %s\n", r.kernel.c_str(), r.config_label.substr(0, 24).c_str(),
                   lab::counters_summary(*r.counters).c_str());
    else if (!said) said = true, print_status("counters", r.counters->status);
  });
}

// The table, then the JSON and the CSV through the one writer, to the files asked for. Nothing
// measured is lost: what cannot be written goes to stdout instead, and the exit code says so.
int write_results(const BenchOptions& b, const lab::SweepResult& total, FILE* text) {
  const lab::ResultsHeader header = lab::sweep_header(total);
  const ThroughputUnit unit = total.unit;
  std::fputs(lab::results_table(header, total.records, unit, total.kernels).c_str(), text);
  const std::string json = lab::results_json(header, total.records, unit, total.kernels);
  int code = kExitOk;
  if (b.json_path.empty()) {
    std::fputs(json.c_str(), stdout);
  } else if (Status s = lab::write_text_file(b.json_path, json); !s) {
    print_status("json", s);
    std::fprintf(stderr, "blockscope: the JSON follows on stdout instead\n");
    std::fputs(json.c_str(), stdout);
    code = kExitFailure;
  } else {
    std::printf("wrote %s\n", b.json_path.c_str());
  }
  if (b.csv_path.empty()) return code;
  const std::string csv = lab::results_csv(total.records, total.ceilings, unit, total.kernels, &total.limits);
  if (Status s = lab::write_text_file(b.csv_path, csv); !s) {
    print_status("csv", s);
    if (!b.json_path.empty()) {
      std::fprintf(stderr, "blockscope: the CSV follows on stdout instead\n");
      std::fputs(csv.c_str(), stdout);
    }
    return kExitFailure;
  }
  std::fprintf(text, "wrote %s\n", b.csv_path.c_str());
  return code;
}

}  // namespace

int run_sweep_command(const CliOptions& options, const LabCatalog& catalog) {
  const std::string kOpening = "opening", kMaking = "making the problem", kSweeping = "sweeping";
  StepTimes phases;  // kOpening, kMaking and kSweeping, summed over the sizes and settings
  StepTimes making;  // the labs' own steps of kMaking (ProblemInfo::made)
  const BenchOptions& b = *options.bench;
  auto opened = open_command_lab(options, catalog);
  if (const int* code = std::get_if<int>(&opened)) return *code;
  CommandLab& command = std::get<CommandLab>(opened);
  lab::Lab& l = *command.lab;
  // Where the time before the first point goes (budgets.json: a one-point sweep within 0.3 s of
  // a one-frame headless start): printed with the summary.
  phases.end(kOpening);
  double first_point_s = -1;

  std::optional<measured::BenchCounters> with_counters;
  if (b.counters) with_counters.emplace(counters::CounterOptions{.cupti_library = options.cupti_library});
  lab::SweepSpec spec;
  if (!sweep_spec(b, command.session.backend.kind, &spec)) return kExitUsage;

  // Settings not named keep the lab's default: a sweep of one layout unless asked for more.
  auto combos = lab::setting_combinations(l, options.settings, false);
  if (!combos) {
    print_status("--set", combos.status());
    return kExitUsage;
  }
  if (int code = check_kernels_named(l, b.lab, combos.value(), [&](const lab::Lab& at) {
        std::vector<std::string> unknown;
        lab::sweep_points(at, spec, &unknown);
        return unknown;
      }))
    return code;

  // Without --json the JSON goes to stdout, alone, so a pipe can parse it; the progress, the
  // table and the notes then go to stderr.
  FILE* text = b.json_path.empty() ? stderr : stdout;
  lab::SweepResult total;
  bool first = true, failed = false;
  const std::vector<std::string> sizes =
      b.sizes.empty() ? std::vector<std::string>{l.default_sizes().front()} : b.sizes;
  for (const std::string& size : sizes) {
    if (!total.fault.ok()) break;
    phases.mark = StepTimes::Clock::now();
    const Status made = l.set_random_problem(size);
    phases.end(kMaking);
    if (Status s = made; !s) {
      print_status(("size " + size).c_str(), s);
      return kExitUsage;
    }
    making.add(l.problem().made);
    for (const auto& combo : combos.value()) {
      if (!total.fault.ok()) break;
      for (const auto& [key, value] : combo)
        if (Status st = l.set_setting(key, value); !st) {
          print_status("--set", st);
          return kExitUsage;
        }
      std::fprintf(text, "%s: %s\n", b.lab.c_str(), l.problem().summary.c_str());
      std::fflush(text);
      const lab::SweepHooks hooks = print_each_point(text, lab::sweep_points(l, spec, nullptr).size(), &failed);
      phases.mark = StepTimes::Clock::now();
      lab::SweepResult part = lab::run_sweep(l, spec, hooks);
      phases.end(kSweeping);
      if (first_point_s < 0) first_point_s = phases.seconds(kOpening) + phases.seconds(kMaking) + part.first_point_s;
      if (with_counters) print_counters(*with_counters, l, part.records, text);
      std::fputs(lab::sweep_summary(part).c_str(), text);
      merge_into(total, std::move(part), first);
      first = false;
    }
  }

  std::fprintf(text,
               "process phases: opening the backend and the lab %.3f s | making the problem %.3f s (%s) | "
               "sweeping %.3f s (its first point started %.3f s after the command began)\n",
               phases.seconds(kOpening), phases.seconds(kMaking), making.text().c_str(), phases.seconds(kSweeping),
               std::max(0.0, first_point_s));
  const int code = write_results(b, total, text);
  if (!total.fault.ok()) {
    std::fprintf(stderr, "blockscope: the sweep stopped on a device fault: %s\n", total.fault.describe().c_str());
    return kExitFailure;
  }
  if (failed) {
    std::fprintf(stderr, "blockscope: a point failed or gave a wrong result (see the table)\n");
    return kExitFailure;
  }
  return code;
}

}  // namespace bs::app
