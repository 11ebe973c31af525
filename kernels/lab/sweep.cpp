#include "lab/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>

#include "core/timing.hpp"
#include "device/cuda_device.hpp"
#include "device/nvtx_range.hpp"
#include "device/sm_clock.hpp"
#include "lab/rank.hpp"

namespace bs::lab {
namespace {

using Clock = std::chrono::steady_clock;

std::string trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  const auto b = s.find_last_not_of(" \t");
  return std::string(s.substr(a, b - a + 1));
}

// "256", "16x16", "8x8x4" -> the shape; nullopt when it is not one.
std::optional<Dim3> parse_shape(const std::string& s) {
  unsigned v[3] = {1, 1, 1};
  std::size_t at = 0;
  int parts = 0;
  while (parts < 3) {
    const std::size_t x = std::min(s.find('x', at), s.size());
    if (x == at) return std::nullopt;
    unsigned long long n = 0;
    auto [p, ec] = std::from_chars(s.data() + at, s.data() + x, n);
    if (ec != std::errc() || p != s.data() + x || n > 1'000'000) return std::nullopt;
    v[parts++] = static_cast<unsigned>(n);
    if (x == s.size()) return Dim3{v[0], v[1], v[2]};
    at = x + 1;
  }
  return std::nullopt;  // a fourth part
}

}  // namespace

std::vector<Dim3> all_block_shapes(unsigned block_rank, unsigned max_threads) {
  std::vector<Dim3> out;
  const unsigned max_y = block_rank >= 2 ? 1024 : 1;
  const unsigned max_z = block_rank >= 3 ? 1024 : 1;
  for (unsigned z = 1; z <= max_z; z *= 2)
    for (unsigned y = 1; y <= max_y; y *= 2)
      for (unsigned x = 1; x <= 1024; x *= 2)
        if (static_cast<unsigned long long>(x) * y * z <= max_threads) out.push_back(Dim3{x, y, z});
  return out;
}

BlockList parse_block_list(std::string_view text) {
  BlockList list;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = trim(text.substr(at, comma - at));
    at = comma + 1;
    if (item.empty()) continue;
    if (auto shape = parse_shape(item)) list.shapes.push_back(*shape);
    else list.refused.push_back("'" + item + "': not a block shape X, XxY or XxYxZ (e.g. 256, 32x8, 8x8x4)");
  }
  return list;
}

TimingPolicy default_sweep_policy(BackendKind backend) {
  if (backend == BackendKind::Cuda) return TimingPolicy::until_stable(0.01, 100, 5, 2000, 1);
  return TimingPolicy::until_stable(0.01, 60, 6, 200, 1);
}

std::vector<SweepPoint> sweep_points(const Lab& lab, const SweepSpec& spec, std::vector<std::string>* unknown) {
  for (const std::string& id : spec.kernels)
    if (!lab.find_kernel(id) && unknown) unknown->push_back(id);
  std::vector<SweepPoint> points;
  for (const KernelInfo& k : lab.kernels()) {
    if (!spec.kernels.empty() && std::find(spec.kernels.begin(), spec.kernels.end(), k.id) == spec.kernels.end())
      continue;
    if (k.style == ConfigStyle::Compiled) {
      for (std::size_t i = 0; i < k.configs.size(); ++i) {
        SweepPoint p;
        p.kernel = k.id;
        p.config.compiled = static_cast<int>(i);
        p.config.block = k.configs[i].block;
        p.label = k.configs[i].label;
        points.push_back(std::move(p));
      }
      continue;
    }
    for (const Dim3& b : spec.blocks.empty() ? all_block_shapes(k.block_rank) : spec.blocks) {
      SweepPoint p;
      p.kernel = k.id;
      p.config.block = b;
      p.label = block_text(b);
      points.push_back(std::move(p));
    }
  }
  return points;
}

