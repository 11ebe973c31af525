#include "lab/report.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <variant>

#include "core/json_writer.hpp"
#include "core/launch_counters.hpp"
#include "lab/rank.hpp"
#include "mapping/launch_stats.hpp"

namespace bs::lab {
namespace {

const KernelInfo* kernel_info(const std::vector<KernelInfo>& kernels, const std::string& id) {
  for (const KernelInfo& k : kernels)
    if (k.id == id) return &k;
  return nullptr;
}

bool is_library(const std::vector<KernelInfo>& kernels, const std::string& id) {
  const KernelInfo* k = kernel_info(kernels, id);
  return k && k->group == KernelGroup::Library;
}

// "layout=planar;..." for the CSV's one cell.
std::string settings_text(const LaunchRecord& r) {
  std::string t;
  for (const auto& [k, v] : r.settings) t += (t.empty() ? "" : ";") + k + "=" + v;
  return t;
}

std::string dim_text(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

const char* check_state(const Check& c) {
  switch (c.state) {
    case Check::State::Passed: return "passed";
    case Check::State::Failed: return "failed";
    case Check::State::NotChecked: return "not_checked";
  }
  return "?";
}

// CSV field: quoted when it holds a comma, quote or line break; quotes doubled (RFC 4180).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The launch's occupancy, waves and idle threads, where it has a grid of ours to count.
// Library anchors and ceilings (CUB, cuBLAS, the copy) launch grids of their own: none to count;
// a refused point never launched.
std::optional<mapping::LaunchStats> stats_of(const LaunchRecord& r, const DeviceLimits* limits,
                                             const std::vector<KernelInfo>& kernels) {
  const KernelInfo* k = kernel_info(kernels, r.kernel);
  if (!limits || r.refused || (k && k->timed_only) || r.config.grid.volume() == 0 || r.config.block.volume() == 0 ||
      r.data_width <= 0 || r.config.block.volume() > limits->max_threads_per_block)
    return std::nullopt;
  return mapping::compute_stats(r.scheme, r.config, r.data_width, r.data_height, r.attributes, *limits, r.owners.get());
}

// rank, ties_previous, ties_best per record (rank 0: not ranked).
std::vector<Ranked> ranks_by_record(const std::vector<LaunchRecord>& records) {
  std::vector<Ranked> by(records.size());
  for (const Ranked& r : rank_records(records)) by[r.index] = r;
  return by;
}

// A whole number (a count of bytes, FLOPs, threads) that a double holds exactly: written whole
// (3923205, not 3.9232e+06); other values to 6 significant digits.
bool exact_whole(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15; }

std::string num(double v) {
  if (!std::isfinite(v)) return "";
  if (exact_whole(v)) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Counts (bytes, sectors, requests) are integers: written whole, not to 6 significant digits.
// NaN (not measured) is null.
void count_field(JsonWriter& j, const char* key, double v) {
  j.key(key);
  if (exact_whole(v)) j.value(static_cast<long long>(v));
  else j.value(v);
}

void stalls_json(JsonWriter& j, const std::vector<StallSamples>& stalls) {
  j.begin_array();
  for (const auto& s : stalls) j.begin_object().field("reason", s.reason).field("samples", s.samples).end_object();
  j.end_array();
}

// An instruction's or a line's counts from the SASS metrics, the ones the chip gave.
void sass_json(JsonWriter& j, const LineProfile& p, const SassCounts& c) {
  j.field("executed", c.executed);
  if (p.sass_has_threads) j.field("thread_executed", c.thread_executed);
  if (p.sass_has_shared)
    j.field("shared_wavefronts", c.shared_wavefronts).field("shared_wavefronts_ideal", c.shared_ideal);
}

// The value of a result's "lines" key: stall samples per source line and per instruction, and
// the SASS metrics' counts where they were measured (docs/results-schema.md).
void line_profile_json(JsonWriter& j, const LineProfile& p) {
  j.begin_object();
  j.field("available", p.ok());
  if (!p.ok()) {
    j.field("message", p.status.message).field("hint", p.status.hint).field("call", p.status.call);
    j.end_object();
    return;
  }
  // "stall_samples" (the GPU's PC sampling) or "executions" (the CPU simulator's counts per line:
  // "samples" are then executions, and there are no stalls).
  j.field("measure", p.measure == LineMeasure::Executions ? "executions" : "stall_samples");
  if (!p.measure_note.empty()) j.field("measure_note", p.measure_note);
  j.field("function", p.function).field("device", p.device).field("sampling_period", p.sampling_period);
  j.field("total_samples", p.total_samples).field("dropped_samples", p.dropped_samples);
  j.field("launches", p.launches).field("profile_ms", p.profile_ms);
  if (!p.lines_status.ok()) j.field("lines_unknown", p.lines_status.message);
  const bool counted = p.sass_status.ok();
  j.key("sass").begin_object().field("available", counted);
  if (counted) {
    j.field("ms", p.sass_ms);
    sass_json(j, p, p.sass_total);
  } else {
    j.field("message", p.sass_status.message).field("hint", p.sass_status.hint).field("call", p.sass_status.call);
    j.field("code", p.sass_status.code);
  }
  j.end_object();
  j.key("lines").begin_array();
  for (const auto& l : p.lines) {
    j.begin_object().field("file", l.file).field("line", l.line).field("samples", l.samples);
    j.field("share_pct", l.share_pct).key("stalls");
    stalls_json(j, l.stalls);
    if (counted) sass_json(j, p, l.sass);
    j.end_object();
  }
  j.end_array().key("instructions").begin_array();
  for (const auto& in : p.instructions) {
    j.begin_object().field("pc_offset", in.pc_offset).field("file", in.file).field("line", in.line);
    j.field("samples", in.samples).key("stalls");
    stalls_json(j, in.stalls);
    if (counted) sass_json(j, p, in.sass);
    j.end_object();
  }
  j.end_array().end_object();
}

// The value of a result's "counters" key (docs/counters-fields.md).
void counters_json(JsonWriter& j, const LaunchCounters& c) {
  j.begin_object();
  j.field("available", c.measured());
  if (!c.measured()) {
    j.field("error", c.status.describe()).field("message", c.status.message);
    j.field("hint", c.status.hint).field("call", c.status.call).field("code", c.status.code);
    j.end_object();
    return;
  }
  j.field("device", c.device).field("chip", c.chip).field("range", c.range);
  j.field("passes", c.passes).field("profile_wall_ms", c.profile_wall_ms);
  count_field(j, "dram_read_bytes", c.dram_read_bytes);
  count_field(j, "dram_write_bytes", c.dram_write_bytes);
  j.field("duration_ns", c.duration_ns).field("dram_bandwidth_gbs", c.dram_bandwidth_gbs);
  j.field("dram_throughput_pct", c.dram_throughput_pct).field("l2_hit_pct", c.l2_hit_pct);
  count_field(j, "global_ld_sectors", c.ld_sectors);
  count_field(j, "global_ld_requests", c.ld_requests);
  count_field(j, "global_st_sectors", c.st_sectors);
  count_field(j, "global_st_requests", c.st_requests);
  j.field("ld_sectors_per_request", c.ld_sectors_per_request());
  j.field("st_sectors_per_request", c.st_sectors_per_request());
  count_field(j, "shared_ld_wavefronts", c.shared_ld_wavefronts);
  count_field(j, "shared_st_wavefronts", c.shared_st_wavefronts);
  count_field(j, "shared_ld_bank_conflicts", c.shared_ld_conflicts);
  count_field(j, "shared_st_bank_conflicts", c.shared_st_conflicts);
  j.field("achieved_occupancy_pct", c.achieved_occupancy_pct);
  j.field("sm_throughput_pct", c.sm_throughput_pct);
  j.field("memory_throughput_pct", c.memory_throughput_pct);
  j.field("warp_cycles_per_issued_instruction", c.warp_cycles_per_issue);
  j.key("stalls").begin_array();
  for (const CounterStall& s : c.stalls) {
    j.begin_object().field("reason", s.reason).field("cycles_per_issue", s.cycles_per_issue);
    j.field("share_pct", s.share_pct).end_object();
  }
  j.end_array();
  j.key("model").begin_object();
  count_field(j, "bytes", c.model_bytes);
  j.field("bytes_note", c.model_bytes_note).field("bandwidth_gbs", c.model_bandwidth_gbs);
  j.field("ld_sectors_per_request", c.model_ld_sectors_per_request);
  j.field("st_sectors_per_request", c.model_st_sectors_per_request);
  j.field("sectors_sample", c.sectors_sample);
  count_field(j, "shared_ld_wavefronts", c.model_shared_ld_wavefronts);
  count_field(j, "shared_st_wavefronts", c.model_shared_st_wavefronts);
  count_field(j, "shared_ld_bank_conflicts", c.model_shared_ld_conflicts);
  count_field(j, "shared_st_bank_conflicts", c.model_shared_st_conflicts);
  count_field(j, "shared_async_copy_wavefronts", c.model_shared_async_wavefronts);
  j.field("shared_sample", c.shared_sample);
  j.field("theoretical_occupancy_pct", c.theoretical_occupancy_pct);
  j.field("occupancy_note", c.occupancy_note);
  j.field("waves", c.model_waves).field("last_wave_fill_pct", c.model_last_wave_fill_pct);
  j.end_object();
  j.end_object();
}

}  // namespace

const std::vector<std::string>& counter_columns() {
  static const std::vector<std::string> columns = {"counters",
                                                   "dram_read_bytes",
                                                   "dram_write_bytes",
                                                   "dram_bytes_of_model",
                                                   "dram_bandwidth_gbs",
                                                   "l2_hit_pct",
                                                   "ld_sectors_per_request",
                                                   "model_ld_sectors_per_request",
                                                   "st_sectors_per_request",
                                                   "model_st_sectors_per_request",
                                                   "achieved_occupancy_pct",
                                                   "theoretical_occupancy_pct",
                                                   "sm_throughput_pct",
                                                   "memory_throughput_pct",
                                                   "top_stall",
                                                   "top_stall_share_pct"};
  return columns;
}

std::string counters_summary(const LaunchCounters& c) {
  if (!c.measured()) return c.status.message;
  auto g = [](double v) {
    if (!std::isfinite(v)) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  std::string s = "DRAM " + g(c.dram_bytes() / 1e6) + " MB";
  if (c.model_bytes > 0) s += " (" + g(c.dram_bytes() / c.model_bytes) + "x counted)";
  s += ", L2 hit " + g(c.l2_hit_pct) + "%, sectors/request ld " + g(c.ld_sectors_per_request()) + " st " +
       g(c.st_sectors_per_request());
  if (std::isfinite(c.model_ld_sectors_per_request) || std::isfinite(c.model_st_sectors_per_request))
    s += " (model " + g(c.model_ld_sectors_per_request) + " / " + g(c.model_st_sectors_per_request) + ")";
  s += ", occupancy " + g(c.achieved_occupancy_pct) + "%";
  if (std::isfinite(c.theoretical_occupancy_pct)) s += " (theoretical " + g(c.theoretical_occupancy_pct) + "%)";
  if (!c.stalls.empty()) s += ", stalls: " + c.stalls.front().reason + " " + g(c.stalls.front().share_pct) + "%";
  return s;
}

std::vector<std::string> counter_cells(const LaunchRecord& r) {
  std::vector<std::string> cells(counter_columns().size());
  if (!r.counters) return cells;  // not asked for: empty cells
  const LaunchCounters& c = *r.counters;
  if (!c.measured()) {
    cells[0] = c.status.describe();
    return cells;
  }
  const double of_model = c.model_bytes > 0 ? c.dram_bytes() / c.model_bytes : std::nan("");
  auto count = [](double v) {
    if (!std::isfinite(v)) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return std::string(buf);
  };
  cells = {"measured",
           count(c.dram_read_bytes),
           count(c.dram_write_bytes),
           num(of_model),
           num(c.dram_bandwidth_gbs),
           num(c.l2_hit_pct),
           num(c.ld_sectors_per_request()),
           num(c.model_ld_sectors_per_request),
           num(c.st_sectors_per_request()),
           num(c.model_st_sectors_per_request),
           num(c.achieved_occupancy_pct),
           num(c.theoretical_occupancy_pct),
           num(c.sm_throughput_pct),
           num(c.memory_throughput_pct),
           c.stalls.empty() ? "" : c.stalls.front().reason,
           c.stalls.empty() ? "" : num(c.stalls.front().share_pct)};
  return cells;
}

const char* outcome(const LaunchRecord& r) {
  if (!r.ok()) return r.refused ? "refused" : "failed";
  if (r.check.failed()) return "wrong";
  return "ok";
}

Shares shares(const LaunchRecord& r, const std::vector<LaunchRecord>& all, const std::vector<Ceiling>& ceilings,
              ThroughputUnit unit, const std::vector<KernelInfo>& kernels) {
  Shares s;
  s.unit = unit;
  if (!r.ok() || r.timing.median_ms <= 0) return s;
  s.throughput = r.throughput(unit);
  for (const Ceiling& c : ceilings)
    if (c.value > 0 && (c.problem.empty() || c.problem == r.problem)) {
      const double t = r.throughput(c.unit);
      s.of_ceiling.emplace_back(c.name, t / c.value);
    }
  // Ceilings timed in the same run on the same problem (the grayscale lab's copy): the fastest
  // of each, as "<id> (same run)", first (the table's and the CSV's %ceil) because it is the
  // fairest: same size, same clocks, same moment.
  std::vector<std::pair<std::string, double>> same_run;
  for (const KernelInfo& k : kernels) {
    if (k.group != KernelGroup::Ceiling || !k.bounds_others) continue;
    double best_t = 0;
    for (const LaunchRecord& o : all)
      if (o.ok() && o.kernel == k.id && o.problem == r.problem && o.timing.median_ms > 0)
        best_t = std::max(best_t, o.throughput(unit));
    if (best_t > 0) same_run.emplace_back(k.id + " (same run)", s.throughput / best_t);
  }
  s.of_ceiling.insert(s.of_ceiling.begin(), same_run.begin(), same_run.end());
  // The fastest library run on the same problem (a library kernel compared with itself is 1).
  const LaunchRecord* best = nullptr;
  for (const LaunchRecord& o : all)
    if (o.ok() && o.problem == r.problem && o.timing.median_ms > 0 && is_library(kernels, o.kernel) &&
        (!best || o.timing.median_ms < best->timing.median_ms))
      best = &o;
  if (best) {
    s.of_library = best->timing.median_ms / r.timing.median_ms;
    s.library = best->kernel;
  }
  return s;
}

namespace {

// ---------------------------------------------------------------------------------------------
// The per-record fields: one table drives the CSV (its columns, in order) and the JSON result
// objects (their keys; "check.state" is key "state" of the object "check"). A field may be CSV
// only (a flat spelling of something the JSON nests) or JSON only (objects and arrays a CSV cell
// cannot hold). An empty cell is an absent JSON key.
// ---------------------------------------------------------------------------------------------

// What a record's fields are computed from.
struct Row {
  const LaunchRecord& r;
  const Shares& s;
  const std::optional<mapping::LaunchStats>& st;
  const Ranked& rank;
  const KernelInfo* info;  // nullptr: a kernel the list does not name
};

using Cell = std::variant<std::monostate, std::string, double, long long, bool, Dim3>;

struct Field {
  const char* csv;   // column name; nullptr: JSON only
  const char* json;  // "key" or "object.key"; nullptr: CSV only
  Cell (*cell)(const Row&);
  void (*write)(JsonWriter&, const Row&) = nullptr;  // JSON only: writes the key's value itself
};

Cell whole(unsigned long long v) { return static_cast<long long>(v); }

const std::vector<Field>& record_fields() {
  using R = const Row&;
  static const std::vector<Field> fields = {
      {"lab", "lab", [](R x) -> Cell { return x.r.lab; }},
      {"kernel", "kernel", [](R x) -> Cell { return x.r.kernel; }},
      {nullptr, "group", [](R x) -> Cell { return x.info ? Cell(std::string(group_name(x.info->group))) : Cell(); }},
      {"config", "config", [](R x) -> Cell { return x.r.config_label; }},
      {"problem", "problem", [](R x) -> Cell { return x.r.problem; }},
      {"settings", nullptr, [](R x) -> Cell { return settings_text(x.r); }},
      {nullptr, "settings", nullptr,
       [](JsonWriter& j, R x) {
         j.begin_object();
         for (const auto& [k, v] : x.r.settings) j.field(k, v);
         j.end_object();
       }},
      {"outcome", "outcome", [](R x) -> Cell { return std::string(outcome(x.r)); }},
      {"error", "error", [](R x) -> Cell { return x.r.ok() ? Cell() : Cell(x.r.status.describe()); }},
      {"block", "block", [](R x) -> Cell { return x.r.config.block; }},
      {"grid", "grid", [](R x) -> Cell { return x.r.config.grid; }},
      // Thread block clusters as launched ([1, 1, 1]: none); JSON only, so the CSV's columns keep
      // their numbers.
      {nullptr, "cluster",
       [](R x) -> Cell { return x.r.config.grid.volume() > 0 ? Cell(x.r.config.cluster) : Cell(); }},
      {"compiled_index", "compiled_index", [](R x) -> Cell { return static_cast<long long>(x.r.request.compiled); }},
      {"median_ms", "median_ms", [](R x) -> Cell { return x.r.timing.median_ms; }},
      {"min_ms", "min_ms", [](R x) -> Cell { return x.r.timing.min_ms; }},
      {"max_ms", "max_ms", [](R x) -> Cell { return x.r.timing.max_ms; }},
      {"ci_low_ms", "ci_low_ms", [](R x) -> Cell { return x.r.timing.ci_low_ms; }},
      {"ci_high_ms", "ci_high_ms", [](R x) -> Cell { return x.r.timing.ci_high_ms; }},
      {"repeats", "repeats", [](R x) -> Cell { return static_cast<long long>(x.r.timing.repeats()); }},
      // The timed launches' drift (core/timing.hpp), from kDriftMinRepeats repeats; JSON only, so the CSV's columns
      // keep their numbers.
      {nullptr, "drift",
       [](R x) -> Cell {
         return x.r.timing.samples_ms.size() >= kDriftMinRepeats ? Cell(x.r.timing.drift()) : Cell();
       }},
      {"warmup", "warmup", [](R x) -> Cell { return static_cast<long long>(x.r.timing.warmup); }},
      {"l2_flushed", "l2_flushed", [](R x) -> Cell { return x.r.timing.l2_flushed; }},
      {"clock", "clock", [](R x) -> Cell { return x.r.timing.clock; }},
      {"simulated", "simulated", [](R x) -> Cell { return x.r.timing.simulated; }},
      // Simulated: the cores other programs kept busy while it was timed (core/machine_load.hpp);
      // JSON only, so the CSV's columns keep their numbers.
      {nullptr, "others_load_cores",
       [](R x) -> Cell { return x.r.timing.others_load >= 0 ? Cell(x.r.timing.others_load) : Cell(); }},
      {"bytes", "bytes", [](R x) -> Cell { return x.r.bytes_moved; }},
      {nullptr, "bytes_note", [](R x) -> Cell { return x.r.bytes_note; }},
      {"flops", "flops", [](R x) -> Cell { return x.r.flops; }},
      {"throughput", "throughput", [](R x) -> Cell { return x.s.throughput; }},
      {"throughput_unit", nullptr, [](R x) -> Cell { return std::string(unit_text(x.s.unit)); }},
      {"of_first_ceiling", nullptr,
       [](R x) -> Cell { return x.s.of_ceiling.empty() ? Cell() : Cell(x.s.of_ceiling.front().second); }},
      {"first_ceiling", nullptr,
       [](R x) -> Cell { return x.s.of_ceiling.empty() ? Cell() : Cell(x.s.of_ceiling.front().first); }},
      {nullptr, "of_ceiling", nullptr,
       [](JsonWriter& j, R x) {
         j.begin_object();
         for (const auto& [name, share] : x.s.of_ceiling) j.field(name, share);
         j.end_object();
       }},
      {"of_library", "of_library", [](R x) -> Cell { return x.s.of_library > 0 ? Cell(x.s.of_library) : Cell(); }},
      {"library", "library", [](R x) -> Cell { return x.s.of_library > 0 ? Cell(x.s.library) : Cell(); }},
      {"check", "check.state", [](R x) -> Cell { return std::string(check_state(x.r.check)); }},
      {nullptr, "check.against", [](R x) -> Cell { return x.r.check.against; }},
      {"check_measure", "check.measure", [](R x) -> Cell { return x.r.check.measure; }},
      {"check_worst", "check.worst", [](R x) -> Cell { return x.r.check.worst; }},
      {"check_limit", "check.limit", [](R x) -> Cell { return x.r.check.limit; }},
      {"checked", "check.checked", [](R x) -> Cell { return whole(x.r.check.checked); }},
      {"mismatches", "check.mismatches", [](R x) -> Cell { return whole(x.r.check.mismatches); }},
      {nullptr, "check.note", [](R x) -> Cell { return x.r.check.note.empty() ? Cell() : Cell(x.r.check.note); }},
      {nullptr, "check.first_bad", nullptr,
       [](JsonWriter& j, R x) {
         j.begin_array();
         for (const Check::Bad& b : x.r.check.first_bad)
           j.begin_array().value(b.x).value(b.y).value(b.got).value(b.want).end_array();
         j.end_array();
       }},
      {"registers", "attributes.registers",
       [](R x) -> Cell { return static_cast<long long>(x.r.attributes.registers_per_thread); }},
      {"static_shared_bytes", "attributes.static_shared_bytes",
       [](R x) -> Cell { return whole(x.r.attributes.static_shared_bytes); }},
      {"local_bytes", "attributes.local_bytes",
       [](R x) -> Cell { return whole(x.r.attributes.local_bytes_per_thread); }},
      // The launch's dynamic shared memory per block (the tensor-core rungs' pipelines: 197696 B),
      // beside the kernel's static; JSON only, so the CSV's columns keep their numbers.
      {nullptr, "attributes.dynamic_shared_bytes", [](R x) -> Cell { return whole(x.r.config.dynamic_shared_bytes); }},
      {"attributes_measured", "attributes.measured", [](R x) -> Cell { return x.r.attributes_measured; }},
      {"scheme", "scheme", [](R x) -> Cell { return describe(x.r.scheme); }},
      // version 2
      {"rank", "rank", [](R x) -> Cell { return static_cast<long long>(x.rank.rank); }},
      {"ties_previous", "ties_previous", [](R x) -> Cell { return x.rank.rank > 0 && x.rank.ties_previous; }},
      {"ties_best", "ties_best", [](R x) -> Cell { return x.rank.rank > 0 && x.rank.ties_best; }},
      {"occupancy", "launch.occupancy", [](R x) -> Cell { return x.st ? Cell(x.st->occupancy.occupancy) : Cell(); }},
      {"limiter", "launch.limiter",
       [](R x) -> Cell { return x.st ? Cell(mapping::to_string(x.st->occupancy.limiter)) : Cell(); }},
      {"active_blocks_per_sm", "launch.active_blocks_per_sm",
       [](R x) -> Cell { return x.st ? whole(x.st->occupancy.active_blocks_per_sm) : Cell(); }},
      {"waves", "launch.waves", [](R x) -> Cell { return x.st ? Cell(x.st->waves.waves) : Cell(); }},
      {"last_wave_fill", "launch.last_wave_fill",
       [](R x) -> Cell { return x.st ? Cell(x.st->waves.last_wave_fill) : Cell(); }},
      {"threads_launched", "launch.threads_launched",
       [](R x) -> Cell { return x.st ? whole(x.st->threads_launched) : Cell(); }},
      {"idle_threads", "launch.idle_threads",
       [](R x) -> Cell { return x.st && x.st->thread_counts_exact ? whole(x.st->idle_threads) : Cell(); }},
      // Launches with clusters: the GPU's answer (cudaOccupancyMaxActiveClusters) beside the
      // blocks-per-SM model above, or why there is none; JSON only.
      {nullptr, "launch.max_active_clusters",
       [](R x) -> Cell {
         return x.r.clusters.max_active_clusters > 0 ? whole(x.r.clusters.max_active_clusters) : Cell();
       }},
      {nullptr, "launch.max_active_clusters_source",
       [](R x) -> Cell { return x.r.clusters.asked() ? Cell(x.r.clusters.note) : Cell(); }},
      {"data_width", nullptr, [](R x) -> Cell { return static_cast<long long>(x.r.data_width); }},
      {"data_height", nullptr, [](R x) -> Cell { return static_cast<long long>(x.r.data_height); }},
      {nullptr, "data", nullptr,
       [](JsonWriter& j, R x) { j.begin_array().value(x.r.data_width).value(x.r.data_height).end_array(); }},
      {nullptr, "counters", nullptr, [](JsonWriter& j, R x) { counters_json(j, *x.r.counters); }},
      {nullptr, "lines", nullptr, [](JsonWriter& j, R x) { line_profile_json(j, *x.r.lines); }},
  };
  return fields;
}

std::string csv_text(const Cell& c) {
  struct Text {
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(double v) const { return num(v); }
    std::string operator()(long long v) const { return std::to_string(v); }
    std::string operator()(bool b) const { return b ? "1" : "0"; }
    std::string operator()(const Dim3& d) const { return dim_text(d); }
  };
  return std::visit(Text{}, c);
}

void json_value(JsonWriter& j, const Cell& c) {
  struct Value {
    JsonWriter& j;
    void operator()(std::monostate) const {}
    void operator()(const std::string& s) const { j.value(s); }
    void operator()(double v) const {
      if (exact_whole(v)) j.value(static_cast<long long>(v));  // counts exactly, not to 6 digits
      else j.value(v);
    }
    void operator()(long long v) const { j.value(v); }
    void operator()(bool b) const { j.value(b); }
    void operator()(const Dim3& d) const { j.begin_array().value(d.x).value(d.y).value(d.z).end_array(); }
  };
  std::visit(Value{j}, c);
}

// Whether a JSON-only field has something to write for this record (the counters only when the
// record carries them).
bool json_present(const Field& f, const Row& x) {
  if (f.write) {
    if (std::string_view(f.json) == "counters") return x.r.counters != nullptr;
    if (std::string_view(f.json) == "lines") return x.r.lines != nullptr;
    return true;
  }
  return !std::holds_alternative<std::monostate>(f.cell(x));
}

// One result object: the table's JSON fields in order; "object.key" fields nest, and an object
// none of whose fields has a value (the launch statistics of a refused point) is left out.
void record_json(JsonWriter& j, const Row& x) {
  const std::vector<Field>& fields = record_fields();
  j.begin_object();
  std::string open;  // the nested object being written
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (!f.json) continue;
    const std::string_view path = f.json;
    const auto dot = path.find('.');
    const std::string object = dot == std::string_view::npos ? "" : std::string(path.substr(0, dot));
    const std::string_view key = dot == std::string_view::npos ? path : path.substr(dot + 1);
    if (object != open) {
      if (!open.empty()) j.end_object();
      open.clear();
      if (!object.empty()) {
        bool any = false;
        for (std::size_t k = i; k < fields.size() && !any; ++k)
          if (fields[k].json && std::string_view(fields[k].json).starts_with(object + "."))
            any = json_present(fields[k], x);
        if (!any) {
          while (i + 1 < fields.size() && fields[i + 1].json &&
                 std::string_view(fields[i + 1].json).starts_with(object + "."))
            ++i;
          continue;
        }
        j.key(object).begin_object();
        open = object;
      }
    }
    if (!json_present(f, x)) continue;
    j.key(key);
    if (f.write) f.write(j, x);
    else json_value(j, f.cell(x));
  }
  if (!open.empty()) j.end_object();
  j.end_object();
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names;
    for (const Field& f : record_fields())
      if (f.csv) names.emplace_back(f.csv);
    return names;
  }();
  return columns;
}

std::string results_csv(const std::vector<LaunchRecord>& records, const std::vector<Ceiling>& ceilings,
                        ThroughputUnit unit, const std::vector<KernelInfo>& kernels, const DeviceLimits* limits) {
  const std::vector<Ranked> ranks = ranks_by_record(records);
  // The counter columns (docs/counters-fields.md) where any record was profiled (bench or sweep
  // with --counters); absent otherwise, so a plain run's CSV keeps its columns.
  const bool with_counters =
      std::any_of(records.begin(), records.end(), [](const LaunchRecord& r) { return r.counters != nullptr; });
  std::string out;
  for (std::size_t i = 0; i < csv_columns().size(); ++i) out += (i ? "," : "") + csv_columns()[i];
  if (with_counters)
    for (const std::string& c : counter_columns()) out += "," + c;
  out += "\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const LaunchRecord& r = records[i];
    const Shares s = shares(r, records, ceilings, unit, kernels);
    const auto st = stats_of(r, limits, kernels);
    const Row row{r, s, st, ranks[i], kernel_info(kernels, r.kernel)};
    std::vector<std::string> cells;
    for (const Field& f : record_fields())
      if (f.csv) cells.push_back(csv_text(f.cell(row)));
    if (with_counters) {
      const std::vector<std::string> cc = counter_cells(r);
      cells.insert(cells.end(), cc.begin(), cc.end());
    }
    for (std::size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + csv_field(cells[c]);
    out += "\n";
  }
  return out;
}

std::string results_json(const ResultsHeader& h, const std::vector<LaunchRecord>& records, ThroughputUnit unit,
                         const std::vector<KernelInfo>& kernels) {
  JsonWriter j;
  j.begin_object();
  j.field("schema", kResultsSchema).field("version", kResultsVersion);
  j.field("kind", h.kind).field("created", utc_timestamp());
  j.field("lab", h.lab).field("backend", h.backend).field("device", h.device);
  j.field("versions", h.versions);
  j.field("complete", h.complete);
  if (!h.note.empty()) j.field("note", h.note);
  j.key("timing_policy").begin_object();
  j.field("warmup", h.policy.warmup).field("min_repeats", h.policy.min_repeats);
  j.field("max_repeats", h.policy.max_repeats).field("target_ci", h.policy.target_ci);
  j.field("budget_ms", h.policy.budget_ms).field("flush_l2", h.policy.flush_l2);
  j.end_object();
  if (h.clock_mhz_before > 0 || h.clock_mhz_after > 0)
    j.field("sm_clock_mhz_before", h.clock_mhz_before).field("sm_clock_mhz_after", h.clock_mhz_after);
  j.field("throughput_unit", unit_text(unit));
  j.key("ceilings").begin_array();
  for (const Ceiling& c : h.ceilings) {
    j.begin_object();
    j.field("name", c.name).field("value", c.value).field("unit", unit_text(c.unit)).field("note", c.note);
    if (!c.problem.empty()) j.field("problem", c.problem);
    j.end_object();
  }
  j.end_array();
  j.key("refused").begin_array();
  for (const std::string& r : h.refusals) j.value(r);
  j.end_array();
  if (h.sweep) {
    const ResultsHeader::Sweep& sw = *h.sweep;
    j.key("sweep").begin_object();
    j.field("planned", static_cast<unsigned long long>(sw.planned));
    j.field("wall_s", sw.wall_s).field("kernel_ms_total", sw.kernel_ms_total);
    j.field("clock_method", sw.clock_method).field("clock_note", sw.clock_note);
    j.key("suggestions").begin_array();
    for (const auto& [kernel, sg] : sw.suggestions) {
      j.begin_object();
      j.field("kernel", kernel).field("threads", sg.threads).field("min_grid", sg.min_grid);
      j.field("source", sg.source);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  const std::vector<Ranked> ranks = ranks_by_record(records);
  j.key("results").begin_array();
  for (std::size_t i = 0; i < records.size(); ++i) {
    const LaunchRecord& r = records[i];
    const Shares s = shares(r, records, h.ceilings, unit, kernels);
    const auto st = stats_of(r, h.limits ? &*h.limits : nullptr, kernels);
    record_json(j, Row{r, s, st, ranks[i], kernel_info(kernels, r.kernel)});
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string results_table(const ResultsHeader& h, const std::vector<LaunchRecord>& records, ThroughputUnit unit,
                          const std::vector<KernelInfo>& kernels) {
  std::string t = "device: " + h.device + "  (" + h.versions + ")\n";
  char line[512];
  for (const Ceiling& c : h.ceilings) {
    const std::string name = c.problem.empty() ? c.name : c.name + " [" + c.problem + "]";
    std::snprintf(line, sizeof line, "%s: %.1f %s (%s)\n", name.c_str(), c.value, unit_text(c.unit), c.note.c_str());
    t += line;
  }
  // What the %ceil column divides by, named as the ceilings above are: each row's first ceiling
  // (its problem's own; the same-run copy first where there is one).
  std::vector<std::string> column_of;
  for (const LaunchRecord& r : records) {
    const Shares s = shares(r, records, h.ceilings, unit, kernels);
    if (s.of_ceiling.empty()) continue;
    const std::string& name = s.of_ceiling.front().first;
    if (std::find(column_of.begin(), column_of.end(), name) == column_of.end()) column_of.push_back(name);
  }
  if (!column_of.empty()) {
    t += "%ceil: each row's share of ";
    for (std::size_t i = 0; i < column_of.size(); ++i)
      t += (i ? (i + 1 == column_of.size() ? " or " : ", ") : "") + column_of[i];
    t += " (its own problem's)\n";
  }
  // +-95%: the half-width of the median's 95% confidence interval, as a share of the median;
  // %ceil and %lib: "-" where there is no ceiling or library kernel to compare with.
  std::snprintf(line, sizeof line, "%-18s %-34s %-16s %-15s %-9s %11s %8s %12s %8s %8s  %s\n", "kernel", "config",
                "problem", "grid", "block", "median ms", "+-95%", unit_text(unit), "%ceil", "%lib", "check");
  t += line;
  for (const LaunchRecord& r : records) {
    const std::string grid = dim_text(r.config.grid), block = dim_text(r.config.block);
    if (!r.ok()) {
      std::snprintf(line, sizeof line, "%-18s %-34s %-16s %-15s %-9s %s: ", r.kernel.c_str(),
                    r.config_label.substr(0, 34).c_str(), r.problem.c_str(), grid.c_str(), block.c_str(), outcome(r));
      t += line + r.status.message + "\n";
      continue;
    }
    const Shares s = shares(r, records, h.ceilings, unit, kernels);
    char ci[16] = "-", ceil[16] = "-";
    if (r.timing.repeats() > 1 && r.timing.median_ms > 0)
      std::snprintf(ci, sizeof ci, "%.2f%%", 100 * r.timing.relative_ci());
    if (!s.of_ceiling.empty() && s.of_ceiling.front().second > 0)
      std::snprintf(ceil, sizeof ceil, "%.1f%%", 100 * s.of_ceiling.front().second);
    std::snprintf(line, sizeof line, "%-18s %-34s %-16s %-15s %-9s %11.4f %8s %12.1f %8s %8s  %s\n", r.kernel.c_str(),
                  r.config_label.substr(0, 34).c_str(), r.problem.c_str(), grid.c_str(), block.c_str(),
                  r.timing.median_ms, ci, s.throughput, ceil,
                  s.of_library > 0 ? (num(100 * s.of_library) + "%").c_str() : "-",
                  r.check.passed()   ? "ok"
                  : r.check.failed() ? "WRONG"
                                     : "not checked");
    t += line;
  }
  for (const LaunchRecord& r : records)
    if (const std::string d = r.ok() ? drift_note(r.timing) : std::string(); !d.empty())
      t += "drift: " + r.kernel + " " + r.config_label + " " + r.problem + ": " + d + "\n";
  for (const std::string& r : h.refusals) t += "refused: " + r + "\n";
  if (!h.note.empty()) t += h.note + "\n";
  return t;
}

Status write_text_file(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return Status::failure("cannot write " + path + ": " + std::strerror(errno),
                             "check that the folder exists and is writable", "write");
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return Status::failure("could not write all of " + path + " (disk full?)", "", "write");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Status::failure("cannot write " + path + ": " + ec.message(), "check that the folder exists and is writable",
                           "rename");
  }
  return Status::success();
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace bs::lab
