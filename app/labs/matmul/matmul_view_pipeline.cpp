// The Pipeline tab: the warp-specialized rungs' hand-overs as they ran (MatmulLab::trace_pipeline,
// kernels/labs/matmul/pipeline_trace.hpp), or a recording loaded from --matmul-pipeline-trace.
// Lanes per SM; in each, the SM's blocks one after another along time, each as three rows (the
// producer warpgroup, consumers 0 and 1); bars coloured by what the warpgroup was doing (TMA
// issue, waiting on empty/full, wgmma issue and wait, release, epilogue). Wheel zooms the time
// axis at the mouse, dragging pans it, a double click fits the whole recording; hovering a bar
// names the event, its block, warpgroup, stage, k-slice, tile and duration.
//
// Drawing stays fast at 4096^3 (512 blocks, ~400 k spans): only the rows in view are visited;
// in a row, a binary search finds the first span in the time window, and at most one bar is
// painted per pixel column (narrower spans fold into the column's first).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "labs/matmul/matmul_view.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

using matmul::PipelineSpan;
using matmul::SpanKind;

ImU32 span_colour(SpanKind k) {
  switch (k) {
    case SpanKind::WaitEmpty: return IM_COL32(120, 120, 135, 255);
    case SpanKind::TmaIssue: return IM_COL32(80, 150, 235, 255);
    case SpanKind::WaitFull: return IM_COL32(235, 95, 70, 255);
    case SpanKind::WgmmaIssue: return IM_COL32(150, 220, 120, 255);
    case SpanKind::WgmmaWait: return IM_COL32(60, 170, 85, 255);
    case SpanKind::Release: return IM_COL32(185, 120, 220, 255);
    case SpanKind::Epilogue: return IM_COL32(240, 200, 70, 255);
    case SpanKind::Count: break;
  }
  return IM_COL32(255, 255, 255, 255);
}

std::string ns_text(double ns) {
  char b[48];
  if (ns < 1e3) std::snprintf(b, sizeof b, "%.0f ns", ns);
  else if (ns < 1e6) std::snprintf(b, sizeof b, "%.2f us", ns / 1e3);
  else std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}

const char* warpgroup_name(int wg) { return wg == 0 ? "producer" : wg == 1 ? "consumer 0" : "consumer 1"; }

// The legend: each kind of span's swatch and name, wrapping to a new line where the next would not fit.
void draw_span_legend(float em) {
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  for (int k = 0; k < static_cast<int>(SpanKind::Count); ++k) {
    if (k > 0) {
      const float need =
          em * 0.9f + ImGui::GetStyle().ItemSpacing.x * 2 + ImGui::CalcTextSize(to_string(static_cast<SpanKind>(k))).x;
      ImGui::SameLine();
      if (ImGui::GetCursorScreenPos().x + need > right) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + em * 0.2f), ImVec2(p.x + em * 0.8f, p.y + em),
                                              span_colour(static_cast<SpanKind>(k)));
    ImGui::Dummy(ImVec2(em * 0.9f, em));
    ImGui::SameLine();
    ImGui::TextUnformatted(to_string(static_cast<SpanKind>(k)));
  }
}

// The time axis over [t0, t1] ns: ticks at a round step, about 8 in `span` ns, each a line from
// y_top to y_bot with its time at label_y.
template <class XOf>
void draw_time_axis(ImDrawList* dl, double t0, double t1, double span, XOf&& x_of, float label_y, float y_top,
                    float y_bot, float em) {
  const ImU32 dim = ImGui::GetColorU32(ui::kDimColour);
  const double raw_step = span / 8;
  const double mag = std::pow(10.0, std::floor(std::log10(raw_step)));
  const double step = raw_step / mag < 2 ? 2 * mag : raw_step / mag < 5 ? 5 * mag : 10 * mag;
  for (double t = std::ceil(t0 / step) * step; t <= t1; t += step) {
    const float x = x_of(t);
    dl->AddLine(ImVec2(x, y_top - em * 0.3f), ImVec2(x, y_bot), IM_COL32(60, 62, 72, 255));
    dl->AddText(ImVec2(x + 2, label_y), dim, ns_text(t).c_str());
  }
}

