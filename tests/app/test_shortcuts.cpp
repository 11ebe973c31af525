// Keyboard shortcuts (shell/shortcuts.hpp): every one parses, the README lists every one, and
// pressing them in the App (key presses through a stand-in window, as GLFW's key callback gives
// them) does what the help says, Escape included: the help, the file browser, the messages, text
// size, folding panels, zoom, reset to defaults, the kernel editor, a sweep and the export dialog.
// The same keys in a real window under Xvfb: test_window_input.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "app_in_process.hpp"
#include "platform/forwarding_window.hpp"
#include "shell/shortcuts.hpp"
#include "wait_until.hpp"

#include <GLFW/glfw3.h>

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;
using bs::app::test::fresh_dir;
using bs::app::test::slurp;

// The headless window, with key presses a test queues (what GLFW's key callback gives a real one).
class KeyWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  std::vector<KeyPress> queued;
  void press(int key, int mods = 0) { queued.push_back({key, mods}); }
  std::vector<KeyPress> take_key_presses() override {
    std::vector<KeyPress> k;
    k.swap(queued);
    return k;
  }
};

class Shortcuts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir("keys");
    auto headless = make_headless_window(1000, 700);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<KeyWindow>(*headless_);
    CliOptions options;
    options.status_file_path = (dir_ / "status.json").string();
    options.config_dir = (dir_ / "cfg").string();
    auto app = bs::app::test::open_cpu_app(*window_, options);
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
    step();
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void step() {
    app_->frame();
    app_->present();
  }
  bs::test::JsonValue status() {
    auto v = bs::test::parse_json(slurp(dir_ / "status.json"));
    return v ? *v : bs::test::JsonValue{};
  }
  bool ui(const char* field) { return status().at("ui").at(field).boolean; }

  fs::path dir_;
  std::unique_ptr<Window> headless_;
  std::unique_ptr<KeyWindow> window_;
  std::unique_ptr<App> app_;
};

TEST_F(Shortcuts, EveryShortcutParsesAndTheReadmeListsIt) {
  const std::string readme = slurp(fs::path(BLOCKSCOPE_SOURCE_DIR) / "README.md");
  ASSERT_FALSE(readme.empty());
  ASSERT_GE(app_->shortcuts().all().size(), 10u);
  for (const Shortcut& s : app_->shortcuts().all()) {
    EXPECT_FALSE(s.chords.empty()) << s.id << ": keys '" << s.keys << "' do not parse";
    auto parsed = parse_keys(s.keys);
    EXPECT_TRUE(parsed.ok()) << parsed.status().describe();
    const std::string row = "| " + s.keys + " | " + s.what + " |";
    EXPECT_NE(readme.find(row), std::string::npos) << "README.md lacks the line: " << row;
  }
  // Names that are not keys are refused with the name.
  EXPECT_FALSE(parse_keys("Ctrl+Banana").ok());
  EXPECT_FALSE(parse_keys("F13").ok());
}

TEST_F(Shortcuts, KeysDoWhatTheHelpSays) {
  // F1: the help overlay; Escape closes it.
  window_->press(GLFW_KEY_F1);
  step();
  step();
  EXPECT_TRUE(ui("help"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("help"));
  // "?" (Shift+/) opens it too.
  window_->press(GLFW_KEY_SLASH, GLFW_MOD_SHIFT);
  step();
  step();
  EXPECT_TRUE(ui("help"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  // Ctrl+O: the file browser; Escape closes it.
  window_->press(GLFW_KEY_O, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(ui("file_browser"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("file_browser"));
  // Ctrl+M: the messages; Escape closes them.
  window_->press(GLFW_KEY_M, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(ui("messages_window"));
  window_->press(GLFW_KEY_ESCAPE);
  step();
  step();
  EXPECT_FALSE(ui("messages_window"));
  // Text size, larger twice then back to 100%.
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_CONTROL);
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_NEAR(status().at("ui").at("text_scale").number, 1.3, 1e-3);
  // Panels fold and come back.
  window_->press(GLFW_KEY_RIGHT_BRACKET, GLFW_MOD_CONTROL);
  window_->press(GLFW_KEY_LEFT_BRACKET, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_FALSE(ui("side_open"));
  EXPECT_FALSE(ui("left_open"));
  // Zoom: "+" leaves fit for a real zoom, "0" goes back to fit.
  LabView* view = app_->current_view();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->view_state().zoom, 0.0f);
  window_->press(GLFW_KEY_EQUAL, GLFW_MOD_SHIFT);  // "+"
  step();
  EXPECT_GT(view->view_state().zoom, 0.0f);
  const float zoomed = view->view_state().zoom;
  window_->press(GLFW_KEY_KP_ADD);
  step();
  EXPECT_NEAR(view->view_state().zoom, zoomed * 1.25f, 1e-3);
  window_->press(GLFW_KEY_0);
  step();
  EXPECT_EQ(view->view_state().zoom, 0.0f);
  // The text size and the folds are remembered.
  app_->save_settings();
  const std::string saved = slurp(app_->settings_file());
  EXPECT_NE(saved.find("ui.text_scale = 1.3"), std::string::npos) << saved;
  EXPECT_NE(saved.find("ui.side_open = false"), std::string::npos) << saved;
  // Reset to defaults puts them back.
  app_->reset_to_defaults();
  step();
  step();
  EXPECT_NEAR(status().at("ui").at("text_scale").number, 1.0, 1e-3);
  EXPECT_TRUE(ui("side_open"));
  EXPECT_NE(slurp(app_->settings_file()).find("ui.side_open = true"), std::string::npos);
}

// The shortcuts the later rooms registered: Ctrl+E opens the kernel editor on the selected kernel,
// and F5 then belongs to the editor (it compiles; the app's run-once stands aside); Ctrl+W starts a
// sweep and, pressed again, cancels it keeping what it measured; Ctrl+Shift+E asks where to export.
TEST_F(Shortcuts, EditorSweepAndExportKeys) {
  EXPECT_FALSE(app_->kernel_editor().is_open());
  window_->press(GLFW_KEY_E, GLFW_MOD_CONTROL);
  step();
  step();
  EXPECT_TRUE(app_->kernel_editor().is_open());
  step();
  EXPECT_TRUE(app_->kernel_editor().has_keyboard());
  // Close it (its window's own close), so the app has the keyboard back.
  app_->kernel_editor().close();
  step();
  EXPECT_FALSE(app_->kernel_editor().has_keyboard());

  EXPECT_FALSE(app_->sweeping());
  window_->press(GLFW_KEY_W, GLFW_MOD_CONTROL);
  step();
  EXPECT_TRUE(app_->sweeping());
  step();
  window_->press(GLFW_KEY_W, GLFW_MOD_CONTROL);
  EXPECT_TRUE(bs::test::wait_until([&] {
    step();
    return !app_->sweeping();
  })) << "Ctrl+W pressed again did not end the sweep";

  window_->press(GLFW_KEY_E, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);
  step();
  step();
  EXPECT_TRUE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) << "the export dialog is a popup";
}

}  // namespace
