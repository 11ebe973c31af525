// The one median of repeated timings (upper median for an even count, as every timing report
// in blockscope states). Takes the values by copy: callers keep their order.
#pragma once
#include <algorithm>
#include <vector>

namespace bs {

template <class T>
double median_of(std::vector<T> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + values.size() / 2;
  std::nth_element(values.begin(), mid, values.end());
  return static_cast<double>(*mid);
}

}  // namespace bs
