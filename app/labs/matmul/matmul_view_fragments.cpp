// The tensor-core hierarchy in the matmul view (issue 20: one level up and one down):
//   1. the hover's lines: cluster -> block -> warpgroup -> warp -> lane -> register, the mma
//      instruction tile and the k-step shown (kernels/labs/matmul/matmul_fragments.hpp);
//   2. the A and B panels: the elements the lane fed in at that k-step (T1/T2), or the slices a
//      warpgroup's wgmma reads from shared memory (T3..T6);
//   3. C coloured by warpgroup, warp, lane or mma tile.
// What is drawn is the model (the PTX ISA's layouts). A tagged launch's record, where there is one,
// is named beside it, with the line saying where they differ.
//
// Fast at any size: the overlay's keys repeat from block to block, so they are computed once per
// (rung, colour) for one block's tile, put in a small texture that repeats (GL_REPEAT) and drawn
// as ONE textured quad over the part of C in view: the cost of a frame does not grow with M x N or
// with the number of elements on screen.
#include <epoxy/gl.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/median.hpp"
#include "labs/matmul/matmul_fragments.hpp"
#include "labs/matmul/matmul_view.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

// The colour of a key: neighbouring keys far apart in hue (as the block tiles' colours).
void key_rgb(std::uint32_t key, std::uint8_t rgb[3]) {
  const std::uint64_t h = (static_cast<std::uint64_t>(key) + 1) * 0x9E3779B97F4A7C15ull;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>((h >> 40) & 0xffff) / 65535.0f, 0.7f, 0.95f, r, g, b);
  rgb[0] = static_cast<std::uint8_t>(r * 255), rgb[1] = static_cast<std::uint8_t>(g * 255),
  rgb[2] = static_cast<std::uint8_t>(b * 255);
}

// A note on a dark plate at `at`, kept inside the visible part of the panel: moved left where it
// would run past the right edge, and wrapped into lines where it is wider than the panel.
std::pair<ImVec2, ImVec2> label(ImDrawList* dl, ImVec2 at, ImU32 colour, const std::string& text) {
  const float left = dl->GetClipRectMin().x + 3, right = dl->GetClipRectMax().x - 3;
  const float wrap = std::max(ImGui::GetFontSize() * 8, right - left);
  const ImVec2 ts = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
  at.x = std::max(left, std::min(at.x, right - ts.x));
  dl->AddRectFilled({at.x - 3, at.y - 1}, {at.x + ts.x + 3, at.y + ts.y + 1}, IM_COL32(10, 12, 16, 215), 3);
  dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), at, colour, text.c_str(), nullptr, wrap);
  return {{at.x - 3, at.y - 1}, {at.x + ts.x + 3, at.y + ts.y + 1}};
}

}  // namespace

bool MatmulView::fragment_colouring() const {
  const std::string& c = state_.tile_colour;
  return c == "warpgroup" || c == "warp" || c == "lane" || c == "mma";
}

bool MatmulView::layout_only(const LaunchRecord& shown) const {
  // A rung this backend cannot run (T3..T6 on the CPU) was refused before launch: its tiles and
  // fragments are still the rung's own, drawn from the model, over no result.
  return !shown.ok() && shown.status.call == "can_run" && shown.config.grid.x > 0 &&
         lab_->resolve(shown.kernel, shown.request).has_value();
}

int MatmulView::shown_k_step(const matmul::MatmulGeometry& g) const {
  const int per_phase = g.k_step >= 16 ? g.k_step / 16 : 1;
  return std::max(0, state_.phase) * per_phase + std::clamp(state_.k_step, 0, per_phase - 1);
}

std::optional<matmul::FragmentHierarchy> MatmulView::hierarchy_of(const LaunchRecord& shown, long long row,
                                                                  long long col) const {
  const auto what = lab_->resolve(shown.kernel, shown.request);
  if (!what || matmul::matmul_kernel_info(what->first).precision != matmul::Precision::Bf16) return std::nullopt;
  const auto& m = lab_->spec();
  if (row < 0 || col < 0 || row >= m.M || col >= m.N) return std::nullopt;
  const matmul::MatmulGeometry g = matmul::matmul_geometry(what->first, what->second);
  auto h = matmul::fragment_hierarchy(what->first, what->second, shown.config, m.M, m.N, m.K, static_cast<int>(row),
                                      static_cast<int>(col), shown_k_step(g));
  if (!h) return std::nullopt;
  return std::move(*h);
}

