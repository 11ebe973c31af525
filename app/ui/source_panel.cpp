// The Source tab's three columns. Sections:
//   derived data     per-line samples and per-pc samples, rebuilt when the listing or profile changes
//   header           kernel, function, registers / spills / shared memory, the profile's state
//   columns          source (samples column, tint, stall names; executed and shared wavefronts
//                    where the SASS metrics counted), PTX, SASS (hover: samples and counts)
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "source/listing.hpp"
#include "source/listing_parse.hpp"
#include "ui/panels.hpp"
#include "ui/source_panel.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

// --- derived data -------------------------------------------------------------------------------

void rebuild(const SourceInput& in, SourceViewState* st) {
  if (in.listing && in.listing->kernel != st->kernel) {
    st->kernel = in.listing->kernel;
    st->line = 0;
    st->ptx = st->sass = -1;
    st->file.clear();  // a new kernel starts at its own file
  }
  const std::string want_file = !in.listing ? std::string() : st->file.empty() ? in.listing->source_file : st->file;
  if (st->listing != in.listing || st->shown_file != want_file) {
    st->listing = in.listing;
    st->shown_file = want_file;
    st->source_lines.clear();
    if (in.listing) {
      const std::string_view text =
          st->file.empty() ? std::string_view(in.listing->source) : source::embedded_source(st->file);
      std::string cur;
      for (char c : text) {
        if (c == '\n') {
          st->source_lines.push_back(std::move(cur));
          cur.clear();
        } else if (c == '\t') {
          cur += "    ";
        } else if (c != '\r') {
          cur += c;
        }
      }
      if (!cur.empty()) st->source_lines.push_back(std::move(cur));
    }
    st->line_live.clear();
    if (in.listing && in.listing->live_status.ok())
      st->line_live = source::max_live_per_line(in.listing->sass, want_file, static_cast<int>(st->source_lines.size()));
    st->profile = reinterpret_cast<const LineProfile*>(1);  // force the profile's part below
  }
  if (st->profile != in.profile) {
    st->profile = in.profile;
    st->line_samples.assign(st->source_lines.size() + 1, -1);
    st->pc_samples.clear();
    st->max_share = 0;
    st->lines.clear();
    if (in.profile && in.profile->status.ok() && in.listing) {
      for (std::size_t i = 0; i < in.profile->instructions.size(); ++i)
        st->pc_samples[in.profile->instructions[i].pc_offset] = static_cast<int>(i);
      st->lines = lines_in_file(*in.listing, *in.profile, st->shown_file, !st->file.empty());
      for (std::size_t i = 0; i < st->lines.size(); ++i) {
        const LineSamples& l = st->lines[i];
        if (l.line <= 0 || l.line >= static_cast<int>(st->line_samples.size())) continue;
        st->line_samples[static_cast<std::size_t>(l.line)] = static_cast<int>(i);
        st->max_share = std::max(st->max_share, l.share_pct);
      }
    }
  }
}

bool at_line(const ListedInstruction& i, const std::string& file, int line) {
  return line > 0 && i.line == line && source::same_source_file(i.file, file);
}

std::string stall_names(const std::vector<StallSamples>& stalls, long long total, int count) {
  std::string s;
  int shown = 0;
  for (const StallSamples& r : stalls) {
    if (shown == count || total <= 0) break;
    if (r.samples <= 0 || r.reason.find("_not_issued") != std::string::npos) continue;  // subsets of the others
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.0f%%", shown ? ", " : "", r.reason.c_str(), 100.0 * r.samples / total);
    s += buf;
    ++shown;
  }
  return s;
}

// The SASS metrics' counts of an instruction or a line, for a tooltip ("" where not counted).
std::string sass_text(const LineProfile& p, const SassCounts& c) {
  if (!p.sass_status.ok()) return {};
  std::string s = "executed " + std::to_string(c.executed) + " warp instructions";
  if (p.sass_has_threads && c.executed > 0)
    s += " (" + std::to_string(c.thread_executed) + " thread instructions, " + sig(c.threads_per_warp()) + " per warp)";
  if (p.sass_has_shared && c.shared_ideal > 0)
    s += "\nshared memory: " + std::to_string(c.shared_wavefronts) + " wavefronts, ideal " +
         std::to_string(c.shared_ideal) + " (" + sig(c.conflict_ratio()) +
         "x: " + (c.shared_wavefronts > c.shared_ideal ? "bank conflicts" : "no bank conflicts") + ")";
  return s;
}

