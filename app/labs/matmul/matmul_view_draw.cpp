// The matmul lab's centre view: A, B, C and |C - reference| as heatmaps, laid out like the
// product itself,
//
//            [ B   K x N ]                      [ B ]
//   [ A M x K ][ C   M x N ][ |C - ref| ]   or  [ A ][ C ]
//                                               [   ][ |C - ref| ]
//
// (whichever gives the larger matrices in this view), so the rows of A line up with the rows of
// C and the columns of B with its columns: hovering C(i, j) lights up its block's tile of C, the
// row panel of A and the column panel of B that block reads, and for shared-memory rungs the
// K tile of the selected phase. Matrices far apart in size are drawn with compressed lengths
// (d^gamma, at most 4:1 between sides), so a 10000 x 10 C stays visible next to a 784-wide A.
// Overlays are drawn with ImDrawList over the images, in element coordinates, so they stay
// exact whatever the heatmaps' downsampling. The wheel zooms about the cursor and a drag pans;
// zoom 0 in the view state is "fit".
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "labs/custom/user_kernel_lab.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "labs/matmul/matmul_view.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

using ui::kDimColour;
using ui::kErrorColour;
using ui::kOkColour;

struct Box {
  ImVec2 p0{0, 0}, p1{0, 0};
  float w() const { return p1.x - p0.x; }
  float h() const { return p1.y - p0.y; }
  bool contains(ImVec2 p) const { return p.x >= p0.x && p.y >= p0.y && p.x < p1.x && p.y < p1.y; }
};

// One matrix on screen: element (row, col) <-> screen position.
struct MatrixPanel {
  Box box;
  int rows = 1, cols = 1;
  ImVec2 at(double row, double col) const {
    return {box.p0.x + static_cast<float>(col / cols) * box.w(), box.p0.y + static_cast<float>(row / rows) * box.h()};
  }
  // Rows [r0, r1) x columns [c0, c1), clamped to the matrix.
  Box cells(long long r0, long long r1, long long c0, long long c1) const {
    auto cl = [](long long v, long long hi) { return static_cast<double>(std::clamp<long long>(v, 0, hi)); };
    return {at(cl(r0, rows), cl(c0, cols)), at(cl(r1, rows), cl(c1, cols))};
  }
  std::optional<std::pair<int, int>> element(ImVec2 p) const {
    if (!box.contains(p) || box.w() <= 0 || box.h() <= 0) return std::nullopt;
    const int r = std::clamp(static_cast<int>((p.y - box.p0.y) / box.h() * rows), 0, rows - 1);
    const int c = std::clamp(static_cast<int>((p.x - box.p0.x) / box.w() * cols), 0, cols - 1);
    return std::pair{r, c};
  }
};

struct Layout {
  MatrixPanel a, b, c, err;
  Box corner;  // left of B, above A: room for the inspector card
  Box spare;   // below A when |C - ref| sits below C
  bool err_right = true;
};

Layout compute_layout(ImVec2 origin, ImVec2 size, int M, int N, int K, float title_h, float gap) {
  const double lo = std::min({M, N, K}), hi = std::max({M, N, K});
  const double ratio = hi / std::max(1.0, lo);
  const double gamma = ratio <= 4 ? 1.0 : std::log(4.0) / std::log(ratio);
  const double LM = std::pow(M, gamma), LN = std::pow(N, gamma), LK = std::pow(K, gamma);
  const double W = size.x, H = size.y;
  const double scale_right = std::min((W - 2 * gap) / (LK + 2 * LN), (H - 2 * title_h) / (LK + LM));
  const double scale_down = std::min((W - gap) / (LK + LN), (H - 3 * title_h) / (LK + 2 * LM));
  Layout L;
  L.err_right = scale_right >= scale_down;
  const float s = static_cast<float>(std::max(0.0, L.err_right ? scale_right : scale_down));
  const float wK = static_cast<float>(LK) * s, wN = static_cast<float>(LN) * s, hM = static_cast<float>(LM) * s;
  const float content_w = L.err_right ? wK + 2 * wN + 2 * gap : wK + wN + gap;
  const float content_h = L.err_right ? wK + hM + 2 * title_h : wK + 2 * hM + 3 * title_h;
  const ImVec2 start(origin.x + std::floor((size.x - content_w) / 2), origin.y + std::floor((size.y - content_h) / 2));
  const float xa = start.x, xc = xa + wK + gap, xe = xc + wN + gap;
  const float yb = start.y + title_h, yc = yb + wK + title_h;
  L.b = {{{xc, yb}, {xc + wN, yb + wK}}, K, N};
  L.a = {{{xa, yc}, {xa + wK, yc + hM}}, M, K};
  L.c = {{{xc, yc}, {xc + wN, yc + hM}}, M, N};
  L.corner = {{xa, yb}, {xa + wK, yb + wK}};
  if (L.err_right) {
    L.err = {{{xe, yc}, {xe + wN, yc + hM}}, M, N};
  } else {
    const float ye = yc + hM + title_h;
    L.err = {{{xc, ye}, {xc + wN, ye + hM}}, M, N};
    L.spare = {{xa, ye}, {xa + wK, ye + hM}};
  }
  return L;
}