// 1. The hover's lines (under the value and the block line of draw_inspector_text).
bool MatmulView::draw_fragment_text(const LaunchRecord& shown, long long row, long long col) {
  const auto h = hierarchy_of(shown, row, col);
  if (!h) return false;
  const ImVec4 level(0.80f, 0.86f, 1.0f, 1.0f);
  for (const std::string& line : h->lines) ImGui::TextColored(level, "%s", line.c_str());
  // The record beside the model: a tagged launch says which thread and register held the element.
  const auto recorded = recorded_fragment(shown, row, col);
  const FragmentResult* result = fragment_result(shown);
  if (!recorded) {
    if (result && !result->status.ok())
      ImGui::TextColored(ui::kErrorColour, "no record: %s", result->status.message.c_str());
    else if (state_.fragments == "record" && fragment_job_.valid())
      ImGui::TextColored(ui::kDimColour, "drawn from the PTX ISA model; the tagged launch is running");
    else
      ImGui::TextColored(ui::kDimColour,
                         "drawn from the PTX ISA model: no fragment tags recorded (tick 'record fragment tags')");
  } else if (recorded->reg < 0) {
    ImGui::TextColored(ui::kErrorColour,
                       "recorded %s: no register held this element; the PTX ISA model says lane %u reg %d",
                       recorded->where.c_str(), h->place.lane, h->place.reg);
  } else if (recorded->thread == h->place.thread && recorded->reg == h->place.reg) {
    ImGui::TextColored(ui::kOkColour, "recorded %s: thread %u reg %d, as the model says", recorded->where.c_str(),
                       recorded->thread, recorded->reg);
  } else {
    ImGui::TextColored(ui::kErrorColour, "recorded %s: lane %u reg %d; the PTX ISA model says lane %u reg %d",
                       recorded->where.c_str(), recorded->thread % 32, recorded->reg, h->place.lane, h->place.reg);
  }
  // T2: the operands too (which lane ldmatrix gave which A and B element).
  const matmul::FedOperands model = matmul::fed_operands(h->place, h->block_row0, h->block_col0, h->step);
  bool on_gpu = false;
  if (const auto feed = recorded_operands(shown, *h, model, &on_gpu)) {
    const char* where = on_gpu ? "on the GPU" : "by the simulator";
    if (feed->agrees)
      ImGui::TextColored(ui::kOkColour, "its %zu A and %zu B elements (ldmatrix), recorded %s: as the model says",
                         feed->a.size(), feed->b.size(), where);
    else
      ImGui::TextColored(ui::kErrorColour,
                         "its A and B elements (ldmatrix), recorded %s: %zu A and %zu B, not the model's (its cells "
                         "outlined in yellow in A and B)",
                         where, feed->a.size(), feed->b.size());
  }
  return true;
}

std::optional<matmul::RecordedFeed> MatmulView::recorded_operands(const LaunchRecord& shown,
                                                                  const matmul::FragmentHierarchy& h,
                                                                  const matmul::FedOperands& model,
                                                                  bool* on_gpu) const {
  if (state_.fragments != "record" || model.from_shared) return std::nullopt;
  const std::shared_ptr<const matmul::FragmentRecord> rec = lab_->cached_fragment_record(shown);
  if (!rec || rec->operands.empty()) return std::nullopt;
  *on_gpu = rec->on_gpu;
  return matmul::recorded_feed(rec->operands, h.place, h.block_row0, h.block_col0, h.step, model);
}

std::string MatmulView::fragment_key(const LaunchRecord& shown) const {
  const auto& m = lab_->spec();
  return shown.kernel + "|" + std::to_string(shown.request.compiled) + "|" + std::to_string(shown.config.grid.x) + "," +
         std::to_string(shown.config.grid.y) + "," + std::to_string(shown.config.cluster.x) + "|" +
         std::to_string(m.M) + "x" + std::to_string(m.N) + "x" + std::to_string(m.K);
}

