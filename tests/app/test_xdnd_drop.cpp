// Drag and drop from a real desktop: blockscope runs in a real window (GLFW on the X display
// xvfb-run provides, CPU simulation) and a drag source written for the test (xdnd_source.hpp)
// drops files on it through XDND, as a file manager does. The test watches the app through its
// --status-file snapshot (app/shell/status_report.hpp) and checks what the user would see:
//   - a good image is shown, and the kernel's output read back from GL equals the expected bytes
//   - a damaged file gets a message and the previous image stays
//   - a non-ASCII name, several files at once, an even-length URI list, a folder
//   - hostile input: URIs that are not files or not valid, a huge list, an empty list, and XDND
//     messages from windows that do not exist
//   - a drag source that goes away mid-drag does not take the app down (this used to kill it:
//     GLFW replied to the vanished window and Xlib's default error handler exited)
//   - a .cu file opens in the kernel editor, compiles, runs and is shown as the lab's kernel
// Every case ends by closing the window as a window manager does and expecting exit code 0.
// Skips visibly when DISPLAY is unset (CI runs ctest under xvfb-run).
//
// Section index:
//   1. the app as a child process, and its status file
//   2. test images and the expected output
//   3. the fixture: start, find the window, drop, close
//   4. the drop cases
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include "app_process.hpp"  // AppProcess: blockscope as a child process
#include "app_runner.hpp"   // executable(): BLOCKSCOPE_EXE or the environment's override
#include "json_reader.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "xdnd_source.hpp"
#include "skips.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using bs::test::JsonValue;
using bs::test::xdnd::DropOutcome;
using bs::test::xdnd::file_uri;
using bs::test::xdnd::Source;
using bs::test::xdnd::uri_list;
using Clock = std::chrono::steady_clock;
using bs::app::test::AppProcess;

constexpr auto kStartTimeout = 30s;    // first frame of a fresh app on llvmpipe, CI under load
constexpr auto kStepTimeout = 5000ms;  // each XDND wait
constexpr auto kShowTimeout = 15s;     // a dropped file loaded, launched and shown

// ---------------------------------------------------------------------------------------------
// 1. the app as a child process
// ---------------------------------------------------------------------------------------------

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether any of the status's messages has `level` and contains `text`.
bool has_message(const JsonValue& status, const std::string& level, const std::string& text) {
  for (const auto& m : status.at("messages").items)
    if (m.at("level").str == level && m.at("text").str.find(text) != std::string::npos) return true;
  return false;
}

std::string messages_of(const JsonValue& status) {
  std::string all;
  for (const auto& m : status.at("messages").items) all += "  [" + m.at("level").str + "] " + m.at("text").str + "\n";
  return all;
}

// ---------------------------------------------------------------------------------------------
// 2. test images and the expected output
// ---------------------------------------------------------------------------------------------

struct TestImage {
  fs::path path;
  int width = 0, height = 0;
};

// A gradient a person can recognise in a screenshot (red across, green down) with a fresh random
// blue channel, so every run checks different pixels. Odd sizes, so edge blocks are partial.
TestImage write_png(const fs::path& path, int w, int h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
      p[0] = static_cast<std::uint8_t>(x * 255 / std::max(1, w - 1));
      p[1] = static_cast<std::uint8_t>(y * 255 / std::max(1, h - 1));
      p[2] = static_cast<std::uint8_t>(rng());
    }
  EXPECT_TRUE(stbi_write_png(path.c_str(), w, h, 3, rgb.data(), w * 3)) << path;
  return TestImage{path, w, h};
}