// Lines every `period` elements along one axis of a panel, fading out as they crowd together.
void draw_grid_lines(ImDrawList* dl, const MatrixPanel& p, int row_period, int col_period, ImU32 rgb) {
  auto draw_axis = [&](int period, int extent, float pixels, bool vertical) {
    if (period <= 0 || extent <= period) return;
    const float spacing = pixels * period / extent;
    const float fade = std::clamp((spacing - 3.0f) / 7.0f, 0.0f, 1.0f);
    if (fade <= 0 || extent / period > 1024) return;
    const ImU32 colour = (rgb & 0x00FFFFFFu) | (static_cast<ImU32>(150 * fade) << IM_COL32_A_SHIFT);
    for (int v = period; v < extent; v += period) {
      if (vertical) {
        const float x = p.at(0, v).x;
        dl->AddLine({x, p.box.p0.y}, {x, p.box.p1.y}, colour);
      } else {
        const float y = p.at(v, 0).y;
        dl->AddLine({p.box.p0.x, y}, {p.box.p1.x, y}, colour);
      }
    }
  };
  draw_axis(col_period, p.cols, p.box.w(), true);
  draw_axis(row_period, p.rows, p.box.h(), false);
}

void outline(ImDrawList* dl, const Box& b, ImU32 colour, float thickness = 2.0f) {
  // At least a few pixels, so a one-element tile of a big matrix is still visible.
  ImVec2 p0 = b.p0, p1 = b.p1;
  if (p1.x - p0.x < 3) p0.x -= 1.5f, p1.x += 1.5f;
  if (p1.y - p0.y < 3) p0.y -= 1.5f, p1.y += 1.5f;
  dl->AddRect(p0, p1, colour, 0, 0, thickness);
}

void fill(ImDrawList* dl, const Box& b, ImU32 colour) { dl->AddRectFilled(b.p0, b.p1, colour); }

void dashed_rect(ImDrawList* dl, const Box& b, ImU32 colour) {
  const float dash = 5, gap = 4;
  auto line = [&](ImVec2 a, ImVec2 z) {
    const float len = std::hypot(z.x - a.x, z.y - a.y);
    if (len <= 0) return;
    const ImVec2 d((z.x - a.x) / len, (z.y - a.y) / len);
    for (float t = 0; t < len; t += dash + gap) {
      const float e = std::min(len, t + dash);
      dl->AddLine({a.x + d.x * t, a.y + d.y * t}, {a.x + d.x * e, a.y + d.y * e}, colour, 2.0f);
    }
  };
  line(b.p0, {b.p1.x, b.p0.y});
  line({b.p1.x, b.p0.y}, b.p1);
  line(b.p1, {b.p0.x, b.p1.y});
  line({b.p0.x, b.p1.y}, b.p0);
}

void shadowed_text(ImDrawList* dl, ImVec2 p, ImU32 colour, const char* text) {
  dl->AddText({p.x + 1, p.y + 1}, IM_COL32(0, 0, 0, 200), text);
  dl->AddText(p, colour, text);
}

// The title line above a panel, clipped to the panel's width (plus the gap to its neighbour).
void title(ImDrawList* dl, const MatrixPanel& p, float title_h, float extra_w, const char* name,
           const std::string& detail) {
  const ImVec2 at(p.box.p0.x, p.box.p0.y - title_h + 2);
  dl->PushClipRect({at.x, at.y}, {p.box.p1.x + extra_w, p.box.p0.y}, true);
  dl->AddText(at, IM_COL32(235, 235, 240, 255), name);
  const float w = ImGui::CalcTextSize(name).x;
  dl->AddText({at.x + w + 6, at.y}, IM_COL32(150, 155, 168, 255), detail.c_str());
  dl->PopClipRect();
}

// What the inspected element is and how it was computed: the block tile from the launch's own
// grid and scheme, the thread from the lab.
struct ElementInfo {
  long long row = 0, col = 0;
  Dim3 block_idx;
  long long tile_r0 = 0, tile_c0 = 0;
  int tile_rows = 0, tile_cols = 0;
  bool partial = false;
  std::optional<mapping::ElementOwner> owner;
};

ElementInfo describe_element(const lab::Lab& lab, const matmul::MatmulLab& mm, const LaunchRecord& shown,
                             const matmul::MatmulGeometry& g, long long row, long long col) {
  const auto& m = mm.spec();
  ElementInfo e;
  e.row = row, e.col = col;
  e.tile_rows = std::max(1, g.block_rows), e.tile_cols = std::max(1, g.block_cols);
  const unsigned br = static_cast<unsigned>(row / e.tile_rows), bc = static_cast<unsigned>(col / e.tile_cols);
  e.block_idx = g.x_walks_rows ? Dim3{br, bc, 0} : Dim3{bc, br, 0};
  e.tile_r0 = static_cast<long long>(br) * e.tile_rows;
  e.tile_c0 = static_cast<long long>(bc) * e.tile_cols;
  e.partial = e.tile_r0 + e.tile_rows > m.M || e.tile_c0 + e.tile_cols > m.N;
  e.owner = lab.owner(shown, col, row);
  return e;
}

// The view's zoom and centre (fractions of the fitted area) after this frame's wheel and drag,
// kept in `view` (zoom 0: fit). Call it right after the view's InvisibleButton: the wheel zooms
// about the cursor (the point under it stays under it); a drag with either button pans (as in the
// grayscale lab), from fit too, which then leaves fit at 1x, moved. A press that starts on the view
// makes it the active item, so the drag keeps panning when the pointer leaves the view.
struct PanZoom {
  float zoom, cx, cy;
};
PanZoom pan_and_zoom(ViewState& view, bool hovered, ImVec2 area0, ImVec2 area) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  float zoom = view.zoom > 0 ? view.zoom : 1.0f;
  float cx = view.zoom > 0 && view.center_x >= 0 ? view.center_x : 0.5f;
  float cy = view.zoom > 0 && view.center_y >= 0 ? view.center_y : 0.5f;
  if (hovered && io.MouseWheel != 0) {
    const float fx = cx + (mouse.x - (area0.x + area.x * 0.5f)) / (area.x * zoom);
    const float fy = cy + (mouse.y - (area0.y + area.y * 0.5f)) / (area.y * zoom);
    const float next = std::clamp(zoom * std::pow(1.2f, io.MouseWheel), 1.0f, 64.0f);
    cx = fx - (fx - cx) * zoom / next;
    cy = fy - (fy - cy) * zoom / next;
    zoom = next;
    view.zoom = zoom <= 1.0f ? 0 : zoom;
    view.center_x = cx, view.center_y = cy;
  }
  const bool dragging = (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) ||
                        (hovered && ImGui::IsMouseDragging(ImGuiMouseButton_Right));
  if (dragging && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0)) {
    cx -= io.MouseDelta.x / (area.x * zoom);
    cy -= io.MouseDelta.y / (area.y * zoom);
    view.zoom = zoom;
    view.center_x = cx, view.center_y = cy;
  }
  return {zoom, cx, cy};
}