// 1234 -> "1234", 1.5e6 -> "1.5M": the executed column is narrow.
std::string compact(long long n) {
  char buf[32];
  if (n < 10000) std::snprintf(buf, sizeof buf, "%lld", n);
  else if (n < 10000000) std::snprintf(buf, sizeof buf, "%.1fk", n / 1e3);
  else if (n < 10000000000LL) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1fG", n / 1e9);
  return buf;
}

// The live-register cell of a SASS row: the count, then room for a bar painted over the row.
constexpr int kLiveBarChars = 6;
// A row without a count gets blanks when others have one (`column`), so the text stays aligned.
std::string live_cell(const ListedInstruction& ins, bool column) {
  if (ins.live_regs < 0) return column ? std::string(5 + kLiveBarChars, ' ') : std::string();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%4d %*s", ins.live_regs, kLiveBarChars, "");
  return buf;
}

// The bar of a live cell: its length the share of `scale` registers, green to red as it fills.
void paint_live_bar(ImDrawList* dl, ImVec2 at, float h, int live, int scale) {
  if (live < 0 || scale <= 0) return;
  const float full = ImGui::CalcTextSize("000000").x - 4;
  const float f = std::min(1.0f, static_cast<float>(live) / static_cast<float>(scale));
  const ImVec4 c = f > 0.9f   ? ImVec4(1.0f, 0.4f, 0.35f, 0.9f)
                   : f > 0.7f ? ImVec4(1.0f, 0.7f, 0.3f, 0.9f)
                              : ImVec4(0.4f, 0.75f, 0.5f, 0.9f);
  dl->AddRect(ImVec2(at.x, at.y + 3), ImVec2(at.x + full, at.y + h - 3), ImGui::GetColorU32(kDimColour));
  dl->AddRectFilled(ImVec2(at.x, at.y + 3), ImVec2(at.x + full * f, at.y + h - 3), ImGui::GetColorU32(c));
}

// The registers the shown launch allocated per thread, when it is this listing's kernel and they
// were measured; 0 otherwise.
unsigned allocated_registers(const SourceInput& in) {
  return in.shown && in.shown->kernel == in.listing->kernel && in.shown->attributes_measured
             ? in.shown->attributes.registers_per_thread
             : 0u;
}

// An instruction row's start: its pc (SASS), then its line, starred when from another file than
// the one shown.
std::string row_start(const ListedInstruction& ins, int line, bool mine, bool sass) {
  char buf[48];
  const int n = sass ? std::snprintf(buf, sizeof buf, "%04llx ", ins.pc_offset) : 0;
  if (line > 0) std::snprintf(buf + n, sizeof buf - n, mine ? "%4d " : "%4d*", line);
  else std::snprintf(buf + n, sizeof buf - n, "   - ");
  return buf;
}

std::string live_text(const ListedInstruction& ins) {
  return "\n" + std::to_string(ins.live_regs) + " registers live, " + std::to_string(ins.live_predicates) +
         " predicates, " + std::to_string(ins.live_uniform) + " uniform registers";
}

// One instruction row, selectable, the clicked one brighter than its line's others, with its
// live-register bar after `before_bar`. True when clicked.
bool instruction_row(int i, const std::string& row, const std::string& before_bar, bool selected, bool emphasised,
                     const ListedInstruction& ins, bool sass, float row_h, int scale) {
  ImGui::PushID(i);
  if (emphasised) ImGui::PushStyleColor(ImGuiCol_Header, ImVec4(0.35f, 0.45f, 0.8f, 0.8f));
  const bool clicked = ImGui::Selectable(row.c_str(), selected);
  if (emphasised) ImGui::PopStyleColor();
  ImGui::PopID();
  if (sass && ins.live_regs >= 0)
    paint_live_bar(
        ImGui::GetWindowDrawList(),
        ImVec2(ImGui::GetItemRectMin().x + ImGui::CalcTextSize(before_bar.c_str()).x, ImGui::GetItemRectMin().y), row_h,
        ins.live_regs, scale);
  return clicked;
}

// --- header -------------------------------------------------------------------------------------

