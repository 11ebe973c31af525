// A lab whose behaviour the test scripts: which configurations it refuses, which give a wrong
// result, which fault the device, how long each takes. It counts every launch, so a test can
// check that a refused point was never run and that a cancelled sweep stopped.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lab/lab.hpp"
#include "lab_without_memory_model.hpp"
#include "lab/measure.hpp"

namespace bs::lab::test {

class FakeLab final : public bs::test::LabWithoutMemoryModel {
 public:
  FakeLab() {
    backend_.kind = BackendKind::CpuSimulation;
    backend_.label = "fake";
    KernelInfo free2d;
    free2d.id = "free2d";
    free2d.label = "free 2D";
    free2d.group = KernelGroup::Lecture;
    free2d.block_rank = 2;
    free2d.default_block = {16, 16, 1};
    KernelInfo compiled;
    compiled.id = "compiled";
    compiled.label = "compiled";
    compiled.group = KernelGroup::Ladder;
    compiled.style = ConfigStyle::Compiled;
    compiled.configs = {{"small, tile 8", {64, 1, 1}}, {"big, tile 16", {256, 1, 1}}, {"huge", {1024, 1, 1}}};
    kernels_ = {free2d, compiled};
  }

  // Scripting.
  std::set<std::string> wrong;               // block_text of shapes that give a wrong result
  std::string fault_at;                      // block_text of the shape that faults the device
  FaultOwner fault_owner = FaultOwner::App;  // whose context that fault poisons
  std::map<std::string, int> launches;       // block_text or config label -> timed launches

  std::string_view id() const override { return "fake"; }
  std::string_view title() const override { return "Fake"; }
  const Backend& backend() const override { return backend_; }
  const std::vector<KernelInfo>& kernels() const override { return kernels_; }
  ProblemInfo problem() const override {
    ProblemInfo p;
    p.ready = true;
    p.name = "fake";
    p.summary = "fake 100 x 60";
    p.width = 100;
    p.height = 60;
    p.throughput_unit = ThroughputUnit::GBPerS;
    p.ceilings.push_back({"copy", 10.0, ThroughputUnit::GBPerS, "made up", ""});
    return p;
  }

  LaunchRecord plan(std::string_view kernel, const KernelConfig& c) override {
    LaunchRecord r;
    r.lab = "fake";
    r.kernel = std::string(kernel);
    r.request = c;
    r.problem = "100x60";
    r.settings = {{"mode", "plain"}};
    r.data_width = 100;
    r.data_height = 60;
    r.bytes_moved = 1e6;
    r.scheme = IndexScheme::grid2d();
    if (kernel == "compiled") {
      r.config_label = kernels_[1].configs[static_cast<std::size_t>(c.compiled)].label;
      r.config.block = kernels_[1].configs[static_cast<std::size_t>(c.compiled)].block;
      r.config.grid = {static_cast<unsigned>(ceil_div(6000, r.config.block.x)), 1, 1};
      r.scheme = IndexScheme::flat();
      if (c.compiled == 2) r.status = Status::failure("huge needs 64 KiB of shared memory; the limit is 48 KiB");
      return r;
    }
    r.config_label = "block " + block_text(c.block);
    r.config.block = c.block;
    r.config.grid = {c.block.x ? static_cast<unsigned>(ceil_div(100, c.block.x)) : 0,
                     c.block.y ? static_cast<unsigned>(ceil_div(60, c.block.y)) : 0, 1};
    r.status = validate_launch(r.config, backend_.limits);
    return r;
  }

  LaunchRecord run(std::string_view kernel, const KernelConfig& c, const RunOptions& o) override {
    LaunchRecord r = plan(kernel, c);
    if (!r.ok()) {
      r.refused = true;
      return r;
    }
    const std::string key = kernel == "compiled" ? r.config_label : block_text(c.block);
    if (key == fault_at) {
      r.status = Status::failure("an illegal memory access was encountered", "", "cudaEventSynchronize",
                                 "cudaErrorIllegalAddress");
      r.status.sticky = true;  // as cuda::to_status marks it
      r.status.owner = fault_owner;
      return r;
    }
    // Time grows away from 16x16; a repeatable wobble of 0.1% so intervals have a width.
    const double base = 1.0 + 0.01 * std::abs(static_cast<double>(c.block.x) - 16) +
                        0.01 * std::abs(static_cast<double>(c.block.y) - 16);
    int n = 0;
    r.timing.clock = "fake";
    r.timing.simulated = true;
    Status s = measure(
        o.timing, r.timing,
        [&]() -> Result<double> {
          ++launches[key];
          return base * (1 + 0.001 * (n++ % 3));
        },
        [] { return Status::success(); }, o.cancel);
    if (!s) r.status = s;
    if (o.verify) {
      r.check.state = wrong.count(key) ? Check::State::Failed : Check::State::Passed;
      r.check.checked = 6000;
      r.check.mismatches = wrong.count(key) ? 7 : 0;
    }
    return r;
  }

  std::size_t output_bytes() const override { return 0; }
  Result<std::unique_ptr<Lab>> fork() const override { return std::unique_ptr<Lab>(new FakeLab(*this)); }
  Status set_random_problem(std::string_view) override { return Status::success(); }
  std::string size_syntax() const override { return "none"; }
  std::vector<std::string> default_sizes() const override { return {"1"}; }
  std::optional<BlockSuggestion> suggested_block(std::string_view kernel) override {
    if (kernel != "free2d") return std::nullopt;
    return BlockSuggestion{256, 4, "made up"};
  }

 private:
  Backend backend_;
  std::vector<KernelInfo> kernels_;
};

}  // namespace bs::lab::test
