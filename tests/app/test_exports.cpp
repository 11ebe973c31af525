// Exports as a user makes them in the window: the export dialog takes the keyboard and Enter
// writes the launch JSON under its default name; the launch JSON carries the runs the panel's
// median is of, not one run; the sweep chart's PNG carries its whole caption (device and the
// SIMULATED label included), wrapped onto more lines when it is wider than the chart. The App
// in-process (app_in_process.hpp); the command line's exports are in tests/experiments.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "app_in_process.hpp"
#include "experiments/exports.hpp"
#include "experiments/sweep_model.hpp"
#include "image/image_loader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;
using bs::app::test::slurp;

class Exports : public bs::app::test::AppInProcess {};

// The export dialog takes the keyboard when it opens, and Enter writes (it needed a click in
// the path, and Enter did nothing).
TEST_F(Exports, TheDialogTakesTheKeyboardAndEnterWrites) {
  start();
  steps(4);  // a launch ran: the launch is what there is to export
  ASSERT_TRUE(app_->shown_launch().ok()) << app_->summary();
  const fs::path before = fs::current_path();
  fs::current_path(dir_);  // the dialog's default path is relative to where blockscope started
  window_->key(GLFW_KEY_E, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);
  steps(4);
  EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "the export dialog";
  EXPECT_NE(ImGui::GetCurrentContext()->ActiveId, 0u) << "the path field has the keyboard";
  window_->key(GLFW_KEY_ENTER);
  steps(4);
  fs::current_path(before);
  // The default name carries the time it was asked at: blockscope-gray-launch-YYYYMMDD-HHMMSS.json.
  fs::path written;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().rfind("blockscope-gray-launch-", 0) == 0) written = e.path();
  ASSERT_FALSE(written.empty()) << "Enter wrote nothing into " << dir_;
  const auto doc = bs::test::parse_json(slurp(written));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("results").at(0).at("kernel").str, app_->shown_launch().kernel);
  EXPECT_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "Enter closed it";
}

// The launch JSON carries the runs the panel's median is of, not one run.
TEST_F(Exports, TheLaunchJsonCarriesTheRunsOfThePanelsMedian) {
  start();
  steps(12);  // continuous runs: one a frame
  const fs::path out = dir_ / "launch.json";
  ASSERT_TRUE(app_->export_to(ExportWhat::LaunchJson, out).ok());
  const auto doc = bs::test::parse_json(slurp(out));
  ASSERT_TRUE(doc);
  const auto& r = doc->at("results").at(0);
  EXPECT_GE(r.at("repeats").number, 10) << slurp(out);
  EXPECT_GT(r.at("ci_high_ms").number, 0);
}

// The exported sweep chart's caption was cut after "... | time |": the device and the
// SIMULATED label never reached the PNG. At the smallest window the caption is wider than the
// chart: it wraps onto more lines, all inside the exported image.
TEST_F(Exports, TheSweepChartPngCarriesItsWholeCaption) {
  start("gray", kMinWindowWidth, kMinWindowHeight);
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(2);
  app_->state().sweep.all_blocks = false;
  app_->state().sweep.ladder = false;
  app_->state().sweep.block_list = "32x8,16x16";
  ASSERT_TRUE(app_->start_sweep().ok());
  ASSERT_TRUE(frames_until([&] { return !app_->sweeping(); })) << "the sweep did not finish";
  steps(3);
  ASSERT_NE(app_->sweep_result(), nullptr);
  const fs::path png = dir_ / "chart.png";
  const Status exported = app_->export_to(ExportWhat::HeatmapPng, png);
  ASSERT_TRUE(exported.ok()) << exported.describe();
  auto img = load_image_file(png, LoadLimits{});
  ASSERT_TRUE(img.ok()) << img.status().describe();
  const std::string caption = sweep_chart_caption(*app_->sweep_result(), "gray_2d", HeatmapMetric::Time);
  ASSERT_NE(caption.find("SIMULATED"), std::string::npos) << caption;
  const float em = ImGui::GetFontSize();
  ASSERT_GT(ImGui::CalcTextSize(caption.c_str()).x, img->width) << "the test needs a caption wider than the chart";
  // The caption's own colour (the simulated one) in the PNG: rows of text, spanning more than one line.
  int top = -1, bottom = -1;
  for (int y = 0; y < img->height; ++y)
    for (int x = 0; x < img->width; ++x) {
      const std::uint8_t* p = &img->rgba[(static_cast<std::size_t>(y) * img->width + x) * 4];
      if (p[0] == 255 && p[1] == 200 && p[2] == 90) {
        if (top < 0) top = y;
        bottom = y;
      }
    }
  ASSERT_GE(top, 0) << "no caption in the PNG";
  EXPECT_GT(bottom - top, 1.5f * em) << "the caption is one cut line (" << caption << ")";
  if (const char* d = std::getenv("BS_SHOTS_DIR"); d && *d)
    fs::copy_file(png, fs::path(d) / "exports_sweep_chart.png", fs::copy_options::overwrite_existing);
}

}  // namespace