// A note in amber on dark under a matrix's box.
void note_below(ImDrawList* dl, const Box& box, const std::string& note) {
  const ImVec2 ts = ImGui::CalcTextSize(note.c_str());
  const ImVec2 at(box.p0.x, box.p1.y + 4);
  dl->AddRectFilled({at.x - 3, at.y - 1}, {at.x + ts.x + 3, at.y + ts.y + 1}, IM_COL32(60, 40, 10, 220), 3);
  dl->AddText(at, IM_COL32(255, 205, 90, 255), note.c_str());
}

// Over the inspected element `e`: its block's tile of C (and of the error map) with the row panel
// of A and the column panel of B the block reads (amber), its warp's tile (violet) and the
// thread's own elements (white), the row of A and column of B it sums over, and, for rungs that
// stage through shared memory, the K tiles of phase `phase` (cyan; the next one dashed where two
// stages overlap), labelled beside B unless that runs past `right`.
void draw_element_tiles(ImDrawList* dl, const Layout& L, const ElementInfo& e, const matmul::MatmulGeometry& g, int K,
                        int phase, float right) {
  const ImU32 amber = IM_COL32(255, 196, 60, 255), amber_fill = IM_COL32(255, 196, 60, 46);
  const ImU32 cyan = IM_COL32(90, 225, 255, 255), cyan_fill = IM_COL32(90, 225, 255, 80);
  const long long r0 = e.tile_r0, r1 = e.tile_r0 + e.tile_rows, c0 = e.tile_c0, c1 = e.tile_c0 + e.tile_cols;
  for (const MatrixPanel* p : {&L.c, &L.err}) {
    const Box t = p->cells(r0, r1, c0, c1);
    fill(dl, t, amber_fill);
    outline(dl, t, amber);
    outline(dl, p->cells(e.row, e.row + 1, e.col, e.col + 1), IM_COL32(255, 255, 255, 255), 1.5f);
  }
  const Box pa = L.a.cells(r0, r1, 0, K), pb = L.b.cells(0, K, c0, c1);
  fill(dl, pa, amber_fill);
  outline(dl, pa, amber);
  fill(dl, pb, amber_fill);
  outline(dl, pb, amber);
  if (e.owner) {
    const ImU32 white_fill = IM_COL32(255, 255, 255, 40), white = IM_COL32(255, 255, 255, 230);
    const ImU32 violet = IM_COL32(190, 150, 255, 255);
    if (e.owner->warp_tile.w > 0) {
      const auto& w = e.owner->warp_tile;
      for (const MatrixPanel* p : {&L.c, &L.err}) outline(dl, p->cells(w.y, w.y + w.h, w.x, w.x + w.w), violet, 1.5f);
    }
    long long owned = 0;
    for (const auto& r : e.owner->owns) owned += r.w * r.h;
    if (owned > 1) {
      for (const auto& r : e.owner->owns) {
        for (const MatrixPanel* p : {&L.c, &L.err}) {
          const Box b = p->cells(r.y, r.y + r.h, r.x, r.x + r.w);
          fill(dl, b, white_fill);
          outline(dl, b, white, 1.0f);
        }
        fill(dl, L.a.cells(r.y, r.y + r.h, 0, K), white_fill);
        fill(dl, L.b.cells(0, K, r.x, r.x + r.w), white_fill);
      }
    }
  }
  const ImVec2 ra0 = L.a.at(e.row + 0.5, 0), ra1 = L.a.at(e.row + 0.5, K);
  dl->AddLine(ra0, ra1, IM_COL32(255, 255, 255, 200), 1.0f);
  const ImVec2 cb0 = L.b.at(0, e.col + 0.5), cb1 = L.b.at(K, e.col + 0.5);
  dl->AddLine(cb0, cb1, IM_COL32(255, 255, 255, 200), 1.0f);
  if (g.k_step > 0) {
    const int phases = (K + g.k_step - 1) / g.k_step;
    const int p = std::clamp(phase, 0, phases - 1);
    const long long k0 = static_cast<long long>(p) * g.k_step, k1 = k0 + g.k_step;
    const Box sa = L.a.cells(r0, r1, k0, k1), sb = L.b.cells(k0, k1, c0, c1);
    fill(dl, sa, cyan_fill);
    outline(dl, sa, cyan);
    fill(dl, sb, cyan_fill);
    outline(dl, sb, cyan);
    if (g.stages == 2 && p + 1 < phases) {
      dashed_rect(dl, L.a.cells(r0, r1, k1, k1 + g.k_step), cyan);
      dashed_rect(dl, L.b.cells(k1, k1 + g.k_step, c0, c1), cyan);
    }
    char label[64];
    std::snprintf(label, sizeof label, "shared memory, phase %d", p);
    const ImVec2 ts = ImGui::CalcTextSize(label);
    const float beside_b = L.b.box.p1.x + 6;
    const float x = beside_b + ts.x + 4 < right ? beside_b : sb.p1.x + 6;
    const ImVec2 at(x, std::max(L.b.box.p0.y, sb.p0.y + (sb.h() - ts.y) / 2));
    dl->AddRectFilled({at.x - 3, at.y - 1}, {at.x + ts.x + 3, at.y + ts.y + 1}, IM_COL32(10, 12, 16, 215), 3);
    dl->AddText(at, cyan, label);
  }
}

}  // namespace