namespace {

// What a sweep says before its first point: the lab, its problem, device, kernels and policy.
SweepResult sweep_header(const Lab& lab, const SweepSpec& spec) {
  SweepResult out;
  const Backend& backend = lab.backend();
  const ProblemInfo problem = lab.problem();
  out.lab = std::string(lab.id());
  out.title = std::string(lab.title());
  out.problem = problem.summary;
  out.unit = problem.throughput_unit;
  out.backend = to_string(backend.kind);
  out.device = backend.label;
  out.versions = backend.versions;
  out.settings = lab.setting_values();
  out.kernels = lab.kernels();
  out.ceilings = problem.ceilings;
  out.limits = backend.limits;
  out.policy = spec.timing;
  out.refusals = spec.refused_inputs;
  return out;
}

// The lab's suggested block for each swept kernel with a free block.
void add_suggestions(Lab& lab, const SweepSpec& spec, SweepResult& out) {
  for (const KernelInfo& k : out.kernels) {
    const bool swept =
        spec.kernels.empty() || std::find(spec.kernels.begin(), spec.kernels.end(), k.id) != spec.kernels.end();
    if (swept && k.style == ConfigStyle::FreeBlock)
      if (auto s = lab.suggested_block(k.id)) out.suggestions.emplace_back(k.id, *s);
  }
}

// The SM clock before the first point or after the last, or why it was not measured.
void measure_clock(int device, bool after, SweepResult& out) {
  NvtxRange range(after ? "sweep: SM clock after" : "sweep: SM clock before");
  if (auto c = measure_sm_clock(device)) {
    (after ? out.clock_mhz_after : out.clock_mhz_before) = c->mhz;
    if (out.clock_method.empty()) out.clock_method = c->method;
  } else if (!after) {
    out.clock_note = "SM clock not measured: " + c.status().describe();
  } else if (out.clock_note.empty()) {
    out.clock_note = "SM clock after the sweep not measured: " + c.status().describe();
  }
}

// Plans and runs the points in order into out.records, reporting progress, until the last, a
// cancel or a device fault. Returns the point dropped by a cancel while it was measured ("" if
// none).
std::string run_points(Lab& lab, const SweepSpec& spec, const SweepHooks& hooks, const std::vector<SweepPoint>& points,
                       Clock::time_point t0, SweepResult& out) {
  auto cancelled = [&] { return hooks.cancel && hooks.cancel->load(std::memory_order_relaxed); };
  RunOptions options;
  options.timing = spec.timing;
  options.verify = true;
  options.trace_schedule = false;
  options.cancel = hooks.cancel;

  SweepProgress progress;
  progress.total = points.size();
  double launched_s = 0;  // time spent on points that were launched
  std::size_t launched = 0;
  auto report = [&](bool measuring, const SweepPoint* p) {
    if (!hooks.progress) return;
    progress.elapsed_s = seconds_since(t0);
    progress.measuring = measuring;
    if (p) progress.current = *p;
    const std::size_t left = progress.total - progress.done;
    progress.eta_s =
        launched > 0 ? launched_s / static_cast<double>(launched) * static_cast<double>(left) : (left == 0 ? 0 : -1);
    hooks.progress(progress);
  };
  auto refused = [&](const SweepPoint& p, const LaunchRecord& rec) {
    out.refusals.push_back(p.kernel + " " + p.label + ": " + rec.status.message);
    ++progress.refused;
  };

  for (const SweepPoint& p : points) {
    if (cancelled()) {
      out.cancelled = true;
      break;
    }
    // Validated first: a refused point is listed with the lab's reason and never launched.
    LaunchRecord planned = lab.plan(p.kernel, p.config);
    if (!planned.ok()) {
      planned.refused = true;
      refused(p, planned);
      ++progress.done;
      if (hooks.point_done) hooks.point_done(planned);
      out.records.push_back(std::move(planned));
      report(false, &p);
      continue;
    }
    report(true, &p);
    const auto point_start = Clock::now();
    if (launched == 0) out.first_point_s = seconds_since(t0);
    LaunchRecord rec;
    {
      NvtxRange range("sweep point " + p.kernel + " " + p.label);
      rec = lab.run(p.kernel, p.config, options);
    }
    launched_s += seconds_since(point_start);
    ++launched;
    if (cancelled()) {
      // The point in flight was cut short: its few repeats would look more certain than they are.
      out.cancelled = true;
      return p.kernel + " " + p.label;
    }
    if (rec.refused) {
      refused(p, rec);
    } else if (!rec.ok()) {
      ++progress.failed;
    } else {
      ++progress.measured;
      if (rec.check.failed()) ++progress.wrong;
      for (double ms : rec.timing.samples_ms) out.kernel_ms_total += ms;
    }
    ++progress.done;
    const bool fault = !rec.ok() && !rec.refused && rec.status.sticky_app_fault();
    if (hooks.point_done) hooks.point_done(rec);
    if (fault) out.fault = rec.status;
    out.records.push_back(std::move(rec));
    report(false, &p);
    if (fault) break;
  }
  return "";
}

}  // namespace