void MatmulView::wait_fragment_job() {
  if (fragment_job_.valid()) fragment_job_.wait();
}

// Starts the tagged launch of `shown` when asked for and not yet recorded; collects it once done.
// One job at a time: a newer launch waits for the running one to end.
void MatmulView::poll_fragment_record(const LaunchRecord& shown) {
  if (fragment_job_.valid() && fragment_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    fragment_result_ = fragment_job_.get();
    fragment_result_key_ = fragment_job_key_;
  }
  if (state_.fragments != "record" || !shown.ok() || fragment_job_.valid()) return;
  const auto what = lab_->resolve(shown.kernel, shown.request);
  if (!what || !matmul::has_fragment_record(what->first)) return;
  const std::string key = fragment_key(shown);
  if (key == fragment_result_key_) return;
  fragment_job_key_ = key;
  matmul::MatmulLab* lab = lab_;
  fragment_job_ = std::async(std::launch::async, [lab, shown]() {
    FragmentResult r;
    auto rec = lab->fragment_record(shown);
    if (!rec) {
      r.status = rec.status();
      return r;
    }
    r.record = *rec;
    if (auto model = lab->fragment_model(shown)) r.comparison = matmul::compare_with_model(*r.record, *model);
    else r.status = model.status();
    return r;
  });
}

const MatmulView::FragmentResult* MatmulView::fragment_result(const LaunchRecord& shown) const {
  if (!fragment_result_ || state_.fragments != "record" || fragment_result_key_ != fragment_key(shown)) return nullptr;
  return &*fragment_result_;
}

std::optional<MatmulView::RecordedFragment> MatmulView::recorded_fragment(const LaunchRecord& shown, long long row,
                                                                          long long col) const {
  const FragmentResult* r = fragment_result(shown);
  if (!r || !r->record || row < 0 || col < 0 || row >= r->record->M || col >= r->record->N) return std::nullopt;
  const matmul::FragmentTag t = r->record->at(static_cast<int>(row), static_cast<int>(col));
  RecordedFragment f;
  f.thread = t.thread < 0 ? ~0u : static_cast<unsigned>(t.thread);
  f.reg = t.reg;
  f.where = r->record->on_gpu ? "on the GPU" : "by the simulator";
  return f;
}

