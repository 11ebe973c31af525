// The CPU-only build (or a CUDA build whose toolkit has no CUPTI headers): no session can be
// created, and the answer says why. Nothing here links CUPTI or libnvperf.
#include "counters/counter_errors.hpp"
#include "counters/counters.hpp"

namespace bs::counters {

struct CounterSession::Impl {
  std::vector<std::string> metrics;
  std::string empty;
};

namespace {
Status unavailable() {
#if defined(BLOCKSCOPE_HAS_CUDA)
  return explain(CounterProblem::LibraryMissing, "build", "",
                 "this blockscope was built with a CUDA toolkit that had no CUPTI headers");
#else
  return gpu_feature_status();
#endif
}
}  // namespace

Result<std::unique_ptr<CounterSession>> CounterSession::create(int, const CounterOptions&) { return unavailable(); }
Result<Measurement> CounterSession::profile(const std::function<Status()>&, const ProfileOptions&) {
  return unavailable();
}
CounterSession::CounterSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CounterSession::~CounterSession() = default;
const std::vector<std::string>& CounterSession::metric_names() const { return impl_->metrics; }
int CounterSession::passes_per_profile() const { return 0; }
const std::string& CounterSession::chip() const { return impl_->empty; }
const std::string& CounterSession::cupti_path() const { return impl_->empty; }
const std::string& CounterSession::range_note() const { return impl_->empty; }

bool counters_built() { return false; }
Status gpu_feature_status() {
  Status s = explain(CounterProblem::GpuFeature, "counters");
#if !defined(BLOCKSCOPE_HAS_CUDA)
  s.hint =
      "this blockscope was built without CUDA: rebuild with nvcc on the PATH and run it on "
      "an NVIDIA GPU to read hardware counters";
#endif
  return s;
}

}  // namespace bs::counters
