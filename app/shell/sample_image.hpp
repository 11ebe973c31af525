// The built-in sample (assets/sample_astronaut.png, public domain; see assets/LICENSE.md),
// embedded in the executable at build time.
#pragma once
#include <cstdint>
#include <span>

namespace bs::app {
std::span<const std::uint8_t> sample_image_png();
inline constexpr const char* kSampleImageName = "sample: astronaut (NASA, public domain)";
}  // namespace bs::app