void MatmulView::draw_inspector_text(const LaunchRecord& shown, long long row, long long col, bool pinned) {
  const auto& m = lab_->spec();
  const auto geometry = geometry_of(shown);
  if (!geometry) {
    // A user kernel whose stores follow no closed form: its value and who stored it.
    ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.35f, 1.0f), "C[%lld][%lld]%s", row, col, pinned ? "  (pinned)" : "");
    if (const auto got = c_value(row, col)) ImGui::Text("= %.6g", *got);
    if (const auto o = stack_->owner(shown, col, row))
      ImGui::Text("stored by thread (%u, %u) of block (%u, %u)", o->thread.thread.x, o->thread.thread.y,
                  o->thread.block.x, o->thread.block.y);
    else if (const auto* user = lab::layer<custom::UserKernelLab>(*stack_); user && user->findings_pending())
      ImGui::TextColored(kDimColour,
                         "which thread stores it is being recorded: the CPU simulator is replaying "
                         "this launch");
    else ImGui::TextColored(kDimColour, "which thread stores it is not recorded for this launch");
    return;
  }
  const matmul::MatmulGeometry g = *geometry;
  const ElementInfo e = describe_element(*stack_, *lab_, shown, g, row, col);
  ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.35f, 1.0f), "C[%lld][%lld]", e.row, e.col);
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "row %lld, column %lld%s", e.row, e.col, pinned ? "  (pinned)" : "");
  // A rung refused on this backend (T3..T6 on the CPU) computed nothing: no value to show.
  const auto got = shown.ok() ? c_value(e.row, e.col) : std::nullopt;
  const std::size_t i = static_cast<std::size_t>(e.row) * m.N + static_cast<std::size_t>(e.col);
  const auto& ref = lab_->reference();
  if (got && i < ref.size())
    ImGui::Text("= %.6g   reference %.6g   |err| %.2g", *got, ref[i], std::fabs(static_cast<double>(*got) - ref[i]));
  else if (i < ref.size()) ImGui::Text("reference %.6g", ref[i]);
  if (!shown.ok()) ImGui::TextColored(kDimColour, "not run on this backend: the layout by the model");
  // Tensor-core rungs: cluster -> block -> warpgroup -> warp -> lane -> register, the mma tile
  // and the k-step (matmul_view_fragments.cpp); the other rungs: the block and the thread.
  const bool fragments = draw_fragment_text(shown, e.row, e.col);
  if (!fragments)
    ImGui::Text("block (%u, %u) of grid (%u, %u)", e.block_idx.x, e.block_idx.y, shown.config.grid.x,
                shown.config.grid.y);
  if (e.owner && !fragments) {
    const auto& o = *e.owner;
    const int outputs = g.thread_rows * g.thread_cols;
    if (shown.config.block.y > 1)
      ImGui::Text("thread (%u, %u), warp %u lane %u", o.thread.thread.x, o.thread.thread.y, o.thread.warp_in_block,
                  o.thread.lane);
    else ImGui::Text("thread %u, warp %u lane %u", o.thread.thread.x, o.thread.warp_in_block, o.thread.lane);
    const matmul::MatmulKernelInfo* rung = matmul::find_matmul_kernel(shown.kernel);
    const bool warpgroup_tiles = rung && rung->needs == matmul::RungNeeds::Sm90a;  // wgmma's tiles
    long long held = 0;  // what the owner map says the thread stores (fragments of any shape)
    for (const auto& r : o.owns) held += r.w * r.h;
    if (outputs == 1 && o.owns.size() <= 1) ImGui::TextColored(kDimColour, "one output: %d multiply-adds", m.K);
    else if (o.owns.size() > 1)
      ImGui::TextColored(kDimColour, "%lld outputs: %zu pieces of %lld x %lld in its %s's %lld x %lld tile", held,
                         o.owns.size(), o.owns.front().h, o.owns.front().w, warpgroup_tiles ? "warpgroup" : "warp",
                         o.warp_tile.h, o.warp_tile.w);
    else ImGui::TextColored(kDimColour, "%d outputs (%d x %d) in registers", outputs, g.thread_rows, g.thread_cols);
  }
  ImGui::TextColored(kDimColour, "tile of C: rows %lld..%lld, cols %lld..%lld%s", e.tile_r0,
                     std::min<long long>(m.M, e.tile_r0 + e.tile_rows) - 1, e.tile_c0,
                     std::min<long long>(m.N, e.tile_c0 + e.tile_cols) - 1, e.partial ? " (edge: idle threads)" : "");
  ImGui::TextColored(kDimColour, "reads A rows %lld..%lld x all %d k", e.tile_r0,
                     std::min<long long>(m.M, e.tile_r0 + e.tile_rows) - 1, m.K);
  ImGui::TextColored(kDimColour, "  and B cols %lld..%lld x all %d k", e.tile_c0,
                     std::min<long long>(m.N, e.tile_c0 + e.tile_cols) - 1, m.K);
  if (g.k_step > 0) {
    const int phases = (m.K + g.k_step - 1) / g.k_step;
    const int p = std::clamp(state_.phase, 0, phases - 1);
    ImGui::TextColored(ImVec4(0.35f, 0.88f, 1.0f, 1.0f), "phase %d of %d: k %d..%d in shared memory", p, phases,
                       p * g.k_step, std::min(m.K, (p + 1) * g.k_step) - 1);
  }
}