std::uint64_t fnv1a64(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The grayscale output the app must show for `png`: decoded here with stb_image (not the app's
// loader), each pixel through the kernels' own per-pixel function (bit-exact with the simulator
// and the GPU); what is under test is that every pixel was covered by the grid and reached GL.
// The double-precision lecture formula checks those bytes within 1 (a separate reference).
std::vector<std::uint8_t> expected_gray(const fs::path& png, int* w, int* h) {
  int channels = 0;
  stbi_uc* rgb = stbi_load(png.c_str(), w, h, &channels, 3);
  EXPECT_NE(rgb, nullptr) << png;
  if (!rgb) return {};
  const std::size_t n = static_cast<std::size_t>(*w) * *h;
  std::vector<std::uint8_t> gray(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    gray[i] = bs::gray::gray_value(r, g, b);
    const double lecture = std::floor(0.2989 * r + 0.5870 * g + 0.1140 * b);
    EXPECT_LE(std::abs(gray[i] - lecture), 1.0) << "pixel " << i << " of " << png;
  }
  stbi_image_free(rgb);
  return gray;
}

// ---------------------------------------------------------------------------------------------
// 3. the fixture
// ---------------------------------------------------------------------------------------------

class XdndDrop : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display)
      BS_SKIP_NO_GL() << "DISPLAY is not set: the XDND drop tests need an X server (CI runs them under xvfb-run)";
    dir_ = fs::temp_directory_path() / ("bs_xdnd_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    seed_ = std::random_device{}();
    RecordProperty("seed", std::to_string(seed_));
    status_path_ = dir_ / "status.json";

    ASSERT_TRUE(
        app_.start(dir_, {"--backend", "cpu", "--window-size", "900x600", "--status-file", status_path_.string()}));
    auto first = wait_status([](const JsonValue& s) { return s.has("data"); }, kStartTimeout);
    ASSERT_TRUE(first) << "no status file from the app within the start timeout\n" << app_.log();

    std::string why;
    source_ = Source::open(&why);
    ASSERT_TRUE(source_) << why;
    const auto deadline = Clock::now() + 10s;
    while (!(window_ = source_->find_window("blockscope", app_.pid())) && Clock::now() < deadline)
      std::this_thread::sleep_for(50ms);
    ASSERT_NE(window_, 0u) << "no top-level window titled blockscope with _NET_WM_PID " << app_.pid();
    ASSERT_EQ(source_->xdnd_version(window_), 5) << "the window should announce XdndAware version 5 (GLFW 3.3)";
  }

  void TearDown() override {
    // BLOCKSCOPE_XDND_VERBOSE=1: what the app showed at the end of the case.
    if (const char* v = std::getenv("BLOCKSCOPE_XDND_VERBOSE"); v && *v && app_.pid() > 0) {
      wait_status([](const JsonValue&) { return true; }, 1000ms);
      std::printf("  shown: %s | status bar: %s | errors: %.0f\n%s", last_status_.at("data").at("name").str.c_str(),
                  last_status_.at("status_message").str.c_str(), last_status_.at("errors").number,
                  messages_of(last_status_).c_str());
    }
    if (app_.pid() > 0 && app_.alive() && source_) {
      // Close as a window manager's close button does; a healthy app exits with 0.
      source_->request_close(window_);
      if (app_.wait_exit(10000ms))
        EXPECT_EQ(app_.exit_code(), 0) << "closing the window: " << app_.how_it_ended() << "\n" << app_.log();
      else ADD_FAILURE() << "the app did not exit within 10 s of WM_DELETE_WINDOW\n" << app_.log();
    }
    app_.kill_if_running();
    source_.reset();
    if (!HasFailure() && !dir_.empty()) fs::remove_all(dir_);
    else if (!dir_.empty()) std::printf("kept %s for inspection\n", dir_.c_str());
  }

  // The newest status once `pred` holds, or nullopt at the deadline or when the app is gone.
  std::optional<JsonValue> wait_status(const std::function<bool(const JsonValue&)>& pred,
                                       std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto v = bs::test::parse_json(slurp(status_path_))) {
        last_status_ = *v;
        if (pred(*v)) return v;
      }
      if (!app_.alive() || Clock::now() > deadline) return std::nullopt;
      std::this_thread::sleep_for(20ms);
    }
  }

  // Why a wait failed, for the assertion message.
  std::string situation() {
    std::string s = "app: " + app_.how_it_ended() + "\nlast status: image '" + last_status_.at("data").at("name").str +
                    "', loading " + (last_status_.at("loading").boolean ? "yes" : "no") + "\nmessages:\n" +
                    messages_of(last_status_);
    if (!app_.alive()) s += "app output:\n" + app_.log();
    return s;
  }

  DropOutcome drop(const std::vector<fs::path>& paths) {
    std::vector<std::string> uris;
    for (const auto& p : paths) uris.push_back(file_uri(p));
    return source_->drop(window_, uri_list(uris), kStepTimeout);
  }

  // Drops `image` and waits until the app shows it; checks the output against the expected
  // bytes. Returns the status that showed it.
  std::optional<JsonValue> drop_and_expect_shown(const TestImage& image) {
    const DropOutcome out = drop({image.path});
    EXPECT_TRUE(out.ok()) << out.error << "\n" << situation();
    if (!out.ok()) return std::nullopt;
    return expect_shown(image);
  }

  std::optional<JsonValue> expect_shown(const TestImage& image) {
    const std::string name = image.path.filename().string();
    auto shown = wait_status(
        [&](const JsonValue& s) {
          return s.at("data").at("name").str == name && s.has("output") && !s.at("loading").boolean;
        },
        kShowTimeout);
    EXPECT_TRUE(shown) << name << " was not shown\n" << situation();
    if (!shown) return std::nullopt;
    EXPECT_EQ(shown->at("data").at("width").number, image.width);
    EXPECT_EQ(shown->at("data").at("height").number, image.height);
    int w = 0, h = 0;
    const auto expect = expected_gray(image.path, &w, &h);
    EXPECT_EQ(shown->at("output").at("width").number, w);
    EXPECT_EQ(shown->at("output").at("height").number, h);
    EXPECT_EQ(shown->at("output").at("fnv1a64").str, hex64(fnv1a64(expect)))
        << "the kernel's output read back from GL differs from the expected grayscale of " << name;
    EXPECT_TRUE(shown->at("launch").at("ok").boolean);
    // The grid the app reports covers the image (grid * block >= pixels in each direction used).
    const auto& launch = shown->at("launch");
    const double threads = launch.at("grid").at(0).number * launch.at("block").at(0).number *
                           launch.at("grid").at(1).number * launch.at("block").at(1).number;
    EXPECT_GE(threads, static_cast<double>(w) * h);
    EXPECT_TRUE(has_message(*shown, "info", "Loaded " + name)) << messages_of(*shown);
    return shown;
  }

  TestImage image(const std::string& name, int w, int h) {
    return write_png(dir_ / name, w, h, seed_ + static_cast<std::uint32_t>(std::hash<std::string>{}(name)));
  }

  // A PNG cut short: valid signature and header, then nothing (what a crashed download leaves).
  fs::path damaged(const std::string& name) {
    const TestImage whole = image("whole_" + name, 97, 61);
    std::string bytes = slurp(whole.path);
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    return p;
  }

  fs::path dir_;
  fs::path status_path_;
  std::uint32_t seed_ = 0;
  AppProcess app_;
  std::unique_ptr<Source> source_;
  unsigned long window_ = 0;
  JsonValue last_status_;
};