SweepResult run_sweep(Lab& lab, const SweepSpec& spec, const SweepHooks& hooks) {
  const auto t0 = Clock::now();
  SweepResult out = sweep_header(lab, spec);
  const Backend& backend = lab.backend();
  const bool gpu = backend.kind == BackendKind::Cuda;
  // The calling thread may be a fresh worker: make the lab's device current on it.
  if (gpu)
    if (Status s = make_device_current(backend.cuda_device); !s) {
      out.fault = s;
      out.complete = false;
      out.note = "the sweep could not use the GPU: " + s.describe();
      out.wall_s = seconds_since(t0);
      return out;
    }

  const std::vector<SweepPoint> points = sweep_points(lab, spec, nullptr);
  out.planned = points.size();
  add_suggestions(lab, spec, out);
  if (gpu && spec.measure_clock) measure_clock(backend.cuda_device, false, out);
  else if (!gpu) out.clock_note = "no GPU clock: the CPU simulation times every thread's code on the host";

  const std::string dropped = run_points(lab, spec, hooks, points, t0, out);
  const std::size_t finished = out.records.size();
  out.complete = finished == points.size() && out.fault.ok() && !out.cancelled;
  if (!out.fault.ok()) {
    out.note = "stopped by a device fault at point " + std::to_string(finished) + " of " +
               std::to_string(points.size()) + " (" + out.fault.message + "); the points before it are kept";
  } else if (out.cancelled) {
    out.note = "cancelled after " + std::to_string(finished) + " of " + std::to_string(points.size()) + " points";
    if (!dropped.empty())
      out.note += "; the point being measured (" + dropped +
                  ") was dropped: its few repeats would look more "
                  "certain than they are";
  }

  // The clock after: not after a fault (the context is gone), nor after a cancel (the user wants
  // the sweep to stop now).
  if (gpu && spec.measure_clock && out.fault.ok() && !out.cancelled) measure_clock(backend.cuda_device, true, out);
  out.wall_s = seconds_since(t0);
  return out;
}

std::vector<SuggestionVerdict> compare_with_suggestions(const SweepResult& r) {
  std::vector<SuggestionVerdict> out;
  for (const auto& [kernel, sg] : r.suggestions) {
    SuggestionVerdict v;
    v.kernel = kernel;
    v.suggestion = sg;
    for (std::size_t i = 0; i < r.records.size(); ++i) {
      const LaunchRecord& rec = r.records[i];
      if (rec.kernel != kernel || !rankable(rec)) continue;
      const double ms = rec.timing.median_ms;
      if (v.best < 0 || ms < r.records[static_cast<std::size_t>(v.best)].timing.median_ms) v.best = static_cast<int>(i);
      if (rec.config.block.volume() == sg.threads &&
          (v.suggested < 0 || ms < r.records[static_cast<std::size_t>(v.suggested)].timing.median_ms))
        v.suggested = static_cast<int>(i);
    }
    char buf[400];
    if (v.best < 0) {
      v.text = kernel + ": the occupancy API suggests " + std::to_string(sg.threads) +
               " threads per block; no point of the sweep ran correctly to compare it with";
    } else if (v.suggested < 0) {
      const LaunchRecord& b = r.records[static_cast<std::size_t>(v.best)];
      std::snprintf(buf, sizeof buf,
                    "%s: the occupancy API suggests %u threads per block, which the sweep did not measure; "
                    "the measured best is %s (%llu threads, %.4g ms)",
                    kernel.c_str(), sg.threads, block_text(b.config.block).c_str(), b.config.block.volume(),
                    b.timing.median_ms);
      v.text = buf;
    } else {
      const LaunchRecord& b = r.records[static_cast<std::size_t>(v.best)];
      const LaunchRecord& s = r.records[static_cast<std::size_t>(v.suggested)];
      v.slower_by = s.timing.median_ms / b.timing.median_ms - 1;
      v.indistinguishable = v.best == v.suggested || s.timing.overlaps(b.timing);
      if (v.best == v.suggested)
        std::snprintf(buf, sizeof buf,
                      "%s: the occupancy API suggests %u threads per block; the measured best, %s (%.4g ms), "
                      "has that many",
                      kernel.c_str(), sg.threads, block_text(b.config.block).c_str(), b.timing.median_ms);
      else
        std::snprintf(buf, sizeof buf,
                      "%s: the occupancy API suggests %u threads per block; the best such shape, %s (%.4g ms), is "
                      "%.1f%% slower than the measured best %s (%.4g ms)%s",
                      kernel.c_str(), sg.threads, block_text(s.config.block).c_str(), s.timing.median_ms,
                      100 * v.slower_by, block_text(b.config.block).c_str(), b.timing.median_ms,
                      v.indistinguishable ? ", but their intervals overlap: they cannot be ranked" : "");
      v.text = buf;
    }
    out.push_back(std::move(v));
  }
  return out;
}