void draw_header(const SourceInput& in, SourceViewState* st, SourceAction* act) {
  const KernelListing& l = *in.listing;
  std::string head = l.kernel;
  if (!l.function.empty()) head += "   function " + l.function;
  ImGui::TextUnformatted(head.c_str());
  if (in.shown && in.shown->kernel == l.kernel) {
    const KernelAttributes& a = in.shown->attributes;
    char buf[256];
    std::snprintf(
        buf, sizeof buf, "%u registers per thread   %zu B spilled to local memory   %zu B static shared  (%s)",
        a.registers_per_thread, a.local_bytes_per_thread, a.static_shared_bytes,
        in.shown->attributes_measured ? "cudaFuncGetAttributes" : "the CPU simulator's own: nothing compiled");
    ImGui::TextColored(kDimColour, "%s", buf);
  }
  {
    const std::string live = live_summary(l, allocated_registers(in));
    if (!live.empty()) {
      if (l.live_status.ok()) ImGui::TextUnformatted(live.c_str());
      else ImGui::TextColored(kDimColour, "%s", live.c_str());
      if (!l.live_status.ok() && !l.live_status.hint.empty()) item_tooltip(l.live_status.hint.c_str());
    }
  }
  // The button first, so it stays where it is whatever the line beside it says.
  // On the CPU simulator the lines are counted, not sampled.
  const bool counting = in.shown && in.shown->backend == BackendKind::CpuSimulation;
  ImGui::BeginDisabled(!in.refusal.ok() || in.profiling);
  if (ImGui::SmallButton(in.profiling ? (counting ? "Counting..." : "Sampling...")
                                      : (counting ? "Count lines" : "Profile lines")))
    act->profile = true;
  ImGui::EndDisabled();
  if (!in.refusal.ok())
    item_tooltip((in.refusal.message + (in.refusal.hint.empty() ? "" : "\n" + in.refusal.hint)).c_str());
  else if (counting)
    item_tooltip(
        "Count how often each line runs on the CPU simulator, every thread's executions added up: the "
        "kernel's code built again with GCC's coverage counters (a rung's in blockscope-line-counter, on "
        "random data of the same size), one launch, read with gcov.");
  else
    item_tooltip(
        "Sample where this launch's warps wait (the GPU's PC sampling, a few launches, about half a second); "
        "launches of the window pause meanwhile.");
  ImGui::SameLine();
  if (in.profiling) {
    ImGui::TextColored(kDimColour,
                       counting ? "counting each line's executions on the simulator... %.1f s"
                                : "sampling the launch's warps... %.1f s",
                       in.profiling_s);
  } else if (in.profile && in.profile->status.ok() && in.profile->measure == LineMeasure::Executions) {
    const LineProfile& p = *in.profile;
    ImGui::TextColored(kOkColour, "counted: %lld line executions in %lld launch, %s", p.total_samples, p.launches,
                       ms_text(p.profile_ms).c_str());
    item_tooltip(p.measure_note.c_str());
  } else if (in.profile && in.profile->status.ok()) {
    const LineProfile& p = *in.profile;
    const double dropped = p.total_samples + p.dropped_samples > 0
                               ? 100.0 * p.dropped_samples / static_cast<double>(p.total_samples + p.dropped_samples)
                               : 0;
    const std::string period = p.sampling_period > 0
                                   ? "a sample every 2^" + std::to_string(p.sampling_period) + " cycles per SM"
                                   : "CUPTI's default period";
    ImGui::TextColored(kOkColour, "profile: %lld stall samples of %lld launch(es), %.2f%% dropped, %s, %s",
                       p.total_samples, p.launches, dropped, period.c_str(), ms_text(p.profile_ms).c_str());
  } else if (in.profile) {
    ImGui::TextColored(kDimColour, "no profile:");
    ImGui::SameLine();
    status_text(in.profile->status);
  } else {
    ImGui::TextColored(kDimColour, "no profile: %s",
                       in.no_profile.empty() ? "not profiled yet" : in.no_profile.c_str());
  }
  if (l.build_ms > 0) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "   (listing made in %s)", ms_text(l.build_ms).c_str());
  }
  // The SASS metrics' counts, or why none (a GPU profile's: the CPU simulator's counts are their own).
  if (!in.profiling && in.profile && in.profile->status.ok() && in.profile->measure != LineMeasure::Executions) {
    const LineProfile& p = *in.profile;
    if (p.sass_status.ok()) {
      std::string counted = "counted: " + compact(p.sass_total.executed) + " warp instructions executed";
      if (p.sass_has_threads) counted += ", " + sig(p.sass_total.threads_per_warp()) + " threads each";
      if (p.sass_has_shared && p.sass_total.shared_ideal > 0)
        counted += ", shared wavefronts " + sig(p.sass_total.conflict_ratio()) + "x the ideal";
      counted += " (CUPTI's SASS metrics, one more launch, " + ms_text(p.sass_ms) + ")";
      ImGui::TextColored(kOkColour, "%s", counted.c_str());
    } else {
      ImGui::TextColored(kDimColour, "no executed counts:");
      ImGui::SameLine();
      status_text(p.sass_status);
    }
  }
  // The hottest lines of every file (a rung's time is often in the helpers it inlines): a click
  // shows that file and line.
  if (in.profile && in.profile->status.ok() && !in.profile->lines.empty()) {
    ImGui::TextColored(kDimColour, "hot lines:");
    int shown = 0;
    for (const LineSamples& ls : in.profile->lines) {
      if (shown == 6 || ls.share_pct < 1.0) break;
      if (ls.line <= 0) continue;
      const std::string path = embedded_path(ls.file);
      char label[160];
      std::snprintf(label, sizeof label, "%s:%d %.1f%% %s##hot%d", std::filesystem::path(ls.file).filename().c_str(),
                    ls.line, ls.share_pct, ls.stalls.empty() ? "" : ls.stalls.front().reason.c_str(), shown);
      ImGui::SameLine();
      const bool own = source::same_source_file(ls.file, l.source_file);
      const bool have = own || !source::embedded_source(path).empty();
      ImGui::BeginDisabled(!have);
      if (ImGui::SmallButton(label)) {
        st->file = own ? std::string() : path;
        st->line = ls.line;
        st->ptx = st->sass = -1;
        st->scroll_source = st->scroll_ptx = st->scroll_sass = true;
        act->clicked_line = ls.line;
      }
      ImGui::EndDisabled();
      if (!have) item_tooltip((path + " is not embedded in blockscope (only the labs' kernel files are)").c_str());
      ++shown;
    }
  }
}

