// Heatmaps on the host: the CPU backend's path, and the GPU's when interop is off.
#include <algorithm>
#include <cmath>
#include <vector>

#include "labs/matmul/matmul_heatmap.hpp"
#include "labs/matmul/matmul_heatmap_texel.hpp"

namespace bs::matmul {

std::pair<int, int> heatmap_size(int rows, int cols, int max_side) {
  return {std::clamp(cols, 1, std::max(1, max_side)), std::clamp(rows, 1, std::max(1, max_side))};
}

Status check_heatmap_spec(const HeatmapSpec& s) {
  auto refuse = [](std::string why) { return Status::failure(std::move(why), "", "fill_heatmap"); };
  if (s.rows < 1 || s.cols < 1) return refuse("the matrix must have at least one row and column");
  if (s.out_w < 1 || s.out_h < 1 || s.out_w > s.cols || s.out_h > s.rows)
    return refuse("the heatmap must be 1.." + std::to_string(s.cols) + " x 1.." + std::to_string(s.rows) +
                  " texels, got " + std::to_string(s.out_w) + " x " + std::to_string(s.out_h));
  if (!std::isfinite(s.lo) || !std::isfinite(s.hi) || !(s.lo < s.hi))
    return refuse("the heatmap range must be finite with lo < hi");
  if (s.encoding == HeatmapEncoding::AbsError && !(s.lo > 0))
    return refuse("an error heatmap is logarithmic: lo must be above 0");
  return Status::success();
}

float symmetric_range(const float* values, std::size_t count) {
  // The 99th percentile of |v| over an even sample of at most 65536 values: one outlier must
  // not turn every other element into the colour of zero. Falls back to the maximum (an
  // identity matrix is 99% zeros) and to 1 (all zeros).
  const std::size_t stride = std::max<std::size_t>(1, count / 65536);
  std::vector<float> sample;
  sample.reserve(count / stride + 1);
  float largest = 0;
  for (std::size_t i = 0; i < count; i += stride)
    if (std::isfinite(values[i])) {
      sample.push_back(std::fabs(values[i]));
      largest = std::max(largest, sample.back());
    }
  if (sample.empty() || largest == 0) return 1.0f;
  // Rounded up, so a handful of values keeps its largest.
  auto at = sample.begin() + static_cast<std::ptrdiff_t>(((sample.size() - 1) * 99 + 99) / 100);
  std::nth_element(sample.begin(), at, sample.end());
  return *at > 0 ? *at : largest;
}

Status fill_heatmap_host(const float* matrix, const float* reference, const HeatmapSpec& spec, std::uint8_t* out) {
  if (Status s = check_heatmap_spec(spec); !s) return s;
  if (!matrix || !out || (spec.encoding == HeatmapEncoding::AbsError && !reference))
    return Status::failure("fill_heatmap_host needs the matrix, the output and (for errors) the reference", "",
                           "fill_heatmap_host");
  for (int y = 0; y < spec.out_h; ++y)
    for (int x = 0; x < spec.out_w; ++x)
      out[static_cast<std::size_t>(y) * spec.out_w + x] = detail::heatmap_texel(matrix, reference, spec, x, y);
  return Status::success();
}

}  // namespace bs::matmul
