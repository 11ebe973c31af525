// The grayscale lab's data: RGBA8 as images load, converted to the planar layout the lecture's
// kernels read, and the reference every run is checked against. The kernels themselves, and
// their table, are gray_ladder.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/host_data.hpp"

namespace bs::gray {

// One of the lab's buffers (RGBA, planar, reference), read-only once made: the lab, its engine
// and its forks share it.
using SharedBytes = std::shared_ptr<const HostVector<std::uint8_t>>;

// Converts interleaved RGBA8 (4 bytes per pixel) to the planar RGB layout the lecture reads:
// all red bytes, then all green, then all blue.
void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar);

// The reference, computed another way: floor(0.2989 r + 0.5870 g + 0.1140 b) in double precision
// straight from RGBA, one pixel at a time, with no grid at all. Kernel outputs may differ from it
// by at most 1 where float rounding lands next to an integer.
void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out);

// One pixel's reference: gray_reference's formula for (r, g, b).
std::uint8_t gray_reference_of(std::uint8_t r, std::uint8_t g, std::uint8_t b);

// Whether any of the n RGBA pixels is not opaque: its alpha bytes must then be kept beside the
// planar RGB for the image to be rebuilt exactly (every kernel ignores alpha).
bool has_transparency(const std::uint8_t* rgba, std::size_t n);

// Where make_gray_problem writes; a null buffer is not made.
struct GrayBuffers {
  std::uint8_t* rgba = nullptr;       // 4n, interleaved as images load
  std::uint8_t* planar = nullptr;     // 3n: all red bytes, then green, then blue
  std::uint8_t* alpha = nullptr;      // n: the A bytes planar RGB does not keep
  std::uint8_t* reference = nullptr;  // n
};

// A problem of n pixels made in one pass over the host's cores, each chunk while its bytes are in
// cache: RGBA copied from `source` (n pixels), or, where source is null, the bytes of the
// SplitMix64 stream `seed` starts (core/host_data.hpp); then each buffer of `out` that is not null
// from it, as the functions above make them. The buffers may be uninitialised: the workers touch
// them first.
void make_gray_problem(const std::uint8_t* source, std::uint64_t seed, std::size_t n, const GrayBuffers& out);

// The RGBA image (4n bytes) back from planar RGB and its alpha bytes (null: opaque), in parallel.
void rgba_from_planar(const std::uint8_t* planar, const std::uint8_t* alpha, std::size_t n, std::uint8_t* rgba);

}  // namespace bs::gray
