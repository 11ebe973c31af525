// The grayscale lab's data: RGBA8 as images load, converted to the planar layout the lecture's
// kernels read, and the reference every run is checked against. The kernels themselves, and
// their table, are gray_ladder.hpp.
#pragma once
#include <cstdint>

namespace bs::gray {

// Converts interleaved RGBA8 (4 bytes per pixel) to the planar RGB layout the lecture reads:
// all red bytes, then all green, then all blue.
void rgba_to_planar_rgb(const std::uint8_t* rgba, int width, int height, std::uint8_t* planar);

// The reference, computed another way: in double precision straight from RGBA, one pixel at a
// time, with no grid at all. Kernel outputs may differ from it by at most 1 where float rounding
// lands next to an integer.
void gray_reference(const std::uint8_t* rgba, int width, int height, std::uint8_t* out);

}  // namespace bs::gray
