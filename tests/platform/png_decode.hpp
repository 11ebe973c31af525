// Test helper: decode a PNG with stb_image (a second, independent implementation of the format)
// to check what write_png wrote.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace bs::test {

struct DecodedImage {
  int width = 0, height = 0, channels = 0;  // channels as stored in the file
  std::vector<uint8_t> pixels;              // `requested` channels per pixel, top row first
  std::string error;                        // stb's reason when decoding failed
};

DecodedImage decode_png(const std::filesystem::path& path, int requested_channels = 0);

}  // namespace bs::test
