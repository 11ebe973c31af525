// Results out: the one JSON and the one CSV form of a list of LaunchRecords, used by bench,
// sweeps, headless runs and the app's exports alike. The schema (fields, units, version) is
// written down in docs/results-schema.md; tests parse both forms back.
//
//   ResultsHeader h{.kind = "bench", .lab = "gray", ...};
//   std::string json = results_json(h, records);
//   std::string csv = results_csv(records, ceilings);
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "core/timing.hpp"
#include "lab/lab.hpp"

namespace bs::lab {

inline constexpr const char* kResultsSchema = "blockscope-results";
// 2: sweeps (the "sweep" object, rank and ties per record), the launch's occupancy, waves and
// idle threads per record, and the matching CSV columns at the end of each row.
inline constexpr int kResultsVersion = 2;

struct ResultsHeader {
  std::string kind;      // "bench", "sweep", "launch"
  std::string lab;       // "gray", "matmul"
  std::string backend;   // "CUDA", "CPU simulation"
  std::string device;    // "NVIDIA H200 (sm_90)"
  std::string versions;  // driver and runtime
  TimingPolicy policy;
  std::vector<Ceiling> ceilings;
  // Sweeps: the GPU's SM clock before and after (MHz, 0 when unknown), and whether it ran whole.
  double clock_mhz_before = 0, clock_mhz_after = 0;
  bool complete = true;
  std::string note;                   // e.g. "cancelled after 31 of 66 points"
  std::vector<std::string> refusals;  // points refused before launch, with the reason
  // The device's limits: with them each record also carries its occupancy, limiter, waves and
  // idle threads (mapping/launch_stats.hpp).
  std::optional<DeviceLimits> limits;
  // Sweeps only (kind "sweep").
  struct Sweep {
    std::size_t planned = 0;                                           // points the sweep named
    double wall_s = 0;                                                 // the whole sweep, wall clock
    double kernel_ms_total = 0;                                        // the sum of every timed repeat
    std::string clock_method;                                          // how the SM clock was measured
    std::string clock_note;                                            // why it was not, where it was not
    std::vector<std::pair<std::string, BlockSuggestion>> suggestions;  // kernel -> the API's
  };
  std::optional<Sweep> sweep;
};

// Derived per record: its throughput and its share of each ceiling (in the same unit), and its
// speed relative to the library anchor of the same problem in the same list (time of the
// library record over this record's), when there is one.
struct Shares {
  double throughput = 0;  // GB/s or GFLOP/s, per the lab's unit
  ThroughputUnit unit = ThroughputUnit::GBPerS;
  std::vector<std::pair<std::string, double>> of_ceiling;
  double of_library = 0;  // 0 when no library record ran on this problem
  std::string library;    // the library kernel's id
};
Shares shares(const LaunchRecord& r, const std::vector<LaunchRecord>& all, const std::vector<Ceiling>& ceilings,
              ThroughputUnit unit, const std::vector<KernelInfo>& kernels);

// "ok", "refused" (nothing ran: the configuration cannot run), "failed" (it ran and failed),
// "wrong" (it ran and the result is wrong).
const char* outcome(const LaunchRecord& r);

std::string results_json(const ResultsHeader& header, const std::vector<LaunchRecord>& records, ThroughputUnit unit,
                         const std::vector<KernelInfo>& kernels);
// `limits` (may be null): fills the occupancy, limiter, waves and idle-thread columns.
std::string results_csv(const std::vector<LaunchRecord>& records, const std::vector<Ceiling>& ceilings,
                        ThroughputUnit unit, const std::vector<KernelInfo>& kernels,
                        const DeviceLimits* limits = nullptr);

// The column names of results_csv, in order (the schema document lists them too).
const std::vector<std::string>& csv_columns();

// The opt-in counter columns (sweeps with counters; docs/counters-fields.md): their names, and a
// record's cells in that order. A record without counters gives empty cells; one whose counters
// could not be read gives the reason in the first cell ("counters") and empty cells after it.
// Written once here so the sweep CSV, and anything else that tabulates counters, agree with
// the JSON.
const std::vector<std::string>& counter_columns();
std::vector<std::string> counter_cells(const LaunchRecord& r);
// One line of a launch's counters beside the model, for the bench's progress output.
std::string counters_summary(const LaunchCounters& c);

// A human table of the records (bench and sweep commands print it).
std::string results_table(const ResultsHeader& header, const std::vector<LaunchRecord>& records, ThroughputUnit unit,
                          const std::vector<KernelInfo>& kernels);

// Writes `text` to `path` (through a temporary file and a rename, so a failure never leaves a
// half-written file where a good one was). The Status names the path and the reason.
Status write_text_file(const std::string& path, const std::string& text);

// The current UTC time as "2026-11-23T10:00:00Z".
std::string utc_timestamp();

}  // namespace bs::lab