// ---------------------------------------------------------------------------------------------
// 4. the drop cases
// ---------------------------------------------------------------------------------------------

TEST_F(XdndDrop, AGoodImageIsShownAndTheOutputIsExact) {
  const TestImage img = image("good.png", 333, 217);
  const DropOutcome out = drop({img.path});
  ASSERT_TRUE(out.ok()) << out.error << "\n" << situation();
  // The protocol as it went: accepted with the copy action, the data asked for with the
  // XdndDrop time, finished. GLFW 3.3.8 reports the bytes it read as the success field.
  EXPECT_TRUE(out.accepted);
  EXPECT_TRUE(out.copy_action);
  EXPECT_TRUE(out.data_requested);
  EXPECT_EQ(out.request_time, out.drop_time) << "GLFW requests the data with the XdndDrop time";
  EXPECT_TRUE(out.finished_success == 1 || out.finished_success == static_cast<long>(out.bytes_sent))
      << "XdndFinished success field " << out.finished_success << " for " << out.bytes_sent << " bytes";
  RecordProperty("finished_success", std::to_string(out.finished_success));
  auto shown = expect_shown(img);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->at("status_message").str, "Loaded good.png (333 x 217, PNG)") << "the status bar";

  // What the X server shows: the window's pixels, saved for a person to look at, and checked
  // for the gradient's colours (the original half) next to gray pixels (the result half).
  int w = 0, h = 0;
  const auto rgba = source_->capture_rgba(window_, &w, &h);
  ASSERT_FALSE(rgba.empty());
  const fs::path shot = dir_ / "screen_after_good_drop.png";
  stbi_write_png(shot.c_str(), w, h, 4, rgba.data(), w * 4);
  if (const char* keep = std::getenv("BLOCKSCOPE_XDND_SCREENSHOT"); keep && *keep)
    fs::copy_file(shot, keep, fs::copy_options::overwrite_existing);
  std::size_t colourful = 0, gray = 0;
  for (int y = h / 4; y < 3 * h / 4; ++y)
    for (int x = w / 4; x < 3 * w / 4; ++x) {
      const unsigned char* p = &rgba[(static_cast<std::size_t>(y) * w + x) * 4];
      const bool is_gray = p[0] == p[1] && p[1] == p[2] && p[0] > 30;
      gray += is_gray;
      colourful += std::abs(p[0] - p[2]) > 60 || std::abs(p[1] - p[2]) > 60;
    }
  EXPECT_GT(colourful, 2000u) << "the original half of the view should show the dropped image; see " << shot;
  EXPECT_GT(gray, 2000u) << "the result half should show its grayscale; see " << shot;
}

