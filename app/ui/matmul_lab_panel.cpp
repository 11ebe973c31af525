// The matmul lab's controls: matrices (presets, sizes, patterns, seed), the kernel ladder and each
// rung's honest knobs (blockDim for rungs 1-3, the compiled tile configurations for 4-7, typed
// values that are refused with the reason), the result card with the timing and the correctness
// side by side, and the shared-memory phase.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "shell/matmul_session.hpp"
#include "ui/matmul_panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

using matmul::MatmulKernel;

bool is_block_rung(MatmulKernel k) {
  return k == MatmulKernel::Naive || k == MatmulKernel::Uncoalesced || k == MatmulKernel::SmemTiled;
}

// A configuration in a few words, for combo previews and tables.
std::string short_config(MatmulKernel k, const matmul::MatmulConfig& c) {
  const matmul::TileParams& p = c.tile;
  char buf[96];
  switch (k) {
    case MatmulKernel::Naive:
    case MatmulKernel::Uncoalesced:
      std::snprintf(buf, sizeof buf, "block %ux%u%s", c.block.x, c.block.y, c.block.z != 1 ? "xZ" : "");
      break;
    case MatmulKernel::SmemTiled:
      std::snprintf(buf, sizeof buf, "tile %ux%u", c.block.x, c.block.y);
      break;
    case MatmulKernel::Blocktile1D:
      std::snprintf(buf, sizeof buf, "%dx%dx%d, TM %d", p.BM, p.BN, p.BK, p.TM);
      break;
    case MatmulKernel::Blocktile2D:
    case MatmulKernel::Vectorized:
      std::snprintf(buf, sizeof buf, "%dx%dx%d, %dx%d/thread", p.BM, p.BN, p.BK, p.TM, p.TN);
      break;
    case MatmulKernel::Warptile:
      std::snprintf(buf, sizeof buf, "%dx%dx%d, warp %dx%d, %dx%d, MB %d", p.BM, p.BN, p.BK, p.WM, p.WN, p.TM,
                    p.TN, p.MB);
      break;
  }
  return buf;
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s", title);
  ImGui::Separator();
}

bool choose_button(const char* label, bool current, float width) {
  if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.30f, 0.50f, 0.30f, 1));
  const bool pressed = ImGui::Button(label, ImVec2(width, 0));
  if (current) ImGui::PopStyleColor();
  return pressed;
}

void draw_matrices(const app::MatmulSession& s, app::MatmulState& st) {
  const float em = ImGui::GetFontSize();
  const bool cpu = s.backend() == BackendKind::CpuSimulation;
  section("MATRICES");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(kDimColour, "C (M x N) = A (M x K) * B (K x N), FP32, row-major");
  ImGui::PopTextWrapPos();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##preset", "Presets...")) {
    for (const auto& p : matmul::matmul_presets()) {
      const double work = static_cast<double>(p.M) * p.N * p.K;
      const bool too_big = cpu && work > static_cast<double>(matmul::kSimMaxMultiplyAdds);
      if (too_big) ImGui::BeginDisabled();
      if (ImGui::Selectable(p.name.c_str())) {
        st.M = p.M, st.N = p.N, st.K = p.K;
        st.pattern_a = matmul::to_string(p.a_pattern);
        st.pattern_b = matmul::to_string(p.b_pattern);
      }
      if (too_big) ImGui::EndDisabled();
      if (too_big) item_tooltip("Above the CPU simulator's cap (2^27 multiply-adds per launch).");
    }
    ImGui::EndCombo();
  }
  int mnk[3] = {st.M, st.N, st.K};
  ImGui::SetNextItemWidth(-em * 3.2f);
  if (ImGui::InputInt3("M N K", mnk, ImGuiInputTextFlags_EnterReturnsTrue)) {
    st.M = std::max(0, mnk[0]), st.N = std::max(0, mnk[1]), st.K = std::max(0, mnk[2]);
  }
  item_tooltip("Type a size and press Enter. Any size from 1 up: sizes that do not fit (device or "
               "host memory, the simulator's cap) are refused with the reason.");
  if (cpu)
    ImGui::TextColored(kDimColour, "CPU simulation: M*N*K <= 2^27 (512^3)");
  const char* patterns[] = {"uniform", "normal", "small-integers", "identity", "structured"};
  auto pattern_combo = [&](const char* label, std::string& value) {
    int current = 0;
    for (int i = 0; i < 5; ++i)
      if (value == patterns[i]) current = i;
    ImGui::SetNextItemWidth(em * 7.5f);
    if (ImGui::Combo(label, &current, patterns, 5)) value = patterns[current];
  };
  pattern_combo("A##pa", st.pattern_a);
  item_tooltip("uniform [-1, 1); normal; small integers in [-4, 4] (exact products); identity; "
               "structured ((3i + 5j) mod 17 - 8) / 8, which makes a misread index show as a stripe.");
  ImGui::SameLine();
  pattern_combo("B##pb", st.pattern_b);
  int seed = static_cast<int>(st.seed);
  ImGui::SetNextItemWidth(em * 7.5f);
  if (ImGui::InputInt("seed", &seed, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue) || seed != static_cast<int>(st.seed))
    st.seed = static_cast<std::uint64_t>(std::max(0, seed));
  const auto& m = s.matrices();
  if (!m.ready) {
    status_text(m.status);
  } else {
    const double mb = 4.0 * (static_cast<double>(m.M) * m.K + static_cast<double>(m.K) * m.N +
                             static_cast<double>(m.M) * m.N) / (1 << 20);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kDimColour, "%.3g GFLOP per product, %.1f MiB of A, B, C", 2.0 * m.M * m.N * m.K * 1e-9, mb);
    ImGui::PopTextWrapPos();
  }
}

