#include "experiments/sweep_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/launch_counters.hpp"
#include "core/median.hpp"

namespace bs::app {
namespace {

// The kernel's fastest rankable record, by median time.
int best_of(const lab::SweepResult& r, const std::string& kernel) {
  int best = -1;
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const LaunchRecord& rec = r.records[i];
    if ((kernel.empty() || rec.kernel == kernel) && lab::rankable(rec) &&
        (best < 0 || rec.timing.median_ms < r.records[static_cast<std::size_t>(best)].timing.median_ms))
      best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

std::vector<PointFacts> point_facts(const lab::SweepResult& r) {
  std::vector<PointFacts> out(r.records.size());
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const LaunchRecord& rec = r.records[i];
    bool theirs = false;  // a library anchor's or a ceiling's grid is not ours to count
    for (const lab::KernelInfo& k : r.kernels) theirs |= k.id == rec.kernel && k.timed_only;
    if (!theirs && rec.config.grid.volume() > 0 && rec.config.block.volume() > 0 && rec.data_width > 0 &&
        rec.config.block.volume() <= r.limits.max_threads_per_block)
      out[i].stats = mapping::compute_stats(rec.scheme, rec.config, rec.data_width, rec.data_height, rec.attributes,
                                            r.limits, rec.owners.get());
  }
  for (const lab::Ranked& k : lab::rank_records(r.records)) out[k.index].rank = k;
  return out;
}

std::optional<double> metric_value(const LaunchRecord& r, const PointFacts& f, HeatmapMetric m, ThroughputUnit unit) {
  switch (m) {
    case HeatmapMetric::Time:
      if (r.ok() && r.timing.median_ms > 0) return r.timing.median_ms;
      return std::nullopt;
    case HeatmapMetric::Throughput:
      if (!r.ok() || r.timing.median_ms <= 0) return std::nullopt;
      return r.throughput(unit);
    case HeatmapMetric::Occupancy:
      if (!f.stats) return std::nullopt;
      return 100 * f.stats->occupancy.occupancy;
    case HeatmapMetric::MeasuredDram:
    case HeatmapMetric::MeasuredL2Hit:
    case HeatmapMetric::AchievedOccupancy:
    case HeatmapMetric::MeasuredLoadSectors: {
      if (!r.ok() || !r.counters || !r.counters->measured()) return std::nullopt;
      const LaunchCounters& c = *r.counters;
      const double v = m == HeatmapMetric::MeasuredDram        ? c.dram_bandwidth_gbs
                       : m == HeatmapMetric::MeasuredL2Hit     ? c.l2_hit_pct
                       : m == HeatmapMetric::AchievedOccupancy ? c.achieved_occupancy_pct
                                                               : c.ld_sectors_per_request();
      if (!std::isfinite(v)) return std::nullopt;
      return v;
    }
  }
  return std::nullopt;
}

bool is_measured_metric(HeatmapMetric m) {
  return m == HeatmapMetric::MeasuredDram || m == HeatmapMetric::MeasuredL2Hit ||
         m == HeatmapMetric::AchievedOccupancy || m == HeatmapMetric::MeasuredLoadSectors;
}

// Fewer sectors per load request is better (the accesses are coalesced); for every other metric
// but time, more is better.
bool metric_higher_is_better(HeatmapMetric m) {
  return m != HeatmapMetric::Time && m != HeatmapMetric::MeasuredLoadSectors;
}

std::string metric_unit(HeatmapMetric m, ThroughputUnit unit) {
  switch (m) {
    case HeatmapMetric::Time: return "ms";
    case HeatmapMetric::Throughput: return unit_text(unit);
    case HeatmapMetric::Occupancy: return "%";
    case HeatmapMetric::MeasuredDram: return "GB/s";
    case HeatmapMetric::MeasuredL2Hit: return "%";
    case HeatmapMetric::AchievedOccupancy: return "%";
    case HeatmapMetric::MeasuredLoadSectors: return "sectors";  // per load request
  }
  return "";
}

const char* metric_name(HeatmapMetric m) {
  switch (m) {
    case HeatmapMetric::Time: return "time";
    case HeatmapMetric::Throughput: return "throughput";
    case HeatmapMetric::Occupancy: return "occupancy (theoretical)";
    case HeatmapMetric::MeasuredDram: return "DRAM bandwidth (measured)";
    case HeatmapMetric::MeasuredL2Hit: return "L2 hit rate (measured)";
    case HeatmapMetric::AchievedOccupancy: return "achieved occupancy (measured)";
    case HeatmapMetric::MeasuredLoadSectors: return "sectors per load (measured)";
  }
  return "";
}

std::vector<std::string> swept_kernels(const lab::SweepResult& r) {
  std::vector<std::string> out;
  for (const lab::KernelInfo& k : r.kernels)
    for (const LaunchRecord& rec : r.records)
      if (rec.kernel == k.id) {
        out.push_back(k.id);
        break;
      }
  // Kernels the result names but the list does not (a lab that changed since).
  for (const LaunchRecord& rec : r.records)
    if (std::find(out.begin(), out.end(), rec.kernel) == out.end()) out.push_back(rec.kernel);
  return out;
}

HeatGrid build_grid(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel,
                    unsigned z, HeatmapMetric metric) {
  HeatGrid g;
  g.kernel = kernel;
  std::set<unsigned> zs;
  for (const LaunchRecord& rec : r.records)
    if (rec.kernel == kernel) zs.insert(rec.request.block.z);
  g.zs.assign(zs.begin(), zs.end());
  if (g.zs.empty()) return g;
  g.z = zs.count(z) ? z : g.zs.front();
  std::set<unsigned> xs, ys;
  for (const LaunchRecord& rec : r.records)
    if (rec.kernel == kernel && rec.request.block.z == g.z) {
      xs.insert(rec.request.block.x);
      ys.insert(rec.request.block.y);
    }
  g.xs.assign(xs.begin(), xs.end());
  g.ys.assign(ys.begin(), ys.end());
  g.cells.resize(g.xs.size() * g.ys.size());
  for (const auto& [k, s] : r.suggestions)
    if (k == kernel) g.suggestion = s;
  g.best = best_of(r, kernel);
  const LaunchRecord* best = g.best >= 0 ? &r.records[static_cast<std::size_t>(g.best)] : nullptr;
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const LaunchRecord& rec = r.records[i];
    if (rec.kernel != kernel || !lab::rankable(rec)) continue;
    if (g.worst < 0 || rec.timing.median_ms > r.records[static_cast<std::size_t>(g.worst)].timing.median_ms)
      g.worst = static_cast<int>(i);
  }
  if (g.worst == g.best) g.worst = -1;  // one point is not both
  bool any = false;
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const LaunchRecord& rec = r.records[i];
    if (rec.kernel != kernel || rec.request.block.z != g.z) continue;
    const auto col = std::lower_bound(g.xs.begin(), g.xs.end(), rec.request.block.x) - g.xs.begin();
    const auto row = std::lower_bound(g.ys.begin(), g.ys.end(), rec.request.block.y) - g.ys.begin();
    HeatCell& c = g.cells[static_cast<std::size_t>(row) * g.xs.size() + static_cast<std::size_t>(col)];
    c.record = static_cast<int>(i);
    c.block = rec.request.block;
    c.refused = rec.refused;
    c.failed = !rec.ok() && !rec.refused;
    c.wrong = rec.ok() && rec.check.failed();
    c.value = metric_value(rec, facts[i], metric, r.unit);
    c.best = static_cast<int>(i) == g.best;
    c.worst = static_cast<int>(i) == g.worst;
    c.ties_best = best && !c.best && lab::rankable(rec) && rec.timing.overlaps(best->timing);
    c.suggested = g.suggestion && rec.request.block.volume() == g.suggestion->threads;
    if (c.value && lab::rankable(rec)) {
      g.lo = any ? std::min(g.lo, *c.value) : *c.value;
      g.hi = any ? std::max(g.hi, *c.value) : *c.value;
      any = true;
    }
  }
  const bool log_scale = metric == HeatmapMetric::Time && g.lo > 0;
  for (HeatCell& c : g.cells) {
    if (!c.value || g.hi <= g.lo) {
      c.t = 1;
      continue;
    }
    double t = log_scale ? (std::log(*c.value) - std::log(g.lo)) / (std::log(g.hi) - std::log(g.lo))
                         : (*c.value - g.lo) / (g.hi - g.lo);
    t = std::clamp(t, 0.0, 1.0);
    c.t = metric_higher_is_better(metric) ? t : 1 - t;
  }
  return g;
}

