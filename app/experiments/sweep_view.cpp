// Section index
//   1. colours and small helpers
//   2. one point's details (tooltips, compare)
//   3. the heatmap
//   4. the bar chart
//   5. the header, the noise and the suggestion
//   6. the view
#include "experiments/sweep_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/launch_counters.hpp"
#include "lab/report.hpp"
#include "mapping/occupancy.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

// ---------------------------------------------------------------------------------------------
// 1. colours and small helpers
// ---------------------------------------------------------------------------------------------

const ImU32 kBestColour = IM_COL32(255, 255, 255, 255);
const ImU32 kWorstColour = IM_COL32(255, 140, 60, 255);
const ImU32 kSuggestColour = IM_COL32(80, 220, 255, 255);
const ImU32 kWrongColour = IM_COL32(190, 40, 40, 255);
const ImU32 kRefusedColour = IM_COL32(55, 57, 64, 255);
const ImU32 kMeasuringColour = IM_COL32(255, 220, 60, 255);
const ImU32 kTextDark = IM_COL32(20, 20, 24, 255);
const ImU32 kTextLight = IM_COL32(235, 235, 240, 255);
const ImU32 kAxisColour = IM_COL32(170, 172, 180, 255);

using ui::fmt;

std::string value_text(double v, HeatmapMetric m) {
  if (metric_unit(m, ThroughputUnit::GBPerS) == "%") return fmt("%.0f%%", v);
  return ui::sig(v, 3);
}

bool is_measuring(const std::optional<lab::SweepPoint>& m, const LaunchRecord& r) {
  return m && m->kernel == r.kernel && m->config.block == r.request.block && m->config.compiled == r.request.compiled;
}

// Left click loads, right click offers the pins; returns the action for record `i`.
void point_interaction(int i, SweepViewAction* act) {
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) act->load = i;
  if (ImGui::BeginPopupContextItem()) {
    if (ImGui::MenuItem("Load into the lab")) act->load = i;
    if (ImGui::MenuItem("Pin as A (Compare)")) act->pin_a = i;
    if (ImGui::MenuItem("Pin as B (Compare)")) act->pin_b = i;
    ImGui::EndPopup();
  }
}

}  // namespace

ImU32 colour_map(double t, int alpha) {
  // Viridis at five stops, linearly between them: dark purple (0) to yellow (1).
  static constexpr float stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const float f = static_cast<float>(t - i);
  auto c = [&](int k) { return static_cast<int>(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f); };
  return IM_COL32(c(0), c(1), c(2), alpha);
}

// ---------------------------------------------------------------------------------------------
// 2. one point's details
// ---------------------------------------------------------------------------------------------