// --- columns ------------------------------------------------------------------------------------

void scroll_to(int index, float row_h) {
  const float y = std::max(0.0f, index * row_h - ImGui::GetWindowHeight() / 3);
  ImGui::SetScrollY(y);
}

void draw_source_column(const SourceInput& in, SourceViewState* st, SourceAction* act) {
  const KernelListing& l = *in.listing;
  ImGui::TextUnformatted("CUDA source");
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%s", st->shown_file.c_str());
  if (!st->line_live.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "  (line, most live registers)");
  }
  if (!st->file.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("back to the kernel's file")) {
      st->file.clear();
      st->line = 0;
    }
  }
  if (st->file.empty() && !l.source_status.ok()) {
    status_text(l.source_status);
    return;
  }
  const bool profiled = in.profile && in.profile->status.ok();
  ImGui::BeginChild("source_lines", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  if (st->scroll_source && st->line > 0) scroll_to(st->line - 1, row_h);
  st->scroll_source = false;
  const float line_w = ImGui::CalcTextSize("0000 ").x;
  // Life ranges: the most live registers of the line's instructions, after its number.
  const bool live = !st->line_live.empty();
  const float num_w = line_w + (live ? ImGui::CalcTextSize("000 ").x : 0);
  const int scale = live ? live_scale(l, allocated_registers(in)) : 0;
  // Profiled: a bar, the share and the line's main stall reason, before the code (the code can be
  // long; the reason must be seen without scrolling).
  // The CPU simulator's counts have no reasons: the line's executions stand there instead.
  const bool executions = profiled && in.profile->measure == LineMeasure::Executions;
  const float reason_w = executions ? ImGui::CalcTextSize("999.9M  ").x
                         : profiled ? ImGui::CalcTextSize("short_scoreboard  ").x
                                    : 0;
  // Counted (the SASS metrics): executed warp instructions, and shared wavefronts per ideal.
  const bool counted = profiled && in.profile->sass_status.ok();
  const bool shared = counted && in.profile->sass_has_shared;
  const float exec_w = counted ? ImGui::CalcTextSize("999.9M  ").x : 0;
  const float shared_w = shared ? ImGui::CalcTextSize("99.99x  ").x : 0;
  const float bar_w = profiled ? ImGui::CalcTextSize("100.0% ").x + 40 + reason_w + exec_w + shared_w : 0;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(st->source_lines.size()), row_h);
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const int line = i + 1;
      const std::string& text = st->source_lines[static_cast<std::size_t>(i)];
      const LineSamples* ls = nullptr;
      if (profiled && line < static_cast<int>(st->line_samples.size()) &&
          st->line_samples[static_cast<std::size_t>(line)] >= 0)
        ls = &st->lines[static_cast<std::size_t>(st->line_samples[static_cast<std::size_t>(line)])];
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float text_w = ImGui::CalcTextSize(text.c_str()).x;
      ImGui::PushID(i);
      const float w = std::max(ImGui::GetContentRegionAvail().x, num_w + bar_w + text_w + 300);
      if (ImGui::Selectable("##line", st->line == line, 0, ImVec2(w, 0))) {
        st->line = line;
        st->ptx = st->sass = -1;
        st->scroll_ptx = st->scroll_sass = true;
        act->clicked_line = line;
      }
      ImGui::PopID();
      if (ls && ls->samples > 0 && st->max_share > 0) {  // hot lines tinted by their share of the samples
        const float a = static_cast<float>(0.08 + 0.37 * ls->share_pct / st->max_share);
        dl->AddRectFilled(p, ImVec2(p.x + w, p.y + row_h), ImGui::GetColorU32(ImVec4(1.0f, 0.45f, 0.1f, a)));
      }
      char num[16];
      std::snprintf(num, sizeof num, "%4d", line);
      dl->AddText(p, ImGui::GetColorU32(kDimColour), num);
      if (counted && ls && ls->sass.executed > 0) {
        const float x0 = p.x + num_w + bar_w - exec_w - shared_w;
        dl->AddText(ImVec2(x0, p.y), ImGui::GetColorU32(kDimColour), compact(ls->sass.executed).c_str());
        if (shared && ls->sass.shared_ideal > 0) {
          char r[24];
          std::snprintf(r, sizeof r, "%.2fx", ls->sass.conflict_ratio());
          dl->AddText(ImVec2(x0 + exec_w, p.y),
                      ImGui::GetColorU32(ls->sass.shared_wavefronts > ls->sass.shared_ideal ? kWarnColour : kDimColour),
                      r);
        }
      }
      if (live && line < static_cast<int>(st->line_live.size()) && st->line_live[static_cast<std::size_t>(line)] >= 0) {
        const int n = st->line_live[static_cast<std::size_t>(line)];
        char lv[16];
        std::snprintf(lv, sizeof lv, "%3d", n);
        const float f = scale > 0 ? static_cast<float>(n) / static_cast<float>(scale) : 0;
        const ImVec4 c = f > 0.9f ? kErrorColour : f > 0.7f ? kWarnColour : ImVec4(0.45f, 0.75f, 0.55f, 1.0f);
        dl->AddText(ImVec2(p.x + line_w, p.y), ImGui::GetColorU32(c), lv);
      }
      if (profiled && ls && ls->samples > 0) {
        const float full = 40;
        const float bw = static_cast<float>(full * ls->share_pct / std::max(st->max_share, 1e-9));
        const ImVec2 b0(p.x + num_w, p.y + 3), b1(p.x + num_w + bw, p.y + row_h - 3);
        dl->AddRectFilled(b0, b1, ImGui::GetColorU32(ImVec4(1.0f, 0.55f, 0.2f, 0.9f)));
        char pct[16];
        std::snprintf(pct, sizeof pct, "%5.1f%%", ls->share_pct);
        dl->AddText(ImVec2(p.x + num_w + full + 4, p.y), ImGui::GetColorU32(ImGuiCol_Text), pct);
        if (executions)
          dl->AddText(ImVec2(p.x + num_w + bar_w - reason_w - exec_w - shared_w, p.y), ImGui::GetColorU32(kDimColour),
                      compact(ls->samples).c_str());
        for (const StallSamples& r : ls->stalls)  // the largest reason that counts (not a subset)
          if (r.samples > 0 && r.reason.find("_not_issued") == std::string::npos) {
            const float x0 = p.x + num_w + bar_w - reason_w - exec_w - shared_w;
            dl->PushClipRect(ImVec2(x0, p.y), ImVec2(x0 + reason_w - 6, p.y + row_h), true);
            dl->AddText(ImVec2(x0, p.y), ImGui::GetColorU32(kWarnColour), r.reason.c_str());
            dl->PopClipRect();
            break;
          }
      }
      dl->AddText(ImVec2(p.x + num_w + bar_w, p.y), ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
      if (live && ImGui::IsItemHovered() && !ls && line < static_cast<int>(st->line_live.size()) &&
          st->line_live[static_cast<std::size_t>(line)] >= 0)
        tooltip(("at most " + std::to_string(st->line_live[static_cast<std::size_t>(line)]) +
                 " registers live at this line's instructions (nvdisasm's life ranges)")
                    .c_str());
      if (ls) {
        const std::string stalls = stall_names(ls->stalls, ls->samples, 3);
        dl->AddText(ImVec2(p.x + num_w + bar_w + text_w + 24, p.y), ImGui::GetColorU32(kWarnColour), stalls.c_str());
        if (ImGui::IsItemHovered()) {
          std::string tip =
              std::to_string(ls->samples) + (executions ? " executions (" : " samples (") + sig(ls->share_pct) +
              (executions ? "% of all lines')" : "% of the kernel's)") +
              (ls->folded > 0 ? "\nof which " + std::to_string(ls->folded) +
                                    " are the simulator's lane-by-lane stand-in for the warp "
                                    "instruction this line calls (one instruction on the GPU)"
                              : std::string()) +
              (executions ? "\n" + in.profile->measure_note : "\n" + stall_names(ls->stalls, ls->samples, 8));
          if (const std::string c = sass_text(*in.profile, ls->sass); !c.empty()) tip += "\n" + c;
          tooltip(tip.c_str());
        }
      }
    }
  ImGui::EndChild();
}

