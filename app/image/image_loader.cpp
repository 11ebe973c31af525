// Image loading: stb_image behind limits and typed errors.
//
// Sections:
//   1. stb_image, compiled here with only the formats blockscope supports
//   2. Format sniffing (magic bytes) and header peeks
//   3. Structure checks: truncation, and the inputs that trip stb_image 2.27's bugs
//   4. PNM decoder (stb 2.27's is wrong for 16-bit)
//   5. Messages
//   6. load_image_memory
//   7. load_image_file
//
// Debian 12 ships stb_image 2.27. Our fuzzer (tests/image/fuzz_image_loader.cpp) found heap
// overflows, an endless loop and a 2 GiB allocation from tiny files in it; each is fixed
// upstream but we cannot patch the system header, so the checks in section 3 run before stb
// parses a byte, and format sniffing is at least as wide as stb's own, so no file reaches an stb
// decoder without the checks for its format.
#include "image/image_loader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

// ---------------------------------------------------------------------------------------------
// 1. stb_image
// ---------------------------------------------------------------------------------------------
// STB_IMAGE_STATIC keeps every stb symbol private to this file, so it can never clash with
// Debian's libstb or another copy linked into the app. Only the formats we list are compiled.
// Allocations are zero-filled: several stb decoders ignore a short read (PNM, uncompressed TGA)
// and would otherwise hand back uninitialised heap memory as pixels for a truncated file. We
// also refuse such files (section 3), the zeroing is the second line of defence.
// stbi_set_flip_vertically_on_load is never called: it is a global and several stb CVEs sit on
// its path; the app flips with texture coordinates instead.
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_GIF
#define STBI_ONLY_PSD
#define STBI_ONLY_PNM
#define STBI_ONLY_HDR
#define STBI_NO_STDIO  // we read files ourselves (non-ASCII names, progress, cancellation)
#define STBI_MALLOC(size) std::calloc(1, (size))
#define STBI_REALLOC(pointer, size) std::realloc((pointer), (size))
#define STBI_FREE(pointer) std::free(pointer)
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#endif
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wuseless-cast"
#pragma GCC diagnostic ignored "-Wpragmas"
#endif
#include <stb_image.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace bs {
namespace {

using Bytes = std::span<const std::uint8_t>;

constexpr std::array<std::string_view, 12> kExtensions = {".png", ".jpg", ".jpeg", ".jpe", ".bmp", ".tga",
                                                          ".gif", ".psd", ".pgm",  ".ppm", ".pnm", ".hdr"};

// ---------------------------------------------------------------------------------------------
// 2. Format sniffing and header peeks
// ---------------------------------------------------------------------------------------------
enum class Format { unknown, png, jpeg, bmp, tga, gif, psd, pnm, hdr };

std::string_view format_name(Format f) {
  switch (f) {
    case Format::png: return "PNG";
    case Format::jpeg: return "JPEG";
    case Format::bmp: return "BMP";
    case Format::tga: return "TGA";
    case Format::gif: return "GIF";
    case Format::psd: return "PSD";
    case Format::pnm: return "PNM";
    case Format::hdr: return "HDR";
    case Format::unknown: break;
  }
  return "unknown";
}

bool starts_with(Bytes b, std::string_view magic, std::size_t at = 0) {
  if (b.size() < at + magic.size()) return false;
  return std::memcmp(b.data() + at, magic.data(), magic.size()) == 0;
}

bool is_pnm_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Where a JPEG's SOI marker ends: stb_image accepts any number of 0xFF fill bytes before D8.
std::optional<std::size_t> jpeg_start(Bytes b) {
  std::size_t pos = 0;
  while (pos < b.size() && b[pos] == 0xFF) ++pos;
  if (pos == 0 || pos >= b.size() || b[pos] != 0xD8) return std::nullopt;
  return pos + 1;
}

// The format a file's first bytes announce. Each test is at least as wide as the one stb_image
// itself applies, so a file we call "unknown" is one stb can only read as TGA (the format
// without a magic number), and no file reaches an stb decoder without passing our checks for
// that format.
Format sniff(Bytes b) {
  if (jpeg_start(b)) return Format::jpeg;
  if (starts_with(b, "\x89PNG\r\n\x1a\n")) return Format::png;
  if (starts_with(b, "GIF8")) return Format::gif;
  if (starts_with(b, "BM")) return Format::bmp;
  if (starts_with(b, "8BPS")) return Format::psd;
  if (starts_with(b, "#?RADIANCE\n") || starts_with(b, "#?RGBE\n")) return Format::hdr;
  if (b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) return Format::pnm;
  return Format::unknown;
}

// Names formats we recognise but cannot decode, so the message can say "is a WebP image"
// instead of "is not an image".
std::optional<std::string_view> recognise_unsupported(Bytes b) {
  if (starts_with(b, "RIFF") && starts_with(b, "WEBP", 8)) return "a WebP image";
  if (starts_with(b, "II*\0") || starts_with(b, std::string_view("MM\0*", 4))) return "a TIFF image";
  if (starts_with(b, "ftyp", 4)) {
    if (starts_with(b, "avif", 8) || starts_with(b, "avis", 8)) return "an AVIF image";
    if (starts_with(b, "heic", 8) || starts_with(b, "heix", 8) || starts_with(b, "mif1", 8)) return "a HEIF/HEIC image";
    return "an ISO media file (video or HEIF)";
  }
  if (starts_with(b, "qoif")) return "a QOI image";
  if (starts_with(b, "\xff\x0a") || starts_with(b, std::string_view("\0\0\0\x0cJXL ", 8))) return "a JPEG XL image";
  if (starts_with(b, std::string_view("\0\0\x01\0", 4))) return "a Windows icon";
  if (starts_with(b, "\x76\x2f\x31\x01")) return "an OpenEXR image";
  if (starts_with(b, "%PDF")) return "a PDF document";
  if (starts_with(b, "PK\x03\x04")) return "a ZIP archive";
  if (b.size() >= 3 && b[0] == 'P' && (b[1] == '1' || b[1] == '2' || b[1] == '3' || b[1] == '4') && is_pnm_space(b[2]))
    return "a plain-text or 1-bit PNM image (P1-P4)";
  if (starts_with(b, "P7")) return "a PAM image";
  if (starts_with(b, "<svg") || starts_with(b, "<?xml")) return "an SVG/XML document";
  return std::nullopt;
}

std::string utf8(const std::filesystem::path& path) {
  const std::u8string text = path.u8string();
  return std::string(text.begin(), text.end());
}

bool looks_like_text(Bytes b) {
  const std::size_t n = std::min<std::size_t>(b.size(), 512);
  if (n == 0) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t c = b[i];
    if (c < 0x09 || (c > 0x0d && c < 0x20) || c == 0x7f) return false;
  }
  return true;
}