// The tooltip of a span: what the warpgroup was doing, its block, stage, k-slice, tile and time.
void span_tooltip(const matmul::PipelineRaw& raw, const matmul::PipelineAnalysis& an, const PipelineSpan& span,
                  std::size_t lane_index) {
  const matmul::PipelineLane& lane = an.lanes[lane_index];
  const matmul::PipelineBlock& pb = raw.blocks[std::size_t(lane.block)];
  ImGui::BeginTooltip();
  ImGui::Text("%s", to_string(span.kind));
  ImGui::Text("block %s on SM %u, %s", to_string(pb.block).c_str(), pb.sm, warpgroup_name(lane.warpgroup));
  if (span.kind == SpanKind::Epilogue) ImGui::Text("tile %d", span.tile);
  else
    ImGui::Text("stage %d, k-slice %d (k %d..%d), tile %d", span.stage, span.slice, span.slice * matmul::kTc4BK,
                span.slice * matmul::kTc4BK + matmul::kTc4BK - 1, span.tile);
  ImGui::Text("%s, from %s", ns_text(double(span.end_ns - span.begin_ns)).c_str(),
              ns_text(double(span.begin_ns)).c_str());
  ImGui::EndTooltip();
}

}  // namespace

// What a recording is made for: the file, or the shown launch on the lab's problem now.
std::string MatmulView::pipeline_key(const LaunchRecord& shown) const {
  if (!pipeline_file_.empty()) return "file:" + pipeline_file_;
  return shown.kernel + "|" + std::to_string(shown.request.compiled) + "|" + std::to_string(lab_->generation());
}

void MatmulView::record_pipeline(const LaunchRecord& shown) {
  pipeline_ = PipelineCache{};
  if (!pipeline_file_.empty()) {
    pipeline_.key = pipeline_key(shown);
    auto raw = matmul::load_pipeline_file(pipeline_file_);
    if (!raw) {
      pipeline_.status = raw.status();
      return;
    }
    pipeline_.raw = std::move(raw.value());
  } else {
    pipeline_.key = pipeline_key(shown);
    auto run = lab_->trace_pipeline(shown.kernel, shown.request);
    if (!run) {
      pipeline_.status = run.status();
      return;
    }
    pipeline_.raw = std::move(run->raw);
    pipeline_.check = run->check;
    // What the recording costs the kernel, measured beside it: 11 launches of each, one policy.
    auto cost = lab_->pipeline_cost(shown.kernel, shown.request, TimingPolicy::fixed(11, 2));
    if (cost) pipeline_.cost = cost.value();
    else pipeline_.cost_status = cost.status();
  }
  auto a = matmul::analyse_pipeline(*pipeline_.raw);
  if (!a) {
    pipeline_.status = a.status();
    return;
  }
  pipeline_.analysis = std::move(a.value());
  pipeline_t0_ = 0, pipeline_t1_ = 0;
}

void MatmulView::draw_pipeline(const LaunchRecord& shown) {
  const float em = ImGui::GetFontSize();
  // What to show: the file, else a recording of the shown launch (made once per launch and
  // problem; a T4 recording at 4096^3 is one launch and a 20 MB copy).
  if (pipeline_file_.empty() && !matmul::MatmulLab::has_pipeline(shown.kernel)) {
    ImGui::TextWrapped(
        "The Pipeline tab records the warp-specialized rungs: a producer warpgroup issuing TMA "
        "into a ring of stages and two consumer warpgroups multiplying them with wgmma. Pick T4 "
        "(tc4_warp_specialized), T5 or T6 with precision=bf16, on a Hopper GPU.");
    ImGui::TextColored(ui::kDimColour, "Shown now: %s.", shown.kernel.c_str());
    return;
  }
  if (pipeline_.key != pipeline_key(shown)) record_pipeline(shown);
  if (pipeline_file_.empty() && ImGui::SmallButton("Record again")) record_pipeline(shown);
  if (!pipeline_.analysis) {
    ImGui::TextColored(ui::kErrorColour, "%s", pipeline_.status.message.c_str());
    if (!pipeline_.status.hint.empty()) ImGui::TextWrapped("%s", pipeline_.status.hint.c_str());
    return;
  }
  draw_pipeline_summary();
  draw_span_legend(em);
  draw_pipeline_timeline();
}

