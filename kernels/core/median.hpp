// The one median of repeated timings (upper median for an even count, as every timing report
// in blockscope states) and the one confidence interval around it. Takes the values by copy:
// callers keep their order.
#pragma once
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace bs {

template <class T>
double median_of(std::vector<T> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + values.size() / 2;
  std::nth_element(values.begin(), mid, values.end());
  return static_cast<double>(*mid);
}

// A distribution-free 95% confidence interval of the median: the order statistics x(j) and x(k)
// (1-based, sorted) with j = floor(n/2 - 0.98 sqrt(n)) and k = ceil(n/2 + 1 + 0.98 sqrt(n)),
// the normal approximation to the Binomial(n, 1/2) count of samples below the true median. With
// fewer than 6 samples no such pair exists at 95%, so the interval is the whole range.
template <class T>
std::pair<double, double> median_interval_95(std::vector<T> values) {
  if (values.empty()) return {0.0, 0.0};
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  if (values.size() < 6) return {static_cast<double>(values.front()), static_cast<double>(values.back())};
  const double half_width = 0.98 * std::sqrt(n);  // 1.96 * sqrt(n) / 2
  long long j = static_cast<long long>(std::floor(n / 2 - half_width));
  long long k = static_cast<long long>(std::ceil(n / 2 + 1 + half_width));
  j = std::clamp<long long>(j, 1, static_cast<long long>(n));
  k = std::clamp<long long>(k, 1, static_cast<long long>(n));
  return {static_cast<double>(values[j - 1]), static_cast<double>(values[k - 1])};
}

}  // namespace bs
