// The side panels' words, read from what a frame drew (tests/support/imgui_frames.hpp, no window):
// the result card beside a launch in flight says nothing of the last attempt's error (issue 36
// item 15: a stale refusal stayed beside a new run), and says how busy the machine was while a
// simulated time was taken; the Runs tab marks a row timed under another load than the best's
// (item 14), and only such a row.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "imgui_frames.hpp"
#include "ui/panels.hpp"

namespace {

using namespace bs;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
  EXPECT_TRUE(has(idle, "Refused before launch")) << idle;  // the control: said while nothing runs
  EXPECT_TRUE(has(idle, "2048 threads")) << idle;
  in.running = "gray_2d, 32 x 8 x 1";
  in.running_s = 1.5;
  const std::string running = ui.frame([&] { ui::draw_result_card(in); });
  EXPECT_TRUE(has(running, "Simulating gray_2d, 32 x 8 x 1")) << running;
  EXPECT_FALSE(has(running, "Refused before launch")) << running;
  EXPECT_FALSE(has(running, "2048 threads")) << running;
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
  EXPECT_TRUE(has(text, want)) << text;
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
  EXPECT_TRUE(has(same, "gray_ilp4")) << same;
  EXPECT_FALSE(has(same, "load: timed while")) << "loads 0.3 cores apart are alike\n" << same;
  const LaunchRecord busy = simulated_run("gray_vec16", 30.0, quiet + 1.5);
  book.add(busy, 31);
  const std::string marked = ui.frame([&] { ui::draw_runs_panel(in); });
  EXPECT_TRUE(has(marked, "gray_vec16")) << marked;
  EXPECT_TRUE(has(marked, "load: timed while the machine was busier or quieter")) << marked;
}

}  // namespace