// The summary: what ran, where the consumers wait, the checks, what the trace costs.
void MatmulView::draw_pipeline_summary() const {
  const matmul::PipelineRaw& raw = *pipeline_.raw;
  const matmul::PipelineAnalysis& an = *pipeline_.analysis;
  if (pipeline_file_.empty()) ImGui::SameLine();
  ImGui::Text("%s  %dx%dx%d  grid %s%s", raw.kernel.c_str(), raw.M, raw.N, raw.K, to_string(raw.grid).c_str(),
              raw.cluster.volume() > 1 ? (", clusters of " + std::to_string(raw.cluster.volume())).c_str() : "");
  ImGui::TextColored(ui::kDimColour, "%s%s", raw.source.c_str(),
                     pipeline_file_.empty() ? "" : " (a recording loaded from a file, not the launch shown)");
  if (!raw.config.empty()) ImGui::TextColored(ui::kDimColour, "%s", raw.config.c_str());
  ImGui::TextWrapped("%s", an.sentence.c_str());
  if (pipeline_.check)
    ImGui::TextColored(pipeline_.check->passed() ? ui::kOkColour : ui::kErrorColour, "Traced launch verified: %s",
                       pipeline_.check->passed() ? "yes" : pipeline_.check->note.c_str());
  if (raw.event_ms > 0)
    ImGui::TextColored(ui::kDimColour,
                       "Kernel %s (CUDA events); blocks span %s (%.1f%%), busiest SM %s (%.1f%%). Order: %zu of %zu "
                       "consumer waits ended after their stage was issued.",
                       ns_text(raw.event_ms * 1e6).c_str(), ns_text(double(an.coverage.extent_ns)).c_str(),
                       100 * an.coverage.extent_ratio, ns_text(double(an.coverage.busiest_sm_ns)).c_str(),
                       100 * an.coverage.busiest_ratio, an.order_checked - an.order_violations, an.order_checked);
  if (pipeline_.cost) {
    const auto& c = *pipeline_.cost;
    const double pct = 100 * c.overhead();
    ImGui::TextColored(pct <= 5 ? ui::kOkColour : ui::kErrorColour,
                       "What the trace costs: %s traced against %s plain (medians of %d launches each, L2 flushed "
                       "between): %+.1f%%%s",
                       ns_text(c.traced.median_ms * 1e6).c_str(), ns_text(c.plain.median_ms * 1e6).c_str(),
                       c.traced.repeats(), pct,
                       pct <= 5 ? ", within 5%: the recording shows the kernel as it runs"
                                : ", more than 5%: the recording runs slower than the rung, read its waits with care");
  } else if (pipeline_file_.empty() && !pipeline_.cost_status.ok()) {
    ImGui::TextColored(ui::kDimColour, "The trace's cost was not measured: %s", pipeline_.cost_status.message.c_str());
  }
}