void draw_point_details(const LaunchRecord& r, const PointFacts& f, ThroughputUnit unit,
                        const std::vector<lab::Ceiling>& ceilings) {
  ImGui::Text("%s  %s", r.kernel.c_str(), r.config_label.c_str());
  if (r.config.grid.volume() > 0)
    ImGui::TextColored(ui::kDimColour, "grid %u x %u x %u, block %u x %u x %u", r.config.grid.x, r.config.grid.y,
                       r.config.grid.z, r.config.block.x, r.config.block.y, r.config.block.z);
  if (r.refused) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextColored(ui::kWarnColour, "refused, never launched: %s", r.status.message.c_str());
    if (!r.status.hint.empty()) ImGui::TextColored(ui::kDimColour, "%s", r.status.hint.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (!r.ok()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextColored(ui::kErrorColour, "failed: %s", r.status.describe().c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  const Timing& t = r.timing;
  ImGui::Text("median %s  95%% CI %s .. %s (+-%.2f%%)", ui::ms_text(t.median_ms).c_str(),
              ui::sig(t.ci_low_ms, 4).c_str(), ui::sig(t.ci_high_ms, 4).c_str(), 100 * t.relative_ci());
  ImGui::TextColored(ui::kDimColour, "%d repeats after %d warm-up, range %s .. %s ms%s%s", t.repeats(), t.warmup,
                     ui::sig(t.min_ms, 4).c_str(), ui::sig(t.max_ms, 4).c_str(), t.l2_flushed ? ", L2 flushed" : "",
                     t.simulated ? " (simulated: CPU time)" : "");
  if (const std::string d = drift_note(t); !d.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextColored(ui::kWarnColour, "drift: %s", d.c_str());
    ImGui::PopTextWrapPos();
  }
  const double thr = r.throughput(unit);
  std::string share;
  for (const lab::Ceiling& c : ceilings)
    if (c.value > 0 && c.unit == unit) share += ", " + fmt("%.0f%%", 100 * thr / c.value) + " of " + c.name;
  ImGui::Text("%s %s%s", ui::sig(thr, 4).c_str(), unit_text(unit), share.c_str());
  if (f.stats) {
    const mapping::Occupancy& o = f.stats->occupancy;
    ImGui::Text("occupancy %.0f%% (%u of %u warps), limited by %s; %u blocks/SM", 100 * o.occupancy,
                o.active_warps_per_sm, o.max_warps_per_sm, mapping::to_string(o.limiter), o.active_blocks_per_sm);
    const mapping::Waves& w = f.stats->waves;
    ImGui::Text("waves %.2f (%llu rounds), last wave %.0f%% full", w.waves, w.wave_count, 100 * w.last_wave_fill);
    if (f.stats->thread_counts_exact)
      ImGui::Text("idle threads %llu of %llu (%.2f%%)", f.stats->idle_threads, f.stats->threads_launched,
                  f.stats->idle_percent);
  }
  if (r.counters) {
    // Hardware counters (the sweep's "hardware counters per point"): measured beside the model.
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    if (r.counters->measured())
      ImGui::TextColored(ImVec4(0.55f, 0.85f, 1, 1), "measured: %s", lab::counters_summary(*r.counters).c_str());
    else ImGui::TextColored(ui::kWarnColour, "no counters: %s", r.counters->status.message.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::Text("registers %s / thread, shared %zu B / block",
              r.attributes_measured ? std::to_string(r.attributes.registers_per_thread).c_str() : "n/a (simulated)",
              static_cast<std::size_t>(r.attributes.static_shared_bytes + r.config.dynamic_shared_bytes));
  if (f.rank.rank > 0)
    ImGui::TextColored(f.rank.ties_best ? ui::kWarnColour : ui::kDimColour, "rank %d%s", f.rank.rank,
                       f.rank.ties_best       ? ": cannot be ranked against the best (their intervals overlap)"
                       : f.rank.ties_previous ? ": cannot be ranked against the one before it"
                                              : "");
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  ImGui::TextColored(r.check.failed() ? ui::kErrorColour : ui::kDimColour, "%s", r.check.summary().c_str());
  ImGui::PopTextWrapPos();
}

namespace {

// The caption wrapped to `width`, whole (its end names the device and says SIMULATED: a cut
// caption lost both from the exported PNG). Returns the height it takes, chart gap included.
float draw_caption(ImDrawList* dl, ImVec2 at, float width, const std::string& caption, bool simulated) {
  const float em = ImGui::GetFontSize();
  const float wrap = std::max(em * 8, width);
  dl->AddText(ImGui::GetFont(), em, at, simulated ? IM_COL32(255, 200, 90, 255) : IM_COL32(200, 210, 225, 255),
              caption.c_str(), nullptr, wrap);
  const ImVec2 ts = ImGui::CalcTextSize(caption.c_str(), nullptr, false, wrap);
  return std::max(em * 1.4f, ts.y + em * 0.4f);
}

// ---------------------------------------------------------------------------------------------
// 3. the heatmap
// ---------------------------------------------------------------------------------------------

void draw_heatmap(const SweepViewInput& in, const HeatGrid& g, HeatmapMetric metric, float height, SweepViewAction* act,
                  ImVec2* chart_min, ImVec2* chart_max) {
  const lab::SweepResult& r = *in.result;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  const ImVec2 origin0 = ImGui::GetCursorScreenPos();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float caption_h = draw_caption(dl, origin0, avail_w, sweep_chart_caption(r, g.kernel, metric), r.simulated());
  const ImVec2 origin(origin0.x, origin0.y + caption_h);  // the chart under its caption
  height -= caption_h;
  const float left = em * 6.0f, top = em * 2.6f, bottom = em * 1.0f, right = em * 5.5f;
  const std::size_t nx = g.xs.size(), ny = g.ys.size();
  if (nx == 0 || ny == 0) return;
  // Cells as large as fit, up to 6 em: a short list stays a compact map.
  const float cell =
      std::clamp(std::min((avail_w - left - right) / nx, (height - top - bottom) / ny), em * 1.2f, em * 6.0f);
  const ImVec2 p0(origin.x + left, origin.y + top);
  const ImVec2 p1(p0.x + cell * nx, p0.y + cell * ny);
  *chart_min = origin0;
  *chart_max = ImVec2(
      std::max(p1.x + right,
               origin0.x + std::min(avail_w, ImGui::CalcTextSize(sweep_chart_caption(r, g.kernel, metric).c_str()).x)),
      p1.y + bottom);
  // Axes: block x along the top, block y down the side (rows grow down, as in an image).
  dl->AddText(ImVec2(p0.x, origin.y), kAxisColour, "blockDim.x ->");
  dl->AddText(ImVec2(origin.x, origin.y + em * 1.4f), kAxisColour, "blockDim.y");
  for (std::size_t c = 0; c < nx; ++c) {
    const std::string s = std::to_string(g.xs[c]);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(p0.x + cell * (c + 0.5f) - ts.x / 2, p0.y - ts.y - 2), kAxisColour, s.c_str());
  }
  for (std::size_t row = 0; row < ny; ++row) {
    const std::string s = std::to_string(g.ys[row]);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    dl->AddText(ImVec2(p0.x - ts.x - 6, p0.y + cell * (row + 0.5f) - ts.y / 2), kAxisColour, s.c_str());
  }
  const bool text_fits = cell >= em * 1.8f;
  const float pulse = 0.5f + 0.5f * std::sin(static_cast<float>(ImGui::GetTime()) * 6.0f);
  for (std::size_t row = 0; row < ny; ++row)
    for (std::size_t col = 0; col < nx; ++col) {
      const HeatCell& c = g.at(row, col);
      const ImVec2 a(p0.x + cell * col, p0.y + cell * row), b(a.x + cell, a.y + cell);
      if (c.record < 0) {
        dl->AddRect(a, b, IM_COL32(255, 255, 255, 12));
        continue;
      }
      const LaunchRecord& rec = r.records[static_cast<std::size_t>(c.record)];
      ImU32 fill = kRefusedColour;
      if (c.wrong || c.failed) fill = kWrongColour;
      else if (c.value && !c.refused) fill = colour_map(c.t);
      dl->AddRectFilled(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), fill);
      if (c.refused) {  // crossed out: never launched
        dl->AddLine(ImVec2(a.x + 4, a.y + 4), ImVec2(b.x - 4, b.y - 4), IM_COL32(120, 120, 128, 255));
        dl->AddLine(ImVec2(a.x + 4, b.y - 4), ImVec2(b.x - 4, a.y + 4), IM_COL32(120, 120, 128, 255));
      }
      if (text_fits) {
        std::string s = c.refused  ? "refused"
                        : c.failed ? "failed"
                        : c.wrong  ? "WRONG"
                        : c.value  ? value_text(*c.value, metric)
                                   : "";
        // The value in the cell, in a smaller font where it would not fit (never below 60%).
        const ImVec2 full = ImGui::CalcTextSize(s.c_str());
        const float size = em * std::min(1.0f, (cell - 4) / std::max(1.0f, full.x));
        if (size >= em * 0.6f) {
          const ImVec2 ts(full.x * size / em, full.y * size / em);
          const bool dark = c.value && !c.wrong && !c.refused && c.t > 0.55;
          dl->AddText(ImGui::GetFont(), size, ImVec2(a.x + (cell - ts.x) / 2, a.y + (cell - ts.y) / 2),
                      dark ? kTextDark : kTextLight, s.c_str());
        }
      }
      if (c.suggested)  // the occupancy API's thread count: a triangle in the top-left corner
        dl->AddTriangleFilled(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + cell * 0.3f, a.y + 1),
                              ImVec2(a.x + 1, a.y + cell * 0.3f), kSuggestColour);
      if (c.ties_best)  // cannot be ranked against the best
        dl->AddCircleFilled(ImVec2(b.x - cell * 0.14f, a.y + cell * 0.14f), std::max(2.5f, cell * 0.07f), kBestColour);
      if (c.best) {
        dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), kBestColour, 0, 0, 3.0f);
        if (cell >= em * 2.2f)
          dl->AddText(ImGui::GetFont(), em * 0.75f, ImVec2(a.x + 4, b.y - em * 0.95f), kTextDark, "best");
      }
      if (c.worst) {
        dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), kWorstColour, 0, 0, 2.5f);
        if (cell >= em * 2.2f)
          dl->AddText(ImGui::GetFont(), em * 0.75f, ImVec2(a.x + 4, b.y - em * 0.95f), kWorstColour, "worst");
      }
      if (in.running && is_measuring(in.measuring, rec))
        dl->AddRect(a, b, (kMeasuringColour & 0x00ffffff) | (static_cast<ImU32>(120 + 135 * pulse) << 24), 0, 0, 3.0f);
      // The cell as an item: hover, click, context menu.
      ImGui::SetCursorScreenPos(a);
      ImGui::PushID(c.record);
      ImGui::InvisibleButton("cell", ImVec2(cell, cell),
                             ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
      if (ImGui::IsItemHovered()) {
        dl->AddRect(a, b, IM_COL32(255, 255, 255, 200), 0, 0, 1.5f);
        ImGui::BeginTooltip();
        draw_point_details(rec, (*in.facts)[static_cast<std::size_t>(c.record)], r.unit, r.ceilings);
        if (c.suggested) ImGui::TextColored(ImVec4(0.3f, 0.86f, 1, 1), "the occupancy API's thread count");
        ImGui::TextColored(ui::kDimColour, "click: load into the lab; right-click: pin for Compare");
        ImGui::EndTooltip();
      }
      point_interaction(c.record, act);
      ImGui::PopID();
    }
  // Measuring a point that is not in this grid yet (another z, another kernel): nothing to mark.
  // The colour bar on the right: best at the top.
  const float bx = p1.x + em * 0.8f, bw = em * 0.9f;
  const int steps = 24;
  for (int i = 0; i < steps; ++i) {
    const float y0 = p0.y + (p1.y - p0.y) * i / steps, y1 = p0.y + (p1.y - p0.y) * (i + 1) / steps;
    dl->AddRectFilled(ImVec2(bx, y0), ImVec2(bx + bw, y1), colour_map(1.0 - (i + 0.5) / steps));
  }
  if (g.hi > 0) {
    const bool higher = metric_higher_is_better(metric);
    const std::string top_s = value_text(higher ? g.hi : g.lo, metric),
                      bot_s = value_text(higher ? g.lo : g.hi, metric);
    dl->AddText(ImVec2(bx + bw + 4, p0.y), kAxisColour, top_s.c_str());
    dl->AddText(ImVec2(bx + bw + 4, p1.y - em), kAxisColour, bot_s.c_str());
    dl->AddText(ImVec2(bx + bw + 4, (p0.y + p1.y) / 2 - em / 2), kAxisColour, metric_unit(metric, r.unit).c_str());
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + bottom));
  ImGui::Dummy(ImVec2(1, 1));
}

