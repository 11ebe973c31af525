// The GPU backend of a blockscope built without CUDA: it answers every request with the reason.
#include "labs/custom/runner/runner.hpp"

namespace bs::custom::runner {
namespace {

constexpr const char* kWhy =
    "this blockscope was built without CUDA (no nvcc when it was configured): rebuild it with the "
    "CUDA toolkit on PATH to compile and run kernels on the GPU";

class NoGpu final : public Backend {
 public:
  wire::Info info() override {
    wire::Info i;
    i.head.backend = wire::Backend::Gpu;
    i.cuda_message = kWhy;
    i.nvrtc_message = kWhy;
    return i;
  }
  wire::Compiled compile_gpu(const std::string&) override {
    wire::Compiled c;
    c.log = kWhy;
    return c;
  }
  wire::Loaded load_gpu(const std::string&, bool) override {
    wire::Loaded l;
    l.message = kWhy;
    return l;
  }
  wire::Loaded load_cpu(const std::string&, bool) override {
    wire::Loaded l;
    l.message = kWhy;
    return l;
  }
  std::string set_problem(const ProblemMaps&) override { return kWhy; }
  wire::Launched launch(const wire::LaunchHead&, const ProblemMaps&) override {
    wire::Launched r;
    r.message = kWhy;
    return r;
  }
  std::string flush_l2(const ProblemMaps&) override { return kWhy; }
  std::string fetch(const ProblemMaps&) override { return kWhy; }
  wire::Lines sample_lines(const wire::SampleLinesHead&, const std::string&, const ProblemMaps&) override {
    wire::Lines l;
    l.profile.status = Status::failure(kWhy);
    return l;
  }
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(int) { return std::make_unique<NoGpu>(); }

}  // namespace bs::custom::runner
