// What the sweep result view draws, computed once per result (no ImGui here, so tests can check
// it): per record its launch statistics (occupancy and its limiter, waves, idle threads) and its
// rank; for a free-blockDim kernel the heatmap grid of block x against block y (one z at a
// time) with each cell's value in the chosen metric, its colour position, and the marks (best,
// worst, cannot be ranked against the best, the occupancy API's thread count, wrong, refused,
// being measured); for compiled kernels and for a ladder the bars, sorted.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/sweep.hpp"
#include "mapping/launch_stats.hpp"
#include "state/sweep_settings.hpp"

namespace bs::app {

// Per record of a sweep.
struct PointFacts {
  std::optional<mapping::LaunchStats> stats;  // where the launch has a grid of ours
  lab::Ranked rank;                           // rank 0: not ranked (refused, failed, wrong)
};
std::vector<PointFacts> point_facts(const lab::SweepResult& r);

// The metric's value for a record (nullopt: it has none, e.g. a refused point), whether more is
// better, its unit and a short name.
std::optional<double> metric_value(const LaunchRecord& r, const PointFacts& f, HeatmapMetric m,
                                   ThroughputUnit throughput_unit);
bool metric_higher_is_better(HeatmapMetric m);
bool is_measured_metric(HeatmapMetric m);  // one of the hardware counters
std::string metric_unit(HeatmapMetric m, ThroughputUnit throughput_unit);
const char* metric_name(HeatmapMetric m);

struct HeatCell {
  int record = -1;  // index into the result's records; -1: no such point in the sweep
  Dim3 block;
  std::optional<double> value;
  double t = 0;  // colour position 0 (worst) .. 1 (best) among the ranked cells
  bool best = false, worst = false;
  bool ties_best = false;  // its interval overlaps the best's: cannot be ranked against it
  bool suggested = false;  // its thread count is the occupancy API's suggestion
  bool wrong = false, refused = false, failed = false;
};

struct HeatGrid {
  std::string kernel;
  unsigned z = 1;
  std::vector<unsigned> zs;      // the z values present (one grid each)
  std::vector<unsigned> xs, ys;  // the axes: block x and block y values present, ascending
  std::vector<HeatCell> cells;   // ys.size() rows of xs.size(), row 0 = ys[0]
  double lo = 0, hi = 0;         // the metric's range over ranked cells
  int best = -1, worst = -1;     // record indices (-1: none ranked)
  std::optional<lab::BlockSuggestion> suggestion;

  const HeatCell& at(std::size_t row, std::size_t col) const { return cells[row * xs.size() + col]; }
};
// The grid of `kernel`'s points with blockDim.z == z (the first z present when z is absent).
// Best and worst are by time whatever the metric (the metric only colours the cells).
HeatGrid build_grid(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel,
                    unsigned z, HeatmapMetric metric);

struct Bar {
  int record = -1;
  std::string label;
  std::optional<double> value, lo, hi;  // the metric and its 95% interval where it has one
  bool best = false, ties_best = false, wrong = false, refused = false, failed = false;
};
struct BarChart {
  std::vector<Bar> bars;  // ranked first, fastest first; then wrong, failed and refused ones
  double max_value = 0;
};
// Every point of `kernel` (a compiled kernel's configurations), or with kernel empty the best
// point of every kernel of the sweep (a ladder).
BarChart build_bars(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel,
                    HeatmapMetric metric);

// The kernels a sweep covered, in the lab's order.
std::vector<std::string> swept_kernels(const lab::SweepResult& r);

// The chart's caption, drawn inside the area its PNG export cuts (a chart passed around alone
// still says what it measured): the kernel (empty: the ladder's best of each), the problem, what
// the colours or bars show, the device, and SIMULATED for the CPU simulation's times.
std::string sweep_chart_caption(const lab::SweepResult& r, const std::string& kernel, HeatmapMetric metric);

// Noise, said plainly: repeats per point, the spread of the medians' intervals, the clock.
struct NoiseFacts {
  int min_repeats = 0, max_repeats = 0, median_repeats = 0;
  double median_spread = 0, worst_spread = 0;  // the 95% CI's half width over the median
  std::size_t measured = 0, ties_with_best = 0;
  // Simulated points timed under another machine load than the best's (core/timing.hpp's
  // load_changed): they do not rank against it; `load_note` is the first such pair's sentence.
  std::size_t load_changed_from_best = 0;
  std::string load_note;
};
NoiseFacts noise_facts(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel);

// Hardware counters over a sweep ("hardware counters per point"): how many launched points
// carry them, how many were measured, and why the first that was not could not be.
struct CounterFacts {
  std::size_t asked = 0, measured = 0;
  Status first_failure;  // success when every asked point was measured
};
CounterFacts counter_facts(const lab::SweepResult& r);

}  // namespace bs::app