ResultsHeader sweep_header(const SweepResult& r) {
  ResultsHeader h;
  h.kind = "sweep";
  h.lab = r.lab;
  h.backend = r.backend;
  h.device = r.device;
  h.versions = r.versions;
  h.policy = r.policy;
  h.ceilings = r.ceilings;
  h.clock_mhz_before = r.clock_mhz_before;
  h.clock_mhz_after = r.clock_mhz_after;
  h.complete = r.complete;
  h.note = r.note;
  h.refusals = r.refusals;
  h.limits = r.limits;
  ResultsHeader::Sweep s;
  s.planned = r.planned;
  s.wall_s = r.wall_s;
  s.kernel_ms_total = r.kernel_ms_total;
  s.clock_method = r.clock_method;
  s.clock_note = r.clock_note;
  s.suggestions = r.suggestions;
  h.sweep = s;
  return h;
}

std::string sweep_summary(const SweepResult& r) {
  std::string t;
  char buf[512];
  std::size_t measured = 0, refused = 0, wrong = 0, failed = 0;
  int min_rep = 0, max_rep = 0;
  for (const LaunchRecord& rec : r.records) {
    if (rec.refused) ++refused;
    else if (!rec.ok()) ++failed;
    else {
      ++measured;
      if (rec.check.failed()) ++wrong;
      const int n = rec.timing.repeats();
      min_rep = measured == 1 ? n : std::min(min_rep, n);
      max_rep = std::max(max_rep, n);
    }
  }
  std::snprintf(buf, sizeof buf, "sweep: %zu of %zu points measured, %zu refused, %zu wrong, %zu failed%s\n", measured,
                r.planned, refused, wrong, failed, r.simulated() ? " (CPU simulation: simulated timings)" : "");
  t += buf;
  if (!r.complete) t += "incomplete: " + r.note + "\n";
  if (!r.fault.ok()) t += "device fault: " + r.fault.describe() + "\n";
  const std::vector<Ranked> ranks = rank_records(r.records);
  for (const Ranked& k : ranks) {
    if (k.rank != 1) continue;
    const LaunchRecord& b = r.records[k.index];
    std::size_t ties = 0;
    std::string names;
    for (const Ranked& o : ranks)
      if (o.rank > 1 && o.ties_best && rank_group(r.records[o.index]) == rank_group(b)) {
        ++ties;
        if (ties <= 6)
          names += (names.empty() ? "" : ", ") + r.records[o.index].kernel + " " + r.records[o.index].config_label;
      }
    std::snprintf(buf, sizeof buf, "best: %s %s on %s: %.4g ms (95%% CI %.4g .. %.4g, %d repeats)\n", b.kernel.c_str(),
                  b.config_label.c_str(), b.problem.c_str(), b.timing.median_ms, b.timing.ci_low_ms,
                  b.timing.ci_high_ms, b.timing.repeats());
    t += buf;
    if (ties > 0)
      t += "cannot be ranked against the best (intervals overlap): " + names + (ties > 6 ? ", ..." : "") + " (" +
           std::to_string(ties) + ")\n";
  }
  for (const SuggestionVerdict& v : compare_with_suggestions(r)) t += v.text + "\n";
  std::snprintf(buf, sizeof buf,
                "wall time %.2f s; the kernels' timed repeats add up to %.3f s (%.0f%% of it); "
                "repeats per point %d..%d\n",
                r.wall_s, r.kernel_ms_total / 1000, r.wall_s > 0 ? 100 * r.kernel_ms_total / 1000 / r.wall_s : 0.0,
                min_rep, max_rep);
  t += buf;
  if (r.clock_mhz_before > 0 || r.clock_mhz_after > 0) {
    std::snprintf(buf, sizeof buf, "SM clock before %.0f MHz, after %.0f MHz (%s)\n", r.clock_mhz_before,
                  r.clock_mhz_after, r.clock_method.c_str());
    t += buf;
  }
  if (!r.clock_note.empty()) t += r.clock_note + "\n";
  // Points whose timed launches drifted (core/timing.hpp): how many, and the one that moved most.
  std::size_t drifted = 0;
  const LaunchRecord* most = nullptr;
  for (const LaunchRecord& rec : r.records) {
    if (!rec.ok() || !drift_noted(rec.timing)) continue;
    ++drifted;
    if (!most || std::abs(rec.timing.drift()) > std::abs(most->timing.drift())) most = &rec;
  }
  if (most)
    t += "drift: " + std::to_string(drifted) + " of " + std::to_string(measured) + " points; the most, " +
         most->kernel + " " + most->config_label + " on " + most->problem + ": " + drift_note(most->timing) + "\n";
  return t;
}

}  // namespace bs::lab