// The block tiles of C in the colours of their block, cluster or SM (matmul_tiles.hpp), over the
// heatmap; only the tiles in view, and none while a tile is under two pixels (zoom in). The line
// in C's corner says where the colours come from: the record (a traced launch's %clusterid or
// %smid) or the model.
void MatmulView::draw_tile_colours(ImDrawList* dl, const LaunchRecord& shown, ImVec2 c0, ImVec2 c1) {
  const auto what = lab_->resolve(shown.kernel, shown.request);
  const matmul::TileColour colour = state_.tile_colour == "cluster" ? matmul::TileColour::Cluster
                                    : state_.tile_colour == "sm"    ? matmul::TileColour::Sm
                                                                    : matmul::TileColour::Block;
  const auto& m = lab_->spec();
  auto d3 = [](Dim3 d) { return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); };
  const std::string key = shown.kernel + "|" + std::to_string(shown.request.compiled) + "|" + d3(shown.config.grid) +
                          "|" + d3(shown.config.cluster) + "|" + std::to_string(m.M) + "x" + std::to_string(m.N) + "|" +
                          std::to_string(shown.schedule.size()) + "|" + state_.tile_colour;
  TileColours& tc = tile_colours_;
  if (tc.key != key) {
    tc = TileColours{};
    tc.key = key;
    if (!what) {
      tc.status = Status::failure("tile colours follow a rung's own tiles; this kernel has none to name", "", "tiles");
    } else if (auto tiles = matmul::c_tiles(what->first, what->second, shown.config, m.M, m.N)) {
      tc.tiles = std::move(*tiles);
      tc.keys = matmul::tile_keys(tc.tiles, shown, colour, &tc.recorded);
    } else {
      tc.status = tiles.status();
    }
  }
  const ImVec2 text_at(c0.x + 4, c0.y + 2);
  if (!tc.status.ok()) {
    shadowed_text(dl, text_at, IM_COL32(235, 235, 240, 255), tc.status.message.c_str());
    return;
  }
  const float cell_w = (c1.x - c0.x) * tc.tiles.tile_cols / std::max(1, m.N);
  const float cell_h = (c1.y - c0.y) * tc.tiles.tile_rows / std::max(1, m.M);
  const ImVec2 clip0 = dl->GetClipRectMin(), clip1 = dl->GetClipRectMax();
  const int r0 = std::max(0, static_cast<int>((clip0.y - c0.y) / std::max(cell_h, 1e-3f)));
  const int r1 = std::min(tc.tiles.rows, static_cast<int>((clip1.y - c0.y) / std::max(cell_h, 1e-3f)) + 1);
  const int q0 = std::max(0, static_cast<int>((clip0.x - c0.x) / std::max(cell_w, 1e-3f)));
  const int q1 = std::min(tc.tiles.cols, static_cast<int>((clip1.x - c0.x) / std::max(cell_w, 1e-3f)) + 1);
  const bool too_small = cell_w < 2 || cell_h < 2 || static_cast<long long>(r1 - r0) * (q1 - q0) > 40000;
  std::string note;
  if (too_small) {
    note = "tiles too small to colour at this zoom: zoom in";
  } else {
    int unknown = 0;
    for (int r = r0; r < r1; ++r)
      for (int q = q0; q < q1; ++q) {
        const std::uint64_t k = tc.keys[static_cast<std::size_t>(r) * tc.tiles.cols + q];
        if (k == matmul::kNoKey) {
          ++unknown;
          continue;
        }
        // Spread the keys over hues (neighbouring ids differ), drawn translucent over C.
        const std::uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ull;
        float rr, gg, bb;
        ImGui::ColorConvertHSVtoRGB(static_cast<float>((h >> 40) & 0xffff) / 65535.0f, 0.65f, 0.95f, rr, gg, bb);
        const ImVec2 a(c0.x + q * cell_w, c0.y + r * cell_h);
        const ImVec2 b(std::min(c1.x, a.x + cell_w), std::min(c1.y, a.y + cell_h));
        dl->AddRectFilled(a, b, ImGui::ColorConvertFloat4ToU32(ImVec4(rr, gg, bb, 0.55f)));
      }
    if (colour == matmul::TileColour::Cluster) {
      const Dim3 c = shown.config.cluster;
      note = c.volume() <= 1 ? "cluster: none launched (each block its own cluster of one)"
             : tc.recorded   ? "cluster: as each block recorded it on the GPU (%clusterid), clusters of " + d3(c)
                             : "cluster: the model (blockIdx / cluster dims " + d3(c) +
                                 "); a traced launch on an sm_90 GPU records it";
    } else if (colour == matmul::TileColour::Sm) {
      note = unknown == 0               ? "SM: as recorded by the traced launch (%smid)"
             : shown.schedule_simulated ? "SM: a simulated launch has workers, not SMs"
                                        : "SM: not recorded: tick 'Record the block schedule'";
    } else {
      note = "block: each block's tiles in its colour";
    }
  }
  const ImVec2 ts = ImGui::CalcTextSize(note.c_str());
  dl->AddRectFilled({text_at.x - 3, text_at.y - 1}, {text_at.x + ts.x + 3, text_at.y + ts.y + 1},
                    IM_COL32(10, 12, 16, 200), 3);
  dl->AddText(text_at, IM_COL32(235, 235, 240, 255), note.c_str());
}

