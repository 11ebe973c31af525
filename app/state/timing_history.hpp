// A rolling window of launch timings (state/timing_book.hpp keeps one per configuration): kernel time (events or steady
// clock) and the frame's pipeline time (map, launch, unmap, upload) kept apart.
#pragma once
#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

#include "core/median.hpp"

namespace bs::app {

struct TimingSummary {
  double last = 0, median = 0, min = 0, max = 0;
  std::size_t count = 0;
};

class TimingHistory {
 public:
  explicit TimingHistory(std::size_t capacity = 240) : capacity_(capacity) {}

  void add(double kernel_ms, double pipeline_ms) {
    kernel_.push_back(kernel_ms);
    pipeline_.push_back(pipeline_ms);
    if (kernel_.size() > capacity_) {
      kernel_.pop_front();
      pipeline_.pop_front();
    }
  }
  void clear() {
    kernel_.clear();
    pipeline_.clear();
  }
  const std::deque<double>& kernel() const { return kernel_; }
  const std::deque<double>& pipeline() const { return pipeline_; }
  TimingSummary kernel_summary() const { return summarize(kernel_); }
  TimingSummary pipeline_summary() const { return summarize(pipeline_); }

  static TimingSummary summarize(const std::deque<double>& v) {
    TimingSummary s;
    if (v.empty()) return s;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    s.last = v.back();
    s.median = median_of(std::vector<double>(v.begin(), v.end()));  // the one median (core/median.hpp)
    s.min = *lo;
    s.max = *hi;
    s.count = v.size();
    return s;
  }

 private:
  std::size_t capacity_;
  std::deque<double> kernel_, pipeline_;
};

}  // namespace bs::app
