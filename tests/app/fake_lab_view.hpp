// A lab and a view that exist only in the shell's unit tests (test_launch_scheduler,
// test_lab_host): no GL, no ImGui drawing, every launch counted with the options it was given, and
// what a launch costs on a clock the test advances. The shell's rooms see them through lab::Lab and
// LabView exactly as they see the real labs.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/launch.hpp"
#include "lab_without_memory_model.hpp"
#include "labs/lab_view.hpp"

namespace bs::app::test {

// A clock the test moves by hand (LaunchScheduler::Options::now).
struct ManualClock {
  std::chrono::steady_clock::time_point t{std::chrono::hours(1)};
  void advance_ms(double ms) {
    t += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double, std::milli>(ms));
  }
};

// What one run() was asked.
struct RunSeen {
  std::string kernel;
  Dim3 block;
  bool verify = false, trace = false;
};

// What the fake lab's runs do; shared by a lab and its forks (the scheduler's worker runs a fork).
struct FakeScript {
  ManualClock* clock = nullptr;  // each run advances it by run_ms
  double run_ms = 1;
  bool ready = true;             // the problem has data
  bool wrong = false;            // verified runs fail their check
  std::string fault_code;        // non-empty: runs fail with this CUDA error code
  bool fault_sticky = true;      // ... one that leaves the context unusable (Status::sticky)
  bool until_cancelled = false;  // runs last until RunOptions::cancel is set (a slow simulation)
  double bytes = 1e6;            // what a launch counts (plan and run)
  std::vector<RunSeen> runs;     // every run, in order
};

class FakeLab final : public bs::test::LabWithoutMemoryModel {
 public:
  FakeLab(const lab::Backend& backend, std::shared_ptr<FakeScript> script, std::vector<std::string> kernel_ids)
      : backend_(backend), script_(std::move(script)) {
    for (const std::string& id : kernel_ids) {
      lab::KernelInfo k;
      k.id = id;
      k.label = id;
      k.group = KernelGroup::Lecture;
      k.block_rank = 1;
      k.default_block = {128, 1, 1};
      kernels_.push_back(k);
      // The other precision's list: the same rungs as "t_<id>", the second one beyond this
      // backend (as the tensor-core ladder's T3 is beyond the simulator).
      k.id = k.label = "t_" + id;
      if (other_kernels_.size() == 1) k.unavailable = "needs a made-up GPU";
      other_kernels_.push_back(k);
    }
  }

  std::string data = "data A";  // the problem's summary: install_image and settings change it
  std::string layout = "planar";
  std::string precision = "fp32";  // bf16 swaps the kernel list for the "t_" one

