// The Memory tab's shared-memory section: one warp's shared request as 32 banks x wavefronts,
// recorded by the simulator from the rung's own body (any backend: the block is re-run on the
// CPU from the host copies of A and B), the model's count beside it, and a tile's bank map
// before and after its swizzle (T2's XOR index; the 128-byte TMA swizzle of T3..T6 as a model).
//
// Drawing is two-phase as elsewhere: bank_request() computes the cells, ImDrawList paints them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "labs/matmul/matmul_view.hpp"
#include "mapping/shared_banks.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

ImU32 lane_colour(unsigned lane, float alpha = 1.0f) {
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(lane) / 32.0f, 0.55f, 0.85f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, alpha));
}

ImU32 bank_group_colour(unsigned bank) {  // 8 groups of 4 banks (one 16-byte chunk)
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(bank / 4) / 8.0f, 0.5f, 0.8f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

std::string lanes_text(const std::vector<unsigned>& lanes) {
  std::string s;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    // Runs of consecutive lanes as a-b.
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(lanes[i]);
    if (j > i) s += "-" + std::to_string(lanes[j]);
    i = j;
  }
  return s;
}

}  // namespace

BankGridLayout bank_grid_layout(float width, float em, bool phases) {
  BankGridLayout g;
  g.label_w = phases ? em * 3.4f : em * 1.8f;
  const float avail = width - g.label_w - 4;
  const float min_cell = em * 1.1f;
  g.per_band = avail / 32.0f >= min_cell ? 32u : 16u;
  g.cell = std::clamp(avail / static_cast<float>(g.per_band), min_cell, em * 1.6f);
  g.digits = std::clamp(g.cell * 0.72f, em * 0.8f, em);
  return g;
}

