// PNG encoding through stb_image_write. The implementation is compiled here, once, with static
// linkage so it cannot clash with another copy (Debian's libstb, or a test that includes it).
// The encoder writes into memory and this file writes the bytes, so a failed open or a full
// disk becomes a Status with the OS's reason instead of stb's bare 0.
#include "platform/png.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <vector>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace bs {

namespace {
void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(context);
  const auto* bytes = static_cast<const uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}
}  // namespace

Status write_png(const std::filesystem::path& path, int width, int height, int channels, const uint8_t* top_row_first) {
  if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || !top_row_first) {
    return Status::failure("cannot write " + path.string() + ": invalid image (" + std::to_string(width) + "x" +
                               std::to_string(height) + ", " + std::to_string(channels) + " channels)",
                           {}, "write_png");
  }
  const long long stride = static_cast<long long>(width) * channels;
  if (stride > std::numeric_limits<int>::max()) {
    return Status::failure("cannot write " + path.string() + ": rows too wide for PNG encoding", {}, "write_png");
  }

  std::vector<uint8_t> encoded;
  if (!stbi_write_png_to_func(&append_bytes, &encoded, width, height, channels, top_row_first,
                              static_cast<int>(stride)) ||
      encoded.empty()) {
    return Status::failure("cannot encode " + path.string() + " as PNG", {}, "stbi_write_png_to_func");
  }

  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    const std::string reason = errno ? std::strerror(errno) : "cannot open for writing";
    return Status::failure("cannot write " + path.string() + ": " + reason, "choose a directory you can write to",
                           "open");
  }
  file.write(reinterpret_cast<const char*>(encoded.data()), static_cast<std::streamsize>(encoded.size()));
  file.close();
  if (!file) {
    const std::string reason = errno ? std::strerror(errno) : "write failed";
    return Status::failure("cannot write " + path.string() + ": " + reason, "check free disk space", "write");
  }
  return Status::success();
}

}  // namespace bs