// ---------------------------------------------------------------------------------------------
// 4. the bar chart
// ---------------------------------------------------------------------------------------------

void draw_bars(const SweepViewInput& in, const BarChart& chart, const std::string& kernel, HeatmapMetric metric,
               float height, SweepViewAction* act, ImVec2* chart_min, ImVec2* chart_max) {
  const lab::SweepResult& r = *in.result;
  const float em = ImGui::GetFontSize();
  const float row_h = em * 1.45f;
  const std::string caption = sweep_chart_caption(r, kernel, metric);
  const float caption_extra =
      ImGui::CalcTextSize(caption.c_str(), nullptr, false, std::max(em * 8, ImGui::GetContentRegionAvail().x)).y - em;
  const float h = std::min(height, row_h * chart.bars.size() + em * 2.4f + std::max(0.0f, caption_extra));
  ImGui::BeginChild("bars", ImVec2(0, h), false);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::Dummy(ImVec2(w, draw_caption(dl, ImGui::GetCursorScreenPos(), w, caption, r.simulated())));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float label_w = std::min(em * 19, w * 0.42f), value_w = em * 5.5f;
  const float x0 = origin.x + label_w + em * 0.5f, x1 = origin.x + w - value_w;
  *chart_min = ImGui::GetWindowPos();
  *chart_max = ImVec2(chart_min->x + ImGui::GetWindowSize().x, chart_min->y + ImGui::GetWindowSize().y);
  const double scale = chart.max_value > 0 ? (x1 - x0) / chart.max_value : 0;
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const LaunchRecord& rec = r.records[static_cast<std::size_t>(b.record)];
    const float y = origin.y + row_h * i;
    const ImVec2 row_a(origin.x, y), row_b(origin.x + w, y + row_h);
    ImGui::PushClipRect(row_a, ImVec2(x0 - 4, row_b.y), true);
    dl->AddText(ImVec2(origin.x, y + (row_h - em) / 2), b.best ? kBestColour : kTextLight, b.label.c_str());
    ImGui::PopClipRect();
    if (b.value && !b.wrong && !b.failed) {
      const float len = static_cast<float>(*b.value * scale);
      const double t = chart.max_value > 0 ? *b.value / chart.max_value : 0;
      const ImU32 fill = colour_map(metric_higher_is_better(metric) ? t : 1 - t * 0.8);
      dl->AddRectFilled(ImVec2(x0, y + row_h * 0.18f), ImVec2(x0 + len, y + row_h * 0.82f), fill, 2);
      if (b.lo && b.hi) {  // the 95% interval as a whisker
        const float wl = x0 + static_cast<float>(*b.lo * scale), wh = x0 + static_cast<float>(*b.hi * scale);
        const float ym = y + row_h / 2;
        dl->AddLine(ImVec2(wl, ym), ImVec2(wh, ym), kTextLight, 1.5f);
        dl->AddLine(ImVec2(wl, ym - 4), ImVec2(wl, ym + 4), kTextLight, 1.5f);
        dl->AddLine(ImVec2(wh, ym - 4), ImVec2(wh, ym + 4), kTextLight, 1.5f);
      }
      if (b.best) dl->AddRect(ImVec2(x0, y + row_h * 0.18f), ImVec2(x0 + len, y + row_h * 0.82f), kBestColour, 2, 0, 2);
      std::string v = value_text(*b.value, metric) + " " + metric_unit(metric, r.unit);
      if (b.best) v += "  best";
      else if (b.ties_best) v += "  ~best";
      dl->AddText(ImVec2(x1 + 6, y + (row_h - em) / 2),
                  b.best        ? kBestColour
                  : b.ties_best ? IM_COL32(255, 210, 110, 255)
                                : kTextLight,
                  v.c_str());
    } else {
      const char* why = b.refused ? "refused: " : b.failed ? "failed: " : "WRONG result: ";
      const std::string s = why + (b.wrong ? rec.check.summary() : rec.status.message);
      ImGui::PushClipRect(ImVec2(x0, y), row_b, true);
      dl->AddText(ImVec2(x0, y + (row_h - em) / 2),
                  b.wrong || b.failed ? IM_COL32(255, 110, 100, 255) : IM_COL32(150, 150, 158, 255), s.c_str());
      ImGui::PopClipRect();
    }
    if (in.running && is_measuring(in.measuring, rec)) dl->AddRect(row_a, row_b, kMeasuringColour, 0, 0, 2);
    ImGui::SetCursorScreenPos(row_a);
    ImGui::PushID(b.record);
    ImGui::InvisibleButton("bar", ImVec2(w, row_h),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    if (ImGui::IsItemHovered()) {
      dl->AddRectFilled(row_a, row_b, IM_COL32(255, 255, 255, 18));
      ImGui::BeginTooltip();
      draw_point_details(rec, (*in.facts)[static_cast<std::size_t>(b.record)], r.unit, r.ceilings);
      ImGui::TextColored(ui::kDimColour, "click: load into the lab; right-click: pin for Compare");
      ImGui::EndTooltip();
    }
    point_interaction(b.record, act);
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + row_h * chart.bars.size()));
  ImGui::Dummy(ImVec2(1, 1));
  ImGui::EndChild();
}