std::uint32_t be32(Bytes b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) | (std::uint32_t{b[at + 2]} << 8) |
         std::uint32_t{b[at + 3]};
}
std::uint32_t be16(Bytes b, std::size_t at) { return (std::uint32_t{b[at]} << 8) | std::uint32_t{b[at + 1]}; }
std::uint32_t le16(Bytes b, std::size_t at) { return std::uint32_t{b[at]} | (std::uint32_t{b[at + 1]} << 8); }
std::uint32_t le32(Bytes b, std::size_t at) { return le16(b, at) | (le16(b, at + 2) << 16); }

struct Dimensions {
  std::uint64_t width = 0;
  std::uint64_t height = 0;
};

// Width and height straight from the header, for formats where that is a fixed offset. Used to
// give numbers when stb_image itself refuses a header as too large for it.
std::optional<Dimensions> peek_dimensions(Format f, Bytes b) {
  switch (f) {
    case Format::png:
      if (b.size() >= 24 && starts_with(b, "IHDR", 12)) return Dimensions{be32(b, 16), be32(b, 20)};
      break;
    case Format::gif:
      if (b.size() >= 10) return Dimensions{le16(b, 6), le16(b, 8)};
      break;
    case Format::bmp:
      if (b.size() >= 26 && le32(b, 14) >= 40) {
        const auto h = static_cast<std::int32_t>(le32(b, 22));
        const auto w = static_cast<std::int32_t>(le32(b, 18));
        const auto abs64 = [](std::int32_t v) { return v < 0 ? -static_cast<std::int64_t>(v) : v; };
        return Dimensions{static_cast<std::uint64_t>(abs64(w)), static_cast<std::uint64_t>(abs64(h))};
      }
      break;
    case Format::psd:
      if (b.size() >= 22) return Dimensions{be32(b, 18), be32(b, 14)};
      break;
    default: break;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// 3. Structure checks
// ---------------------------------------------------------------------------------------------
// stb_image treats the end of the data as zeros in several decoders (BMP, TGA, GIF, PNM, PSD),
// so a file cut short decodes "successfully" into an image whose lower part is gray or black.
// For a tool whose point is to show what a kernel did to the pixels, a silently damaged input is
// worse than a refusal, so we check that the data the header promises is present. The same walks
// refuse the inputs that trigger stb 2.27's bugs (each check says which). Each check returns a
// reason when the file is bad and nothing when it looks complete or when it cannot tell (then
// stb_image's own checks decide).
using Shortfall = std::optional<std::string>;

// A DHT segment's tables must each declare at most 256 codes and fit in the segment. stb_image
// 2.27 trusts the counts and writes one byte per declared code into a 257-entry array, so a
// table declaring more overruns the decoder's heap state (found by our fuzzer; fixed upstream
// in stb_image 2.28, which Debian 12 does not ship). We refuse such files before stb sees them.
Shortfall huffman_table_problem(Bytes segment) {
  std::size_t pos = 0;
  while (pos < segment.size()) {
    if (pos + 17 > segment.size()) return "a JPEG Huffman table header is cut short";
    const std::uint8_t table_class = segment[pos] >> 4, table_id = segment[pos] & 15;
    if (table_class > 1 || table_id > 3) return "a JPEG Huffman table has an invalid class or id";
    std::size_t codes = 0;
    for (std::size_t i = 1; i <= 16; ++i) codes += segment[pos + i];
    if (codes > 256) return "a JPEG Huffman table declares " + std::to_string(codes) + " codes (at most 256 exist)";
    pos += 17 + codes;
    if (pos > segment.size()) return "a JPEG Huffman table is longer than its segment";
  }
  return std::nullopt;
}

// JPEG: walk the marker segments; after each scan (SOS) skip the entropy-coded data (where 0xFF
// is always followed by 0x00 or a restart marker) up to the next marker; the file must reach EOI.
// Embedded thumbnails live inside APPn segments, which are skipped whole, so their EOI does not
// count. Every DHT segment on the way is validated (see huffman_table_problem).
struct JpegInspection {
  Shortfall problem;                     // truncated, or a Huffman table stb would overflow on
  std::vector<std::size_t> checked_dht;  // offsets of the 0xFF of each validated DHT marker
  std::size_t scans = 0;                 // SOS segments seen
};

// Every scan is a pass over all blocks of its components, so a small file with thousands of
// scans of a large image is a CPU bomb (stb_image has no limit). Real progressive JPEGs have
// about ten; libjpeg-turbo's tools suggest a limit of a few hundred.
constexpr std::size_t kMaxJpegScans = 256;

JpegInspection inspect_jpeg(Bytes b) {
  JpegInspection result;
  std::size_t pos = jpeg_start(b).value_or(b.size());  // after SOI
  const std::size_t n = b.size();
  while (true) {
    if (pos >= n) {
      result.problem = "the JPEG data ends before its end-of-image marker";
      return result;
    }
    if (b[pos] != 0xFF) return result;        // malformed: stb_image will say how
    while (pos < n && b[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= n) {
      result.problem = "the JPEG data ends before its end-of-image marker";
      return result;
    }
    const std::uint8_t marker = b[pos++];
    if (marker == 0xD9) return result;                                   // EOI: complete
    if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;  // no length field
    if (pos + 2 > n) {
      result.problem = "the JPEG data ends inside a marker segment";
      return result;
    }
    const std::size_t length = be16(b, pos);
    if (length < 2) return result;
    if (marker == 0xC4) {  // DHT
      if (pos + length > n) {
        result.problem = "the JPEG data ends inside a Huffman table";
        return result;
      }
      result.problem = huffman_table_problem(b.subspan(pos + 2, length - 2));
      if (result.problem) return result;
      result.checked_dht.push_back(pos - 2);
    }
    pos += length;
    if (marker == 0xDA && ++result.scans > kMaxJpegScans) return result;
    if (marker == 0xDA) {  // entropy-coded data follows the scan header
      while (pos < n) {
        if (b[pos] != 0xFF) {
          ++pos;
          continue;
        }
        if (pos + 1 >= n) break;
        const std::uint8_t next = b[pos + 1];
        if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
          pos += 2;
        } else if (next == 0xFF) {
          ++pos;
        } else {
          break;  // a marker: back to the segment walk
        }
      }
      if (pos + 1 >= n) {
        result.problem = "the JPEG data ends inside a scan (the file is cut short)";
        return result;
      }
    }
  }
}

// stb_image does not always read a JPEG the way the walk above does: after a scan, and after
// junk between segments, it scans byte by byte for the next 0xFF, so a crafted file can make it
// see a DHT marker inside data the walk skipped (an APPn payload, a table's own values). So that
// no Huffman table reaches stb unvalidated, every "FF C4" pair that is not a DHT marker the walk
// validated is defused to "FF 00" in a copy. In a well-formed file such pairs occur only inside
// APPn/COM payloads (e.g. an EXIF thumbnail's tables), which stb skips, so pixels never change.
std::optional<std::vector<std::uint8_t>> defuse_unchecked_dht(Bytes b, const std::vector<std::size_t>& checked) {
  std::optional<std::vector<std::uint8_t>> copy;
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    if (b[i] != 0xFF || b[i + 1] != 0xC4) continue;
    if (std::binary_search(checked.begin(), checked.end(), i)) continue;
    if (!copy) copy.emplace(b.begin(), b.end());
    (*copy)[i + 1] = 0x00;
  }
  return copy;
}

std::string bytes_short(std::uint64_t need, std::uint64_t have) {
  return "the header promises " + std::to_string(need) + " bytes of data but the file has " + std::to_string(have);
}

Shortfall bmp_shortfall(Bytes b) {
  if (b.size() < 34 || le32(b, 14) < 40) return std::nullopt;  // old OS/2 headers: let stb decide
  const std::uint32_t compression = le32(b, 30);
  if (compression != 0 && compression != 3 && compression != 6) return std::nullopt;  // RLE
  const std::uint64_t offset = le32(b, 10);
  const auto w = static_cast<std::int32_t>(le32(b, 18));
  const auto h = static_cast<std::int32_t>(le32(b, 22));
  const std::uint64_t bpp = le16(b, 28);
  if (w <= 0 || h == 0 || bpp == 0) return std::nullopt;
  const std::uint64_t abs_h =
      h < 0 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(h)) : static_cast<std::uint64_t>(h);
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
  // The last row's padding is often missing in files written by careless tools; do not insist.
  const std::uint64_t need = offset + row_bytes * (abs_h - 1) + (static_cast<std::uint64_t>(w) * bpp + 7) / 8;
  if (b.size() < need) return bytes_short(need, b.size());
  return std::nullopt;
}

