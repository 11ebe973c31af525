// The controls panel's text fields, typed into as a user types: keys queued faster than the
// frames reach the blockDim fields as typed, the matmul size fields take Tab and keep their value
// (M, N, K in order), and a size the CPU simulator refuses keeps the matrices and the last launch
// that ran, with the refusal in the status bar. The App in-process (app_in_process.hpp). The
// same typing in a real window: test_window_input.cpp; the input queue alone: test_shell_rooms.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app_in_process.hpp"

namespace {

using namespace bs;
using namespace bs::app;

class ControlsPanel : public bs::app::test::AppInProcess {};

// "32 Tab 8 Enter" typed between two frames sets blockDim to 32 x 8 (ImGui 1.86 saw the
// keys' final state only: the Tab and the Enter were lost and "328" stayed in the first field).
TEST_F(ControlsPanel, KeysTypedFasterThanTheFramesReachTheBlockFieldsAsTyped) {
  start();
  ASSERT_TRUE(app_->select("gray_2d", KernelConfig{Dim3{16, 16, 1}}).ok());
  steps(3);
  click_field(52, 523);  // the typed blockDim.x field; all that follows is queued before a frame
  window_->type("32");
  window_->key(GLFW_KEY_TAB);
  window_->type("8");
  window_->key(GLFW_KEY_ENTER);
  drain();
  EXPECT_EQ(app_->shown_launch().config.block, (Dim3{32, 8, 1})) << app_->summary();
}

// The matmul size fields keep what was typed when Tab moves on, in order M, N, K.
TEST_F(ControlsPanel, MatmulSizeFieldsTakeTabAndKeepTheValue) {
  start("matmul");
  steps(3);
  click_field(52, 159);  // M
  window_->type("57");
  window_->key(GLFW_KEY_TAB);
  window_->type("29");
  window_->key(GLFW_KEY_TAB);
  window_->type("13");
  window_->key(GLFW_KEY_ENTER);
  drain();
  ASSERT_NE(app_->current_view(), nullptr);
  const auto options = app_->current_view()->option_values();
  ASSERT_TRUE(options.count("--matmul-size"));
  EXPECT_EQ(options.at("--matmul-size"), "57x29x13");
  EXPECT_NE(app_->current_view()->lab().problem().summary.find("57"), std::string::npos)
      << app_->current_view()->lab().problem().summary;
}

// A size the CPU simulator refuses leaves the matrices and the last launch that ran (the
// Launch tab and the data view keep showing them), and the status bar says why.
TEST_F(ControlsPanel, ARefusedMatmulSizeKeepsTheMatricesAndTheLastLaunch) {
  start("matmul");
  steps(3);
  const LaunchRecord last_ran = app_->shown_launch();
  ASSERT_TRUE(last_ran.ok()) << app_->summary();
  const std::string problem = app_->current_view()->lab().problem().summary;
  click_field(52, 159);  // M
  window_->type("600");
  window_->key(GLFW_KEY_TAB);
  window_->type("600");
  window_->key(GLFW_KEY_TAB);
  window_->type("600");
  window_->key(GLFW_KEY_ENTER);
  drain();
  EXPECT_TRUE(app_->current_view()->lab().problem().ready) << "the matrices went";
  EXPECT_EQ(app_->current_view()->lab().problem().summary, problem);
  EXPECT_TRUE(app_->shown_launch().ok()) << "the Launch tab lost the launch that ran";
  EXPECT_EQ(app_->shown_launch().kernel, last_ran.kernel);
  const auto s = status();
  EXPECT_NE(s.at("ui").at("notice").str.find("refused"), std::string::npos) << status_text();
}

}  // namespace