void draw_kernel_picker(app::MatmulState& st) {
  section("KERNEL LADDER");
  const matmul::MatmulKernelInfo* current = matmul::find_matmul_kernel(st.kernel);
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - ImGui::GetStyle().ItemInnerSpacing.x;
  for (const auto& k : matmul::matmul_kernels()) {
    // The registry's label, without its parenthesis when the panel is too narrow for it.
    std::string label = k.label;
    for (const char* cut : {" (", ", "})
      if (ImGui::CalcTextSize(label.c_str()).x > room && label.find(cut) != std::string::npos)
        label = label.substr(0, label.find(cut));
    if (ImGui::RadioButton(label.c_str(), current == &k) && current != &k) {
      st.kernel = k.id;
      st.config_index = 0;
      st.block.reset();
      st.tile.reset();
      st.phase = 0;
    }
    item_tooltip((k.teaches + "\n\n" + k.file).c_str());
  }
  if (current) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kDimColour, "%s", current->teaches.c_str());
    ImGui::PopTextWrapPos();
  }
}

void draw_block_knobs(const matmul::MatmulKernelInfo& info, const app::MatmulSession& s, app::MatmulState& st) {
  const float em = ImGui::GetFontSize();
  const Dim3 block = s.choice().config.block;
  if (info.kernel == MatmulKernel::SmemTiled) {
    ImGui::TextUnformatted("tile = block, T x T");
    help_marker("The shared tiles are fixed-size arrays, so T is a compile-time constant: only "
                "the compiled T exist. Type another block below to see the refusal.");
    for (std::size_t i = 0; i < info.configs.size(); ++i) {
      const Dim3 b = info.configs[i].block;
      char label[32];
      std::snprintf(label, sizeof label, "%ux%u", b.x, b.y);
      if (i) ImGui::SameLine();
      if (choose_button(label, b == block, em * 4.2f)) {
        st.config_index = static_cast<int>(i);
        st.block.reset();
      }
    }
  } else {
    ImGui::TextUnformatted("blockDim");
    help_marker("Threads per block in x and y; one thread per element of C. Rung 1 takes the "
                "column from x, rung 2 the row. Shapes CUDA refuses are refused here, before "
                "launch, with the reason.");
    int b[2] = {static_cast<int>(block.x), static_cast<int>(block.y)};
    bool changed = false;
    ImGui::PushItemWidth(-em * 1.5f);
    changed |= ImGui::SliderInt("x", &b[0], 1, 1024, "%d", ImGuiSliderFlags_Logarithmic);
    changed |= ImGui::SliderInt("y", &b[1], 1, 1024, "%d", ImGuiSliderFlags_Logarithmic);
    ImGui::PopItemWidth();
    if (changed) st.block = Dim3{static_cast<unsigned>(std::max(1, b[0])), static_cast<unsigned>(std::max(1, b[1])), 1};
    int col = 0;
    for (const auto& c : info.configs) {
      char label[32];
      std::snprintf(label, sizeof label, "%ux%u", c.block.x, c.block.y);
      if (col++ % 4 != 0) ImGui::SameLine();
      if (choose_button(label, c.block == block, em * 4.2f)) st.block = c.block;
    }
  }
  int typed[3] = {static_cast<int>(block.x), static_cast<int>(block.y), static_cast<int>(block.z)};
  ImGui::SetNextItemWidth(-em * 3.2f);
  if (ImGui::InputInt3("typed", typed, ImGuiInputTextFlags_EnterReturnsTrue))
    st.block = Dim3{static_cast<unsigned>(std::max(0, typed[0])), static_cast<unsigned>(std::max(0, typed[1])),
                    static_cast<unsigned>(std::max(0, typed[2]))};
  item_tooltip("Any blockDim (x, y, z), even one the kernel cannot run: press Enter and read why.");
}

