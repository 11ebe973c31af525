// Heatmaps of the matmul lab's matrices, for the UI: an out_w x out_h image whose texels each
// summarise the block of matrix elements they cover, as ONE BYTE per texel (a "code"). The
// colour comes later, from the colour-map shader (shaders/heatmap.frag), so the CUDA side writes
// a quarter of the bytes an RGBA image would need and the colour map can change without
// touching CUDA.
//
// Two encodings:
//   Values    (A, B, C): code 0 = NaN or Inf; codes 1..255 = v linearly from lo (1) to hi (255),
//             clamped. Each texel shows the element at the centre of its cell: point sampling
//             keeps the contrast of random data (an average of 16 uniform values would fade to
//             grey) and shows a structured pattern as it is when no downsampling is needed.
//   AbsError  (|C - reference|): code 0 = exactly equal; codes 1..254 = log10 of the error from
//             lo (1) to hi (254); code 255 = above hi, or NaN/Inf where the reference is finite.
//             Each texel shows the LARGEST error in its cell, so one wrong element of a
//             4096 x 4096 C still lights up its texel.
//
// The same per-texel function runs on the host (fill_heatmap_host) and, in CUDA builds, on the
// GPU (fill_heatmap_device, writing through a pointer that may be a mapped GL buffer).
// Texel (x, y) covers rows [y * rows / out_h, (y + 1) * rows / out_h) and the same for columns;
// rows go top first, like every image in blockscope.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/status.hpp"

namespace bs::matmul {

enum class HeatmapEncoding { Values, AbsError };

// Codes with a fixed meaning (see above).
inline constexpr std::uint8_t kHeatmapNonFinite = 0;    // Values: NaN or Inf
inline constexpr std::uint8_t kHeatmapExact = 0;        // AbsError: no error at all
inline constexpr std::uint8_t kHeatmapOverRange = 255;  // AbsError: above hi (or non-finite)

struct HeatmapSpec {
  int rows = 0, cols = 0;    // the matrix, row-major
  int out_w = 0, out_h = 0;  // the image; at most cols x rows (heatmap_size() picks them)
  HeatmapEncoding encoding = HeatmapEncoding::Values;
  float lo = -1, hi = 1;  // Values: the range; AbsError: the log range (0 < lo < hi)
};

// The image size for a rows x cols matrix: the matrix itself up to `max_side` texels a side,
// each side shrunk on its own (a 10000 x 10 C becomes 1024 x 10, not 1024 x 1).
std::pair<int, int> heatmap_size(int rows, int cols, int max_side = 1024);  // {out_w, out_h}

// Checks sizes and ranges; the fill functions refuse what this refuses.
Status check_heatmap_spec(const HeatmapSpec& spec);

// Symmetric value range +-r for the diverging colour map, so zero sits at its centre: r is the
// 99th percentile of |v| over the finite values (sampled), the maximum when that is 0, and 1
// when everything is 0 or non-finite. Larger values show in the extreme colour.
float symmetric_range(const float* values, std::size_t count);

// out: out_w * out_h bytes, top row first. `reference` is read only for AbsError (then
// |matrix - reference| is shown); pass nullptr for Values.
Status fill_heatmap_host(const float* matrix, const float* reference, const HeatmapSpec& spec, std::uint8_t* out);

#if BLOCKSCOPE_HAS_CUDA
// The same on the GPU: device pointers (the output may be a CUDA-mapped GL pixel buffer).
// Launches on the default stream and checks the launch; the caller's unmap synchronises.
Status fill_heatmap_device(const float* device_matrix, const float* device_reference, const HeatmapSpec& spec,
                           std::uint8_t* device_out);
#endif

}  // namespace bs::matmul