namespace {

// 32 banks x wavefronts; returns nothing, draws a tooltip for the hovered cell.
void draw_bank_grid(const char* id, const mapping::BankRequest& b) {
  const float em = ImGui::GetFontSize();
  const BankGridLayout g = bank_grid_layout(ImGui::GetContentRegionAvail().x, em, b.phases > 1);
  const float label_w = g.label_w, cell = g.cell, small = g.digits;
  const unsigned per_band = g.per_band;
  const float row_h = em * 1.15f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const int rows = static_cast<int>(b.rows.size());
  const int bands = static_cast<int>(32 / per_band);
  const float band_h = row_h * static_cast<float>(rows + 1) + (bands > 1 ? em * 0.4f : 0.0f);
  ImGui::InvisibleButton(id, ImVec2(label_w + cell * static_cast<float>(per_band), band_h * static_cast<float>(bands)));
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(ui::kDimColour);
  const mapping::BankCell* hot = nullptr;
  unsigned hot_bank = 0;
  int hot_row = -1;
  for (int band = 0; band < bands; ++band) {
    const float top = p0.y + band_h * static_cast<float>(band);
    const unsigned first = static_cast<unsigned>(band) * per_band;
    // Bank numbers along the top, every 4 banks (a 16-byte chunk).
    for (unsigned bank = first; bank < first + per_band; bank += 4) {
      char t[16];
      std::snprintf(t, sizeof t, "%u", bank);
      dl->AddText(ImVec2(p0.x + label_w + static_cast<float>(bank - first) * cell + 1, top), dim, t);
    }
    for (int w = 0; w < rows; ++w) {
      const float y = top + row_h * static_cast<float>(w + 1);
      char t[32];
      std::snprintf(t, sizeof t, b.phases > 1 ? "w%d q%u" : "w%d", w, b.phase_of_row[w]);
      dl->AddText(ImVec2(p0.x, y), dim, t);
      for (unsigned bank = first; bank < first + per_band; ++bank) {
        const mapping::BankCell& c = b.rows[w][bank];
        const ImVec2 c0(p0.x + label_w + static_cast<float>(bank - first) * cell, y),
            c1(c0.x + cell - 1, y + row_h - 1);
        if (c.word < 0) {
          dl->AddRectFilled(c0, c1, IM_COL32(45, 47, 52, 255));
        } else {
          dl->AddRectFilled(c0, c1, lane_colour(c.lanes.front()));
          char l[16];
          std::snprintf(l, sizeof l, "%u", c.lanes.front());
          dl->AddText(ImGui::GetFont(), small, ImVec2(c0.x + 1, c0.y + (row_h - small) * 0.5f),
                      IM_COL32(10, 10, 10, 255), l);
          if (c.lanes.size() > 1)  // a broadcast: a corner mark
            dl->AddTriangleFilled(ImVec2(c1.x - em * 0.4f, c0.y), ImVec2(c1.x, c0.y), ImVec2(c1.x, c0.y + em * 0.4f),
                                  IM_COL32(255, 255, 255, 230));
        }
        if (hovered && mouse.x >= c0.x && mouse.x < c0.x + cell && mouse.y >= c0.y && mouse.y < c0.y + row_h)
          hot = &c, hot_bank = bank, hot_row = w;
      }
    }
  }
  if (hot) {
    ImGui::BeginTooltip();
    if (hot->word < 0) ImGui::Text("bank %u, wavefront %d: idle", hot_bank, hot_row);
    else
      ImGui::Text("bank %u, wavefront %d: the word at byte %lld of the block's shared memory\nlane%s %s", hot_bank,
                  hot_row, hot->word * 4, hot->lanes.size() > 1 ? "s" : "", lanes_text(hot->lanes).c_str());
    ImGui::EndTooltip();
  }
}

// A tile's bank map: rows x 16-byte chunks, each cell the first bank of the chunk's storage.
void draw_tile_map(const char* title, const mapping::TileBankMap& m) {
  const float em = ImGui::GetFontSize();
  const float cell = em * 1.7f, row_h = em * 1.1f;
  ImGui::TextColored(ui::kDimColour, "%s", title);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(em * 2 + cell * m.chunks, row_h * m.rows));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int r = 0; r < m.rows; ++r) {
    char t[16];
    std::snprintf(t, sizeof t, "r%d", r);
    dl->AddText(ImVec2(p0.x, p0.y + r * row_h), ImGui::GetColorU32(ui::kDimColour), t);
    for (int c = 0; c < m.chunks; ++c) {
      const unsigned bank = m.at(r, c);
      const ImVec2 c0(p0.x + em * 2 + c * cell, p0.y + r * row_h), c1(c0.x + cell - 1, c0.y + row_h - 1);
      dl->AddRectFilled(c0, c1, bank_group_colour(bank));
      std::snprintf(t, sizeof t, "%u", bank);
      dl->AddText(ImVec2(c0.x + 2, c0.y), IM_COL32(10, 10, 10, 255), t);
    }
  }
}

// The two maps side by side where the panel is wide enough for both, else one under the other.
void draw_before_after(const char* before_title, const mapping::TileBankMap& before, const char* after_title,
                       const mapping::TileBankMap& after) {
  const float em = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::BeginGroup();
  draw_tile_map(before_title, before);
  ImGui::EndGroup();
  if (2 * ImGui::GetItemRectSize().x + em * 2 <= avail) ImGui::SameLine(0, em * 2);
  ImGui::BeginGroup();
  draw_tile_map(after_title, after);
  ImGui::EndGroup();
}

// The section's heading, and its help: how banks serve a request, then `how` this one was recorded.
void bank_heading(Dim3 block, unsigned warp, const char* how) {
  ImGui::Separator();
  ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f),
                     "Shared memory: warp %u of block (%u, %u), 32 banks x wavefronts", warp, block.x, block.y);
  ui::help_marker((std::string("Shared memory has 32 banks of 4-byte words; each bank delivers one word per "
                               "wavefront. Lanes reading the same word share it (a broadcast, marked in the corner); "
                               "different words in one bank take one more wavefront each (a bank conflict). ") +
                   how)
                      .c_str());
}

}  // namespace