void draw_tile_knobs(const matmul::MatmulKernelInfo& info, const app::MatmulSession& s, app::MatmulState& st) {
  const float em = ImGui::GetFontSize();
  const matmul::MatmulConfig& cfg = s.choice().config;
  ImGui::TextUnformatted("compiled configurations");
  help_marker("Tile sizes are template parameters: each row here is a kernel that exists as "
              "machine code (kernels/labs/matmul/matmul_configs.hpp). BM x BN is the block's tile of C, "
              "BK the K slice staged in shared memory, TM x TN the outputs per thread, WM x WN "
              "the warp tile, MB the blocks per SM the compiler must fit (registers).");
  const std::string preview = st.tile ? "typed: " + short_config(info.kernel, cfg)
                                      : short_config(info.kernel, cfg);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##config", preview.c_str())) {
    for (std::size_t i = 0; i < info.configs.size(); ++i) {
      const bool selected = !st.tile && static_cast<int>(i) == st.config_index;
      if (ImGui::Selectable(short_config(info.kernel, info.configs[i]).c_str(), selected)) {
        st.config_index = static_cast<int>(i);
        st.tile.reset();
      }
      item_tooltip(info.configs[i].label.c_str());
    }
    ImGui::EndCombo();
  }
  const matmul::TileParams& p = cfg.tile;
  ImGui::TextColored(kDimColour, "%u threads, %zu B shared / block", cfg.block.x,
                     matmul::matmul_shared_bytes(info.kernel, cfg));
  if (ImGui::TreeNode("Type tile parameters")) {
    matmul::TileParams t = st.tile.value_or(p);
    int v[8] = {t.BM, t.BN, t.BK, t.TM, t.TN, t.WM, t.WN, t.MB};
    const char* names[8] = {"BM", "BN", "BK", "TM", "TN", "WM", "WN", "MB"};
    const int shown = info.kernel == MatmulKernel::Warptile ? 8 : info.kernel == MatmulKernel::Blocktile1D ? 4 : 5;
    bool changed = false;
    for (int i = 0; i < shown; ++i) {
      if (i % 4) ImGui::SameLine();
      ImGui::SetNextItemWidth(em * 2.6f);
      changed |= ImGui::InputInt(names[i], &v[i], 0, 0, ImGuiInputTextFlags_EnterReturnsTrue);
    }
    if (changed) {
      t = matmul::TileParams{v[0], v[1], v[2], v[3], shown > 4 ? v[4] : 1, v[5], v[6], v[7]};
      st.tile = t;
    }
    ImGui::TextColored(kDimColour, "Enter applies; only compiled tiles run.");
    if (st.tile && ImGui::SmallButton("back to the list")) st.tile.reset();
    ImGui::TreePop();
  }
}

