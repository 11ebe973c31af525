#include "labs/grayscale/gray_reference.hpp"

#include <cmath>
#include <cstddef>

namespace bs::gray {

void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  for (std::size_t i = 0; i < n; ++i) {
    planar[i] = rgba[4 * i + 0];
    planar[i + n] = rgba[4 * i + 1];
    planar[i + 2 * n] = rgba[4 * i + 2];
  }
}

void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = 0.2989 * rgba[4 * i] + 0.5870 * rgba[4 * i + 1] + 0.1140 * rgba[4 * i + 2];
    out[i] = static_cast<std::uint8_t>(std::floor(v));
  }
}

}  // namespace bs::gray