void draw_instruction_column(const char* title, const char* id, const SourceInput& in, SourceViewState* st,
                             SourceAction* act, bool sass) {
  const KernelListing& l = *in.listing;
  const std::vector<ListedInstruction>& v = sass ? l.sass : l.ptx;
  const Status& status = sass ? l.sass_status : l.ptx_status;
  const std::string& origin = sass ? l.sass_origin : l.ptx_origin;
  ImGui::TextUnformatted(title);
  if (!origin.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "%s", origin.c_str());
    if (ImGui::IsItemHovered()) tooltip(origin.c_str());
  }
  if (!status.ok()) {
    status_text(status);
    if (v.empty()) return;
  }
  const int scale = sass ? live_scale(l, allocated_registers(in)) : 0;
  if (sass && l.live_status.ok()) ImGui::TextColored(kDimColour, "pc   line live (bar: of %d registers)", scale);
  // Where an instruction comes from. The listing names one frame of each instruction's inline
  // chain, the one in the kernel's own file; shown another file (a helper it inlines), SASS rows
  // take the profile's line for their pc instead (the innermost, where the code is written).
  const bool other_file = !st->file.empty();
  auto location = [&](const ListedInstruction& ins) -> std::pair<const std::string*, int> {
    if (sass && other_file && in.profile && in.profile->status.ok()) {
      auto it = st->pc_samples.find(ins.pc_offset);
      if (it != st->pc_samples.end()) {
        const InstructionSamples& s = in.profile->instructions[static_cast<std::size_t>(it->second)];
        return {&s.file, s.line};
      }
    }
    return {&ins.file, ins.line};
  };
  std::vector<int> hits;
  for (std::size_t i = 0; i < v.size() && st->line > 0; ++i) {
    const auto [file, line] = location(v[i]);
    if (line == st->line && source::same_source_file(*file, st->shown_file)) hits.push_back(static_cast<int>(i));
  }
  ImGui::BeginChild(id, ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  bool& scroll = sass ? st->scroll_sass : st->scroll_ptx;
  if (scroll && !hits.empty()) scroll_to(hits.front(), row_h);
  scroll = false;
  const bool profiled = sass && in.profile && in.profile->status.ok();
  int& clicked = sass ? st->sass : st->ptx;
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(v.size()), row_h);
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ListedInstruction& ins = v[static_cast<std::size_t>(i)];
      const auto [ins_file, ins_line] = location(ins);
      const bool mine = source::same_source_file(*ins_file, st->shown_file);
      std::string row = row_start(ins, ins_line, mine, sass);
      const std::string before_bar = row + (ins.live_regs >= 0 ? live_cell(ins, false).substr(0, 5) : std::string());
      row += live_cell(ins, sass && l.live_status.ok()) + "  " + ins.text;
      const bool selected = i == clicked || (mine && ins_line == st->line && st->line > 0);
      if (instruction_row(i, row, before_bar, selected, i == clicked, ins, sass, row_h, scale)) {
        clicked = i;
        (sass ? st->ptx : st->sass) = -1;
        if (mine && ins_line > 0) {
          st->line = ins_line;
          st->scroll_source = true;
          (sass ? st->scroll_ptx : st->scroll_sass) = true;
        }
        (sass ? act->clicked_sass : act->clicked_ptx) = i;
      }
      if (ImGui::IsItemHovered()) {
        std::string tip = ins_file->empty() ? "no line information" : *ins_file + ":" + std::to_string(ins_line);
        if (ins.live_regs >= 0) tip += live_text(ins);
        if (!mine && !ins_file->empty()) tip += "\n(* another file than the one shown: an inlined helper)";
        if (profiled) {
          auto it = st->pc_samples.find(ins.pc_offset);
          if (it == st->pc_samples.end()) {
            tip += "\nno samples at this instruction";
          } else {
            const InstructionSamples& s = in.profile->instructions[static_cast<std::size_t>(it->second)];
            tip += "\n" + std::to_string(s.samples) + " samples (" +
                   sig(in.profile->total_samples > 0 ? 100.0 * s.samples / in.profile->total_samples : 0) +
                   "% of the kernel's)\n" + stall_names(s.stalls, s.samples, 8);
            if (const std::string c = sass_text(*in.profile, s.sass); !c.empty()) tip += "\n" + c;
          }
        }
        tooltip(tip.c_str());
      }
    }
  ImGui::EndChild();
}

}  // namespace

