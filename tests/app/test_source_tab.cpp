// The Source tab. The panel alone, drawn in the tests' one ImGui harness (imgui_frames.hpp, no
// window) with a listing of odd sizes (a 12k-instruction SASS, lines mapped at random) and a
// LineProfile: a click on a source line selects its PTX and SASS instructions and scrolls SASS to
// the first; a click on a PTX instruction selects its source line; register pressure per line and
// its peak. Then the App on the CPU backend: the Source tab opens on gray_1d_flat with its
// embedded file, says why there is no PTX or SASS, and takes a click on a line.
// BS_SOURCE_PANEL_PNG=FOLDER writes the App's frame as a PNG, to look at.
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "cpu_app.hpp"
#include "imgui_frames.hpp"
#include "platform/png.hpp"
#include "platform/window.hpp"
#include "skips.hpp"
#include "source/listing.hpp"
#include "source/listing_parse.hpp"
#include "ui/source_panel.hpp"
#include "wait_until.hpp"

namespace {

using namespace bs;

ImGuiWindow* child_named(const char* part) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (ImGuiWindow* w : g.Windows)
    if (w->Active && std::string(w->Name).find(part) != std::string::npos) return w;
  return nullptr;
}

// The screen point of row `i` of a clipped list child (its rows are one text line high).
ImVec2 row_point(ImGuiWindow* w, int i) {
  const float h = ImGui::GetTextLineHeightWithSpacing();
  return ImVec2(w->Pos.x + 60, w->DC.CursorStartPos.y + h * i + h / 2);
}

void save_png(Window& window, const std::string& name) {
  const char* dir = std::getenv("BS_SOURCE_PANEL_PNG");
  if (!dir || !*dir) return;
  const auto [w, h] = window.framebuffer_size();
  const std::vector<std::uint8_t> px = window.read_pixels_rgba();
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(write_png(std::filesystem::path(dir) / (name + ".png"), w, h, 4, px.data()).ok());
}

class SourcePanel : public ::testing::Test {
 protected:
  // One frame of the panel (a click is a frame with the button down, then one with it up).
  ui::SourceAction frame(const ui::SourceInput& in) {
    ui::SourceAction a;
    ui_.frame([&] { a = ui::draw_source_panel(in, &state_); }, 1);
    return a;
  }
  ui::SourceAction click(const ui::SourceInput& in, ImVec2 at) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = at;
    io.MouseDown[0] = true;
    ui::SourceAction a = frame(in);
    io.MouseDown[0] = false;
    const ui::SourceAction b = frame(in);
    if (b.clicked_line || b.clicked_ptx >= 0 || b.clicked_sass >= 0) a = b;
    return a;
  }

  test::ImGuiFrames ui_{ImVec2(1500, 800)};
  ui::SourceViewState state_;
};