// The timeline: rows are (SM, warpgroup); blocks of an SM follow each other along the rows.
void MatmulView::draw_pipeline_timeline() {
  const float em = ImGui::GetFontSize();
  const matmul::PipelineRaw& raw = *pipeline_.raw;
  const matmul::PipelineAnalysis& an = *pipeline_.analysis;
  const double total = std::max<double>(1.0, double(an.end_ns));
  if (pipeline_t1_ <= pipeline_t0_) pipeline_t0_ = 0, pipeline_t1_ = total;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float height = std::max(em * 8, avail.y - em * 1.4f);
  // Rows as tall as fit the SMs in the height (a few SMs: readable rows), at least 0.42 em.
  const float label_w = em * 4.2f, sm_gap = em * 0.25f;
  const float fit_h = (height - em * 1.2f) / std::max<float>(1.0f, float(an.sms.size())) - sm_gap;
  const float row_h = std::clamp(fit_h / 3.0f, std::max(3.0f, em * 0.42f), em * 1.1f);
  const float sm_h = 3 * row_h + sm_gap;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float width = std::max(em * 10, avail.x);
  ImGui::InvisibleButton("pipeline_timeline", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  const float x0 = p0.x + label_w, x1 = p0.x + width, axis_h = em * 1.2f;
  const float y_top = p0.y + axis_h, y_bot = p0.y + height;
  const double span_ns = pipeline_t1_ - pipeline_t0_;
  auto x_of = [&](double t) { return x0 + float((t - pipeline_t0_) / span_ns) * (x1 - x0); };
  auto t_of = [&](float x) { return pipeline_t0_ + double((x - x0) / (x1 - x0)) * span_ns; };
  const float content_h = float(an.sms.size()) * sm_h;
  const float max_scroll = std::max(0.0f, content_h - (y_bot - y_top));
  if (hovered) {
    if (io.MouseWheel != 0 && !io.KeyShift) {  // zoom at the mouse
      const double at = t_of(std::clamp(io.MousePos.x, x0, x1));
      const double f = std::pow(0.8, double(io.MouseWheel));
      pipeline_t0_ = at - (at - pipeline_t0_) * f;
      pipeline_t1_ = at + (pipeline_t1_ - at) * f;
      if (pipeline_t1_ - pipeline_t0_ < 50) pipeline_t1_ = pipeline_t0_ + 50;
    } else if (io.MouseWheel != 0) {  // Shift + wheel scrolls the SMs
      pipeline_scroll_ -= io.MouseWheel * sm_h * 3;
    }
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
      const double dt = double(io.MouseDelta.x / (x1 - x0)) * span_ns;
      pipeline_t0_ -= dt, pipeline_t1_ -= dt;
      pipeline_scroll_ -= io.MouseDelta.y;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
      pipeline_t0_ = 0, pipeline_t1_ = total, pipeline_scroll_ = 0;
  }
  pipeline_scroll_ = std::clamp(pipeline_scroll_, 0.0f, max_scroll);

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(x1, y_bot), true);
  dl->AddRectFilled(ImVec2(x0, y_top), ImVec2(x1, y_bot), IM_COL32(24, 26, 32, 255));
  const ImU32 dim = ImGui::GetColorU32(ui::kDimColour);
  draw_time_axis(dl, pipeline_t0_, pipeline_t1_, span_ns, x_of, p0.y, y_top, y_bot, em);
  // Rows in view.
  const int first_sm = std::max(0, int(pipeline_scroll_ / sm_h));
  const int last_sm = std::min(int(an.sms.size()) - 1, int((pipeline_scroll_ + (y_bot - y_top)) / sm_h));
  const PipelineSpan* hover_span = nullptr;
  int hover_lane = -1;
  for (int si = first_sm; si <= last_sm; ++si) {
    const matmul::PipelineSm& sm = an.sms[std::size_t(si)];
    const float y_sm = y_top + float(si) * sm_h - pipeline_scroll_;
    char label[32];
    std::snprintf(label, sizeof label, "SM %u", sm.sm);
    dl->AddText(ImVec2(p0.x + 2, y_sm + (3 * row_h - em) * 0.5f), dim, label);
    for (int b : sm.blocks) {
      const matmul::PipelineBlock& pb = raw.blocks[std::size_t(b)];
      for (int wg = 0; wg < matmul::kPipelineWarpgroups; ++wg) {
        const std::size_t lane_index = std::size_t(b) * matmul::kPipelineWarpgroups + std::size_t(wg);
        const matmul::PipelineLane& lane = an.lanes[lane_index];
        if (lane.spans.empty() || double(lane.last_ns) < pipeline_t0_ || double(lane.first_ns) > pipeline_t1_) continue;
        const float y = y_sm + float(wg) * row_h;
        const auto& spans = lane.spans;
        // Spans of a warpgroup follow each other, so their ends rise too: the first that ends in view.
        auto it = std::lower_bound(spans.begin(), spans.end(), pipeline_t0_,
                                   [](const PipelineSpan& s, double t) { return double(s.end_ns) < t; });
        float last_px = -1e9f;
        for (; it != spans.end() && double(it->begin_ns) <= pipeline_t1_; ++it) {
          float a = std::max(x0, x_of(double(it->begin_ns))), c = std::min(x1, x_of(double(it->end_ns)));
          if (c < last_px + 1.0f) continue;  // this pixel column is painted already
          a = std::max(a, last_px + 1.0f);
          c = std::max(c, a + 1.0f);
          dl->AddRectFilled(ImVec2(a, y), ImVec2(c, y + row_h - 1), span_colour(it->kind));
          last_px = c - 1.0f;
          if (hovered && io.MousePos.y >= y && io.MousePos.y < y + row_h && io.MousePos.x >= a && io.MousePos.x < c)
            hover_span = &*it, hover_lane = int(lane_index);
        }
      }
      // The block's frame: a line at its start (times are relative to the earliest block start).
      const double start = double(pb.start_ns - an.base_ns), end = double(pb.end_ns - an.base_ns);
      if (end >= pipeline_t0_ && start <= pipeline_t1_) {
        const float bx = x_of(start), ex = x_of(end);
        if (bx >= x0) dl->AddLine(ImVec2(bx, y_sm), ImVec2(bx, y_sm + 3 * row_h), IM_COL32(230, 230, 240, 200));
        if (ex - bx > em * 6) {
          const std::string name = "(" + std::to_string(pb.block.x) + "," + std::to_string(pb.block.y) + ")";
          dl->AddText(ImVec2(std::max(bx, x0) + 2, y_sm - em * 0.15f), IM_COL32(235, 235, 245, 230), name.c_str());
        }
      }
    }
    dl->AddLine(ImVec2(x0, y_sm + 3 * row_h + sm_gap * 0.5f), ImVec2(x1, y_sm + 3 * row_h + sm_gap * 0.5f),
                IM_COL32(45, 47, 55, 255));
  }
  dl->PopClipRect();
  ImGui::TextColored(ui::kDimColour,
                     "Rows: per SM the producer, consumer 0, consumer 1; wheel zooms, drag pans, Shift+wheel scrolls "
                     "the %zu SMs, double click fits.",
                     an.sms.size());
  if (hover_span) span_tooltip(raw, an, *hover_span, std::size_t(hover_lane));
}

}  // namespace bs::app