void MatmulView::draw_banks(const LaunchRecord& shown, Dim3 block, unsigned warp) {
  const auto what = lab_->resolve(shown.kernel, shown.request);
  if (!what) {
    draw_user_banks(shown, block, warp);
    return;
  }
  const matmul::MatmulKernel kernel = what->first;
  const matmul::MatmulKernelInfo& info = matmul::matmul_kernel_info(kernel);
  const bool hopper = info.needs == matmul::RungNeeds::Sm90a;  // TMA fills its tiles, wgmma reads them
  if (!matmul::has_shared_model(kernel) && !hopper) return;
  bank_heading(block, warp,
               "8-byte accesses are served a half-warp at a time, "
               "16-byte accesses (float4, ldmatrix rows, cp.async) a quarter-warp at a time (q0..q3). Recorded "
               "by the CPU simulator from the rung's own body; the model beside it is written from the rung's "
               "index expressions (shared_lane in the rung's own file).");
  if (hopper) {
    ui::wrapped_text(ui::kDimColour,
                     "%s fills its tiles with TMA and feeds wgmma straight from shared memory: "
                     "neither goes through the load/store pipe, so there is no warp request to "
                     "record and no LSU counter sees them. Its tiles use the 128-byte TMA swizzle:",
                     shown.kernel.c_str());
    if (info.swizzle.plain) draw_swizzle_maps(info.swizzle);
    return;
  }
  // The requests, recorded once per launch, block and warp (re-running one block on the CPU).
  const auto& s = lab_->spec();
  const std::string key = shown.kernel + "|" + shown.config_label + "|" + std::to_string(block.x) + "," +
                          std::to_string(block.y) + "|" + std::to_string(warp) + "|" + std::to_string(s.M) + "x" +
                          std::to_string(s.N) + "x" + std::to_string(s.K) + "|" + std::to_string(lab_->generation());
  if (banks_.key != key) {
    if (banks_.job.valid()) abandoned_bank_jobs_.push_back(std::move(banks_.job));
    banks_ = BankCache{};
    banks_.key = key;
    // The block is replayed on the CPU simulator on a worker: seconds for a T2 block at 8192^3.
    // A small one is done within the first frame's short wait and drawn at once.
    auto job = lab_->shared_replay_job(shown, block, warp, kBankRequestsRecorded);
    if (!job) {
      banks_.status = job.status();
    } else {
      banks_.job = std::async(std::launch::async, std::move(job.value()));
      banks_.since = std::chrono::steady_clock::now();
      take_bank_job(true);
    }
    if (auto m = lab_->modelled_shared_requests(shown, block, warp)) banks_.modelled = std::move(m.value());
    if (info.swizzled_shared) {
      matmul::SharedModelOptions o;
      o.swizzle = false;
      if (auto m = lab_->modelled_shared_requests(shown, block, warp, o)) banks_.unswizzled = std::move(m.value());
    }
  }
  take_bank_job(false);
  if (!banks_.status.ok()) {
    ui::status_text(banks_.status);
    return;
  }
  if (banks_.job.valid()) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - banks_.since).count();
    ImGui::TextColored(ui::kDimColour,
                       "Recording: block (%u, %u) replayed on the CPU simulator for its shared-memory requests, "
                       "%.1f s so far (all of K: a long K takes seconds; the window stays live)",
                       block.x, block.y, s);
  } else if (!draw_bank_requests(true)) {
    return;
  }
  if (info.swizzle.plain) draw_swizzle_maps(info.swizzle);
  ui::wrapped_text(ui::kDimColour,
                   "Counters (Measured tab) count ld.shared, ldmatrix and st.shared wavefronts and bank conflicts "
                   "in the load/store pipe; cp.async's shared writes are counted apart (LDGSTS). TMA writes and "
                   "wgmma operand reads do not go through the load/store pipe: no LSU counter sees them.");
}