// 2. The A and B panels: what the hovered element's lane fed into the instruction at the k-step
// shown. a0/a1, b0/b1, c0/c1: the panels' corners on screen.
void MatmulView::draw_fed_fragments(ImDrawList* dl, const LaunchRecord& shown, long long row, long long col, ImVec2 a0,
                                    ImVec2 a1, ImVec2 b0, ImVec2 b1, ImVec2 c0, ImVec2 c1) {
  const auto h = hierarchy_of(shown, row, col);
  if (!h) return;
  const auto& m = lab_->spec();
  const matmul::FedOperands f = matmul::fed_operands(h->place, h->block_row0, h->block_col0, h->step);
  // Element (r, c) of a matrix of rows x cols drawn in p0..p1, clamped to the matrix.
  auto cell = [](ImVec2 p0, ImVec2 p1, int rows, int cols, long long r0, long long r1, long long q0, long long q1) {
    auto cl = [](long long v, long long hi) { return static_cast<float>(std::clamp<long long>(v, 0, hi)); };
    const float sx = (p1.x - p0.x) / std::max(1, cols), sy = (p1.y - p0.y) / std::max(1, rows);
    return std::pair<ImVec2, ImVec2>{{p0.x + cl(q0, cols) * sx, p0.y + cl(r0, rows) * sy},
                                     {p0.x + cl(q1, cols) * sx, p0.y + cl(r1, rows) * sy}};
  };
  auto rect = [&](ImVec2 p0, ImVec2 p1, int rows, int cols, const matmul::CRect& r) {
    return cell(p0, p1, rows, cols, r.row, r.row + r.rows, r.col, r.col + r.cols);
  };
  auto outline = [&](std::pair<ImVec2, ImVec2> b, ImU32 colour) {
    ImVec2 p = b.first, q = b.second;
    if (q.x - p.x < 3) p.x -= 1.5f, q.x += 1.5f;
    if (q.y - p.y < 3) p.y -= 1.5f, q.y += 1.5f;
    dl->AddRect(p, q, colour, 0, 0, 2.0f);
  };
  const ImU32 magenta = IM_COL32(255, 90, 220, 255), magenta_fill = IM_COL32(255, 90, 220, 235);
  const ImU32 green = IM_COL32(120, 255, 140, 255);
  // The instruction's tile of C.
  const matmul::CRect mma{h->block_row0 + h->place.tile_r, h->block_col0 + h->place.tile_c, h->place.mma_m,
                          h->place.mma_n};
  outline(rect(c0, c1, m.M, m.N, mma), green);
  outline(rect(a0, a1, m.M, m.K, f.a_tile), magenta);
  outline(rect(b0, b1, m.K, m.N, f.b_tile), magenta);
  const float a_cell = std::min((a1.x - a0.x) / std::max(1, m.K), (a1.y - a0.y) / std::max(1, m.M));
  const float b_cell = std::min((b1.x - b0.x) / std::max(1, m.N), (b1.y - b0.y) / std::max(1, m.K));
  std::string note;
  if (f.from_shared) {
    note = "wgmma reads A " + std::to_string(f.a_tile.rows) + "x16 and B 16x" + std::to_string(f.b_tile.cols) +
           " from shared memory, not from lanes (k-step " + std::to_string(h->step) + ")";
  } else if (a_cell >= 3 && b_cell >= 3) {
    // T2 with "record" on: the cells the recorded ldmatrix loads gave this lane; the model's
    // outlined beside them where the two differ.
    bool on_gpu = false;
    const std::optional<matmul::RecordedFeed> recorded = recorded_operands(shown, *h, f, &on_gpu);
    auto cells = [&](const std::vector<matmul::CRect>& v, bool a_side, bool filled) {
      for (const matmul::CRect& r : v) {
        if (a_side ? (r.row >= m.M || r.col >= m.K) : (r.row >= m.K || r.col >= m.N)) continue;  // padding
        const auto b = a_side ? rect(a0, a1, m.M, m.K, r) : rect(b0, b1, m.K, m.N, r);
        if (filled) {
          dl->AddRectFilled(b.first, b.second, magenta_fill);
          dl->AddRect(b.first, b.second, IM_COL32(255, 255, 255, 255));
        } else {
          dl->AddRect(b.first, b.second, IM_COL32(255, 220, 60, 255), 0, 0, 2.0f);
        }
      }
    };
    const bool from_record = recorded.has_value();
    cells(from_record ? recorded->a : f.a, true, true);
    cells(from_record ? recorded->b : f.b, false, true);
    if (from_record && !recorded->agrees) cells(f.a, true, false), cells(f.b, false, false);
    // Hover on a marked cell: which register of the lane holds it (the PTX ISA's m16n8k16
    // fragments: A element e in register a(e / 2), B element e in b(e / 2), two BF16 a register,
    // element e % 2 in the low half). By the model's cells: the record, where shown, is drawn
    // beside them.
    for (bool a_side : {true, false})
      for (std::size_t e = 0; e < (a_side ? f.a : f.b).size(); ++e) {
        const matmul::CRect& r = (a_side ? f.a : f.b)[e];
        if (a_side ? (r.row >= m.M || r.col >= m.K) : (r.row >= m.K || r.col >= m.N)) continue;  // padding
        const auto b = a_side ? rect(a0, a1, m.M, m.K, r) : rect(b0, b1, m.K, m.N, r);
        fed_marks_.push_back({b.first, b.second, a_side, static_cast<int>(e), r.row, r.col, h->place.lane});
      }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (const FedMark& k : fed_marks_) {
      if (!ImGui::IsWindowHovered() || mouse.x < k.p0.x || mouse.y < k.p0.y || mouse.x >= k.p1.x || mouse.y >= k.p1.y)
        continue;
      const std::size_t count = k.a_side ? f.a.size() : f.b.size();
      ImGui::BeginTooltip();
      ImGui::Text("%s[%lld][%lld]: lane %u, register %c%d, %s half", k.a_side ? "A" : "B", k.row, k.col, k.lane,
                  k.a_side ? 'a' : 'b', k.element / 2, k.element % 2 ? "high" : "low");
      ImGui::TextColored(ui::kDimColour, "element %d of the %zu %s elements the lane feeds %s at k-step %d", k.element,
                         count, k.a_side ? "A" : "B", matmul::mma_name(h->place).c_str(), h->step);
      ImGui::TextColored(ui::kDimColour,
                         "Each .b32 register holds two BF16: element 2i in the low half, 2i+1 in the high.");
      ImGui::EndTooltip();
      break;
    }
    note = "lane " + std::to_string(h->place.lane) + " fed " +
           (from_record ? std::to_string(recorded->a.size()) + " A and " + std::to_string(recorded->b.size())
                        : std::string("8 A and 4")) +
           " B elements of " + matmul::mma_name(h->place) + " (k-step " + std::to_string(h->step) + ")" +
           (!from_record       ? ", by the model"
            : recorded->agrees ? ", recorded"
                               : ", recorded: not the model's");
  } else {
    note = "lane " + std::to_string(h->place.lane) + "'s A 16x16 and B 16x8 tiles, k-step " + std::to_string(h->step) +
           ": zoom in to see its elements";
  }
  const auto bt = rect(b0, b1, m.K, m.N, f.b_tile);
  fed_note_ =
      label(dl, {std::max(b0.x, std::min(bt.second.x + 6, b1.x + 6)), std::max(b0.y, bt.first.y)}, magenta, note);
}