void draw_result_card(const app::MatmulSession& s, app::MatmulState& st, MatmulControlsActions& act) {
  section("RESULT");
  const auto& m = s.matrices();
  const auto& c = s.choice();
  const LaunchRecord& last = s.last_launch();
  if (!m.ready) {
    if (m.status.ok()) ImGui::TextColored(kDimColour, "generating the matrices...");
    else ImGui::TextColored(kErrorColour, "No matrices: nothing runs");
    return;
  }
  if (!c.status.ok()) {
    ImGui::TextColored(kErrorColour, "Refused before launch");
    status_text(c.status);
  } else if (!last.ok() && !last.kernel.empty()) {
    ImGui::TextColored(kErrorColour, "Launch failed");
    status_text(last.status);
  }
  const auto& h = s.history();
  if (c.status.ok() && last.ok() && h.kernel().size() > 0) {
    const double median = h.kernel_summary().median;
    const double gflops = median > 0 ? last.flops / (median * 1e6) : 0;
    const bool passed = s.has_verification() && s.verification().passed;
    char buf[96];
    ImGui::Text("%.4g ms", median);
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "median of %zu", h.kernel().size());
    if (passed) {
      std::snprintf(buf, sizeof buf, gflops < 10 ? "%.3g GFLOP/s" : "%.1f GFLOP/s", gflops);
      ImGui::TextColored(kOkColour, "%s", buf);
      if (s.cublas_ms() > 0) {
        ImGui::SameLine();
        ImGui::Text("%.0f%% of cuBLAS", 100.0 * s.cublas_ms() / median);
      }
    } else {
      // A wrong result is never shown as a fast one.
      ImGui::TextColored(kDimColour, "--- GFLOP/s");
      ImGui::SameLine();
      ImGui::TextColored(kErrorColour, "WRONG RESULT");
    }
    const auto& v = s.verification();
    const char* against = s.backend() == BackendKind::Cuda ? "cuBLAS" : "CPU reference";
    if (!s.has_verification()) {
      ImGui::TextColored(kWarnColour, "not verified yet");
    } else if (v.passed) {
      ImGui::TextColored(kOkColour, "verified vs %s", against);
      // The worst error as a share of its own tolerance says more than a relative error, which
      // explodes wherever C happens to be near zero.
      ImGui::TextColored(kDimColour, "worst error %.2g of its tolerance", v.max_tolerance_ratio);
    } else {
      ImGui::TextColored(kErrorColour, "FAILED vs %s: %zu of %zu wrong", against, v.mismatches, v.checked);
      if (v.first_bad_row >= 0)
        ImGui::TextColored(kErrorColour, "first C[%lld][%lld] = %.4g, want %.4g", v.first_bad_row, v.first_bad_col,
                           v.first_bad_got, v.first_bad_want);
    }
    item_tooltip((v.summary() + "\n\ntolerance: " + v.tolerance).c_str());
  }
  ImGui::Checkbox("Run continuously", &st.run_continuously);
  item_tooltip("Rerun every frame so the timings fill up. Every new configuration is verified; "
               "repeats of a large one are re-verified every few seconds.");
  ImGui::SameLine();
  if (ImGui::Button("Run once")) act.run_once = true;
  if (s.paused_slow() && st.run_continuously)
    ImGui::TextColored(kWarnColour, "paused: a run takes %.0f ms", s.last_pipeline_ms());
}

}  // namespace

void draw_lab_tabs(app::Lab* lab) {
  if (!ImGui::BeginTabBar("labs")) return;
  struct Tab {
    const char* name;
    app::Lab lab;
  };
  for (const Tab t : {Tab{"Grayscale", app::Lab::Grayscale}, Tab{"Matmul", app::Lab::Matmul}}) {
    // The state picks the tab (the command line, a click last frame); a click changes the state.
    const ImGuiTabItemFlags flags = *lab == t.lab ? ImGuiTabItemFlags_SetSelected : 0;
    const bool open = ImGui::BeginTabItem(t.name, nullptr, flags);
    if (ImGui::IsItemClicked()) *lab = t.lab;
    if (open) ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

MatmulControlsActions draw_matmul_controls(const app::MatmulSession& s, app::AppState* state) {
  MatmulControlsActions act;
  app::MatmulState& st = state->matmul;
  ImGui::TextUnformatted("MATMUL LAB");
  ImGui::TextColored(kDimColour, "the lecture's kernel, up to cuBLAS");
  draw_matrices(s, st);
  draw_kernel_picker(st);
  if (const matmul::MatmulKernelInfo* info = matmul::find_matmul_kernel(st.kernel)) {
    section("CONFIGURATION");
    if (is_block_rung(info->kernel)) draw_block_knobs(*info, s, st);
    else draw_tile_knobs(*info, s, st);
  }
  draw_result_card(s, st, act);
  return act;
}

}  // namespace bs::ui