// Binary PNM (P5 gray, P6 RGB). Same header grammar as stb_image: magic, then width, height and
// maxval separated by whitespace and '#' comments, then one whitespace byte, then the samples
// (big-endian 16-bit when maxval > 255).
struct PnmHeader {
  int channels = 0;
  std::uint64_t width = 0, height = 0, max_value = 0;
  std::size_t data_offset = 0;
  std::uint64_t data_bytes() const {
    return width * height * static_cast<std::uint64_t>(channels) * (max_value > 255 ? 2 : 1);
  }
};

constexpr std::uint64_t kPnmMaxHeaderValue = INT_MAX / 10;

std::optional<PnmHeader> parse_pnm_header(Bytes b) {
  if (b.size() < 3) return std::nullopt;
  PnmHeader header;
  header.channels = b[1] == '6' ? 3 : 1;
  std::size_t pos = 2;
  std::array<std::uint64_t*, 3> fields = {&header.width, &header.height, &header.max_value};
  for (std::uint64_t* field : fields) {
    while (pos < b.size()) {
      if (is_pnm_space(b[pos])) {
        ++pos;
      } else if (b[pos] == '#') {
        while (pos < b.size() && b[pos] != '\n' && b[pos] != '\r') ++pos;
      } else {
        break;
      }
    }
    if (pos >= b.size() || b[pos] < '0' || b[pos] > '9') return std::nullopt;
    while (pos < b.size() && b[pos] >= '0' && b[pos] <= '9') {
      // stb_image 2.27 accumulates these in an int without an overflow check (undefined
      // behaviour, found by our fuzzer), so anything it could not hold is refused first.
      *field = *field * 10 + (b[pos] - '0');
      if (*field > kPnmMaxHeaderValue) return std::nullopt;
      ++pos;
    }
  }
  header.data_offset = pos + 1;  // the single whitespace byte before the samples
  return header;
}