TEST_F(XdndDrop, ADamagedFileGetsAMessageAndThePreviousImageStays) {
  const TestImage good = image("before.png", 129, 65);
  auto before = drop_and_expect_shown(good);
  ASSERT_TRUE(before);
  const double errors_before = before->at("errors").number;

  const fs::path bad = damaged("damaged.png");
  const DropOutcome out = drop({bad});
  ASSERT_TRUE(out.ok()) << out.error;
  auto after = wait_status([&](const JsonValue& s) { return s.at("errors").number > errors_before; }, kShowTimeout);
  ASSERT_TRUE(after) << "no error message for the damaged file\n" << situation();
  EXPECT_TRUE(has_message(*after, "error", "damaged.png")) << messages_of(*after);
  EXPECT_NE(after->at("status_message").str.find("damaged.png"), std::string::npos)
      << "the status bar should name the file: " << after->at("status_message").str;
  EXPECT_EQ(after->at("data").at("name").str, "before.png") << "the previous image must stay";
  EXPECT_EQ(after->at("output").at("fnv1a64").str, before->at("output").at("fnv1a64").str)
      << "the previous output must stay";
}

TEST_F(XdndDrop, ANonAsciiFileNameArrivesIntact) {
  const std::string name = "caf\xc3\xa9_\xc3\xb1_\xe6\x97\xa5\xe6\x9c\xac.png";  // café_ñ_日本.png
  const TestImage img = image(name, 101, 77);
  EXPECT_NE(file_uri(img.path).find("caf%C3%A9_%C3%B1_%E6%97%A5%E6%9C%AC.png"), std::string::npos)
      << "the source sends the name percent-encoded, as file managers do";
  auto shown = drop_and_expect_shown(img);
  ASSERT_TRUE(shown);
  EXPECT_EQ(shown->at("data").at("name").str, name);
}

