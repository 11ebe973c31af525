// The side panels' words, read from what a frame drew (tests/support/imgui_frames.hpp, no window):
// the result card beside a launch in flight says nothing of the last attempt's error (issue 36
// item 15: a stale refusal stayed beside a new run), and says how busy the machine was while a
// simulated time was taken; the Runs tab marks a row timed under another load than the best's
// (item 14), and only such a row; the kernel list's figures mark a kernel whose best was timed under
// another load than the fastest kernel's best.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "imgui_frames.hpp"
#include "labs/matmul/matmul_view.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace {

using namespace bs;

LaunchRecord simulated_run(const std::string& kernel, double median_ms, double others_load) {
  LaunchRecord r;
  r.lab = "gray";
  r.kernel = kernel;
  r.config_label = "256 x 1 x 1";
  r.problem = "97x61 planar";
  r.timing.simulated = true;
  r.timing.samples_ms = {median_ms};
  summarize(r.timing);
  r.timing.others_load = others_load;
  r.check.against = "the CPU reference";
  r.bytes_moved = 4.0 * 97 * 61;
  return r;
}

TEST(ResultCard, ALaunchInFlightIsNotShownBesideTheLastAttemptsError) {
  test::ImGuiFrames ui;
  LaunchRecord refused;
  refused.kernel = "gray_2d";
  refused.refused = true;
  refused.status = Status::failure("blockDim 64 x 32 x 1 has 2048 threads; a block holds at most 1024",
                                   "make the block smaller", "validate");
  ui::ResultInput in;
  in.last = &refused;
  const std::string idle = ui.frame([&] { ui::draw_result_card(in); });
  EXPECT_TRUE(bs::test::has(idle, "Refused before launch")) << idle;  // the control: said while nothing runs
  EXPECT_TRUE(bs::test::has(idle, "2048 threads")) << idle;
  in.running = "gray_2d, 32 x 8 x 1";
  in.running_s = 1.5;
  const std::string running = ui.frame([&] { ui::draw_result_card(in); });
  EXPECT_TRUE(bs::test::has(running, "Simulating gray_2d, 32 x 8 x 1")) << running;
  EXPECT_FALSE(bs::test::has(running, "Refused before launch")) << running;
  EXPECT_FALSE(bs::test::has(running, "2048 threads")) << running;
}

TEST(ResultCard, ASimulatedTimeSaysHowBusyTheMachineWasWhileTimed) {
  std::mt19937 rng(std::random_device{}());
  const double load = 0.1 * static_cast<double>(1 + rng() % 30);
  test::ImGuiFrames ui;
  app::TimingBook book;
  const LaunchRecord r = simulated_run("gray_1d_flat", 12.5, load);
  const app::TimingEntry& e = book.add(r, 13.0);
  ui::ResultInput in;
  in.last = &r;
  in.shown = &r;
  in.entry = &e;
  const std::string text = ui.frame([&] { ui::draw_result_card(in); });
  char want[64];
  std::snprintf(want, sizeof want, "other programs kept %.1f cores busy", load);
  EXPECT_TRUE(bs::test::has(text, want)) << text;
}

TEST(RunsTab, ARowTimedUnderAnotherLoadThanTheBestsIsMarked) {
  std::mt19937 rng(std::random_device{}());
  const double quiet = 0.05 * static_cast<double>(rng() % 6);  // 0 .. 0.25 cores
  test::ImGuiFrames ui(ImVec2(700, 600));
  app::TimingBook book;
  const LaunchRecord best = simulated_run("gray_2d", 10.0, quiet);
  const LaunchRecord alike = simulated_run("gray_ilp4", 20.0, quiet + 0.3);
  book.add(best, 11);
  book.add(alike, 21);
  ui::SideInput in;
  in.shown = &best;
  in.book = &book;
  const std::string same = ui.frame([&] { ui::draw_runs_panel(in); });
  EXPECT_TRUE(bs::test::has(same, "gray_ilp4")) << same;
  EXPECT_FALSE(bs::test::has(same, "load: timed while")) << "loads 0.3 cores apart are alike\n" << same;
  const LaunchRecord busy = simulated_run("gray_vec16", 30.0, quiet + 1.5);
  book.add(busy, 31);
  const std::string marked = ui.frame([&] { ui::draw_runs_panel(in); });
  EXPECT_TRUE(bs::test::has(marked, "gray_vec16")) << marked;
  EXPECT_TRUE(bs::test::has(marked, "load: timed while the machine was busier or quieter")) << marked;
}