Shortfall pnm_shortfall(Bytes b) {
  const auto header = parse_pnm_header(b);
  if (!header) return std::nullopt;
  const std::uint64_t need = header->data_offset + header->data_bytes();
  if (b.size() < need) return bytes_short(need, b.size());
  return std::nullopt;
}

Shortfall tga_shortfall(Bytes b) {
  if (b.size() < 18) return "the TGA header is incomplete";
  const std::uint64_t id_length = b[0];
  const std::uint32_t type = b[2];
  const std::uint64_t colormap_bytes = b[1] ? static_cast<std::uint64_t>(le16(b, 5)) * ((b[7] + 7u) / 8u) : 0;
  const std::uint64_t pixels = static_cast<std::uint64_t>(le16(b, 12)) * le16(b, 14);
  const std::uint64_t pixel_bytes = (b[16] + 7u) / 8u;
  const std::uint64_t start = 18 + id_length + colormap_bytes;
  if (type == 1 || type == 2 || type == 3) {
    const std::uint64_t need = start + pixels * pixel_bytes;
    if (b.size() < need) return bytes_short(need, b.size());
    return std::nullopt;
  }
  if (type == 9 || type == 10 || type == 11) {  // RLE: walk the packets
    std::uint64_t pos = start;
    std::uint64_t done = 0;
    while (done < pixels) {
      if (pos >= b.size())
        return "the TGA run-length data ends after " + std::to_string(done) + " of " + std::to_string(pixels) +
               " pixels";
      const std::uint8_t header = b[pos++];
      const std::uint64_t count = (header & 0x7Fu) + 1u;
      pos += (header & 0x80u) ? pixel_bytes : count * pixel_bytes;
      done += count;
    }
    if (pos > b.size()) return "the TGA run-length data ends inside its last packet";
  }
  return std::nullopt;
}

Shortfall psd_shortfall(Bytes b) {
  if (b.size() < 26) return "the PSD header is incomplete";
  const std::uint64_t channels = std::min<std::uint64_t>(be16(b, 12), 4);  // stb reads <= 4
  const std::uint64_t all_channels = be16(b, 12);
  const std::uint64_t height = be32(b, 14);
  const std::uint64_t width = be32(b, 18);
  const std::uint64_t depth_bytes = be16(b, 22) == 16 ? 2 : 1;
  std::uint64_t pos = 26;
  for (int section = 0; section < 3; ++section) {  // colour mode, resources, layers
    if (pos + 4 > b.size()) return "the PSD data ends inside its section headers";
    pos += 4 + be32(b, static_cast<std::size_t>(pos));
  }
  if (pos + 2 > b.size()) return "the PSD data ends before its image data";
  const std::uint32_t compression = be16(b, static_cast<std::size_t>(pos));
  pos += 2;
  std::uint64_t need = 0;
  if (compression == 0) {
    need = pos + channels * width * height * depth_bytes;
  } else if (compression == 1) {
    const std::uint64_t counts_bytes = all_channels * height * 2;
    if (pos + counts_bytes > b.size()) return bytes_short(pos + counts_bytes, b.size());
    std::uint64_t data = 0;
    for (std::uint64_t row = 0; row < channels * height; ++row)
      data += be16(b, static_cast<std::size_t>(pos + row * 2));
    need = pos + counts_bytes + data;
  } else {
    return std::nullopt;
  }
  if (b.size() < need) return bytes_short(need, b.size());
  return std::nullopt;
}

