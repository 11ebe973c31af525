// Bench, written once for every lab: run a set of kernels and configurations on the lab's
// current problem with one timing policy, every run verified, and return the records (report.hpp
// turns them into the table and the JSON). Problems come from the lab (set_random_problem), so
// `blockscope bench <lab> --size ...` needs no lab-specific code.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "core/timing.hpp"
#include "lab/lab.hpp"

namespace bs::lab {

struct BenchSpec {
  std::vector<std::string> kernels;  // ids; empty: every kernel of the lab (library anchors too)
  std::vector<Dim3> blocks;          // free-blockDim kernels: these (empty: the kernel's presets)
  bool all_compiled = true;          // compiled kernels: every configuration (else the default)
  TimingPolicy timing = TimingPolicy::fixed(20, 3);
  bool trace_schedule = false;
};

// The (kernel, config) pairs a spec names on this lab, in the lab's order; unknown kernel ids
// are returned in *unknown.
std::vector<std::pair<std::string, KernelConfig>> bench_points(const Lab& lab, const BenchSpec& spec,
                                                               std::vector<std::string>* unknown);

// `--set KEY=V1,V2 ...`: every combination of the values asked for, each checked against the
// lab's own settings (an unknown key or value is the Status naming the choices). Settings not
// named run every choice when `every_choice_unnamed` (bench), else keep their current value.
using SettingCombo = std::vector<std::pair<std::string, std::string>>;
Result<std::vector<SettingCombo>> setting_combinations(
    const Lab& lab, const std::vector<std::pair<std::string, std::vector<std::string>>>& asked,
    bool every_choice_unnamed);

// Runs every point; `progress` (may be empty) sees each record as it completes.
std::vector<LaunchRecord> run_bench(Lab& lab, const BenchSpec& spec,
                                    const std::function<void(const LaunchRecord&)>& progress = {});

}  // namespace bs::lab
