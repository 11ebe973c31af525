// What every grayscale kernel shares: the lecture's weights and the per-pixel formula.
//
// The source image is planar (all red bytes, then all green, then all blue), as the lecture's
// tensors are (C x H x W): a thread reads x[i], x[i + n] and x[i + 2n]. The formula is written
// with explicit fmaf so the GPU (which would contract a*b + c into an FMA anyway) and the CPU
// simulator round identically: the simulator's output is bit-exact with the GPU's.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

#if !defined(__CUDACC__)
#include <cmath>
#endif

namespace bs::gray {

inline constexpr float kRedWeight = 0.2989f;
inline constexpr float kGreenWeight = 0.5870f;
inline constexpr float kBlueWeight = 0.1140f;

// Bytes a kernel must move per pixel: 3 planes read, 1 written.
inline constexpr double kBytesPerPixel = 4.0;

struct GrayArgs {
  const std::uint8_t* planar_rgb;  // 3 * n bytes: R plane, G plane, B plane
  std::uint8_t* out;               // n bytes, row-major, no padding
  int width;
  int height;
  int n;  // width * height (the lecture's `n`)
};

// Truncates toward zero like the lecture's uint8 store; the weights sum to 0.9999, so the result
// never exceeds 254.97 and needs no clamp.
BS_HD std::uint8_t gray_value(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  using std::fmaf;
  const float v = fmaf(kBlueWeight, static_cast<float>(b),
                       fmaf(kGreenWeight, static_cast<float>(g),
                            kRedWeight * static_cast<float>(r)));
  return static_cast<std::uint8_t>(v);
}

}  // namespace bs::gray
