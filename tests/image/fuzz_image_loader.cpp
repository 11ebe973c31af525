// libFuzzer target: any bytes through load_image_memory, with small limits so the fuzzer spends
// its time on parsing, not on allocating huge images. Built only with -DBLOCKSCOPE_FUZZ=ON and
// clang; run with tests/image/run_fuzz.sh. Besides the sanitizers' checks, it asserts the
// loader's own contract: a success is a consistent RGBA8 image within the limits, a failure has
// a message and a code.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "image/image_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bs::LoadLimits limits;
  limits.max_side = 512;
  limits.max_pixels = 1u << 16;
  limits.max_file_bytes = 1u << 20;
  auto result = bs::load_image_memory(std::span(data, size), "fuzz-input", limits);
  if (result.ok()) {
    const bs::Rgba8Image& image = result.value();
    const bool consistent = image.width > 0 && image.height > 0 && image.width <= limits.max_side &&
                            image.height <= limits.max_side && image.pixel_count() <= limits.max_pixels &&
                            image.rgba.size() == image.pixel_count() * 4 && !image.format.empty() &&
                            image.source_channels >= 1 && image.source_channels <= 4;
    if (!consistent) std::abort();
    // Touch every byte so a sanitizer sees any uninitialised or out-of-bounds pixel memory.
    volatile std::uint8_t sink = 0;
    for (std::uint8_t v : image.rgba) sink = static_cast<std::uint8_t>(sink ^ v);
  } else {
    const bs::Status status = result.status();
    if (status.message.empty() || status.code.empty()) std::abort();
  }
  return 0;
}