std::string embedded_path(const std::string& file) {
  const auto at = file.rfind("kernels/");
  return at == std::string::npos ? file : file.substr(at);
}

std::vector<LineSamples> lines_in_file(const KernelListing& listing, const LineProfile& profile,
                                       const std::string& file, bool helper_file) {
  // A line's samples as Nsight Compute's source page counts them for the file shown: every
  // instruction the listing places on that line, the helpers it inlines there included (k3's
  // loads run inside shared_access.hpp, called from its own lines). Where the listing has no
  // SASS, or the file shown is a helper, the profile's innermost lines.
  std::vector<LineSamples> out;
  std::unordered_map<unsigned long long, const InstructionSamples*> at_pc;
  for (const InstructionSamples& is : profile.instructions) at_pc[is.pc_offset] = &is;
  std::map<int, std::map<std::string, long long>> reasons;
  std::map<int, LineSamples> per_line;
  if (!helper_file)
    for (const ListedInstruction& ins : listing.sass) {
      if (ins.line <= 0 || !source::same_source_file(ins.file, file)) continue;
      auto it = at_pc.find(ins.pc_offset);
      if (it == at_pc.end()) continue;
      LineSamples& l = per_line[ins.line];
      l.file = ins.file;
      l.line = ins.line;
      l.samples += it->second->samples;
      l.sass += it->second->sass;
      for (const StallSamples& r : it->second->stalls) reasons[ins.line][r.reason] += r.samples;
    }
  if (per_line.empty()) {
    for (const LineSamples& l : profile.lines)
      if (source::same_source_file(l.file, file)) out.push_back(l);
    return out;
  }
  for (auto& [line, l] : per_line) {
    for (const auto& [reason, n] : reasons[line]) l.stalls.push_back({reason, n});
    std::stable_sort(l.stalls.begin(), l.stalls.end(),
                     [](const StallSamples& x, const StallSamples& y) { return x.samples > y.samples; });
    l.share_pct = profile.total_samples > 0 ? 100.0 * static_cast<double>(l.samples) / profile.total_samples : 0;
    out.push_back(std::move(l));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LineSamples& x, const LineSamples& y) { return x.samples > y.samples; });
  return out;
}