TEST_F(XdndDrop, SeveralFilesAtOnceShowTheLastGoodOneAndNameEachBadOne) {
  const TestImage first = image("first.png", 63, 41);
  const fs::path broken = damaged("broken.png");
  const fs::path missing = dir_ / "missing.png";
  const TestImage last = image("last.png", 211, 97);
  const fs::path trailing_bad = damaged("trailing_bad.png");
  const DropOutcome out = drop({first.path, broken, missing, last.path, trailing_bad});
  ASSERT_TRUE(out.ok()) << out.error;
  auto done = wait_status(
      [&](const JsonValue& s) {
        return s.at("data").at("name").str == "last.png" && !s.at("loading").boolean &&
               has_message(s, "error", "trailing_bad.png");
      },
      kShowTimeout);
  ASSERT_TRUE(done) << situation();
  EXPECT_TRUE(has_message(*done, "info", "Loading 5 files")) << messages_of(*done);
  EXPECT_TRUE(has_message(*done, "error", "broken.png")) << messages_of(*done);
  EXPECT_TRUE(has_message(*done, "error", "missing.png")) << messages_of(*done);
  EXPECT_TRUE(has_message(*done, "error", "trailing_bad.png")) << messages_of(*done);
  EXPECT_GE(done->at("errors").number, 3);
  expect_shown(last);
}

TEST_F(XdndDrop, AnEvenLengthUriListIsADrop) {
  // GLFW 3.3.8 puts the byte count in XdndFinished's success field, so an even length clears the
  // spec's success bit; the drop itself must work, and this source (like GTK) reads non-zero as
  // success. Pad the name until "file://<path>\r\n" has an even length.
  std::string name = "even.png";
  if (uri_list({file_uri(dir_ / name)}).size() % 2 != 0) name = "even_.png";
  const TestImage img = image(name, 75, 51);
  const std::string list = uri_list({file_uri(img.path)});
  ASSERT_EQ(list.size() % 2, 0u);
  const DropOutcome out = drop({img.path});
  ASSERT_TRUE(out.ok()) << out.error << "\n" << situation();
  EXPECT_EQ(out.bytes_sent, list.size());
  EXPECT_NE(out.finished_success, 0);
  RecordProperty("finished_success", std::to_string(out.finished_success));
  expect_shown(img);
}

TEST_F(XdndDrop, AFolderGetsAMessageSayingItIsAFolder) {
  const fs::path folder = dir_ / "holiday photos";
  fs::create_directories(folder);
  write_png(folder / "inside.png", 9, 9, seed_);
  const std::string before = last_status_.at("data").at("name").str;
  const DropOutcome out = drop({folder});
  ASSERT_TRUE(out.ok()) << out.error;
  auto after = wait_status([](const JsonValue& s) { return has_message(s, "error", "folder"); }, kShowTimeout);
  ASSERT_TRUE(after) << situation();
  EXPECT_TRUE(has_message(*after, "error", "holiday photos is a folder")) << messages_of(*after);
  EXPECT_EQ(after->at("data").at("name").str, before);
}