// HDR (Radiance RGBE): header lines up to an empty line, a "-Y h +X w" line, then scanlines,
// flat or run-length encoded. Besides truncation this refuses a zero-length literal run:
// stb_image 2.27 never advances on one and loops forever (found by our fuzzer; at the end of the
// data stb reads zeros, so every truncated RLE file hangs it too). The header is read exactly as
// stb reads it (lines as C strings of at most 1022 bytes, numbers with strtol), and the result
// must match the size stb reported, so the walk below covers the bytes stb will decode.
Shortfall hdr_shortfall(Bytes b, int expected_width, int expected_height) {
  constexpr const char* cut = "the HDR pixel data ends early";
  constexpr std::size_t kStbLineBytes = 1022;  // stb's token buffer, less the terminator
  std::size_t pos = 0;
  const auto next_line = [&]() -> std::string {
    const std::size_t start = pos;
    while (pos < b.size() && b[pos] != '\n') ++pos;
    std::string line(reinterpret_cast<const char*>(b.data()) + start, std::min(pos - start, kStbLineBytes));
    if (pos < b.size()) ++pos;
    return std::string(line.c_str());  // stb sees a C string: it ends at the first NUL
  };
  next_line();                                       // #?RADIANCE
  while (pos < b.size() && !next_line().empty()) {}  // header variables
  const std::string resolution = next_line();
  const char* token = resolution.c_str();
  char* end = nullptr;
  if (std::strncmp(token, "-Y ", 3) != 0) return "the HDR size line is not \"-Y h +X w\"";
  const auto height = static_cast<int>(std::strtol(token + 3, &end, 10));
  token = end;
  while (*token == ' ') ++token;
  if (std::strncmp(token, "+X ", 3) != 0) return "the HDR size line is not \"-Y h +X w\"";
  const auto width = static_cast<int>(std::strtol(token + 3, nullptr, 10));
  if (width != expected_width || height != expected_height) return "the HDR header cannot be read consistently";

  const std::uint64_t pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  const auto flat_from = [&](std::uint64_t start) -> Shortfall {
    if (b.size() < start + pixels * 4) return bytes_short(start + pixels * 4, b.size());
    return std::nullopt;
  };
  if (width < 8 || width >= 32768) return flat_from(pos);
  for (int row = 0; row < height; ++row) {
    if (pos + 4 > b.size()) return cut;
    if (b[pos] != 2 || b[pos + 1] != 2 || (b[pos + 2] & 0x80)) return flat_from(pos);
    pos += 4;
    for (int component = 0; component < 4; ++component) {
      int done = 0;
      while (done < width) {
        if (pos >= b.size()) return cut;
        const int count = b[pos++];
        if (count > 128) {
          if (count - 128 > width - done) return std::nullopt;  // stb_image rejects it
          done += count - 128;
          ++pos;
        } else {
          if (count == 0) return "the HDR run-length data contains a zero-length run";
          if (count > width - done) return std::nullopt;  // stb_image rejects it
          done += count;
          pos += static_cast<std::size_t>(count);
        }
      }
    }
    if (pos > b.size()) return cut;
  }
  return std::nullopt;
}

// PNG: every chunk must fit in the file. stb_image 2.27 grows its compressed-data buffer to a
// chunk's declared length before reading it, so a 100-byte file declaring a 2 GiB IDAT makes it
// allocate 2 GiB (found by our fuzzer). The walk stops at IEND, whose CRC may be missing
// without harm (kPngTailThatMayBeMissing).
Shortfall png_shortfall(Bytes b) {
  std::uint64_t pos = 8;  // after the signature
  while (true) {
    if (pos + 8 > b.size()) return "the PNG data ends before its IEND chunk";
    const std::uint64_t length = be32(b, static_cast<std::size_t>(pos));
    if (starts_with(b, "IEND", static_cast<std::size_t>(pos + 4))) return std::nullopt;
    if (pos + 12 + length > b.size())
      return "a PNG chunk declares " + std::to_string(length) + " bytes but the file ends after " +
             std::to_string(b.size() - pos - 8);
    pos += 12 + length;
  }
}

// GIF: the first frame's LZW data is a chain of sub-blocks ended by a zero-length block; walk
// the blocks up to the first image's end.
Shortfall gif_shortfall(Bytes b) {
  constexpr const char* cut = "the GIF data ends before its first frame is complete";
  if (b.size() < 13) return cut;
  std::uint64_t pos = 13;
  if (b[10] & 0x80) pos += 3ull * (2ull << (b[10] & 7));  // global colour table
  const auto skip_sub_blocks = [&]() -> bool {
    while (true) {
      if (pos >= b.size()) return false;
      const std::uint8_t size = b[pos++];
      if (size == 0) return true;
      pos += size;
    }
  };
  while (true) {
    if (pos >= b.size()) return cut;
    const std::uint8_t tag = b[pos++];
    if (tag == 0x21) {  // extension: label, then sub-blocks
      ++pos;
      if (!skip_sub_blocks()) return cut;
    } else if (tag == 0x2C) {  // image descriptor
      if (pos + 9 > b.size()) return cut;
      const std::uint8_t packed = b[pos + 8];
      pos += 9;
      if (packed & 0x80) pos += 3ull * (2ull << (packed & 7));  // local colour table
      ++pos;                                                    // LZW minimum code size
      if (!skip_sub_blocks()) return cut;
      return std::nullopt;
    } else {
      return std::nullopt;  // trailer or garbage: stb_image decides
    }
  }
}

