#include "png_decode.hpp"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb_image.h>

namespace bs::test {

DecodedImage decode_png(const std::filesystem::path& path, int requested_channels) {
  DecodedImage out;
  uint8_t* data = stbi_load(path.string().c_str(), &out.width, &out.height, &out.channels, requested_channels);
  if (!data) {
    out.error = stbi_failure_reason();
    return out;
  }
  const int per_pixel = requested_channels ? requested_channels : out.channels;
  out.pixels.assign(data, data + static_cast<size_t>(out.width) * out.height * per_pixel);
  stbi_image_free(data);
  return out;
}

}  // namespace bs::test