TEST_F(XdndDrop, HostileUrisGetMessagesAndTheAppCarriesOn) {
  const double errors_at_start = last_status_.at("errors").number;
  // Not files, not valid: another scheme, a relative path, bad and truncated percent escapes,
  // an escaped NUL, invalid UTF-8, a name longer than any file system allows, a data: URI.
  // Comment lines are skipped by text/uri-list's rules (and by GLFW).
  const std::vector<std::string> hostile = {
      "http://example.com/picture.png",
      "relative/picture.png",
      "file://" + (dir_ / "bad%zzescape.png").string(),
      "file://" + (dir_ / "truncated%4").string(),
      "file://" + (dir_ / "nul%00byte.png").string(),
      "file://" + (dir_ / "invalid%C3%28utf8%FF.png").string(),
      "file:///" + std::string(5000, 'a') + ".png",
      "data:image/png;base64,iVBORw0KGgo=",
  };
  std::string list = "# a comment line\r\n" + uri_list(hostile);
  DropOutcome out = source_->drop(window_, list, kStepTimeout);
  ASSERT_TRUE(out.ok()) << out.error << "\n" << situation();
  auto after = wait_status(
      [&](const JsonValue& s) {
        return s.at("errors").number >= errors_at_start + hostile.size() && !s.at("loading").boolean;
      },
      kShowTimeout);
  ASSERT_TRUE(after) << "expected one error per hostile URI\n" << situation();
  if (const char* v = std::getenv("BLOCKSCOPE_XDND_VERBOSE"); v && *v) std::printf("%s", messages_of(*after).c_str());

  // A huge list: 4000 files that do not exist (about 300 KB through one selection transfer).
  std::vector<std::string> many;
  for (int i = 0; i < 4000; ++i) many.push_back(file_uri(dir_ / ("no_such_file_" + std::to_string(i) + ".png")));
  const double errors_before_many = after->at("errors").number;
  out = source_->drop(window_, uri_list(many), kStepTimeout);
  ASSERT_TRUE(out.ok()) << out.error << "\n" << situation();
  after = wait_status(
      [&](const JsonValue& s) {
        return s.at("errors").number >= errors_before_many + many.size() && !s.at("loading").boolean;
      },
      30s);
  ASSERT_TRUE(after) << "expected an error for each of the 4000 missing files\n" << situation();
  EXPECT_TRUE(has_message(*after, "error", "no_such_file_3999.png")) << messages_of(*after);

  // An empty list: nothing to drop; GLFW finishes it as failed (0) and carries on.
  out = source_->drop(window_, "", kStepTimeout);
  EXPECT_TRUE(out.finished) << out.error;
  EXPECT_EQ(out.finished_success, 0);

  // And the app still works: a normal drop is shown.
  ASSERT_TRUE(app_.alive()) << situation();
  drop_and_expect_shown(image("after_hostile.png", 57, 43));
}

TEST_F(XdndDrop, XdndMessagesFromWindowsThatDoNotExistAreSurvived) {
  // A hostile or confused peer: XdndEnter asking the app to read the type list of a window that
  // does not exist (GLFW reads it with XGetWindowProperty), XdndPosition and XdndDrop from it
  // (GLFW answers with XSendEvent to it). Each is a BadWindow from the X server.
  const long bogus = 0x7ffffff0;  // far above any XID the server has handed out in a test run
  const long enter[5] = {bogus, (5L << 24) | 1, 0, 0, 0};
  const long position[5] = {bogus, 0, (100L << 16) | 100, 0, 0};
  const long drop_msg[5] = {bogus, 0, 0, 0, 0};
  source_->send_client_message(window_, "XdndEnter", enter);
  source_->send_client_message(window_, "XdndPosition", position);
  source_->send_client_message(window_, "XdndDrop", drop_msg);
  auto reported = wait_status([](const JsonValue& s) { return has_message(s, "warning", "X server"); }, kShowTimeout);
  ASSERT_TRUE(reported) << "the app should survive and say what the X server reported\n" << situation();
  EXPECT_TRUE(has_message(*reported, "warning", "BadWindow")) << messages_of(*reported);
  ASSERT_TRUE(app_.alive());
  drop_and_expect_shown(image("after_bogus.png", 45, 39));
}