std::string live_summary(const KernelListing& l, unsigned allocated) {
  if (!l.sass_status.ok() && l.sass.empty()) return {};
  if (!l.live_status.ok()) return "no register pressure: " + l.live_status.message;
  const source::LivePeak p = source::peak_live(l.sass);
  if (p.regs < 0) return "no register pressure: no instruction has a live-register count";
  std::string s = "peak " + std::to_string(p.regs) + " live registers";
  if (p.line > 0)
    s += " at line " + std::to_string(p.line) + " of " + std::filesystem::path(p.file).filename().string();
  if (allocated > 0) s += "; " + std::to_string(allocated) + " allocated";
  return s;
}

int live_scale(const KernelListing& l, unsigned allocated) {
  if (allocated > 0) return static_cast<int>(allocated);
  return std::max(1, source::peak_live(l.sass).regs);
}

int draw_instruction_list(const char* id, const std::vector<ListedInstruction>& v, const std::string& file, int line,
                          bool sass, int scale, InstructionListState* state) {
  int clicked_now = -1;
  const bool any_live =
      sass && std::any_of(v.begin(), v.end(), [](const ListedInstruction& i) { return i.live_regs >= 0; });
  if (any_live) ImGui::TextColored(kDimColour, "pc   line live (of %d)", scale);
  ImGui::BeginChild(id, ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  if (state->scroll && line > 0)
    for (std::size_t i = 0; i < v.size(); ++i)
      if (at_line(v[i], file, line)) {
        scroll_to(static_cast<int>(i), row_h);
        break;
      }
  state->scroll = false;
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(v.size()), row_h);
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ListedInstruction& ins = v[static_cast<std::size_t>(i)];
      const bool mine = source::same_source_file(ins.file, file);
      std::string row = row_start(ins, ins.line, mine, sass);
      const std::string before_bar =
          row + (sass && ins.live_regs >= 0 ? live_cell(ins, false).substr(0, 5) : std::string());
      if (sass) row += live_cell(ins, scale > 0 && any_live);
      row += "  " + ins.text;
      const bool emphasised = i == state->clicked;
      const bool selected = emphasised || (mine && line > 0 && ins.line == line);
      if (instruction_row(i, row, before_bar, selected, emphasised, ins, sass, row_h, scale)) {
        state->clicked = i;
        clicked_now = i;
      }
      if (ImGui::IsItemHovered()) {
        std::string tip = ins.file.empty() ? "no line information" : ins.file + ":" + std::to_string(ins.line);
        if (!mine && !ins.file.empty()) tip += "\n(* blockscope's generated entry, not your code)";
        if (ins.live_regs >= 0) tip += live_text(ins);
        tooltip(tip.c_str());
      }
    }
  ImGui::EndChild();
  return clicked_now;
}

