// A lab that exists only in the tests: c[i] = a[i] + b[i] over a generated vector, on the CPU
// grid simulator. It is the proof that the lab interface is one interface: it registers through
// a catalog entry like the built-in labs, and the shell gives it the kernel list, the overlay of
// its data, timings, launch statistics, the schedule, headless screenshots and bench JSON with
// no change to the shell. It takes the user's own kernels too, by offering a spec written in this
// folder (vadd_user_spec.*), with no change anywhere else.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lab/catalog.hpp"
#include "lab/lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::test {

class VaddLab final : public lab::Lab {
 public:
  // The CPU simulation only: a CUDA backend is refused with a Status (the shell shows it).
  static Result<std::unique_ptr<lab::Lab>> create(const lab::Backend& backend);

  std::string_view id() const override { return "vadd"; }
  std::string_view title() const override { return "Vector add"; }
  const lab::Backend& backend() const override { return backend_; }
  const std::vector<lab::KernelInfo>& kernels() const override { return kernels_; }
  lab::ProblemInfo problem() const override;
  LaunchRecord plan(std::string_view kernel, const KernelConfig& config) override;
  LaunchRecord run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) override;
  std::size_t output_bytes() const override { return c_.size() * sizeof(float); }
  Status download_output(void* host) override;
  std::optional<mapping::ElementOwner> owner(const LaunchRecord& launch, long long x, long long y) const override;
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord& launch, Dim3 block, unsigned warp,
                                                 int step) const override;
  Result<std::unique_ptr<lab::Lab>> fork() const override;
  Status set_random_problem(std::string_view size) override;  // "N"
  std::string size_syntax() const override { return "N (elements)"; }
  std::vector<std::string> default_sizes() const override { return {"4099", "100000"}; }
  const lab::UserKernelSpec* user_kernel_spec() const override;  // vadd_user_spec.cpp

  const std::vector<float>& a() const { return a_; }
  const std::vector<float>& b() const { return b_; }
  const std::vector<float>& output() const { return c_; }
  std::uint64_t generation() const { return generation_; }  // changes with every new problem

 private:
  explicit VaddLab(lab::Backend backend);

  lab::Backend backend_;
  std::vector<lab::KernelInfo> kernels_;
  std::vector<float> a_, b_, c_;
  std::unique_ptr<sim::GridSimulator> simulator_;
  std::uint64_t generation_ = 0;
};

// The lab's registry line, the same shape as each built-in lab's (labs/built_in_labs.cpp): the
// contract tests, the user-kernel tests and the app's catalog in test_plugin_lab all take it.
lab::CatalogEntry vadd_lab_entry();
// Its offer to the user's own kernels (vadd_user_spec.cpp).
const lab::UserKernelSpec& vadd_user_kernel_spec();

// The lab's counts and its check, one of each: plan() and run() use them, and so does the
// user-kernel spec. c against a + b summed in double and rounded once (exactly equal).
double vadd_bytes(std::size_t n);
double vadd_flops(std::size_t n);
Check vadd_check(const float* a, const float* b, const float* c, std::size_t n);

}  // namespace bs::test
