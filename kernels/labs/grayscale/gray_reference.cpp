#include "labs/grayscale/gray_reference.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/host_data.hpp"
#include "core/parallel.hpp"

namespace bs::gray {
namespace {

// The loops are split over the host's cores (an 8192^2 image took 1.5 s of one core on the H200's
// host to make with its reference; budgets.json: sweep start), in chunks small enough that a
// chunk's RGBA is still in cache when its planar bytes and reference are made from it.
constexpr unsigned long long kChunk = 1ull << 14;

// The formula's three products for every byte value: the same doubles it multiplies out (both
// correctly rounded), so summing them in its order and truncating (the sum is never negative)
// gives its bytes, without converting or multiplying per pixel or calling floor. The grayscale
// tests check all 2^24 colours against the formula itself.
constexpr auto kProducts = [] {
  std::array<std::array<double, 256>, 3> t{};
  for (int v = 0; v < 256; ++v) t[0][v] = 0.2989 * v, t[1][v] = 0.5870 * v, t[2][v] = 0.1140 * v;
  return t;
}();

std::uint8_t gray_of(const std::uint8_t* px) {
  return static_cast<std::uint8_t>(kProducts[0][px[0]] + kProducts[1][px[1]] + kProducts[2][px[2]]);
}

}  // namespace

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
  parallel_chunks(static_cast<std::size_t>(width) * height, kChunk, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = gray_of(rgba + 4 * i);
  });
}

void make_gray_problem(const std::uint8_t* source, std::uint64_t seed, std::size_t n, std::uint8_t* rgba,
                       std::uint8_t* planar, std::uint8_t* out) {
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    // Local pointers: the compiler need not reload them after every byte stored.
    std::uint8_t *const px = rgba + 4 * begin, *const gray = out + begin;
    const std::size_t count = end - begin;
    if (source) {
      std::memcpy(px, source + 4 * begin, 4 * count);
    } else {
      // Two pixels a word; kChunk is even, so only the image's last word can be cut short.
      const std::uint64_t first = begin / 2;
      std::size_t w = 0;
      for (; 2 * w + 1 < count; ++w) {
        const std::uint64_t v = splitmix64(seed + (first + w) * kSplitMixGamma);
        std::memcpy(px + 8 * w, &v, 8);
      }
      if (2 * w < count) {
        const std::uint64_t v = splitmix64(seed + (first + w) * kSplitMixGamma);
        std::memcpy(px + 8 * w, &v, 4);
      }
    }
    for (std::size_t i = 0; i < count; ++i) gray[i] = gray_of(px + 4 * i);
    if (!planar) return;
    std::uint8_t *const r = planar + begin, *const g = r + n, *const b = g + n;
    for (std::size_t i = 0; i < count; ++i) r[i] = px[4 * i], g[i] = px[4 * i + 1], b[i] = px[4 * i + 2];
  });
}

}  // namespace bs::gray