// Two rows under the matrices: the value colour map with each matrix's range, and the error map
// with its special codes (exact, above the range).
void MatmulView::draw_legend(ImDrawList* dl, ImVec2 p0, float em) {
  const float bar_w = em * 12.0f, bar_h = em * 0.9f, label_w = em * 6.5f, row_h = em * 1.35f;
  const ImU32 label = IM_COL32(200, 203, 212, 255), dim = IM_COL32(150, 155, 168, 255);
  const ImU32 frame = IM_COL32(90, 95, 108, 255);
  const ImTextureID values = ui::gl_texture(legend_values_.id());
  const ImTextureID errors = ui::gl_texture(legend_errors_.id());
  char buf[160];
  float x = p0.x + label_w, y = p0.y;
  dl->AddText({p0.x, y}, label, "values");
  dl->AddImage(values, {x, y + 2}, {x + bar_w, y + 2 + bar_h}, {1.0f / 256, 0}, {1, 1});
  dl->AddRect({x, y + 2}, {x + bar_w, y + 2 + bar_h}, frame);
  std::snprintf(buf, sizeof buf, "-r .. 0 .. +r   r = %.3g (A), %.3g (B), %.3g (C)", ranges_.a, ranges_.b, ranges_.c);
  dl->AddText({x + bar_w + em * 0.6f, y}, dim, buf);
  y += row_h;
  dl->AddText({p0.x, y}, label, "|C - ref|");
  const float sw = em * 1.1f;
  dl->AddImage(errors, {x, y + 2}, {x + sw, y + 2 + bar_h}, {0, 0}, {1.0f / 256, 1});
  const float rx = x + sw + 3;
  const float ramp_w = bar_w - 2 * (sw + 3);
  dl->AddImage(errors, {rx, y + 2}, {rx + ramp_w, y + 2 + bar_h}, {1.0f / 256, 0}, {255.0f / 256, 1});
  const float ox = rx + ramp_w + 3;
  dl->AddImage(errors, {ox, y + 2}, {ox + sw, y + 2 + bar_h}, {255.0f / 256, 0}, {1, 1});
  dl->AddRect({x, y + 2}, {x + bar_w, y + 2 + bar_h}, frame);
  std::snprintf(buf, sizeof buf, "0 | %.1e .. %.1e (largest tolerance) | above", ranges_.error_lo, ranges_.error_hi);
  dl->AddText({x + bar_w + em * 0.6f, y}, dim, buf);
}

// Above the matrices: the shared-memory phase of the launch shown.
void MatmulView::draw_toolbar(const LaunchRecord& shown) {
  const auto& m = lab_->spec();
  const float em = ImGui::GetFontSize();
  const matmul::MatmulGeometry g = geometry_of(shown).value_or(matmul::MatmulGeometry{});
  if (g.k_step > 0) {
    const int phases = (m.K + g.k_step - 1) / g.k_step;
    state_.phase = std::clamp(state_.phase, 0, phases - 1);
    ImGui::TextUnformatted("shared-memory phase");
    ImGui::SameLine();
    // The value beside the slider, not under its knob (issue 36 item 15).
    ImGui::SetNextItemWidth(em * 11);
    ui::slider_int_beside("##phase", &state_.phase, 0, phases - 1,
                          std::to_string(state_.phase) + " of 0.." + std::to_string(phases - 1));
    ui::item_tooltip(
        "A shared-memory kernel walks K in slices of BK: in phase p each block copies "
        "A[its rows][p*BK ..] and B[p*BK ..][its columns] into shared memory, waits at "
        "__syncthreads, multiplies, and waits again. Hover (or pin) an element of C to see "
        "its block's slices in A and B.");
    ImGui::SameLine();
    const int k0 = state_.phase * g.k_step, k1 = std::min(m.K, k0 + g.k_step);
    ImGui::TextColored(ImVec4(0.35f, 0.88f, 1.0f, 1.0f), "k %d..%d in shared memory%s", k0, k1 - 1,
                       g.stages == 2 ? " (+ the next, loading)" : "");
    const auto what = lab_->resolve(shown.kernel, shown.request);
    if (what && matmul::matmul_kernel_info(what->first).precision == matmul::Precision::Bf16 && g.k_step >= 32) {
      // The tensor cores take K 16 at a time: which mma k-step of this tile the A and B panels show.
      const int steps = g.k_step / 16;
      state_.k_step = std::clamp(state_.k_step, 0, steps - 1);
      ImGui::SameLine();
      ImGui::TextUnformatted("  mma k-step");
      ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 8);
      ui::slider_int_beside("##kstep", &state_.k_step, 0, steps - 1,
                            std::to_string(state_.k_step) + " of 0.." + std::to_string(steps - 1));
      ui::item_tooltip(
          "Each mma or wgmma instruction multiplies a K slice of 16: the shared-memory tile "
          "holds several. Hover a C element: the A and B panels show what its lane fed in "
          "(mma.sync) or what the warpgroup's wgmma read from shared memory at this k-step.");
    }
  } else if (shown.ok()) {
    ImGui::TextColored(kDimColour, shown.config.grid.x == 0
                                       ? "a library kernel: its tiles are its own"
                                       : "no shared memory: every operand comes from global memory");
  } else {
    ImGui::TextColored(kDimColour, "nothing ran yet");
  }
}

