#include "measured/bench_counters.hpp"

#include <utility>

#include "measured/profile_launch.hpp"

namespace bs::measured {

BenchCounters::BenchCounters(counters::CounterOptions options) : options_(std::move(options)) {}
BenchCounters::~BenchCounters() = default;

void BenchCounters::attach_one(lab::Lab& lab, LaunchRecord& r) {
  if (!r.ok()) return;  // nothing ran: nothing to measure
  auto attach = [&](LaunchCounters c) { r.counters = std::make_shared<const LaunchCounters>(std::move(c)); };
  if (Status s = profile_refusal(lab, r.kernel); !s) return attach(unavailable(s));
  const int device = lab.backend().cuda_device;
  if (!unavailable_.ok()) return attach(unavailable(unavailable_));  // said once, kept for all
  if (!session_ || session_device_ != device) {
    auto created = counters::CounterSession::create(device, options_);
    if (!created) {
      unavailable_ = created.status();
      return attach(unavailable(unavailable_));
    }
    session_ = std::move(created.value());
    session_device_ = device;
  }
  auto c = profile_launch(lab, r.kernel, r.request, *session_, &r);
  attach(c ? std::move(c.value()) : unavailable(c.status()));
}

void BenchCounters::attach(lab::Lab& lab, std::vector<LaunchRecord>& records,
                           const std::function<void(const LaunchRecord&)>& progress) {
  for (LaunchRecord& r : records) {
    if (!r.ok()) continue;
    attach_one(lab, r);
    if (progress) progress(r);
  }
}

}  // namespace bs::measured
