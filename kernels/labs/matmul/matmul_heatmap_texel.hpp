// One texel of a matmul heatmap (see matmul_heatmap.hpp for the encodings): a BS_HD function so
// the host fill and the CUDA kernel compute exactly the same bytes.
#pragma once
#include <cstdint>

#include "core/hd.hpp"
#include "labs/matmul/matmul_heatmap.hpp"

#if !BS_ON_DEVICE
#include <cmath>
#endif

namespace bs::matmul::detail {

BS_HD bool finite(float v) {
#if BS_ON_DEVICE
  return isfinite(v);
#else
  return std::isfinite(v);
#endif
}

BS_HD float log10f_hd(float v) {
#if BS_ON_DEVICE
  return log10f(v);
#else
  return std::log10(v);
#endif
}

// Rows [first, last) of `extent` elements that output index `i` of `out` covers; never empty.
BS_HD void cell_range(int i, int out, int extent, int* first, int* last) {
  *first = static_cast<int>(static_cast<long long>(i) * extent / out);
  *last = static_cast<int>(static_cast<long long>(i + 1) * extent / out);
  if (*last <= *first) *last = *first + 1;
}

BS_HD std::uint8_t value_code(float v, float lo, float hi) {
  if (!finite(v)) return kHeatmapNonFinite;
  float t = (v - lo) / (hi - lo);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return static_cast<std::uint8_t>(1.0f + t * 254.0f + 0.5f);
}

BS_HD std::uint8_t error_code(float err, float lo, float hi) {
  if (err > hi) return kHeatmapOverRange;
  if (err == 0.0f) return kHeatmapExact;
  const float l_lo = log10f_hd(lo), l_hi = log10f_hd(hi);
  float t = (log10f_hd(err) - l_lo) / (l_hi - l_lo);
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  return static_cast<std::uint8_t>(1.0f + t * 253.0f + 0.5f);
}

BS_HD std::uint8_t heatmap_texel(const float* m, const float* ref, const HeatmapSpec& s, int x, int y) {
  int r0, r1, c0, c1;
  cell_range(y, s.out_h, s.rows, &r0, &r1);
  cell_range(x, s.out_w, s.cols, &c0, &c1);
  if (s.encoding == HeatmapEncoding::Values) {
    const int r = (r0 + r1 - 1) / 2, c = (c0 + c1 - 1) / 2;
    return value_code(m[static_cast<long long>(r) * s.cols + c], s.lo, s.hi);
  }
  float worst = 0.0f;
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const long long e = static_cast<long long>(r) * s.cols + c;
      const float got = m[e], want = ref[e];
      if (!finite(want)) continue;  // nothing to compare against
      if (!finite(got)) return kHeatmapOverRange;
      const float d = got > want ? got - want : want - got;
      worst = d > worst ? d : worst;
    }
  return error_code(worst, s.lo, s.hi);
}

}  // namespace bs::matmul::detail