Shortfall shortfall(Format f, Bytes b) {
  switch (f) {
    case Format::jpeg: return inspect_jpeg(b).problem;
    case Format::bmp: return bmp_shortfall(b);
    case Format::pnm: return pnm_shortfall(b);
    case Format::tga: return tga_shortfall(b);
    case Format::psd: return psd_shortfall(b);
    case Format::gif: return gif_shortfall(b);
    case Format::png: return png_shortfall(b);
    default: return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------
// 4. PNM decoder
// ---------------------------------------------------------------------------------------------
// stb_image 2.27 (Debian 12) decodes 16-bit PNM wrongly: it keeps the file's big-endian bytes as
// native integers and converts 16-bit samples to RGBA with its 8-bit routine; it also ignores a
// maxval other than 255. PNM is trivial to decode, so we do it ourselves: 8-bit maxval 255 as
// is, 16-bit maxval 65535 by the high byte (as 16-bit PNG), any other maxval scaled to 0..255.
// Called after the header, limits and length have been checked.
std::optional<std::vector<std::uint8_t>> decode_pnm(Bytes b, const PnmHeader& h) {
  if (h.max_value == 0 || h.max_value > 65535) return std::nullopt;
  const std::size_t pixels = static_cast<std::size_t>(h.width * h.height);
  std::vector<std::uint8_t> rgba(pixels * 4);
  const bool wide = h.max_value > 255;
  const std::uint8_t* in = b.data() + h.data_offset;
  const auto to8 = [&](std::uint32_t v) -> std::uint8_t {
    if (h.max_value == 255) return static_cast<std::uint8_t>(v);
    if (h.max_value == 65535) return static_cast<std::uint8_t>(v >> 8);
    v = std::min<std::uint32_t>(v, static_cast<std::uint32_t>(h.max_value));
    return static_cast<std::uint8_t>((v * 255u + static_cast<std::uint32_t>(h.max_value) / 2) /
                                     static_cast<std::uint32_t>(h.max_value));
  };
  for (std::size_t p = 0; p < pixels; ++p) {
    std::uint8_t* out = &rgba[p * 4];
    for (int c = 0; c < h.channels; ++c) {
      const std::uint32_t v = wide ? (std::uint32_t{in[0]} << 8) | in[1] : in[0];
      in += wide ? 2 : 1;
      out[c] = to8(v);
    }
    if (h.channels == 1) out[1] = out[2] = out[0];
    out[3] = 255;
  }
  return rgba;
}

// ---------------------------------------------------------------------------------------------
// 5. Messages
// ---------------------------------------------------------------------------------------------
Status failure(std::string_view code, std::string message, std::string hint, std::string call = {}) {
  return Status::failure(std::move(message), std::move(hint), std::move(call), std::string(code));
}

Status over_limits(const std::string& name, std::uint64_t w, std::uint64_t h, const LoadLimits& limits) {
  const std::string size = std::to_string(w) + " x " + std::to_string(h);
  if (w > static_cast<std::uint64_t>(limits.max_side) || h > static_cast<std::uint64_t>(limits.max_side)) {
    return failure(load_error::over_limits,
                   name + " is " + size + " pixels; the largest side blockscope accepts is " +
                       std::to_string(limits.max_side) + " (" + limits.side_limit_reason + ")",
                   "scale the image down so that neither side exceeds " + std::to_string(limits.max_side) + " pixels",
                   "check image size");
  }
  return failure(load_error::over_limits,
                 name + " is " + size + " = " + std::to_string(w * h) + " pixels; blockscope accepts at most " +
                     std::to_string(limits.max_pixels) + " pixels",
                 "the image is copied to the GPU as RGBA8 and kernels index it with 32-bit "
                 "integers; scale it down below " +
                     std::to_string(limits.max_pixels) + " pixels",
                 "check image size");
}

bool within_limits(std::uint64_t w, std::uint64_t h, const LoadLimits& limits) {
  const auto side = static_cast<std::uint64_t>(std::max(limits.max_side, 0));
  return w <= side && h <= side && w * h <= limits.max_pixels;
}

Status not_an_image(const std::string& name, Bytes head) {
  const std::string formats = "blockscope reads " + std::string(supported_formats());
  if (auto what = recognise_unsupported(head))
    return failure(load_error::unsupported_format,
                   name + " is " + std::string(*what) + ", which blockscope cannot read",
                   "convert it to PNG; " + formats, "detect format");
  if (looks_like_text(head))
    return failure(load_error::unsupported_format, name + " is not an image: it contains text", formats,
                   "detect format");
  return failure(load_error::unsupported_format, name + " is not an image in a format blockscope knows", formats,
                 "detect format");
}

Status corrupt(const std::string& name, Format f, std::string why, std::string call) {
  return failure(load_error::corrupt, name + " is a damaged or truncated " + std::string(format_name(f)) + " file",
                 std::move(why) + "; re-export or re-download the file", std::move(call));
}

// stb_image's short failure reasons, made readable.
std::string explain_stb_failure(const char* reason) {
  const std::string r = reason ? reason : "unknown";
  std::string text = "decoder said \"" + r + "\"";
  if (r == "outofdata" || r == "bad huffman code" || r == "bad code lengths" || r == "bad codelengths")
    text += " (the compressed data ends early or is damaged)";
  return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public helpers
// ---------------------------------------------------------------------------------------------
std::string_view supported_formats() {
  return "PNG, JPEG, BMP, TGA, GIF (first frame), PSD, PNM (binary PGM/PPM), HDR (Radiance)";
}

std::span<const std::string_view> supported_extensions() { return kExtensions; }

std::string display_name(const std::filesystem::path& path) {
  return utf8(path.filename().empty() ? path : path.filename());
}

// ---------------------------------------------------------------------------------------------
// 6. load_image_memory
// ---------------------------------------------------------------------------------------------
Result<Rgba8Image> load_image_memory(std::span<const std::uint8_t> bytes, std::string name, const LoadLimits& limits) {
  if (bytes.empty())
    return failure(load_error::empty, name + " is empty (0 bytes)",
                   "the file was probably not saved or copied completely");
  if (bytes.size() > std::min<std::uint64_t>(limits.max_file_bytes, INT_MAX))
    return failure(load_error::over_limits,
                   name + " is " + std::to_string(bytes.size()) + " bytes; blockscope reads image files up to " +
                       std::to_string(std::min<std::uint64_t>(limits.max_file_bytes, INT_MAX)) + " bytes",
                   "save it in a compressed format such as PNG or JPEG, or scale it down", "check file size");

  Format format = sniff(bytes);

  // Dimensions first: from the header alone, before any pixel is decoded.
  if (auto peek = peek_dimensions(format, bytes); peek && !within_limits(peek->width, peek->height, limits))
    return over_limits(name, peek->width, peek->height, limits);

  if (format == Format::pnm) {  // our parse first: stb's overflows on absurd numbers
    const auto header = parse_pnm_header(bytes);
    if (!header)
      return corrupt(name, format, "the header's width, height or maximum value is missing or absurd",
                     "parse PNM header");
    if (!within_limits(header->width, header->height, limits))
      return over_limits(name, header->width, header->height, limits);
  }

  // JPEG's structure is checked before stb_image parses any of it (its header pass already
  // builds Huffman tables).
  std::vector<std::uint8_t> defused;
  if (format == Format::jpeg) {
    JpegInspection inspection = inspect_jpeg(bytes);
    if (inspection.problem) return corrupt(name, format, *inspection.problem, "check JPEG structure");
    if (inspection.scans > kMaxJpegScans)
      return failure(load_error::over_limits,
                     name + " has more than " + std::to_string(kMaxJpegScans) + " scans; blockscope decodes at most " +
                         std::to_string(kMaxJpegScans),
                     "each scan is a pass over the whole image, so such a file takes very long "
                     "to decode; re-save it as a baseline JPEG or PNG",
                     "check JPEG structure");
    try {
      if (auto copy = defuse_unchecked_dht(bytes, inspection.checked_dht)) {
        defused = std::move(*copy);
        bytes = defused;
      }
    } catch (const std::bad_alloc&) {
      return failure(load_error::out_of_memory, "not enough memory to read " + name, "close other programs",
                     "copy JPEG");
    }
  }
  const auto* data = bytes.data();
  const int length = static_cast<int>(bytes.size());

  int width = 0, height = 0, channels = 0;
  if (!stbi_info_from_memory(data, length, &width, &height, &channels)) {
    const char* reason = stbi_failure_reason();
    if (format == Format::unknown) return not_an_image(name, bytes);
    if (reason && std::string_view(reason) == "too large")
      return failure(load_error::over_limits, name + " declares dimensions too large for the image decoder",
                     "the header is either damaged or describes an image far beyond " +
                         std::to_string(limits.max_side) + " pixels a side",
                     "stbi_info_from_memory");
    return corrupt(name, format, explain_stb_failure(reason), "stbi_info_from_memory");
  }
  if (format == Format::unknown) format = Format::tga;  // the only format without magic bytes
  if (width <= 0 || height <= 0)
    return corrupt(name, format, "the header declares an empty image", "stbi_info_from_memory");
  if (!within_limits(static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(height), limits))
    return over_limits(name, static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(height), limits);
  if (format != Format::jpeg) {  // JPEG was inspected above
    const Shortfall why = format == Format::hdr ? hdr_shortfall(bytes, width, height) : shortfall(format, bytes);
    if (why) return corrupt(name, format, *why, "check file structure");
  }

  const bool is_hdr = stbi_is_hdr_from_memory(data, length) != 0;
  // stb 2.27's PSD depth probe reads the wrong header field, so PSD's depth is read here.
  const bool is_16_bit = format == Format::psd ? be16(bytes, 22) == 16 : stbi_is_16_bit_from_memory(data, length) != 0;

  const auto make_image = [&](std::vector<std::uint8_t> rgba) {
    Rgba8Image image;
    image.width = width;
    image.height = height;
    image.rgba = std::move(rgba);
    image.name = std::move(name);
    image.source_channels = channels;
    image.source_bits_per_channel = is_hdr ? 32 : (is_16_bit ? 16 : 8);
    image.format = std::string(format_name(format));
    return image;
  };

  if (format == Format::pnm) {
    const auto header = parse_pnm_header(bytes);
    if (!header || header->width != static_cast<std::uint64_t>(width) ||
        header->height != static_cast<std::uint64_t>(height))
      return corrupt(name, format, "the header cannot be parsed consistently", "parse PNM header");
    try {
      auto rgba = decode_pnm(bytes, *header);
      if (!rgba) return corrupt(name, format, "the maximum sample value must be 1..65535", "decode PNM");
      return make_image(std::move(*rgba));
    } catch (const std::bad_alloc&) {
      return failure(load_error::out_of_memory,
                     "not enough memory to decode " + name + " (" + std::to_string(width) + " x " +
                         std::to_string(height) + " pixels)",
                     "close other programs or scale the image down", "decode PNM");
    }
  }

  // 16-bit samples become their high byte, gray becomes r=g=b, HDR is tonemapped by stb's
  // default (gamma 2.2, scale 1); GIF gives its first frame. Decoded in the file's own channels
  // and widened to RGBA here: stb's RGBA would be a second whole-image buffer beside ours while
  // it is copied (a 16384^2 image's load peaked at 8 bytes a pixel; now 7, with RGB files).
  int decoded_w = 0, decoded_h = 0, file_channels = 0;
  stbi_uc* pixels = stbi_load_from_memory(data, length, &decoded_w, &decoded_h, &file_channels, 0);
  if (!pixels) {
    const char* reason = stbi_failure_reason();
    if (reason && std::string_view(reason) == "outofmem")
      return failure(load_error::out_of_memory,
                     "not enough memory to decode " + name + " (" + std::to_string(width) + " x " +
                         std::to_string(height) + " pixels)",
                     "close other programs or scale the image down", "stbi_load_from_memory");
    return corrupt(name, format, explain_stb_failure(reason), "stbi_load_from_memory");
  }
  const std::unique_ptr<stbi_uc, void (*)(void*)> owned(pixels, stbi_image_free);
  if (decoded_w != width || decoded_h != height)
    return corrupt(name, format,
                   "the header says " + std::to_string(width) + " x " + std::to_string(height) +
                       " but the data decodes to " + std::to_string(decoded_w) + " x " + std::to_string(decoded_h),
                   "stbi_load_from_memory");

  if (file_channels < 1 || file_channels > 4)
    return corrupt(name, format, "it decodes to " + std::to_string(file_channels) + " channels",
                   "stbi_load_from_memory");
  std::vector<std::uint8_t> rgba;
  try {
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    rgba.resize(4 * n);
    const int c = file_channels;
    std::uint8_t* out = rgba.data();
    for (std::size_t i = 0; i < n; ++i, out += 4) {
      const stbi_uc* p = pixels + c * i;
      out[0] = p[0];
      out[1] = c >= 3 ? p[1] : p[0];
      out[2] = c >= 3 ? p[2] : p[0];
      out[3] = c == 4 ? p[3] : c == 2 ? p[1] : 255;
    }
  } catch (const std::bad_alloc&) {
    return failure(load_error::out_of_memory,
                   "not enough memory to hold " + name + " (" + std::to_string(width) + " x " + std::to_string(height) +
                       " pixels)",
                   "close other programs or scale the image down", "allocate pixels");
  }
  return make_image(std::move(rgba));
}

// ---------------------------------------------------------------------------------------------
// 7. load_image_file
// ---------------------------------------------------------------------------------------------
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Enough for every header stb_image's info pass needs except JPEG's (whose SOF may follow large
// EXIF/ICC segments; JPEG has a magic number, so it never needs the early refusal below).
constexpr std::size_t kHeadBytes = 64 * 1024;
constexpr std::size_t kChunkBytes = 1 << 20;

Status unreadable(const std::string& name, int error_number, std::string call) {
  const std::string why = std::generic_category().message(error_number);
  std::string hint = "check that the file is readable by you";
  if (error_number == EACCES || error_number == EPERM)
    hint = "you do not have permission to read it; check its permissions (ls -l)";
  return failure(load_error::unreadable, "cannot read " + name + ": " + why, std::move(hint), std::move(call));
}

}  // namespace

Result<Rgba8Image> load_image_file(const std::filesystem::path& path, const LoadLimits& limits,
                                   const std::atomic<bool>* cancel, FileReadProgress* progress) {
  namespace fs = std::filesystem;
  const std::string name = display_name(path);
  const auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
  const auto cancelled_status = [&] {
    return failure(load_error::cancelled, "loading " + name + " was cancelled", {});
  };

  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory ||
      ec == std::errc::not_a_directory)
    return failure(load_error::not_found, name + " does not exist",
                   "it may have been moved, renamed or deleted (looked for " + utf8(path) + ")", "stat");
  if (ec) return unreadable(name, ec.value(), "stat");
  if (fs::is_directory(st))
    return failure(load_error::is_directory, name + " is a folder, not an image file",
                   "drop or open the image files inside it", "stat");
  if (!fs::is_regular_file(st))
    return failure(load_error::not_a_file, name + " is not a regular file (a device, pipe or socket)",
                   "open an image file", "stat");

  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) return unreadable(name, ec.value(), "file_size");
  if (size == 0)
    return failure(load_error::empty, name + " is empty (0 bytes)",
                   "the file was probably not saved or copied completely", "file_size");
  const std::uint64_t max_bytes = std::min<std::uint64_t>(limits.max_file_bytes, INT_MAX);
  if (size > max_bytes)
    return failure(load_error::over_limits,
                   name + " is " + std::to_string(size) + " bytes; blockscope reads image files up to " +
                       std::to_string(max_bytes) + " bytes",
                   "save it in a compressed format such as PNG or JPEG, or scale it down", "check file size");

  errno = 0;
  const File file(std::fopen(path.c_str(), "rb"));
  if (!file) return unreadable(name, errno ? errno : EIO, "fopen");

  if (progress) {
    progress->bytes_total.store(size, std::memory_order_relaxed);
    progress->bytes_read.store(0, std::memory_order_relaxed);
  }

  std::vector<std::uint8_t> bytes;
  try {
    bytes.resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    return failure(load_error::out_of_memory,
                   "not enough memory to read " + name + " (" + std::to_string(size) + " bytes)",
                   "close other programs", "allocate file buffer");
  }

  std::size_t got = 0;
  const auto read_up_to = [&](std::size_t end) -> bool {
    while (got < end) {
      if (cancelled()) return false;
      const std::size_t want = std::min(kChunkBytes, end - got);
      const std::size_t n = std::fread(bytes.data() + got, 1, want, file.get());
      got += n;
      if (progress) progress->bytes_read.store(got, std::memory_order_relaxed);
      if (n < want) return true;  // end of file or error: looked at below
    }
    return true;
  };

  // The head first: refuse non-images and over-sized headers without reading the rest.
  if (!read_up_to(std::min<std::size_t>(kHeadBytes, bytes.size()))) return cancelled_status();
  if (std::ferror(file.get())) return unreadable(name, errno ? errno : EIO, "fread");
  const Bytes head(bytes.data(), got);
  if (sniff(head) == Format::unknown) {
    int w = 0, h = 0, c = 0;
    if (!stbi_info_from_memory(head.data(), static_cast<int>(head.size()), &w, &h, &c)) return not_an_image(name, head);
  }

  if (!read_up_to(bytes.size())) return cancelled_status();
  if (std::ferror(file.get())) return unreadable(name, errno ? errno : EIO, "fread");
  bytes.resize(got);  // the file shrank while we read it: decode what is there
  if (cancelled()) return cancelled_status();

  auto image = load_image_memory(bytes, name, limits);
  if (image.ok() && cancelled()) return cancelled_status();
  return image;
}

}  // namespace bs
