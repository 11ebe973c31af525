// Loading image files into Rgba8Image, behind limits and typed errors.
//
// Every failure is a bs::Status whose message names the file and says what is wrong in the
// user's terms; `code` is one of the load_error tokens below so callers can branch without
// parsing text; `call` names the stage that failed; `hint` says what to do (for corrupt files
// it carries stb_image's own failure reason). Dimensions are checked against LoadLimits with
// stbi_info BEFORE any pixel is decoded, so a 65535 x 65535 header costs nothing.
//
// Thread safety: both functions may run on any thread, concurrently (stb_image keeps its
// failure reason thread-local and blockscope never touches stb's global flip/unpremultiply
// settings).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "core/status.hpp"
#include "image/image.hpp"

namespace bs {

// Status::code values of load failures.
namespace load_error {
inline constexpr std::string_view not_found = "not_found";
inline constexpr std::string_view is_directory = "is_directory";
inline constexpr std::string_view not_a_file = "not_a_file";  // a FIFO, socket, device...
inline constexpr std::string_view unreadable = "unreadable";  // permissions or I/O error
inline constexpr std::string_view empty = "empty";            // 0 bytes
inline constexpr std::string_view unsupported_format = "unsupported_format";
inline constexpr std::string_view corrupt = "corrupt";  // truncated or damaged data
inline constexpr std::string_view over_limits = "over_limits";
inline constexpr std::string_view out_of_memory = "out_of_memory";
inline constexpr std::string_view cancelled = "cancelled";
}  // namespace load_error

// The formats the loader decodes, for messages and file dialogs:
// "PNG, JPEG, BMP, TGA, GIF (first frame), PSD, PNM (binary PGM/PPM), HDR (Radiance)".
std::string_view supported_formats();

// File name extensions (lower case, with the dot) of those formats, for file dialog filters.
std::span<const std::string_view> supported_extensions();

// A file's name as UTF-8, the way messages and window titles show it.
std::string display_name(const std::filesystem::path& path);

// How far the current file has been read, for a progress bar; written by the loading thread,
// read by anyone without locking.
struct FileReadProgress {
  std::atomic<std::uint64_t> bytes_read{0};
  std::atomic<std::uint64_t> bytes_total{0};
};

// A PNG whose last bytes are missing still loads when only IEND's CRC (its last 4 bytes) is gone:
// the image is whole. A cut anywhere earlier is a damaged or truncated file (load_error::corrupt).
inline constexpr std::size_t kPngTailThatMayBeMissing = 4;

// Decodes an image held in memory. `name` is used in messages and stored in the image.
Result<Rgba8Image> load_image_memory(std::span<const std::uint8_t> bytes, std::string name, const LoadLimits& limits);

// Reads and decodes a file. Works with any file name the OS accepts (non-ASCII included).
// `cancel`, when given and set, stops between read chunks and before decoding and yields a
// Status with code load_error::cancelled (decoding itself is not interruptible).
// `progress`, when given, is updated while the file is read.
Result<Rgba8Image> load_image_file(const std::filesystem::path& path, const LoadLimits& limits,
                                   const std::atomic<bool>* cancel = nullptr, FileReadProgress* progress = nullptr);

}  // namespace bs