// The figures beside each kernel's name: its best median's throughput and share of the ceiling
// (computed here from the records' bytes and medians), and a load mark only where that best was
// timed under a load half a core or more away from the fastest kernel's best.
TEST(KernelList, AFigureTimedUnderAnotherLoadThanTheFastestKernelsIsMarked) {
  std::mt19937 rng(std::random_device{}());
  const double quiet = 0.05 * static_cast<double>(rng() % 6);
  const double fast_ms = 5.0 + static_cast<double>(rng() % 50) / 10.0;
  app::TimingBook book;
  LaunchRecord fastest = simulated_run("gray_vec16", fast_ms, quiet);
  book.add(fastest, fast_ms + 1);
  book.add(simulated_run("gray_vec16", 3 * fast_ms, quiet), 1);  // a slower configuration of it
  LaunchRecord other = fastest;
  other.config_label = "128 x 1 x 1";
  book.add(other, 1);
  book.add(simulated_run("gray_ilp4", 2 * fast_ms, quiet + 0.3), 1);  // alike: no mark
  book.add(simulated_run("gray_2d", 4 * fast_ms, quiet + 1.5), 1);    // busier: marked
  LaunchRecord wrong = simulated_run("gray_1d_flat", fast_ms / 2, quiet + 2);
  wrong.check.state = Check::State::Failed;
  book.add(wrong, 1);  // failed its check: no figure at all
  lab::ProblemInfo info;
  info.throughput_unit = ThroughputUnit::GBPerS;
  const double ceiling = 0.01 + static_cast<double>(rng() % 100) / 1000.0;
  info.ceilings.push_back(lab::Ceiling{"device-to-device copy", ceiling, ThroughputUnit::GBPerS, "", ""});
  const auto figures = ui::kernel_figures(book, "gray", "97x61 planar", info);
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_FALSE(figures.contains("gray_1d_flat"));
  const double gbs = 4.0 * 97 * 61 / (fast_ms * 1e6);
  double shown_gbs = 0, shown_share = 0;
  ASSERT_EQ(std::sscanf(figures.at("gray_vec16").text.c_str(), "%lf GB/s %lf%%", &shown_gbs, &shown_share), 2)
      << figures.at("gray_vec16").text;
  EXPECT_NEAR(shown_gbs, gbs, 0.005 * gbs);  // three significant digits
  EXPECT_NEAR(shown_share, 100 * gbs / ceiling, 0.005 * 100 * gbs / ceiling);
  EXPECT_EQ(figures.at("gray_vec16").load_note, "");
  EXPECT_EQ(figures.at("gray_ilp4").load_note, "");
  EXPECT_TRUE(bs::test::has(figures.at("gray_2d").load_note, "the machine's load changed"))
      << figures.at("gray_2d").load_note;
  EXPECT_TRUE(ui::kernel_figures(book, "gray", "another problem", info).empty());

  // The list draws the mark after the figure, and only for the marked kernel.
  test::ImGuiFrames frames(ImVec2(520, 700));
  std::vector<lab::KernelInfo> kernels(3);
  kernels[0].id = "gray_2d", kernels[0].label = "2. 2D grid";
  kernels[1].id = "gray_ilp4", kernels[1].label = "3. Four pixels a thread";
  kernels[2].id = "gray_vec16", kernels[2].label = "4. 16-byte loads and stores";
  std::string kernel = "gray_vec16";
  KernelConfig config;
  ui::PickerState state;
  const DeviceLimits limits;
  ui::PickerInput in{&kernels, &limits, nullptr, &figures};
  const std::string text = frames.frame([&] { ui::draw_kernel_picker(in, &kernel, &config, &state); });
  const auto line_of = [&](const std::string& label) {
    const std::size_t at = text.find(label);
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_TRUE(bs::test::has(line_of("2. 2D grid"), figures.at("gray_2d").text)) << text;
  EXPECT_TRUE(line_of("2. 2D grid").ends_with("load")) << text;
  EXPECT_TRUE(line_of("3. Four pixels").ends_with(figures.at("gray_ilp4").text)) << text;
  EXPECT_TRUE(line_of("4. 16-byte").ends_with(figures.at("gray_vec16").text)) << text;
}

// The Memory tab's bank grid at every panel width from a narrow side panel to a wide one: the lane
// numbers never drop below 0.8 em, two digits fit in a cell, and the grid fits the width wherever
// 16 banks a row can (at 32 a row in a narrow panel the digits were about 6 px).
TEST(BankGrid, LaneNumbersKeepFourFifthsOfAnEmAndTheGridFitsItsPanel) {
  for (const float em : {13.0f, 16.0f, 20.0f})
    for (const bool phases : {false, true})
      for (float width = 12 * em; width <= 100 * em; width += 3.7f) {
        const app::BankGridLayout g = app::bank_grid_layout(width, em, phases);
        SCOPED_TRACE(testing::Message() << "em " << em << ", width " << width << ", phases " << phases);
        ASSERT_TRUE(g.per_band == 32 || g.per_band == 16);
        EXPECT_GE(g.digits, 0.8f * em);
        EXPECT_GE(g.cell, g.digits * 1.1f) << "two digits (about 0.55 em each at their size) fit a cell";
        const float grid_w = g.label_w + g.cell * static_cast<float>(g.per_band);
        if (g.label_w + 16 * 1.1f * em + 4 <= width) { EXPECT_LE(grid_w, width); }
        if (g.per_band == 16) {
          EXPECT_GT(g.label_w + 32 * 1.1f * em + 4, width) << "two bands only where 32 cells of 1.1 em do not fit";
        }
      }
}

// A slider whose value is written beside it, not under its knob: the value is its own item,
// starting to the right of the slider's frame, and the slider itself draws no text.
TEST(Widgets, ASlidersValueIsWrittenBesideItNotUnderItsKnob) {
  std::mt19937 rng(std::random_device{}());
  int v = 1 + static_cast<int>(rng() % 1024);
  const std::string value = std::to_string(v);
  test::ImGuiFrames ui(ImVec2(360, 200));
  float start_x = 0, value_min_x = 0, item_w = 0;
  const std::string text = ui.frame([&] {
    item_w = ImGui::CalcItemWidth();
    start_x = ImGui::GetCursorScreenPos().x;
    ui::slider_int_beside("##bx", &v, 1, 1024, value);
    value_min_x = ImGui::GetItemRectMin().x;  // the last item: the value's text
  });
  EXPECT_GE(value_min_x, start_x + 3 * ImGui::GetFontSize()) << "the value starts after the slider";
  EXPECT_LE(value_min_x + ImGui::CalcTextSize(value.c_str()).x, start_x + item_w + 1) << "within the item's width";
  std::size_t count = 0;
  for (std::size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + 1)) ++count;
  EXPECT_EQ(count, 1u) << "written once, beside the slider, not also inside it\n" << text;
}