void MatmulView::draw_data(const LaunchRecord& shown, bool selection_ran, ViewContext&, ViewRequests&) {
  const auto t0 = std::chrono::steady_clock::now();
  poll_fragment_record(shown);
  draw_heatmaps(shown, selection_ran);
  note_view_cost(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

void MatmulView::draw_heatmaps(const LaunchRecord& shown, bool selection_ran) {
  const float em = ImGui::GetFontSize();
  mouse_element_.reset();
  fed_note_.reset();
  fed_marks_.clear();
  if (!lab_->ready()) {
    ImGui::TextColored(kDimColour, "No matrices to show.");
    ui::status_text(lab_->status());
    return;
  }
  const auto& m = lab_->spec();
  draw_toolbar(shown);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  const float legend_h = em * 2.8f;
  const float title_h = em * 1.5f, gap = em * 0.6f;
  ImGui::InvisibleButton("matmul_view", size);
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  // Pan and zoom: the fitted layout scaled about a centre (fractions of the fitted area).
  const ImVec2 area0{origin.x + em * 0.5f, origin.y + em * 0.2f};
  const ImVec2 area{size.x - em, size.y - legend_h - em * 0.4f};
  const PanZoom pz = pan_and_zoom(view_, hovered, area0, area);
  const float zoom = pz.zoom;
  const ImVec2 canvas{area.x * zoom, area.y * zoom};
  const ImVec2 canvas0{area0.x + area.x * 0.5f - pz.cx * canvas.x, area0.y + area.y * 0.5f - pz.cy * canvas.y};
  const Layout L = compute_layout(canvas0, canvas, m.M, m.N, m.K, title_h, gap);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin, {origin.x + size.x, origin.y + size.y - legend_h}, true);

  struct Shown {
    const MatrixPanel* panel;
    Map map;
  };
  const Shown shown_maps[] = {{&L.a, MapA}, {&L.b, MapB}, {&L.c, MapC}, {&L.err, MapError}};
  for (const Shown& sh : shown_maps) {
    const Heatmap& h = maps_[sh.map];
    const Box& b = sh.panel->box;
    if (h.valid && h.colours) {
      dl->AddImage(ui::gl_texture(h.colours.id()), b.p0, b.p1);
      // Bilinear only when shrunk both ways: a 784 x 10 B drawn 100 pixels wide must keep its
      // ten crisp columns.
      set_display_filter(sh.map, b.w() < h.width * 0.99f && b.h() < h.height * 0.99f);
    } else {
      fill(dl, b, IM_COL32(30, 32, 38, 255));
      shadowed_text(dl, {b.p0.x + 6, b.p0.y + 6}, IM_COL32(150, 155, 168, 255), "not run yet");
    }
    dl->AddRect({b.p0.x - 1, b.p0.y - 1}, {b.p1.x + 1, b.p1.y + 1}, IM_COL32(80, 86, 100, 255));
  }
  auto dims = [](int r, int c) { return std::to_string(r) + " x " + std::to_string(c); };
  title(dl, L.b, title_h, L.err_right ? 4 * em : em, "B", dims(m.K, m.N) + "  " + matmul::to_string(m.b));
  title(dl, L.a, title_h, 0, "A", dims(m.M, m.K) + "  " + matmul::to_string(m.a));
  title(dl, L.c, title_h, L.err_right ? gap * 0.5f : 4 * em, "C",
        dims(m.M, m.N) + (have_output_ ? "" : "  (no run yet)"));
  title(dl, L.err, title_h, 4 * em, "|C - ref|", have_output_ ? (output_passed_ ? "within tolerance" : "WRONG") : "");

  // Block tiles over C and the error map: only for a launch that ran (the one these heatmaps
  // show), never for a refused configuration.
  const bool model_only = layout_only(shown);
  const auto geometry = shown.ok() || model_only ? geometry_of(shown) : std::nullopt;
  const matmul::MatmulGeometry g = geometry.value_or(matmul::MatmulGeometry{});
  const bool have_run = geometry.has_value() && (have_output_ || model_only);
  if (have_run && fragment_colouring()) draw_fragment_colours(dl, shown, L.c.box.p0, L.c.box.p1);
  else if (have_run && state_.tile_colour != "none") draw_tile_colours(dl, shown, L.c.box.p0, L.c.box.p1);
  if (state_.block_lines && have_run)
    for (const MatrixPanel* p : {&L.c, &L.err})
      draw_grid_lines(dl, *p, g.block_rows, g.block_cols, IM_COL32(255, 205, 70, 255));
  if (model_only)
    note_below(dl, L.c.box,
               shown.kernel + " does not run on this backend: its tiles and fragments by the model, over no result");
  else if (!selection_ran && have_run)
    note_below(dl, L.c.box, "tiles: the last launch that ran (" + shown.kernel + ", " + shown.config_label + ")");

  // Hover: an element of C (or of the error map) is inspected; A and B get a value tooltip.
  for (const MatrixPanel* p : {&L.c, &L.err}) {
    if (!hovered) break;
    if (auto e = p->element(mouse)) mouse_element_ = PixelPos{e->second, e->first};
  }
  const ImVec2 dragged = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left);
  if (mouse_element_ && ImGui::IsMouseReleased(ImGuiMouseButton_Left) && dragged.x == 0 && dragged.y == 0) {
    auto& pin = view_.pinned;
    if (pin && *pin == *mouse_element_) pin.reset();
    else pin = mouse_element_;
  }
  const std::optional<PixelPos> inspected_element = inspected();

  if (inspected_element && have_run) {
    const ElementInfo e = describe_element(*stack_, *lab_, shown, g, inspected_element->y, inspected_element->x);
    draw_element_tiles(dl, L, e, g, m.K, state_.phase, origin.x + size.x);
    // Tensor-core rungs: the instruction's tile of C and what the lane fed it (or wgmma's slices).
    draw_fed_fragments(dl, shown, e.row, e.col, L.a.box.p0, L.a.box.p1, L.b.box.p0, L.b.box.p1, L.c.box.p0, L.c.box.p1);
    dl->PopClipRect();
    if (mouse_element_) {
      ImGui::BeginTooltip();
      draw_inspector_text(shown, e.row, e.col, false);
      ImGui::EndTooltip();
    } else {
      Box card = L.corner.w() >= em * 17 && L.corner.h() >= em * 10 ? L.corner
                 : L.spare.w() >= em * 17 && L.spare.h() >= em * 10 ? L.spare
                                                                    : Box{};
      // The card never covers the view's own labels: the note beside B (moved left into the
      // corner where it would run past the edge) keeps its place, the card starts below it.
      if (card.w() > 0 && fed_note_ && fed_note_->first.x < card.p1.x && fed_note_->second.x > card.p0.x &&
          fed_note_->first.y < card.p1.y && fed_note_->second.y > card.p0.y)
        card.p0.y = fed_note_->second.y + em * 0.2f;
      if (card.h() < em * 6) card = Box{};
      if (card.w() > 0 && zoom <= 1.0f) {
        ImGui::SetCursorScreenPos({card.p0.x, card.p0.y + em * 0.3f});
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.06f, 0.07f, 0.09f, 0.92f));
        const float lines =
            (hierarchy_of(shown, e.row, e.col) ? 19.0f : 12.0f) * ImGui::GetTextLineHeightWithSpacing() +
            2 * ImGui::GetStyle().WindowPadding.y;
        // Taller content than room scrolls, with its scrollbar showing that it does.
        ImGui::BeginChild("matmul_inspector", {card.w() - em * 0.5f, std::min(card.h() - em * 0.5f, lines)}, true);
        ImGui::PushTextWrapPos(0.0f);
        draw_inspector_text(shown, e.row, e.col, view_.pinned.has_value());
        ImGui::PopTextWrapPos();
        ImGui::EndChild();
        ImGui::PopStyleColor();
      }
    }
  } else {
    dl->PopClipRect();
    if (hovered) {
      const auto va = L.a.element(mouse), vb = L.b.element(mouse);
      if (va || vb) {
        ImGui::BeginTooltip();
        if (va)
          ImGui::Text("A[%d][%d] = %.6g", va->first, va->second,
                      lab_->a()[static_cast<std::size_t>(va->first) * m.K + va->second]);
        else
          ImGui::Text("B[%d][%d] = %.6g", vb->first, vb->second,
                      lab_->b()[static_cast<std::size_t>(vb->first) * m.N + vb->second]);
        ImGui::EndTooltip();
      }
    }
  }
  if (!inspected_element && L.corner.w() > em * 12 && L.corner.h() > em * 4 && zoom <= 1.0f) {
    const ImVec2 p(L.corner.p0.x + em * 0.4f, L.corner.p0.y + em * 0.4f);
    dl->AddText(p, IM_COL32(210, 214, 224, 255), "C = A B");
    dl->AddText({p.x, p.y + em * 1.4f}, IM_COL32(150, 155, 168, 255), "C[i][j] = sum over k of");
    dl->AddText({p.x, p.y + em * 2.6f}, IM_COL32(150, 155, 168, 255), "  A[i][k] * B[k][j]");
    dl->AddText({p.x, p.y + em * 4.2f}, IM_COL32(150, 155, 168, 255), "hover C: its block's tiles");
  }
  draw_legend(dl, {origin.x + em * 0.6f, origin.y + size.y - legend_h + em * 0.2f}, em);
}

