// Timing: the one policy every lab times its launches by (warm-up, repeats until the median is
// stable or a budget runs out, optional L2 flush between repeats) and the one summary of what was
// measured (median, range and the 95% confidence interval of the median), so the UI, bench,
// sweeps and exports report the same numbers the same way.
//
// The loop that applies the policy is lab/measure.hpp; the clocks are CUDA events on the GPU
// (device/) and steady_clock around each simulated launch on the CPU (simulator/). StepTimes
// itemises host work that is not a launch (making a problem, a command's phases).
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/median.hpp"

namespace bs {

struct TimingPolicy {
  int warmup = 0;       // untimed launches first (module load, caches, clocks)
  int min_repeats = 1;  // timed launches at least
  int max_repeats = 1;  // and at most
  // > 0: after min_repeats, stop once the 95% confidence interval of the median is within this
  // fraction of the median (0.01: within 1%).
  double target_ci = 0;
  // > 0: after min_repeats, stop once the timed launches have taken this much wall time.
  double budget_ms = 0;
  bool flush_l2 = false;  // overwrite a buffer twice the L2's size before each timed launch

  static TimingPolicy once() { return {}; }
  static TimingPolicy fixed(int repeats, int warmup = 0) {
    TimingPolicy p;
    p.warmup = warmup;
    p.min_repeats = p.max_repeats = std::max(1, repeats);
    return p;
  }
  // Repeat until the median is known to within `ci` or `budget_ms` is spent.
  static TimingPolicy until_stable(double ci, double budget_ms, int min_repeats = 5, int max_repeats = 1000,
                                   int warmup = 2) {
    TimingPolicy p;
    p.warmup = warmup;
    p.min_repeats = min_repeats;
    p.max_repeats = std::max(min_repeats, max_repeats);
    p.target_ci = ci;
    p.budget_ms = budget_ms;
    return p;
  }
};

// Timed launches a drift needs (Timing::drift): two thirds of at least two each.
inline constexpr std::size_t kDriftMinRepeats = 6;

struct Timing {
  std::vector<double> samples_ms;  // every timed launch, in order
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double ci_low_ms = 0, ci_high_ms = 0;  // 95% confidence interval of the median
  int warmup = 0;
  bool l2_flushed = false;
  bool simulated = false;  // a CPU simulation's wall time, not a GPU's
  std::string clock;       // "CUDA events" or "steady_clock, CPU simulation (2 workers)"
  // Simulated: the cores other programs kept busy while the repeats were timed
  // (core/machine_load.hpp); -1 when not measured (a GPU's time, a launch too short to tell).
  double others_load = -1;