BarChart build_bars(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel,
                    HeatmapMetric metric) {
  BarChart chart;
  std::vector<int> picks;
  if (kernel.empty()) {
    for (const std::string& k : swept_kernels(r)) {
      const int b = best_of(r, k);
      if (b >= 0) picks.push_back(b);
    }
  } else {
    for (std::size_t i = 0; i < r.records.size(); ++i)
      if (r.records[i].kernel == kernel) picks.push_back(static_cast<int>(i));
  }
  const int best = best_of(r, kernel);
  auto order = [&](int i) {  // ranked, then wrong, failed, refused
    const LaunchRecord& rec = r.records[static_cast<std::size_t>(i)];
    if (lab::rankable(rec)) return 0;
    if (rec.ok()) return 1;
    return rec.refused ? 3 : 2;
  };
  std::stable_sort(picks.begin(), picks.end(), [&](int a, int b) {
    if (order(a) != order(b)) return order(a) < order(b);
    return order(a) == 0 && r.records[static_cast<std::size_t>(a)].timing.median_ms <
                                r.records[static_cast<std::size_t>(b)].timing.median_ms;
  });
  for (int i : picks) {
    const LaunchRecord& rec = r.records[static_cast<std::size_t>(i)];
    Bar b;
    b.record = i;
    b.label = kernel.empty() ? rec.kernel + "  " + rec.config_label : rec.config_label;
    b.value = metric_value(rec, facts[static_cast<std::size_t>(i)], metric, r.unit);
    const bool timed = metric == HeatmapMetric::Time || metric == HeatmapMetric::Throughput;
    if (b.value && timed && rec.timing.ci_low_ms > 0) {
      if (metric == HeatmapMetric::Time) {
        b.lo = rec.timing.ci_low_ms;
        b.hi = rec.timing.ci_high_ms;
      } else {  // throughput scales as 1 / time
        b.lo = *b.value * rec.timing.median_ms / rec.timing.ci_high_ms;
        b.hi = *b.value * rec.timing.median_ms / rec.timing.ci_low_ms;
      }
    }
    b.best = i == best;
    b.ties_best = best >= 0 && !b.best && lab::rankable(rec) &&
                  rec.timing.overlaps(r.records[static_cast<std::size_t>(best)].timing);
    b.refused = rec.refused;
    b.failed = !rec.ok() && !rec.refused;
    b.wrong = rec.ok() && rec.check.failed();
    chart.max_value = std::max(chart.max_value, b.hi ? *b.hi : b.value.value_or(0));
    chart.bars.push_back(std::move(b));
  }
  return chart;
}