// The Compare tab's pane: C as the data view shows it, with `record`'s block tiles and, for
// `inspect`, that launch's block tile, warp tile and the thread's own elements.
std::optional<PixelPos> MatmulView::draw_record(const LaunchRecord& record, int, ImVec2 size,
                                                std::optional<PixelPos> inspect, ViewContext&) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("matmul_compare", size);
  const bool hovered = ImGui::IsItemHovered();
  if (!lab_->ready()) return std::nullopt;
  const auto& m = lab_->spec();
  // C fitted into the pane, its aspect kept.
  const float scale = std::min(size.x / m.N, size.y / m.M);
  const ImVec2 p0(origin.x + (size.x - m.N * scale) / 2, origin.y + (size.y - m.M * scale) / 2);
  const MatrixPanel c{{p0, {p0.x + m.N * scale, p0.y + m.M * scale}}, m.M, m.N};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin, {origin.x + size.x, origin.y + size.y}, true);
  const Heatmap& h = maps_[MapC];
  if (h.valid && h.colours) dl->AddImage(ui::gl_texture(h.colours.id()), c.box.p0, c.box.p1);
  else fill(dl, c.box, IM_COL32(30, 32, 38, 255));
  dl->AddRect({c.box.p0.x - 1, c.box.p0.y - 1}, {c.box.p1.x + 1, c.box.p1.y + 1}, IM_COL32(80, 86, 100, 255));
  const auto what = record.ok() ? lab_->resolve(record.kernel, record.request) : std::nullopt;
  if (what) {
    const matmul::MatmulGeometry g = matmul::matmul_geometry(what->first, what->second);
    draw_grid_lines(dl, c, g.block_rows, g.block_cols, IM_COL32(255, 205, 70, 255));
    if (inspect && inspect->x < m.N && inspect->y < m.M) {
      const ElementInfo e = describe_element(*stack_, *lab_, record, g, inspect->y, inspect->x);
      const Box t = c.cells(e.tile_r0, e.tile_r0 + e.tile_rows, e.tile_c0, e.tile_c0 + e.tile_cols);
      fill(dl, t, IM_COL32(255, 196, 60, 46));
      outline(dl, t, IM_COL32(255, 196, 60, 255));
      if (e.owner) {
        if (e.owner->warp_tile.w > 0) {
          const auto& w = e.owner->warp_tile;
          outline(dl, c.cells(w.y, w.y + w.h, w.x, w.x + w.w), IM_COL32(190, 150, 255, 255), 1.5f);
        }
        for (const auto& r : e.owner->owns)
          fill(dl, c.cells(r.y, r.y + r.h, r.x, r.x + r.w), IM_COL32(255, 255, 255, 70));
      }
      outline(dl, c.cells(e.row, e.row + 1, e.col, e.col + 1), IM_COL32(255, 255, 255, 255), 1.5f);
    }
  }
  shadowed_text(dl, {c.box.p0.x + 4, c.box.p0.y + 2}, IM_COL32(235, 235, 240, 255), "C");
  dl->PopClipRect();
  if (!hovered) return std::nullopt;
  if (auto e = c.element(ImGui::GetIO().MousePos)) return PixelPos{e->second, e->first};
  return std::nullopt;
}

}  // namespace bs::app