// 3. C coloured by warpgroup, warp, lane or mma tile: one block's keys in a repeating texture,
// one quad over the part of C in view; a note saying it is the model (or the record).
void MatmulView::draw_fragment_colours(ImDrawList* dl, const LaunchRecord& shown, ImVec2 c0, ImVec2 c1) {
  const auto& m = lab_->spec();
  const auto what = lab_->resolve(shown.kernel, shown.request);
  const matmul::FragmentColour colour = state_.tile_colour == "warpgroup" ? matmul::FragmentColour::Warpgroup
                                        : state_.tile_colour == "warp"    ? matmul::FragmentColour::Warp
                                        : state_.tile_colour == "lane"    ? matmul::FragmentColour::Lane
                                                                          : matmul::FragmentColour::Mma;
  const std::string key = shown.kernel + "|" + std::to_string(shown.request.compiled) + "|" + state_.tile_colour;
  FragmentColours& fc = fragment_colours_;
  if (fc.key != key) {
    fc = FragmentColours{};
    fc.key = key;
    if (!what) {
      fc.status = Status::failure("warps and lanes are coloured for the lab's own rungs", "", "fragments");
    } else if (auto keys = matmul::fragment_keys(what->first, what->second, colour)) {
      fc.keys = std::move(*keys);
      std::vector<std::uint8_t> rgba(fc.keys.keys.size() * 4);
      for (std::size_t i = 0; i < fc.keys.keys.size(); ++i) {
        key_rgb(fc.keys.keys[i], &rgba[4 * i]);
        rgba[4 * i + 3] = 150;
      }
      if (auto t = GlTexture::create_rgba8(fc.keys.cols, fc.keys.rows, rgba.data())) {
        fc.texture = std::move(*t);
        GLint bound = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
        glBindTexture(GL_TEXTURE_2D, fc.texture.id());
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
      } else {
        fc.status = t.status();
      }
    } else {
      fc.status = keys.status();
    }
  }
  const ImVec2 text_at(c0.x + 4, c0.y + 2);
  if (!fc.status.ok()) {
    label(dl, text_at, IM_COL32(235, 235, 240, 255), fc.status.message);
    return;
  }
  const float ew = (c1.x - c0.x) / std::max(1, m.N), eh = (c1.y - c0.y) / std::max(1, m.M);
  std::string note;
  if (ew < 2 || eh < 2) {
    note = state_.tile_colour + ": elements under 2 pixels at this zoom: zoom in";
  } else {
    // The part of C in view, in elements, and the same rectangle on screen.
    const ImVec2 clip0 = dl->GetClipRectMin(), clip1 = dl->GetClipRectMax();
    const ImVec2 p0(std::max(c0.x, clip0.x), std::max(c0.y, clip0.y)),
        p1(std::min(c1.x, clip1.x), std::min(c1.y, clip1.y));
    if (p1.x > p0.x && p1.y > p0.y) {
      const double col0 = (p0.x - c0.x) / ew, col1 = (p1.x - c0.x) / ew;
      const double row0 = (p0.y - c0.y) / eh, row1 = (p1.y - c0.y) / eh;
      // Whole repeats of the block's tile dropped from the texture coordinates: they stay small.
      const double base_c = std::floor(col0 / fc.keys.cols) * fc.keys.cols;
      const double base_r = std::floor(row0 / fc.keys.rows) * fc.keys.rows;
      const ImVec2 uv0(static_cast<float>((col0 - base_c) / fc.keys.cols),
                       static_cast<float>((row0 - base_r) / fc.keys.rows));
      const ImVec2 uv1(static_cast<float>((col1 - base_c) / fc.keys.cols),
                       static_cast<float>((row1 - base_r) / fc.keys.rows));
      dl->AddImage(ui::gl_texture(fc.texture.id()), p0, p1, uv0, uv1);
    }
    const std::string what_key = state_.tile_colour == "mma" ? "mma instruction tile" : state_.tile_colour;
    note = what_key + " (" + std::to_string(fc.keys.distinct) + " per block): the PTX ISA model";
    if (const FragmentResult* r = fragment_result(shown); r && r->record) {
      // The record beside the model: where they agree everywhere the model's colours are the
      // record's; where not, the first differing elements are ringed in red.
      note += std::string("; recorded ") + (r->record->on_gpu ? "on the GPU" : "by the simulator") + ": " +
              r->comparison.summary();
      for (const matmul::FragmentDifference& d : r->comparison.first) {
        const ImVec2 q0(c0.x + d.col * ew, c0.y + d.row * eh);
        dl->AddRect({q0.x - 2, q0.y - 2}, {q0.x + ew + 2, q0.y + eh + 2}, IM_COL32(255, 60, 60, 255), 0, 0, 2.0f);
      }
    } else if (state_.fragments == "record" && fragment_job_.valid()) {
      note += "; the tagged launch is running";
    } else {
      note += " (no fragment tags recorded)";
    }
  }
  const FragmentResult* r = fragment_result(shown);
  const bool differ = r && r->record && !r->comparison.all_agree();
  label(dl, text_at, differ ? IM_COL32(255, 110, 110, 255) : IM_COL32(235, 235, 240, 255), note);
  // A key for the few-coloured choices: a swatch per warpgroup or warp.
  if (fc.keys.distinct > 0 && fc.keys.distinct <= 12 && note.find("zoom in") == std::string::npos) {
    float x = text_at.x;
    const float y = text_at.y + ImGui::GetTextLineHeight() + 4, s = ImGui::GetTextLineHeight();
    for (std::uint32_t k = 0; k < fc.keys.distinct; ++k) {
      std::uint8_t rgb[3];
      key_rgb(k, rgb);
      dl->AddRectFilled({x, y}, {x + s, y + s}, IM_COL32(rgb[0], rgb[1], rgb[2], 230));
      char num[16];
      std::snprintf(num, sizeof num, "%u", k);
      dl->AddText({x + s + 2, y}, IM_COL32(235, 235, 240, 255), num);
      x += s + ImGui::CalcTextSize(num).x + 8;
    }
  }
}

// The data view's own cost, for --headless runs (BLOCKSCOPE_VIEW_COST=1 prints the median at exit).
void MatmulView::note_view_cost(double ms) {
  view_costs_.push_back(ms);
  if (view_costs_.size() > 4096) view_costs_.erase(view_costs_.begin(), view_costs_.begin() + 2048);
}

void MatmulView::report_view_cost() const {
  const char* env = std::getenv("BLOCKSCOPE_VIEW_COST");
  if (!env || !*env || view_costs_.size() < 2) return;
  std::vector<double> v(view_costs_.begin() + 1, view_costs_.end());  // the first frame warms up
  const double worst = *std::max_element(v.begin(), v.end());
  std::fprintf(stderr, "matmul view: data view CPU time per frame: median %.3f ms, max %.3f ms over %zu frames\n",
               median_of(v), worst, v.size());
}

}  // namespace bs::app
