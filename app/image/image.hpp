// What a loaded image is, and how large an image blockscope agrees to load.
// Plain data: no GL, no ImGui, no stb here (the loader hides stb_image).
#pragma once
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bs {

// A decoded image, always 8-bit RGBA whatever the file held, so every kernel and the GL
// texture see one layout. The first row is the top of the picture (no vertical flip: the app
// flips with texture coordinates).
struct Rgba8Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgba;   // row-major, 4 bytes per pixel, no row padding
  std::string name;                 // file name (UTF-8) for titles and messages
  int source_channels = 0;          // what the file had: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  int source_bits_per_channel = 0;  // 8, 16, or 32 for HDR float (tonemapped to 8 bits here)
  std::string format;               // "PNG", "JPEG", "BMP", "TGA", "GIF", "PSD", "PNM", "HDR"

  std::size_t pixel_count() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * 4; }
};

// How large an image may be. Why these defaults:
//  - max_side 16384: the original is shown as one GL texture and 16384 is the largest
//    GL_MAX_TEXTURE_SIZE common desktop GPUs report. The app lowers it to the real
//    GL_MAX_TEXTURE_SIZE of its context and says so in side_limit_reason, so the refusal
//    message names the actual cause.
//  - max_pixels 2^28 (268 million): the image is copied to device buffers as RGBA8 (1 GiB at this
//    size) plus a gray output; kernels index with 32-bit ints, and the widest indexing a kernel
//    does is 3 planes x pixels, which stays below 2^31 only while pixels < 2^31 / 3, i.e. 2^28
//    leaves a safe margin.
//  - max_file_bytes INT_MAX: stb_image decodes from an int-sized buffer, so larger files cannot
//    be decoded at all; it also bounds how much a dropped non-image file makes us read.
struct LoadLimits {
  int max_side = 16384;
  std::uint64_t max_pixels = 1ull << 28;
  std::uint64_t max_file_bytes = static_cast<std::uint64_t>(INT_MAX);
  // Why max_side has its value, shown in the refusal: e.g. "GL_MAX_TEXTURE_SIZE on this GPU".
  std::string side_limit_reason = "blockscope's default limit";
};

}  // namespace bs