// ---------------------------------------------------------------------------------------------
// 5. the header, the noise and the suggestion
// ---------------------------------------------------------------------------------------------

void draw_noise(const lab::SweepResult& r, const std::vector<PointFacts>& facts, const std::string& kernel,
                const HeatGrid* grid) {
  const NoiseFacts n = noise_facts(r, facts, kernel);
  const TimingPolicy& p = r.policy;
  ImGui::PushTextWrapPos(0);
  if (n.measured > 0) {
    ImGui::TextColored(ui::kDimColour,
                       "Noise: each point warmed up %d time%s, then repeated until its median's 95%% interval was "
                       "within +-%.1f%% or it had used %.0f ms (at least %d, at most %d repeats). Repeats per point "
                       "%d..%d (median %d); interval half-width median +-%.2f%%, widest +-%.2f%%%s.",
                       p.warmup, p.warmup == 1 ? "" : "s", 100 * p.target_ci, p.budget_ms, p.min_repeats, p.max_repeats,
                       n.min_repeats, n.max_repeats, n.median_repeats, 100 * n.median_spread, 100 * n.worst_spread,
                       p.flush_l2 ? "; L2 flushed before every repeat" : "; L2 not flushed (warm caches)");
    if (n.ties_with_best > 0)
      ImGui::TextColored(
          ui::kWarnColour,
          "%zu point%s cannot be ranked against the best: %s interval%s overlap%s the best's (marked o).",
          n.ties_with_best, n.ties_with_best == 1 ? "" : "s", n.ties_with_best == 1 ? "its" : "their",
          n.ties_with_best == 1 ? "" : "s", n.ties_with_best == 1 ? "s" : "");
    else
      ImGui::TextColored(
          ui::kDimColour,
          "No other point's interval overlaps the best's: the best is ranked first with 95%% confidence.");
    if (n.load_changed_from_best > 0)
      ImGui::TextColored(ui::kWarnColour, "%zu point%s timed under another machine load than the best: %s.",
                         n.load_changed_from_best, n.load_changed_from_best == 1 ? "" : "s", n.load_note.c_str());
  }
  if (r.clock_mhz_before > 0 || r.clock_mhz_after > 0) {
    const double drift =
        r.clock_mhz_before > 0 && r.clock_mhz_after > 0 ? r.clock_mhz_after / r.clock_mhz_before - 1 : 0;
    ImGui::TextColored(
        std::fabs(drift) > 0.03 ? ui::kWarnColour : ui::kDimColour, "SM clock before %.0f MHz, after %s (%s)%s",
        r.clock_mhz_before, r.clock_mhz_after > 0 ? fmt("%.0f MHz", r.clock_mhz_after).c_str() : "not measured",
        r.clock_method.c_str(),
        std::fabs(drift) > 0.03 ? ": the clock moved during the sweep, so early and late points ran at different speeds"
                                : "");
  }
  if (!r.clock_note.empty()) ImGui::TextColored(ui::kDimColour, "%s", r.clock_note.c_str());
  if (grid && grid->suggestion) {
    for (const lab::SuggestionVerdict& v : lab::compare_with_suggestions(r))
      if (v.kernel == kernel)
        ImGui::TextColored(ImVec4(0.45f, 0.88f, 1, 1), "Occupancy API (marked by the triangle): %s", v.text.c_str());
  } else if (grid && !r.simulated()) {
    ImGui::TextColored(ui::kDimColour, "The occupancy API has no suggestion for %s.", kernel.c_str());
  } else if (grid) {
    ImGui::TextColored(ui::kDimColour,
                       "No occupancy API suggestion on the CPU simulation: it has no registers or SMs to ask about.");
  }
  ImGui::PopTextWrapPos();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 6. the view
// ---------------------------------------------------------------------------------------------

SweepViewAction draw_sweep_view(const SweepViewInput& in, SweepViewState* st, ImVec2* chart_min, ImVec2* chart_max) {
  SweepViewAction act;
  const lab::SweepResult& r = *in.result;
  const float em = ImGui::GetFontSize();
  const std::vector<std::string> kernels = swept_kernels(r);
  if (kernels.empty()) {
    ImGui::TextColored(ui::kDimColour, in.running ? "Waiting for the first point..." : "The sweep measured nothing.");
    if (!r.note.empty()) ImGui::TextColored(ui::kWarnColour, "%s", r.note.c_str());
    return act;
  }
  if (st->kernel.empty() || std::find(kernels.begin(), kernels.end(), st->kernel) == kernels.end())
    st->kernel = kernels.front();
  // The header: what was swept, on what, and whether its timings are a GPU's.
  if (r.simulated()) {
    ImGui::TextColored(ui::kWarnColour, "SIMULATED TIMINGS:");
    ui::item_tooltip(
        "The CPU simulation runs every thread's code on the host: its times show how the simulator "
        "copes with each shape, not how a GPU would. Occupancy and waves use CUDA's rules for a GPU "
        "with as many SMs as the simulator has workers.");
    ImGui::SameLine();
  }
  std::size_t done = 0, refused = 0;
  for (const LaunchRecord& rec : r.records) (rec.refused ? refused : done) += 1;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ui::kDimColour, "%s on %s: %zu measured, %zu refused%s", r.device.c_str(), r.problem.c_str(), done,
                     refused,
                     in.running   ? " (running)"
                     : r.complete ? ""
                                  : " (incomplete)");
  // Hardware counters, when the sweep collected them: how many points have them, or why none.
  const CounterFacts counters = counter_facts(r);
  if (counters.asked > 0 && counters.measured > 0)
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 1, 1),
                       "Hardware counters: %zu of %zu points measured (one profiled launch each). Colour by a measured "
                       "counter below, or hover a point to read them all beside the model.",
                       counters.measured, counters.asked);
  if (counters.asked > counters.measured)
    ImGui::TextColored(ui::kWarnColour, "%s counters: %s", counters.measured ? "Some points have no" : "No",
                       counters.first_failure.message.c_str());
  ImGui::PopTextWrapPos();
  if (!r.note.empty()) { ui::wrapped_text(r.fault.ok() ? ui::kWarnColour : ui::kErrorColour, "%s", r.note.c_str()); }
  // Which kernel, which metric, which z.
  ImGui::SetNextItemWidth(em * 12);
  const std::string current = st->ladder_summary ? "best of each kernel" : st->kernel;
  if (ImGui::BeginCombo("kernel##sweep", current.c_str())) {
    if (kernels.size() > 1 && ImGui::Selectable("best of each kernel", st->ladder_summary)) st->ladder_summary = true;
    for (const std::string& k : kernels)
      if (ImGui::Selectable(k.c_str(), !st->ladder_summary && k == st->kernel)) {
        st->kernel = k;
        st->ladder_summary = false;
      }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  // The measured counters are offered once the sweep has them; a saved pick of one shows time
  // until then (the pick itself is kept for the next sweep that collects counters).
  const auto label = [&](HeatmapMetric hm) {
    std::string s = metric_name(hm);
    if (hm == HeatmapMetric::Time || hm == HeatmapMetric::Throughput) s += " (" + metric_unit(hm, r.unit) + ")";
    return s;
  };
  const HeatmapMetric shown =
      is_measured_metric(*in.metric) && counters.measured == 0 ? HeatmapMetric::Time : *in.metric;
  // Wide enough for the measured names, narrower where the panel is (its label stays in view).
  const float label_w = ImGui::CalcTextSize("colour by").x + ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - label_w, em * 8, em * 16));
  if (ImGui::BeginCombo("colour by", label(shown).c_str())) {
    for (int i = 0; i < kHeatmapMetrics; ++i) {
      const auto hm = static_cast<HeatmapMetric>(i);
      const bool unavailable = is_measured_metric(hm) && counters.measured == 0;
      if (ImGui::Selectable(label(hm).c_str(), hm == shown, unavailable ? ImGuiSelectableFlags_Disabled : 0))
        *in.metric = hm;
      if (unavailable)
        ui::item_tooltip(counters.asked > 0
                             ? ("No point of this sweep has counters: " + counters.first_failure.message).c_str()
                             : "Measured on the GPU: tick \"hardware counters per point\" in the sweep settings and "
                               "sweep again (CUPTI, about 0.4 s per point).");
    }
    ImGui::EndCombo();
  }
  ui::item_tooltip(
      "What the colours show. Best and worst are always by time; occupancy (theoretical) comes from "
      "registers, shared memory, threads and the block limit; the measured ones are hardware counters "
      "of one profiled launch per point, when the sweep collected them.");

  const lab::KernelInfo* info = nullptr;
  for (const lab::KernelInfo& k : r.kernels)
    if (k.id == st->kernel) info = &k;
  const bool bars = st->ladder_summary || (info && info->style == lab::ConfigStyle::Compiled);
  const float legend_h = em * 7.5f;
  const float chart_h = std::max(em * 8, ImGui::GetContentRegionAvail().y - legend_h);
  if (bars) {
    const BarChart chart = build_bars(r, *in.facts, st->ladder_summary ? std::string() : st->kernel, shown);
    draw_bars(in, chart, st->ladder_summary ? std::string() : st->kernel, shown, chart_h, &act, chart_min, chart_max);
    draw_noise(r, *in.facts, st->ladder_summary ? std::string() : st->kernel, nullptr);
  } else {
    HeatGrid g = build_grid(r, *in.facts, st->kernel, st->z, shown);
    if (g.zs.size() > 1) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 6);
      if (ImGui::BeginCombo("blockDim.z", std::to_string(g.z).c_str())) {
        for (unsigned z : g.zs)
          if (ImGui::Selectable(std::to_string(z).c_str(), z == g.z)) st->z = z;
        ImGui::EndCombo();
      }
      g = build_grid(r, *in.facts, st->kernel, st->z, shown);
    }
    // The legend's marks, on one line above the map.
    ui::wrapped_text(ui::kDimColour,
                     "white frame: best   orange: worst   o: cannot be ranked against the best   "
                     "cyan corner: the occupancy API's thread count   crossed out: refused");
    draw_heatmap(in, g, shown, chart_h - em * 1.4f, &act, chart_min, chart_max);
    draw_noise(r, *in.facts, st->kernel, &g);
  }
  if (!r.refusals.empty() && ImGui::TreeNode("refused", "Refused before launch (%zu)", r.refusals.size())) {
    ImGui::PushTextWrapPos(0);
    for (const std::string& s : r.refusals) ImGui::TextColored(ui::kDimColour, "%s", s.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TreePop();
  }
  return act;
}

}  // namespace bs::app
