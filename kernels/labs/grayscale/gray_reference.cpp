#include "labs/grayscale/gray_reference.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <vector>

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

std::uint8_t gray_reference_of(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  const std::uint8_t px[3] = {r, g, b};
  return gray_of(px);
}

bool has_transparency(const std::uint8_t* rgba, std::size_t n) {
  std::atomic<bool> found{false};
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    if (found.load(std::memory_order_relaxed)) return;
    std::uint8_t all = 255;
    for (std::size_t i = begin; i < end; ++i) all &= rgba[4 * i + 3];
    if (all != 255) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

void make_gray_problem(const std::uint8_t* source, std::uint64_t seed, std::size_t n, const GrayBuffers& out) {
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    const std::size_t count = end - begin;
    // The chunk's RGBA: the source itself where nothing need be written, else where it is kept,
    // else a chunk-sized buffer that stays in cache.
    const std::uint8_t* px = source ? source + 4 * begin : nullptr;
    if (out.rgba || !source) {
      thread_local std::vector<std::uint8_t> scratch;
      if (!out.rgba) scratch.resize(4 * kChunk);
      std::uint8_t* const dst = out.rgba ? out.rgba + 4 * begin : scratch.data();
      if (source) {
        std::memcpy(dst, source + 4 * begin, 4 * count);
      } else {
        // Two pixels a word; kChunk is even, so only the image's last word can be cut short.
        const std::uint64_t first = begin / 2;
        std::size_t w = 0;
        for (; 2 * w + 1 < count; ++w) {
          const std::uint64_t v = splitmix64(seed + (first + w) * kSplitMixGamma);
          std::memcpy(dst + 8 * w, &v, 8);
        }
        if (2 * w < count) {
          const std::uint64_t v = splitmix64(seed + (first + w) * kSplitMixGamma);
          std::memcpy(dst + 8 * w, &v, 4);
        }
      }
      px = dst;
    }
    if (std::uint8_t* const gray = out.reference ? out.reference + begin : nullptr)
      for (std::size_t i = 0; i < count; ++i) gray[i] = gray_of(px + 4 * i);
    if (out.planar) {
      std::uint8_t *const r = out.planar + begin, *const g = r + n, *const b = g + n;
      for (std::size_t i = 0; i < count; ++i) r[i] = px[4 * i], g[i] = px[4 * i + 1], b[i] = px[4 * i + 2];
    }
    if (std::uint8_t* const a = out.alpha ? out.alpha + begin : nullptr)
      for (std::size_t i = 0; i < count; ++i) a[i] = px[4 * i + 3];
  });
}

void rgba_from_planar(const std::uint8_t* planar, const std::uint8_t* alpha, std::size_t n, std::uint8_t* rgba) {
  parallel_chunks(n, kChunk, [&](std::size_t begin, std::size_t end) {
    const std::uint8_t *const r = planar, *const g = r + n, *const b = g + n;
    std::uint8_t* const px = rgba;
    for (std::size_t i = begin; i < end; ++i)
      px[4 * i] = r[i], px[4 * i + 1] = g[i], px[4 * i + 2] = b[i], px[4 * i + 3] = alpha ? alpha[i] : 255;
  });
}

}  // namespace bs::gray