bool MatmulView::draw_bank_requests(bool with_model) {
  const auto& reqs = banks_.recorded;
  if (reqs.empty()) {
    ImGui::TextColored(ui::kDimColour, "this warp made no shared-memory request");
    return false;
  }
  // The request selector: a slider over program order, and a jump to each distinct line.
  int& sel = state_.bank_request;
  sel = std::clamp(sel, 0, static_cast<int>(reqs.size()) - 1);
  const float em = ImGui::GetFontSize();
  if (ImGui::ArrowButton("##bank_prev", ImGuiDir_Left)) sel = std::max(0, sel - 1);
  ImGui::SameLine(0, em * 0.2f);
  if (ImGui::ArrowButton("##bank_next", ImGuiDir_Right)) sel = std::min(static_cast<int>(reqs.size()) - 1, sel + 1);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(em * 12);
  ImGui::SliderInt("request", &sel, 0, static_cast<int>(reqs.size()) - 1);
  ui::item_tooltip(
      "The i-th shared-memory access of every lane of this warp, in program order (every lane of these "
      "kernels takes the same path). The arrows step one request.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##bank_site", "jump to a line...")) {
    std::map<std::string, int> first;  // each line's first request at or after the selected one's step
    for (std::size_t i = 0; i < reqs.size(); ++i) first.emplace(reqs[i].label(), static_cast<int>(i));
    for (const auto& [label, i] : first)
      if (ImGui::Selectable(label.c_str(), i == sel)) sel = i;
    ImGui::EndCombo();
  }
  if (banks_.recorded.size() >= kBankRequestsRecorded)
    ImGui::TextColored(ui::kDimColour, "(the first %u requests of each lane are recorded)", kBankRequestsRecorded);

  const SharedRequest& r = reqs[static_cast<std::size_t>(sel)];
  const mapping::BankRequest b = mapping::bank_request(r);
  ImGui::TextColored(is_write(r.op) ? ImVec4(1, 0.75f, 0.5f, 1) : ImVec4(0.7f, 0.85f, 1, 1), "%s", r.label().c_str());
  ImGui::Text("%u bytes a lane, %u lanes: %u wavefront%s, ideal %u", r.bytes, b.active_lanes, b.wavefronts,
              b.wavefronts == 1 ? "" : "s", b.ideal_wavefronts);
  ImGui::SameLine();
  if (b.conflicts() == 0) ImGui::TextColored(ui::kOkColour, "conflict-free");
  else ImGui::TextColored(ui::kWarnColour, "%.3g-way bank conflict (%u extra)", b.ways(), b.conflicts());
  // The model's count of the same request.
  if (!with_model) {
    ImGui::TextColored(ui::kDimColour, "no model: a user kernel's requests are known only from this recording");
  } else if (static_cast<std::size_t>(sel) < banks_.modelled.size()) {
    const mapping::BankRequest m = mapping::bank_request(banks_.modelled[static_cast<std::size_t>(sel)]);
    const bool same = m.wavefronts == b.wavefronts && m.ideal_wavefronts == b.ideal_wavefronts;
    ImGui::TextColored(same ? ui::kDimColour : ui::kWarnColour, "model (index expressions): %u wavefronts, ideal %u%s",
                       m.wavefronts, m.ideal_wavefronts, same ? ", the same" : ": DIFFERS from the recording");
  } else {
    ImGui::TextColored(ui::kWarnColour, "the model has no request %d: it DIFFERS from the recording", sel);
  }
  draw_bank_grid("##banks_recorded", b);
  if (static_cast<std::size_t>(sel) < banks_.unswizzled.size()) {
    const mapping::BankRequest u = mapping::bank_request(banks_.unswizzled[static_cast<std::size_t>(sel)]);
    ImGui::TextColored(ui::kDimColour, "before the swizzle (model: chunks stored in order):");
    if (u.conflicts() == 0)
      ImGui::TextColored(ui::kOkColour, "%u wavefronts, ideal %u: conflict-free", u.wavefronts, u.ideal_wavefronts);
    else
      ImGui::TextColored(ui::kWarnColour, "%u wavefronts, ideal %u: %.3g-way bank conflict", u.wavefronts,
                         u.ideal_wavefronts, u.ways());
    draw_bank_grid("##banks_unswizzled", u);
  }
  return true;
}