TEST_F(XdndDrop, ADragSourceThatVanishesMidDragDoesNotKillTheApp) {
  // The app is paused (as by a slow frame) while a source starts a drag, gets no answer, gives
  // up and exits. When the app resumes, GLFW answers XdndPosition with an XdndStatus sent to a
  // window that no longer exists: a BadWindow error, which Xlib's default handler turns into
  // exit(1). The app must report it and carry on.
  std::string why;
  auto doomed = Source::open(&why);
  ASSERT_TRUE(doomed) << why;
  app_.signal(SIGSTOP);
  ASSERT_TRUE(app_.wait_stopped()) << "the app did not stop";
  ASSERT_TRUE(doomed->begin(window_, &why)) << why;
  EXPECT_FALSE(doomed->wait_for_status(300ms)) << "a stopped app cannot answer";
  doomed->send_drop(window_);
  doomed->vanish();  // the source times out and exits: its window and connection are gone
  app_.signal(SIGCONT);

  auto reported = wait_status([](const JsonValue& s) { return has_message(s, "warning", "X server"); }, kShowTimeout);
  ASSERT_TRUE(reported) << "the app should survive the vanished source and report the X error\n" << situation();
  EXPECT_TRUE(has_message(*reported, "warning", "BadWindow")) << messages_of(*reported);
  EXPECT_TRUE(app_.alive()) << situation();

  // Still responsive: a normal drop from a new source is shown.
  drop_and_expect_shown(image("after_vanish.png", 87, 53));
}

// A .cu file dropped on the window opens in the kernel editor on the lab its signature belongs
// to, compiles (off the UI thread), runs once verified, joins the lab's kernels and is shown: the
// output read back from GL equals the lecture's formula on the dropped image. A file that is not
// a kernel gets a message and the user's kernel keeps running.
TEST_F(XdndDrop, ACudaSourceFileOpensInTheCustomKernelLab) {
  const TestImage img = image("for_kernel.png", 97, 61);
  ASSERT_TRUE(drop_and_expect_shown(img));
  const fs::path cu = dir_ / "my_kernel.cu";
  std::ofstream(cu) << "// the lecture's kernel, renamed\n"
                       "__global__ void my_gray(unsigned char* x, unsigned char* out, int n) {\n"
                       "    int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
                       "    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];\n"
                       "}\n";
  // What it must show: its own arithmetic (double, truncated), on the image decoded here.
  int w = 0, h = 0, channels = 0;
  stbi_uc* rgb = stbi_load(img.path.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(rgb, nullptr);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<std::uint8_t> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = static_cast<std::uint8_t>(0.2989 * rgb[3 * i] + 0.5870 * rgb[3 * i + 1] + 0.1140 * rgb[3 * i + 2]);
  stbi_image_free(rgb);

  const DropOutcome out = drop({cu});
  ASSERT_TRUE(out.ok()) << out.error << "\n" << situation();
  // The compile (g++ on a loaded CI machine) and its first launch take a while.
  auto shown = wait_status(
      [&](const JsonValue& s) {
        return s.at("launch").at("kernel").str == "custom:my_gray" && s.at("launch").at("ok").boolean &&
               s.has("output") && s.at("output").at("fnv1a64").str == hex64(fnv1a64(want));
      },
      60s);
  ASSERT_TRUE(shown) << "the dropped kernel was not compiled, run and shown\n" << situation() << "\n" << app_.log();
  EXPECT_TRUE(has_message(*shown, "info", "Opened my_kernel.cu")) << messages_of(*shown);
  EXPECT_EQ(shown->at("data").at("name").str, "for_kernel.png") << "the loaded image stays";

  // Not a kernel: refused with a message; the user's kernel keeps running on the same image.
  const fs::path junk = dir_ / "junk.cu";
  std::ofstream(junk, std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\x02",
      7);
  ASSERT_TRUE(drop({junk}).ok()) << situation();
  auto refused =
      wait_status([](const JsonValue& s) { return has_message(s, "error", "not a text file"); }, kShowTimeout);
  ASSERT_TRUE(refused) << situation();
  EXPECT_EQ(refused->at("launch").at("kernel").str, "custom:my_gray");
  EXPECT_TRUE(refused->at("launch").at("ok").boolean);
  EXPECT_TRUE(app_.alive());
}

}  // namespace
