// Writing screenshots and test images as PNG.
#pragma once
#include <cstdint>
#include <filesystem>

#include "core/status.hpp"

namespace bs {

// Writes width x height pixels of `channels` bytes each (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA),
// rows top first and tightly packed. A path that cannot be written gives a Status saying why.
Status write_png(const std::filesystem::path& path, int width, int height, int channels, const uint8_t* top_row_first);

}  // namespace bs