// A user kernel's requests: recorded by its runner from the kernel built with access hooks
// (labs/custom/shared_recording.hpp), the block run alone on the CPU simulator; no model.
void MatmulView::draw_user_banks(const LaunchRecord& shown, Dim3 block, unsigned warp) {
  const std::string key = "user|" + shown.kernel + "|" + shown.config_label + "|" + std::to_string(block.x) + "," +
                          std::to_string(block.y) + "|" + std::to_string(warp) + "|" +
                          std::to_string(lab_->generation()) + "|" + std::to_string(stack_->kernels_version());
  if (banks_.key != key) {
    banks_ = BankCache{};
    banks_.key = key;
    auto rec = stack_->recorded_shared_requests_elsewhere(shown, block, warp, kBankRequestsRecorded);
    if (!rec) {
      banks_.status = Status::failure("", "", "", "none");  // not a kernel recorded elsewhere: draw nothing
    } else if (!*rec) {
      banks_.status = rec->status();
    } else {
      banks_.recorded = std::move((*rec)->requests);
      banks_.note = std::move((*rec)->note);
      for (const std::string& v : (*rec)->variables) banks_.note += (banks_.note.empty() ? "" : "; ") + v;
    }
  }
  if (banks_.status.code == "none") return;
  bank_heading(block, warp,
               "Recorded by the CPU simulator: your kernel built "
               "once more with a hook on every load and store (-fsanitize=thread's instrumentation, without its "
               "runtime), this block run alone, the accesses inside its __shared__ arrays kept lane by lane; "
               "the line is your source's. Each __shared__ array is placed at a 128-byte boundary; the GPU may "
               "place them elsewhere, which changes the bank a row starts in, not a request's conflicts.");
  if (!banks_.status.ok()) {
    ui::status_text(banks_.status);
    return;
  }
  if (!banks_.note.empty()) { ui::wrapped_text(ui::kDimColour, "%s", banks_.note.c_str()); }
  if (!draw_bank_requests(false)) return;
  ui::wrapped_text(ui::kDimColour,
                   "Counters (Measured tab) count ld.shared and st.shared wavefronts and bank conflicts in the "
                   "load/store pipe of the whole launch on the GPU.");
}

// The recording, once its worker is done (after up to 200 ms of waiting when asked); and the
// abandoned ones that have finished, let go.
void MatmulView::take_bank_job(bool wait_briefly) {
  using namespace std::chrono_literals;
  std::erase_if(abandoned_bank_jobs_, [](auto& f) { return f.wait_for(0s) == std::future_status::ready; });
  if (!banks_.job.valid() || banks_.job.wait_for(wait_briefly ? 200ms : 0s) != std::future_status::ready) return;
  auto rec = banks_.job.get();
  if (rec) banks_.recorded = std::move(rec.value());
  else banks_.status = rec.status();
}

void MatmulView::draw_swizzle_maps(const matmul::SwizzleMap& m) {
  ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s", m.title.c_str());
  if (m.modelled) ImGui::TextColored(ui::kWarnColour, "model: TMA writes are not seen by the load/store pipe");
  ui::help_marker(m.help.c_str());
  const auto plain = mapping::tile_bank_map(m.rows, m.chunks, m.plain);
  const auto swz = mapping::tile_bank_map(m.rows, m.chunks, m.swizzled);
  draw_before_after(m.before.c_str(), plain, m.after.c_str(), swz);
}

}  // namespace bs::app
