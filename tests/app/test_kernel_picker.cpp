// What is selected, and where: switching the matmul lab's precision selects a kernel of the new
// list (the one selected before is not in it) and the card shows no internal names and no empty
// fields; switching labs, each lab keeps its own pin, and the status bar and the views keep to the
// open lab's own attempt and launch (a refusal is gone once a good shape runs, another lab does
// not inherit it, a refused shape leaves the views on the launch that ran). The App in-process;
// the selection rule on fake labs is in test_shell_rooms (the lab host).
#include <gtest/gtest.h>

#include "app_in_process.hpp"
#include "screen_text.hpp"

namespace {

using namespace bs;
using namespace bs::app;
using bs::app::test::ScreenText;

class KernelPicker : public bs::app::test::AppInProcess {};
class LabSwitching : public bs::app::test::AppInProcess {};

// bf16 picked while k3 was selected left k3 selected and every launch refused, the card
// reading "... / MatmulLab::plan / set precision=fp32 / The views show the last launch that ran:
// , ." The nearest kernel of the bf16 list is selected and runs, and the card shows no internal
// function name and no empty fields.
TEST_F(KernelPicker, SwitchingPrecisionSelectsAKernelOfTheNewList) {
  start("matmul");
  ScreenText screen;
  const lab::KernelInfo* k3 = app_->current_view()->lab().find_kernel("k3_smem_tiled");
  ASSERT_NE(k3, nullptr);
  ASSERT_TRUE(app_->select(k3->id, app_->current_view()->lab().default_config(*k3)).ok());
  ASSERT_TRUE(frames_until([&] { return app_->shown_launch().kernel == "k3_smem_tiled"; })) << app_->summary();
  app_->change_setting("precision", "bf16");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  steps(2);
  EXPECT_EQ(app_->last_launch().kernel, "tc1_wmma") << "T3 of the new list needs a Hopper GPU: the first rung";
  EXPECT_TRUE(app_->last_launch().ok()) << app_->last_launch().status.describe();
  ASSERT_TRUE(screen.shows("precision")) << "the capture reads the controls:\n" << screen.last();
  EXPECT_FALSE(screen.shows("Refused")) << screen.last();
  EXPECT_FALSE(screen.shows("MatmulLab::")) << screen.last();
  EXPECT_FALSE(screen.shows(": , .")) << screen.last();
  shot("kernel_picker_bf16_after_k3");
  // Back to fp32: the same rule the other way.
  app_->change_setting("precision", "fp32");
  ASSERT_TRUE(frames_until([&] { return ran(); })) << app_->summary();
  EXPECT_EQ(app_->last_launch().kernel.rfind("k1", 0), 0u) << app_->last_launch().kernel << ": " << app_->summary();
}

// What the status bar reads is the open lab's current attempt (a refusal is gone once a good
// shape runs, and another lab does not inherit it); each lab keeps its own pin; a refused matmul
// shape leaves the views on the launch that ran.
TEST_F(LabSwitching, RefusalsPinsAndTilesStayWithTheirLabAndTheirLaunch) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{33, 33, 1}}).ok());
  steps(1);
  EXPECT_TRUE(app_->last_launch().refused) << app_->summary();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{32, 8, 1}}).ok());
  steps(1);
  EXPECT_TRUE(app_->last_launch().ok()) << app_->summary();
  EXPECT_EQ(app_->summary().find("refused"), std::string::npos) << "no stale refusal: " << app_->summary();
  // A gray pin stays in gray.
  app_->current_view()->view_state().pinned = PixelPos{156, 96};
  ASSERT_TRUE(app_->open_lab("matmul").ok());
  steps(2);
  ASSERT_EQ(app_->lab_id(), "matmul");
  EXPECT_FALSE(app_->current_view()->view_state().pinned) << "the gray pin leaked into matmul";
  EXPECT_FALSE(app_->last_launch().refused) << "gray's refusal leaked into matmul";
  // A refused matmul shape draws nothing new: the shown launch is the last that ran.
  const LaunchRecord last_ran = app_->shown_launch();
  ASSERT_TRUE(last_ran.ok()) << app_->summary();
  ASSERT_TRUE(app_->select("k1_naive", KernelConfig{Dim3{33, 33, 1}}).ok());
  steps(1);
  EXPECT_TRUE(app_->last_launch().refused);
  EXPECT_EQ(app_->shown_launch().config.block, last_ran.config.block) << "the views moved to a launch that never ran";
  app_->current_view()->view_state().pinned = PixelPos{3, 4};
  ASSERT_TRUE(app_->open_lab("gray").ok());
  steps(1);
  ASSERT_TRUE(app_->current_view()->view_state().pinned.has_value());
  EXPECT_EQ(*app_->current_view()->view_state().pinned, (PixelPos{156, 96})) << "gray keeps its own pin";
}

}  // namespace