  std::string_view id() const override { return "fake"; }
  std::string_view title() const override { return "Fake"; }
  const lab::Backend& backend() const override { return backend_; }
  const std::vector<lab::KernelInfo>& kernels() const override {
    return precision == "bf16" ? other_kernels_ : kernels_;
  }
  lab::ProblemInfo problem() const override {
    lab::ProblemInfo p;
    p.throughput_unit = ThroughputUnit::GBPerS;
    if (!script_->ready) {
      p.status = Status::failure("no data loaded", "load some", "fake");
      return p;
    }
    p.ready = true;
    p.name = data;
    p.summary = data + ", " + layout;
    p.width = 1000;
    p.height = 1;
    return p;
  }
  LaunchRecord plan(std::string_view kernel, const KernelConfig& c) override {
    LaunchRecord r;
    r.lab = "fake";
    r.kernel = std::string(kernel);
    r.request = c;
    r.config_label = "block " + block_text(c.block);
    r.problem = problem().summary;
    r.config.block = c.block;
    r.config.grid = {c.block.x ? static_cast<unsigned>((1000 + c.block.x - 1) / c.block.x) : 0, 1, 1};
    r.status = validate_launch(r.config, backend_.limits);
    r.bytes_moved = script_->bytes;
    return r;
  }
  LaunchRecord run(std::string_view kernel, const KernelConfig& c, const lab::RunOptions& o) override {
    LaunchRecord r = plan(kernel, c);
    script_->runs.push_back({std::string(kernel), c.block, o.verify, o.trace_schedule});
    if (!r.ok()) {
      r.refused = true;
      return r;
    }
    if (script_->clock) script_->clock->advance_ms(script_->run_ms);
    if (script_->until_cancelled) {
      // A launch that runs until it is cancelled (at most 30 s): its running is the thing the
      // scheduler's tests stop, so it sleeps between looks at the flag.
      for (int i = 0; i < 30000 && !(o.cancel && o.cancel->load()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      r.status = Status::failure("the launch was cancelled", "", "fake");
      return r;
    }
    if (!script_->fault_code.empty()) {
      r.status =
          Status::failure("an illegal memory access was encountered", "", "cudaEventSynchronize", script_->fault_code);
      r.status.sticky = script_->fault_sticky;  // as device/cuda_status.hpp marks a real one
      return r;
    }
    r.timing.samples_ms = {script_->run_ms};
    summarize(r.timing);
    r.timing.simulated = backend_.kind == BackendKind::CpuSimulation;
    if (o.trace_schedule) r.schedule = {BlockTrace{Dim3{0, 0, 0}, 0, 0, 10}};
    if (o.verify) r.check.state = script_->wrong ? Check::State::Failed : Check::State::Passed;
    return r;
  }
  std::size_t output_bytes() const override { return 4; }
  Result<std::unique_ptr<lab::Lab>> fork() const override { return std::unique_ptr<lab::Lab>(new FakeLab(*this)); }
  Status set_random_problem(std::string_view) override { return Status::success(); }
  std::string size_syntax() const override { return "none"; }
  std::vector<std::string> default_sizes() const override { return {}; }
  std::vector<lab::Setting> settings() const override {
    return {lab::Setting{"layout", "layout", "the layout", {"planar", "rgba"}, layout},
            lab::Setting{"precision", "precision", "the kernel list", {"fp32", "bf16"}, precision}};
  }
  Status set_setting(std::string_view key, std::string_view value) override {
    if (key == "precision" && (value == "fp32" || value == "bf16")) {
      precision = std::string(value);
      return Status::success();
    }
    if (key != "layout" || (value != "planar" && value != "rgba"))
      return Status::failure("layout takes planar or rgba, not '" + std::string(value) + "'", "", "fake");
    layout = std::string(value);
    return Status::success();
  }

 private:
  lab::Backend backend_;
  std::shared_ptr<FakeScript> script_;
  std::vector<lab::KernelInfo> kernels_;
  std::vector<lab::KernelInfo> other_kernels_;
};

// What the fake view was asked to do.
struct ViewSeen {
  int launches = 0;       // launch(): on the frame loop
  int results_shown = 0;  // show_result(): a run made on the worker
  int images = 0;
  int set_labs = 0;  // moved to another compute session
};

class FakeView final : public LabView {
 public:
  FakeView(std::unique_ptr<lab::Lab> lab, bool takes_images, std::shared_ptr<ViewSeen> seen)
      : lab_(std::move(lab)), takes_images_(takes_images), seen_(std::move(seen)) {}

  lab::Lab& lab() override { return *lab_; }
  const lab::Lab& lab() const override { return *lab_; }
  Status set_lab(std::unique_ptr<lab::Lab> lab, ViewContext&) override {
    lab_ = std::move(lab);
    ++seen_->set_labs;
    return Status::success();
  }
  bool update(ViewContext&) override { return false; }
  LaunchRecord launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                      ViewContext&) override {
    ++seen_->launches;
    return lab_->run(kernel, config, options);
  }
  bool show_result(const LaunchRecord&, const std::vector<std::uint8_t>&, ViewContext&) override {
    ++seen_->results_shown;
    return true;
  }
  void draw_problem(ViewContext&, ViewRequests&) override {}
  void draw_view_options(ViewContext&, ViewRequests&) override {}
  void draw_data(const LaunchRecord&, bool, ViewContext&, ViewRequests&) override {}
  std::optional<PixelPos> inspected() const override { return std::nullopt; }
  // The tabs this lab adds (none unless a test gives some).
  std::vector<Tab> added_tabs;
  std::vector<Tab> tabs() override { return added_tabs; }
  ViewState& view_state() override { return view_; }
  bool accepts_images() const override { return takes_images_; }
  Status install_image(Rgba8Image image, ViewContext&) override {
    if (image.width <= 0) return Status::failure("an empty image", "", "FakeView");
    if (auto* fake = dynamic_cast<FakeLab*>(lab_.get())) fake->data = image.name;
    ++seen_->images;
    return Status::success();
  }
  Status write_output_png(const std::filesystem::path&) override { return Status::success(); }
  std::vector<std::uint8_t> read_output(int* w, int* h) override {
    *w = *h = 0;
    return {};
  }
  std::string interop_mode() const override { return "fake"; }

 private:
  std::unique_ptr<lab::Lab> lab_;
  bool takes_images_ = false;
  std::shared_ptr<ViewSeen> seen_;
  ViewState view_;
};

// A catalog entry for a fake lab with the given kernels; `cuda_kernels` are added on a CUDA
// backend only (as cuBLAS exists on the GPU only).
inline LabEntry fake_entry(std::string id, bool takes_images, std::shared_ptr<FakeScript> script,
                           std::shared_ptr<ViewSeen> seen, std::vector<std::string> kernels,
                           std::vector<std::string> cuda_kernels = {}) {
  LabEntry e;
  e.id = id;
  e.title = "Fake " + id;
  e.make_lab = [script, kernels, cuda_kernels](const lab::Backend& b) -> Result<std::unique_ptr<lab::Lab>> {
    std::vector<std::string> ids = kernels;
    if (b.kind == BackendKind::Cuda) ids.insert(ids.end(), cuda_kernels.begin(), cuda_kernels.end());
    return std::unique_ptr<lab::Lab>(new FakeLab(b, script, ids));
  };
  e.make_view = [takes_images, seen](std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                     ViewContext&) -> Result<std::unique_ptr<LabView>> {
    auto view = std::make_unique<FakeView>(std::move(lab), takes_images, seen);
    view->view_state() = setup.view;
    return std::unique_ptr<LabView>(std::move(view));
  };
  return e;
}

inline lab::Backend cpu_backend() {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.label = "CPU simulation (test)";
  return b;
}

inline lab::Backend cuda_backend() {
  lab::Backend b;
  b.kind = BackendKind::Cuda;
  b.cuda_device = 0;
  b.label = "a made-up GPU";
  return b;
}

}  // namespace bs::app::test