std::vector<int> instructions_at(const std::vector<ListedInstruction>& v, const std::string& file, int line) {
  std::vector<int> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (at_line(v[i], file, line)) out.push_back(static_cast<int>(i));
  return out;
}

SourceAction draw_source_panel(const SourceInput& in, SourceViewState* st) {
  SourceAction act;
  rebuild(in, st);
  if (!in.listing) {
    ImGui::TextColored(kDimColour, in.building ? "building the listing (source, PTX, SASS)..." : "no listing yet");
    return act;
  }
  draw_header(in, st, &act);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("source_columns", 3, flags, ImGui::GetContentRegionAvail())) return act;
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch, 2.6f);  // share, reason, counts, then the code
  ImGui::TableSetupColumn("ptx", ImGuiTableColumnFlags_WidthStretch, 0.8f);
  ImGui::TableSetupColumn("sass", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableNextRow(0, ImGui::GetContentRegionAvail().y);
  ImGui::TableSetColumnIndex(0);
  draw_source_column(in, st, &act);
  ImGui::TableSetColumnIndex(1);
  draw_instruction_column("PTX", "ptx_lines", in, st, &act, false);
  ImGui::TableSetColumnIndex(2);
  draw_instruction_column("SASS", "sass_lines", in, st, &act, true);
  ImGui::EndTable();
  return act;
}

}  // namespace bs::ui