// "(?)" after a label of any length in a panel that wraps its text (the left panel does): always
// whole on one line, beside the label where it fits, else at the start of the next line; never
// "(?" at the end of one line and ")" on the next.
TEST(Widgets, AHelpMarkerIsNeverWrappedInTwo) {
  test::ImGuiFrames ui(ImVec2(230, 2400));
  std::vector<ImVec2> sizes, mins;
  float right = 0, line = 0;
  ui.frame([&] {
    sizes.clear(), mins.clear();
    right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x;
    line = ImGui::GetTextLineHeight();
    ImGui::PushTextWrapPos(0.0f);
    for (int n = 1; n <= 60; ++n) {
      ImGui::TextUnformatted(std::string(static_cast<std::size_t>(n), 'x').c_str());
      ui::help_marker("what this is");
      sizes.push_back(ImGui::GetItemRectSize());
      mins.push_back(ImGui::GetItemRectMin());
    }
    ImGui::PopTextWrapPos();
  });
  ASSERT_EQ(sizes.size(), 60u);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_LT(sizes[i].y, 1.5f * line) << "a label of " << i + 1 << " characters: the marker spans two lines";
    EXPECT_LE(mins[i].x + sizes[i].x, right + 0.5f) << "a label of " << i + 1 << " characters";
  }
}

// A kernel name cut to fit a narrow list ends in an ellipsis, and hovering it shows the whole name.
TEST(KernelList, ACutNameEndsInAnEllipsisAndItsTooltipHasTheWholeName) {
  std::vector<lab::KernelInfo> kernels(2);
  kernels[0].id = "gray_1d_flat",
  kernels[0].label = "1. 1D over flattened pixels: one thread a pixel, the lecture's kernel";
  kernels[1].id = "gray_2d", kernels[1].label = "2. 2D grid";
  std::string kernel = "gray_2d";
  KernelConfig config;
  ui::PickerState state;
  const DeviceLimits limits;
  ui::PickerInput in{&kernels, &limits, nullptr, nullptr};
  test::ImGuiFrames ui(ImVec2(240, 700));
  ImVec2 row;  // the middle of the first kernel's row
  const auto draw = [&] {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    row = ImVec2(p.x + 0.5f * ImGui::GetFrameHeight(),
                 p.y + ImGui::GetTextLineHeightWithSpacing() + 0.5f * ImGui::GetFrameHeight());
    ui::draw_kernel_picker(in, &kernel, &config, &state);
  };
  const std::string idle = ui.frame(draw);
  const std::size_t at = idle.find("1. 1D over");
  ASSERT_NE(at, std::string::npos) << idle;
  const std::string shown = idle.substr(at, idle.find('\n', at) - at);
  EXPECT_TRUE(shown.ends_with("...")) << shown;
  EXPECT_LT(shown.size(), kernels[0].label.size()) << shown;
  ImGui::GetIO().MousePos = row;
  const std::string hovered = ui.frame(draw);
  EXPECT_TRUE(bs::test::has(hovered, kernels[0].label)) << hovered;
}

}  // namespace
