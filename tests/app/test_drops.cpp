// Files dropped on the window, through the App in-process exactly as the soak drops them (the
// window's drop queue, the background loader, two frames): each hostile file is one load error,
// and the last file that loads is shown. The soak once counted one load error short for a drop of
// [valid, empty, truncated]: its truncated PNG had lost only IEND's CRC, which the loader accepts
// (a whole image), so it loaded and replaced the valid one. These cases make that ordering on
// purpose, on the CPU, with no timing involved. And what the user reads: a file that does not
// load, dropped or given at the start, is said in the status bar's notice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "app_in_process.hpp"
#include "cpu_app.hpp"
#include "image/image_loader.hpp"
#include "platform/forwarding_window.hpp"
#include "platform/png.hpp"
#include "shell/app.hpp"
#include "skips.hpp"
#include "wait_until.hpp"

namespace bs::app {
namespace {
namespace fs = std::filesystem;

// The soak's drop window: paths handed out by take_dropped_paths(), as GLFW's drop callback does.
class DropWindow final : public ForwardingWindow {
 public:
  using ForwardingWindow::ForwardingWindow;
  std::vector<std::string> pending;
  std::vector<std::string> take_dropped_paths() override {
    std::vector<std::string> p = inner_.take_dropped_paths();
    p.insert(p.end(), pending.begin(), pending.end());
    pending.clear();
    return p;
  }
};

class Drops : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_drops_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    auto headless = make_headless_window(640, 400);
    if (!headless) BS_SKIP_NO_GL() << "no headless OpenGL context: " << headless.status().describe();
    headless_ = std::move(headless.value());
    window_ = std::make_unique<DropWindow>(*headless_);
    auto app = bs::app::test::open_cpu_app(*window_);
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
    headless_.reset();
    fs::remove_all(dir_);
  }
  // A PNG of random pixels; returns its path and size on disk.
  fs::path png(const std::string& name, int w, int h) {
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
    for (auto& v : rgba) v = static_cast<std::uint8_t>(rng_());
    const fs::path p = dir_ / name;
    EXPECT_TRUE(write_png(p, w, h, 4, rgba.data()).ok());
    return p;
  }
  fs::path cut(const fs::path& p, std::uintmax_t missing) {
    fs::resize_file(p, fs::file_size(p) - missing);
    return p;
  }
  // The soak's drop: the drop frame, the loader left to finish, the frame that takes the rest.
  // Returns the errors logged in those two frames.
  std::size_t drop(std::vector<fs::path> files) {
    const std::size_t before = app_->messages().errors();
    for (const auto& f : files) window_->pending.push_back(f.string());
    app_->frame();
    app_->present();
    EXPECT_TRUE(bs::test::wait_until([&] { return !app_->loading(); })) << "the loader never finished";
    app_->frame();
    app_->present();
    return app_->messages().errors() - before;
  }
  std::string shown() { return app_->current_view()->lab().problem().name; }

  fs::path dir_;
  std::mt19937 rng_{std::random_device{}()};
  std::unique_ptr<Window> headless_;
  std::unique_ptr<DropWindow> window_;
  std::unique_ptr<App> app_;
};

TEST_F(Drops, EachHostileFileIsOneErrorAndTheValidImageIsShown) {
  const fs::path valid = png("valid.png", 9, 5);
  const fs::path empty = dir_ / "empty.png";
  { std::ofstream(empty, std::ios::binary).flush(); }
  // Cut inside IEND's header: one byte more than the tail the loader forgives.
  const fs::path truncated = cut(png("truncated.png", 1, 37), kPngTailThatMayBeMissing + 1);
  EXPECT_EQ(drop({valid, empty, truncated}), 2u);
  EXPECT_EQ(shown(), "valid.png");
}

// The soak's old failure, made on purpose: the last file lost only IEND's CRC. It is a whole
// image: it loads, is shown, and is no error (the soak now never calls such a file hostile).
TEST_F(Drops, APngMissingOnlyItsEndCrcLoadsAndIsShownNotCountedAsAnError) {
  const fs::path valid = png("valid.png", 9, 5);
  const fs::path empty = dir_ / "empty.png";
  { std::ofstream(empty, std::ios::binary).flush(); }
  const fs::path crc_gone = cut(png("crc_gone.png", 1, 37), kPngTailThatMayBeMissing);
  EXPECT_EQ(drop({valid, empty, crc_gone}), 1u);
  EXPECT_EQ(shown(), "crc_gone.png") << "the last file that loads is shown";
  EXPECT_EQ(app_->current_view()->lab().problem().height, 37);
}

class DropNotices : public test::AppInProcess {};

// A dropped file that does not load is said where the user looks (the status bar's notice), and
// so is starting with only bad files (the sample is shown). The App's own window size and
// status file (app_in_process.hpp), drops queued as GLFW's drop callback queues them.
TEST_F(DropNotices, AFileThatDoesNotLoadIsSaidInTheStatusBar) {
  std::ofstream(dir_ / "notes.txt") << "not an image\n";
  CliOptions options;
  options.images = {(dir_ / "notes.txt").string()};
  start_with("gray", std::move(options));
  EXPECT_NE(status().at("ui").at("notice").str.find("notes.txt"), std::string::npos)
      << "started with only a bad file: " << status_text();
  fs::create_directories(dir_ / "a folder");
  window_->drops.push_back((dir_ / "a folder").string());
  EXPECT_TRUE(frames_until([&] { return !app_->loading(); })) << "the loader never finished";
  steps(3);
  const auto s = status();
  EXPECT_NE(s.at("ui").at("notice").str.find("a folder"), std::string::npos) << status_text();
  EXPECT_EQ(s.at("ui").at("notice").str.find("is_directory"), std::string::npos) << "no internal codes";
}

}  // namespace
}  // namespace bs::app