  int repeats() const { return static_cast<int>(samples_ms.size()); }
  // Half the interval's width over the median: 0.01 means "median +- 1%".
  double relative_ci() const { return median_ms > 0 ? (ci_high_ms - ci_low_ms) / (2 * median_ms) : 0; }
  // Two timings whose intervals overlap cannot be ranked.
  bool overlaps(const Timing& o) const { return !(ci_high_ms < o.ci_low_ms || o.ci_high_ms < ci_low_ms); }
  // How far the launches' times moved while they were timed: the median of the last third of the
  // samples over the median of the first third, minus 1 (0.08: the last third ran 8% slower);
  // 0 with fewer than kDriftMinRepeats samples. A GPU that lowers its clock under sustained load (an H200 caps
  // its power a few hundred ms into tensor-core work at 8192^3) or other work arriving mid-run
  // shows here, and the median then mixes two speeds.
  double drift() const {
    const std::size_t n = samples_ms.size(), third = n / 3;
    if (n < kDriftMinRepeats) return 0;
    const double first = median_of(std::vector<double>(samples_ms.begin(), samples_ms.begin() + third));
    const double last = median_of(std::vector<double>(samples_ms.end() - third, samples_ms.end()));
    return first > 0 ? last / first - 1 : 0;
  }
};

// From this drift either way the results table, the sweep summary and the sweep's point details
// say so (drift_note).
inline constexpr double kDriftNoted = 0.03;

// A sentence on `t`'s drift when it is at least kDriftNoted either way, "" otherwise. Only for a
// GPU's times: a CPU simulation's few repeats move with the host (its caches and workers warming
// up, other programs: 6 repeats a point of a 512^2 grayscale sweep drifted 5-17% with a build
// running beside it), and what other programs do to it is said by others_load (load_changed).
inline bool drift_noted(const Timing& t) { return !t.simulated && std::abs(t.drift()) >= kDriftNoted; }
inline std::string drift_note(const Timing& t) {
  if (!drift_noted(t)) return {};
  const double d = t.drift();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%% %s", 100 * std::abs(d), d > 0 ? "slower" : "faster");
  return std::string("the last third of its timed launches ran ") + buf +
         " than the first third (median over median): the GPU's clock or its load changed during the repeats (a "
         "power or heat limit, other work), so its median mixes two speeds";
}

// Simulated times stretch with the machine's load (core/machine_load.hpp): when `a` and `b` were
// both measured and other programs kept at least half a core more busy around one than around
// the other, a sentence saying so ("" when the loads were alike or one is unknown).
inline std::string load_changed(const Timing& a, const Timing& b) {
  if (!a.simulated || !b.simulated || a.others_load < 0 || b.others_load < 0) return {};
  if (std::abs(a.others_load - b.others_load) < 0.5) return {};
  auto cores = [](double c) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f core%s", c, c >= 0.95 && c < 1.05 ? "" : "s");
    return std::string(buf);
  };
  return "the machine's load changed between these simulated times: other programs kept " + cores(a.others_load) +
         " busy during one and " + cores(b.others_load) +
         " during the other, and a CPU simulation's time stretches with the load (up to about 10x on a busy "
         "machine), so they do not rank the kernels";
}

// Fills median, range and interval from samples_ms.
inline void summarize(Timing& t) {
  if (t.samples_ms.empty()) {
    t.median_ms = t.min_ms = t.max_ms = t.ci_low_ms = t.ci_high_ms = 0;
    return;
  }
  t.median_ms = median_of(t.samples_ms);
  const auto [lo, hi] = std::minmax_element(t.samples_ms.begin(), t.samples_ms.end());
  t.min_ms = *lo;
  t.max_ms = *hi;
  const auto [cl, ch] = median_interval_95(t.samples_ms);
  t.ci_low_ms = cl;
  t.ci_high_ms = ch;
}

// Host wall time since `t0` on the steady clock, in milliseconds or seconds: the one way the
// commands, the sweep, the counters and the user-kernel pipeline time their own steps.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Where a host operation's wall time went, step by step (making a problem: "generate + convert
// on the host", "upload"; a sweep command's process phases), so the step that got slower names
// itself. Steps of one name add up (a loop's step stays one entry), in the order first ended.
//
//   StepTimes t;  make();  t.end("generate");  upload();  t.end("upload");
//   t.text() -> "generate 0.912 s, upload 0.101 s"
struct StepTimes {
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<std::string, double>> steps;  // name, seconds
  Clock::time_point mark = Clock::now();              // where the next step began

  // Step `name` ended now; it began at the previous end (or at construction, or where `mark` was set).
  void end(const std::string& name) {
    const Clock::time_point now = Clock::now();
    add(name, std::chrono::duration<double>(now - mark).count());
    mark = now;
  }
  void add(const std::string& name, double s) {
    for (auto& [n, v] : steps)
      if (n == name) return void(v += s);
    steps.emplace_back(name, s);
  }
  void add(const StepTimes& other) {
    for (const auto& [n, v] : other.steps) add(n, v);
  }
  double seconds(const std::string& name) const {
    for (const auto& [n, v] : steps)
      if (n == name) return v;
    return 0;
  }
  std::string text(const char* separator = ", ") const {
    std::string out;
    char buf[32];
    for (const auto& [n, v] : steps) {
      std::snprintf(buf, sizeof buf, " %.3f s", v);
      out += (out.empty() ? "" : separator) + n + buf;
    }
    return out;
  }
};

}  // namespace bs
