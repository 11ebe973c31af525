#include "labs/grayscale/gray_reference.hpp"

#include <cmath>
#include <cstddef>

#include "core/parallel.hpp"

namespace bs::gray {

// Both loops are split over the host's cores in chunks of 1 Mi pixels (an 8192^2 image took 1.5 s
// of one core on the H200's host to make with its reference; budgets.json: sweep start).
constexpr unsigned long long kChunk = 1ull << 20;

void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      planar[i] = rgba[4 * i + 0];
      planar[i + n] = rgba[4 * i + 1];
      planar[i + 2 * n] = rgba[4 * i + 2];
    }
  });
}

void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const double v = 0.2989 * rgba[4 * i] + 0.5870 * rgba[4 * i + 1] + 0.1140 * rgba[4 * i + 2];
      out[i] = static_cast<std::uint8_t>(std::floor(v));
    }
  });
}

}  // namespace bs::gray
