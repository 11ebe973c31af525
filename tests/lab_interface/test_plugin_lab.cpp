// The proof that the lab interface is one interface: a lab defined only in this test (c = a + b
// on a generated vector, vadd_lab.*) joins through a catalog entry next to the built-in labs,
// and with no change to the shell it gets the kernel list and launches, the overlay of its data,
// the inspector, timings, the schedule, launch statistics, headless screenshots of every side
// tab, and bench JSON. Everything asserted against figures computed here by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "../app/json_reader.hpp"
#include "cli/options.hpp"
#include "lab/catalog.hpp"
#include "labs/built_in_labs.hpp"
#include "labs/catalog.hpp"
#include "labs/custom/user_kernel_lab.hpp"
#include "platform/window.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"
#include "shell/run_modes.hpp"
#include "vadd_view.hpp"
#include "skips.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bs;
using namespace bs::app;

LabCatalog catalog_with_vadd() {
  LabCatalog c = built_in_labs();
  c.push_back(bs::test::vadd_entry());
  return c;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class PluginLab : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bs_plugin_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    app_.reset();
    window_.reset();
    if (!HasFailure() && !std::getenv("BS_KEEP_TEST_OUTPUT")) fs::remove_all(dir_);  // keep: look at the shots
  }
  void start(Dim3 block, Panel panel) {
    auto w = make_headless_window(1280, 800);
    if (!w) BS_SKIP_NO_GL() << "no headless OpenGL context: " << w.status().describe();
    window_ = std::move(w.value());
    auto session = open_compute_session(BackendChoice::Cpu, -1, false);
    ASSERT_TRUE(session.ok()) << session.status().describe();
    CliOptions options;
    options.headless = true;
    options.backend = BackendChoice::Cpu;
    options.state.lab = "vadd";
    options.state.selection.kernel = "vadd";
    options.state.selection.block = block;
    options.state.panel = panel;
    options.state.view.hover = PixelPos{1234, 0};
    options.state.view_given = true;
    auto app = App::create(*window_, options, std::move(session.value()), catalog_with_vadd());
    ASSERT_TRUE(app.ok()) << app.status().describe();
    app_ = std::move(app.value());
  }
  fs::path dir_;
  std::unique_ptr<Window> window_;
  std::unique_ptr<App> app_;
};

// The app's catalog is the one catalog of labs with a view each: the same ids and titles in the
// same order, each lab made through it on the CPU being the lab its line names, with the user's
// own kernels joined exactly where the line offers them. No GL needed.
TEST(AppCatalog, EveryLabOfTheCatalogHasItsView) {
  const lab::Catalog labs = bs::labs::built_in_labs();
  const LabCatalog app = built_in_labs();
  ASSERT_EQ(app.size(), labs.size());
  ASSERT_GE(labs.size(), 2u);
  for (std::size_t i = 0; i < labs.size(); ++i) {
    SCOPED_TRACE(labs[i].id);
    EXPECT_EQ(app[i].id, labs[i].id);
    EXPECT_EQ(app[i].title, labs[i].title);
    EXPECT_TRUE(app[i].make_view);
    auto made = app[i].make_lab(lab::cpu_simulation(1, "catalog test"));
    ASSERT_TRUE(made.ok()) << made.status().describe();
    EXPECT_EQ((*made)->id(), labs[i].id);
    EXPECT_EQ(lab::layer<custom::UserKernelLab>(**made) != nullptr, labs[i].user_kernels != nullptr);
  }
  // The command line's labs are the catalog's (cli/options.hpp takes them as data).
  const std::vector<LabFlags> flags = lab_flags(app);
  ASSERT_EQ(flags.size(), labs.size());
  for (std::size_t i = 0; i < labs.size(); ++i) EXPECT_EQ(flags[i].id, labs[i].id);
  const std::string help = help_text(flags);
  EXPECT_NE(help.find("(LAB: " + lab::catalog_ids(labs) + ")"), std::string::npos) << help;
}