NoiseFacts noise_facts(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel) {
  NoiseFacts n;
  std::vector<int> repeats;
  std::vector<double> spreads;
  const int best = best_of(r, kernel);
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const LaunchRecord& rec = r.records[i];
    if ((!kernel.empty() && rec.kernel != kernel) || !rec.ok() || rec.timing.repeats() == 0) continue;
    repeats.push_back(rec.timing.repeats());
    spreads.push_back(rec.timing.relative_ci());
    if (best >= 0 && static_cast<int>(i) != best && lab::rankable(rec) &&
        rec.timing.overlaps(r.records[static_cast<std::size_t>(best)].timing))
      ++n.ties_with_best;
    if (best >= 0 && static_cast<int>(i) != best)
      if (std::string changed = load_changed(rec.timing, r.records[static_cast<std::size_t>(best)].timing);
          !changed.empty()) {
        ++n.load_changed_from_best;
        if (n.load_note.empty()) n.load_note = std::move(changed);
      }
  }
  (void)facts;
  n.measured = repeats.size();
  if (repeats.empty()) return n;
  n.min_repeats = *std::min_element(repeats.begin(), repeats.end());
  n.max_repeats = *std::max_element(repeats.begin(), repeats.end());
  n.median_repeats = static_cast<int>(median_of(repeats));
  n.median_spread = median_of(spreads);
  n.worst_spread = *std::max_element(spreads.begin(), spreads.end());
  return n;
}

CounterFacts counter_facts(const lab::SweepResult& r) {
  CounterFacts f;
  for (const LaunchRecord& rec : r.records) {
    if (!rec.counters) continue;
    ++f.asked;
    if (rec.counters->measured()) ++f.measured;
    else if (f.first_failure.ok()) f.first_failure = rec.counters->status;
  }
  return f;
}

std::string sweep_chart_caption(const lab::SweepResult& r, const std::string& kernel, HeatmapMetric metric) {
  std::string s = (kernel.empty() ? std::string("every kernel (best of each)") : kernel) + " on " + r.problem +
                  "  |  " + metric_name(metric) + "  |  " + r.device;
  if (r.simulated()) s += "  |  SIMULATED (CPU): the simulator's times, not a GPU's";
  return s;
}

}  // namespace bs::app