TEST_F(SourcePanel, AClickedLineSelectsItsInstructionsAndAClickedInstructionItsLine) {
  std::mt19937 rng(std::random_device{}());
  const int lines = 37 + static_cast<int>(rng() % 20);
  KernelListing l;
  l.kernel = "custom:odd";
  l.source_file = "kernel.cu";
  for (int i = 1; i <= lines; ++i) l.source += "  line " + std::to_string(i) + " of the kernel;\n";
  for (int i = 0; i < 301; ++i)
    l.ptx.push_back({0, "ptx." + std::to_string(i) + ";", "kernel.cu", 1 + static_cast<int>(rng() % lines)});
  for (int i = 0; i < 12011; ++i)
    l.sass.push_back({static_cast<unsigned long long>(i) * 16, "SASS" + std::to_string(i) + " ;", "/x/kernel.cu",
                      1 + static_cast<int>(rng() % lines)});
  // The line to click (among the first 25, on screen without scrolling): its first SASS
  // instruction is made the 9000th, far down the list.
  const int target = 1 + static_cast<int>(rng() % 25);
  for (auto& s : l.sass)
    if (s.line == target) s.line = 1 + (target % lines);  // clear it ...
  l.sass[9000].line = target;                             // ... so its first instruction is 9000
  l.sass[9001].line = target;
  LineProfile p;
  p.kernel = l.kernel;
  p.total_samples = 1000;
  p.launches = 1;
  p.lines.push_back(
      {"kernel.cu", target, 600, 60.0, {{"long_scoreboard", 400}, {"barrier", 150}, {"selected", 50}}, {}});
  p.lines.push_back({"kernel.cu", 2, 400, 40.0, {{"mio_throttle", 300}, {"math_pipe_throttle", 100}}, {}});
  p.instructions.push_back({9000 * 16, "kernel.cu", target, 600, {{"long_scoreboard", 400}}, {}});
  ui::SourceInput in;
  in.listing = &l;
  in.profile = &p;
  frame(in);
  frame(in);
  ImGuiWindow* src = child_named("source_lines");
  ASSERT_NE(src, nullptr);
  const ui::SourceAction a = click(in, row_point(src, target - 1));
  EXPECT_EQ(a.clicked_line, target);
  EXPECT_EQ(state_.line, target);
  frame(in);
  ImGuiWindow* sass = child_named("sass_lines");
  ASSERT_NE(sass, nullptr);
  const float row = ImGui::GetTextLineHeightWithSpacing();
  EXPECT_LE(sass->Scroll.y, 9000 * row);
  EXPECT_GE(sass->Scroll.y + sass->Size.y, 9001 * row) << "SASS was not scrolled to the line's first instruction";
  const std::vector<int> hits = ui::instructions_at(l.sass, l.source_file, target);
  EXPECT_EQ(hits, (std::vector<int>{9000, 9001}));

  // A PTX instruction: its source line is selected.
  ImGuiWindow* ptx = child_named("ptx_lines");
  ASSERT_NE(ptx, nullptr);
  const int first_visible = static_cast<int>(ptx->Scroll.y / row) + 2;
  const ui::SourceAction b = click(in, row_point(ptx, first_visible));
  EXPECT_EQ(b.clicked_ptx, first_visible);
  EXPECT_EQ(state_.line, l.ptx[static_cast<std::size_t>(first_visible)].line);
  EXPECT_EQ(state_.ptx, first_visible);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Register pressure in the tab: a listing made of nvdisasm's real output for a small kernel
// (tests/source/data/life_ranges: its -gi listing and its life ranges), drawn with a launch whose
// allocation is 10 registers; the header names the peak and its line, the source column each
// line's most (as counted by the listing, checked against a count made here), SASS rows a bar.
TEST_F(SourcePanel, LiveRegistersShowPerInstructionPerLineAndThePeakIsNamed) {
  const std::string dir = std::string(BS_SOURCE_DIR) + "/tests/source/data/life_ranges/";
  auto fns = source::parse_nvdisasm(slurp(dir + "saxpy.gi.txt"), "saxpy.cu");
  auto ranges = source::parse_nvdisasm(slurp(dir + "saxpy.count.txt"), "");
  ASSERT_TRUE(fns.ok() && ranges.ok());
  ASSERT_GT(source::merge_live(*fns, *ranges), 0);
  KernelListing l;
  l.kernel = "custom:saxpy";
  l.source_file = "saxpy.cu";
  l.source = slurp(dir + "saxpy.cu");
  l.function = fns->front().name;
  l.sass = fns->front().instructions;
  l.sass_status = l.live_status = Status::success();
  l.sass_origin = "nvdisasm of a cubin compiled for sm_90 (checked-in output)";
  l.ptx_status = Status::failure("not listed in this test");
  LaunchRecord shown;
  shown.kernel = l.kernel;
  shown.attributes.registers_per_thread = 10;
  shown.attributes_measured = true;
  EXPECT_EQ(ui::live_summary(l, 10), "peak 6 live registers at line 6 of saxpy.cu; 10 allocated");
  EXPECT_EQ(ui::live_scale(l, 10), 10);
  EXPECT_EQ(ui::live_scale(l, 0), 6);  // no allocation known: against the peak
  ui::SourceInput in;
  in.listing = &l;
  in.shown = &shown;
  frame(in);
  frame(in);
  // Each line's most, counted here from the instructions, against the view's.
  std::map<int, int> most;
  for (const ListedInstruction& i : l.sass)
    if (i.line > 0 && i.live_regs >= 0) most[i.line] = std::max(most[i.line], i.live_regs);
  ASSERT_FALSE(state_.line_live.empty());
  for (std::size_t line = 1; line < state_.line_live.size(); ++line) {
    auto it = most.find(static_cast<int>(line));
    EXPECT_EQ(state_.line_live[line], it == most.end() ? -1 : it->second) << "line " << line;
  }
  ImGuiWindow* src = child_named("source_lines");
  ASSERT_NE(src, nullptr);
  click(in, row_point(src, 5));  // line 6: its SASS rows are highlighted
  frame(in);
  // Without life ranges the header says why and the SASS still shows.
  l.live_status = Status::failure("this nvdisasm gives no register life ranges (an old toolkit)");
  EXPECT_EQ(ui::live_summary(l, 10),
            "no register pressure: this nvdisasm gives no register life ranges (an old toolkit)");
  state_.listing = nullptr;
  frame(in);
  EXPECT_TRUE(state_.line_live.empty());
}

// A file's lines count what the listing's SASS places on them, inlined helpers included (as
// ncu's source page does for that file), against sums made here from random samples; a file the
// listing has no frames in falls back to the profile's innermost lines.
TEST(SourceLines, AFilesLinesGatherTheInstructionsTheListingPlacesOnThem) {
  std::mt19937 rng(std::random_device{}());
  KernelListing listing;
  listing.source_file = "kernels/labs/matmul/k3_smem_tiled.hpp";
  LineProfile profile;
  profile.status = Status::success();
  std::map<int, long long> want;
  long long total = 0;
  for (int i = 0; i < 57; ++i) {
    ListedInstruction ins;
    ins.pc_offset = 16ull * i;
    ins.file = i % 5 == 0 ? "/x/kernels/core/exec.hpp" : "/x/kernels/labs/matmul/k3_smem_tiled.hpp";
    ins.line = 30 + static_cast<int>(rng() % 9);
    listing.sass.push_back(ins);
    InstructionSamples is;
    is.pc_offset = ins.pc_offset;
    is.file = "/x/kernels/core/shared_access.hpp";  // innermost: a helper the line calls
    is.line = 120;
    is.samples = static_cast<long long>(rng() % 100);
    is.stalls = {{"long_scoreboard", is.samples}};
    total += is.samples;
    if (i % 5 != 0) want[ins.line] += is.samples;
    profile.instructions.push_back(is);
  }
  profile.total_samples = total;
  profile.lines = {{"/x/kernels/core/shared_access.hpp", 120, total, 100.0, {{"long_scoreboard", total}}, {}}};
  const auto got = ui::lines_in_file(listing, profile, listing.source_file, false);
  long long seen = 0;
  for (const LineSamples& l : got) {
    EXPECT_EQ(l.samples, want[l.line]) << l.line;
    EXPECT_NEAR(l.share_pct, total ? 100.0 * want[l.line] / total : 0, 1e-9);
    seen += l.samples;
  }
  long long wanted = 0;
  for (const auto& [line, n] : want) wanted += n;
  EXPECT_EQ(seen, wanted);
  // The helper's own file, shown from the hot lines: its innermost line.
  const auto helper = ui::lines_in_file(listing, profile, "kernels/core/shared_access.hpp", true);
  ASSERT_EQ(helper.size(), 1u);
  EXPECT_EQ(helper.front().line, 120);
  EXPECT_EQ(helper.front().samples, total);
}

TEST(SourceTabApp, OnTheCpuTheTabShowsTheRungsFileSaysWhyNoSassAndTakesAClick) {
  auto headless = make_headless_window(1600, 1000);
  if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
  app::CliOptions options;
  options.state.lab = "gray";
  options.state.lab_given = true;
  options.source_tab = true;
  auto app = app::test::open_cpu_app(**headless, options);
  ASSERT_TRUE(app.ok()) << app.status().describe();
  ASSERT_TRUE((*app)->select("gray_1d_flat", KernelConfig{}).ok());
  (*app)->request_relaunch();
  const KernelListing* l = nullptr;
  bs::test::wait_until(
      [&] {
        (*app)->frame();
        (*app)->present();
        l = (*app)->source_tab().listing();
        return l && l->kernel == "gray_1d_flat" && !(*app)->source_pending();
      },
      bs::test::kGenerousTimeout, std::chrono::milliseconds(20));
  ASSERT_NE(l, nullptr) << "no listing within two minutes";
  ASSERT_EQ(l->kernel, "gray_1d_flat");
  EXPECT_EQ(l->source_file, "kernels/labs/grayscale/gray_1d_flat.hpp");
  EXPECT_EQ(l->source, slurp(std::string(BS_SOURCE_DIR) + "/" + l->source_file));
  EXPECT_NE(l->sass_status.message.find("CPU simulator"), std::string::npos) << l->sass_status.describe();
  (*app)->frame();
  (*app)->present();
  ImGuiWindow* src = child_named("source_lines");
  ASSERT_NE(src, nullptr) << "the Source tab is not on screen";
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = row_point(src, 4);
  io.MouseDown[0] = true;
  (*app)->frame();
  (*app)->present();
  io.MouseDown[0] = false;
  (*app)->frame();
  EXPECT_EQ((*app)->source_tab().view().line, 5);
  save_png(**headless, "source_tab_app");
  (*app)->present();
}

}  // namespace