TEST_F(PluginLab, TheShellLaunchesVerifiesTimesAndTracesALabItHasNeverHeardOf) {
  const Dim3 block{96, 1, 1};  // 3001 elements: ceil(3001 / 96) = 32 blocks, the last 25 busy
  start(block, Panel::Launch);
  if (!app_) return;
  for (int f = 0; f < 4; ++f) {
    app_->frame();
    app_->present();
  }
  EXPECT_EQ(app_->lab_id(), "vadd");
  const LaunchRecord& rec = app_->last_launch();
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_EQ(rec.lab, "vadd");
  EXPECT_EQ(rec.kernel, "vadd");
  const long long n = app_->current_view()->lab().problem().width;
  ASSERT_EQ(n, 3001);
  EXPECT_EQ(rec.config.grid, (Dim3{32, 1, 1}));
  EXPECT_EQ(rec.config.block, block);
  EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
  EXPECT_EQ(rec.check.checked, 3001u);
  EXPECT_GT(rec.timing.median_ms, 0);
  EXPECT_TRUE(rec.timing.simulated);
  // The schedule the shell keeps: one block each, and the simulator's census of every thread.
  const LaunchRecord& shown = app_->shown_launch();
  ASSERT_EQ(shown.schedule.size(), 32u);
  unsigned long long threads = 0;
  for (const BlockTrace& b : shown.schedule) threads += b.threads;
  EXPECT_EQ(threads, 32ull * 96);
  // The summary the headless run prints names the lab's launch as the shell saw it.
  const std::string summary = app_->summary();
  EXPECT_NE(summary.find("launch: vadd [block 96]"), std::string::npos) << summary;
  // The inspector's owner of the forced hover (element 1234): block 12, thread 82, by hand.
  auto owner = app_->current_view()->lab().owner(shown, 1234, 0);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->thread.block, (Dim3{12, 0, 0}));
  EXPECT_EQ(owner->thread.thread, (Dim3{82, 0, 0}));
  // Outputs written by the shell's generic code.
  ASSERT_TRUE(app_->write_schedule_json(dir_ / "sched.json").ok());
  const auto sched = bs::test::parse_json(read_file(dir_ / "sched.json"));
  ASSERT_TRUE(sched.has_value());
  ASSERT_TRUE(app_->write_output(dir_ / "out.png").ok());
  EXPECT_GT(fs::file_size(dir_ / "out.png"), 0u);
}

// Every side tab draws for the new lab (the screenshot of each differs from the others), and
// the data view shows the overlay: the cells of the vector take one colour per block.
TEST_F(PluginLab, EverySideTabAndTheOverlayDrawForIt) {
  std::set<std::vector<std::uint8_t>> shots;
  for (Panel p : {Panel::Timings, Panel::Launch, Panel::Schedule, Panel::Memory, Panel::Runs}) {
    app_.reset();
    window_.reset();
    start(Dim3{128, 1, 1}, p);
    if (!app_) return;
    for (int f = 0; f < 3; ++f) {
      app_->frame();
      if (f < 2) app_->present();
    }
    ASSERT_TRUE(app_->last_launch().ok());
    const std::string name = "tab_" + std::to_string(static_cast<int>(p)) + ".png";
    ASSERT_TRUE(app_->write_screenshot(dir_ / name).ok());
    shots.insert(window_->read_pixels_rgba());
    app_->present();
  }
  EXPECT_EQ(shots.size(), 5u) << "each tab draws something of its own";
}

// bench, written once against the lab interface: the test lab's JSON parsed back, every preset
// block on two odd sizes, each verified, bytes counted by hand.
TEST_F(PluginLab, BenchWritesTheResultsJsonForIt) {
  CliOptions o;
  o.backend = BackendChoice::Cpu;
  o.bench = BenchOptions{};
  o.bench->lab = "vadd";
  o.bench->sizes = {"1001", "4099"};
  o.bench->repeats = 2;
  o.bench->warmup = 0;
  o.bench->json_path = (dir_ / "bench.json").string();
  ASSERT_EQ(run_bench(o, catalog_with_vadd()), kExitOk);
  const auto v = bs::test::parse_json(read_file(dir_ / "bench.json"));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("lab").str, "vadd");
  const auto& results = v->at("results").items;
  ASSERT_EQ(results.size(), 8u);  // 4 presets x 2 sizes
  for (const auto& r : results) {
    EXPECT_EQ(r.at("outcome").str, "ok");
    EXPECT_EQ(r.at("check").at("state").str, "passed");
    const double n = std::stod(r.at("problem").str);
    EXPECT_EQ(r.at("bytes").number, 12 * n);
    const double threads = r.at("block").at(0).number;
    EXPECT_EQ(r.at("grid").at(0).number, std::ceil(n / threads));
  }
}

}  // namespace
