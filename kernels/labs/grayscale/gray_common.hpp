// What every grayscale kernel shares: the lecture's weights and the per-pixel formula, the two
// source layouts, and the 16-byte memory helpers the vector rungs are built from.
//
// Section index
//   weights, gray_value       the one per-pixel formula (bit-exact between GPU and simulator)
//   GrayLayout, GrayArgs      planar RGB or interleaved RGBA8; the buffers a kernel reads/writes
//   gray_pixel                one pixel in either layout (the scalar path of every rung)
//   Vec16, load16, store16    one LDG.128 / STG.128 on the GPU, a memcpy on the CPU
//   funnel_shift_right        re-aligning bytes that straddle two aligned 16-byte words
//   GrayVecPlan               which pixels a vector kernel does as 16-byte accesses, which scalar
//   load_words                aligned loads of a possibly misaligned run of bytes
//
// Layouts. Planar (the lecture's tensors, C x H x W): all red bytes, then all green, then all
// blue, so a thread reads x[i], x[i + n] and x[i + 2n]: 3 bytes read and 1 written per pixel.
// RGBA (the image as it sits in memory after decoding): 4 bytes per pixel, R G B A, so a pixel is
// one 4-byte word of which the kernel uses three bytes: 4 bytes read (the alpha byte comes along
// in the same sector, so it costs bandwidth anyway) and 1 written per pixel.
//
// The formula is written with explicit fmaf so the GPU (which would contract a*b + c into an FMA
// anyway) and the CPU simulator round identically: the simulator's output is bit-exact with the
// GPU's.
#pragma once
#include <cstdint>

#include "core/hd.hpp"

#if !defined(__CUDACC__)
#include <cmath>
#endif
#if !BS_ON_DEVICE
#include <cstring>
#endif

// Unrolling: nvcc's pragma on the GPU (register arrays must be indexed by constants, or they
// spill to local memory); GCC's own spelling on the host. The matmul lab defines the same.
#if !defined(BS_UNROLL)
#if defined(__CUDACC__)
#define BS_UNROLL _Pragma("unroll")
#else
#define BS_UNROLL _Pragma("GCC unroll 16")
#endif
#endif

namespace bs::gray {

inline constexpr float kRedWeight = 0.2989f;
inline constexpr float kGreenWeight = 0.5870f;
inline constexpr float kBlueWeight = 0.1140f;

// Bytes the lecture's (planar) kernels must move per pixel: 3 planes read, 1 written.
inline constexpr double kBytesPerPixel = 4.0;

enum class GrayLayout : std::uint8_t { Planar, Rgba };

inline constexpr GrayLayout kGrayLayouts[] = {GrayLayout::Planar, GrayLayout::Rgba};

inline const char* to_string(GrayLayout l) { return l == GrayLayout::Planar ? "planar" : "rgba"; }

// The bytes each layout must move per pixel, for the bandwidth figure.
constexpr double bytes_read_per_pixel(GrayLayout l) { return l == GrayLayout::Planar ? 3.0 : 4.0; }
constexpr double bytes_written_per_pixel(GrayLayout) { return 1.0; }
constexpr double bytes_per_pixel(GrayLayout l) { return bytes_read_per_pixel(l) + bytes_written_per_pixel(l); }

struct GrayArgs {
  const std::uint8_t* planar_rgb;  // 3 * n bytes: R plane, G plane, B plane (GrayLayout::Planar)
  std::uint8_t* out;               // n bytes, row-major, no padding
  int width;
  int height;
  int n;  // width * height (the lecture's `n`)
  // 4 * n bytes, R G B A per pixel (GrayLayout::Rgba). Last, so the lecture's positional
  // initialisers {planar, out, w, h, n} still compile; a kernel reads only its layout's source.
  const std::uint8_t* rgba = nullptr;
};

// Truncates toward zero like the lecture's uint8 store; the weights sum to 0.9999, so the result
// never exceeds 254.97 and needs no clamp (and 255 never occurs: tests poison outputs with it).
BS_HD std::uint8_t gray_value(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  using std::fmaf;
  const float v = fmaf(kBlueWeight, static_cast<float>(b),
                       fmaf(kGreenWeight, static_cast<float>(g), kRedWeight * static_cast<float>(r)));
  return static_cast<std::uint8_t>(v);
}

// The formula as a type, so the vector rungs can be instantiated with another spelling of the
// same arithmetic (the tuning harness tries some); channels come as byte values in 32-bit words.
struct GrayFormula {
  BS_HD static std::uint32_t apply(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return gray_value(static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b));
  }
};

// Pixel i in either layout, one byte load per channel: the scalar path (lecture kernels, and the
// heads and tails of the vector kernels).
template <GrayLayout L>
BS_HD std::uint8_t gray_pixel(const GrayArgs& a, long long i) {
  if constexpr (L == GrayLayout::Planar) {
    return gray_value(a.planar_rgb[i], a.planar_rgb[i + a.n], a.planar_rgb[i + 2ll * a.n]);
  } else {
    const std::uint8_t* p = a.rgba + 4 * i;
    return gray_value(p[0], p[1], p[2]);
  }
}

// ---------------------------------------------------------------------------------------------
// 16-byte accesses
// ---------------------------------------------------------------------------------------------

// Sixteen bytes as four little-endian 32-bit words: byte k is (w[k / 4] >> 8 * (k % 4)) & 0xff on
// the GPU and on x86 alike.
struct alignas(16) Vec16 {
  std::uint32_t w[4];
};

BS_HD std::uint32_t byte_of(std::uint32_t word, int k) { return (word >> (8 * k)) & 0xffu; }

// How a vector kernel asks the memory system to treat its bytes.
//   Default    ld.global / st.global: cached in L1 and L2 as usual. The rungs use this.
//   Streaming  ld.global.nc.L1::no_allocate (read-only path, no L1 line kept: every byte is read
//              once) and st.global.cs (evict-first: the output is not read again by this kernel).
//              Measured no better than Default on its own (NOTES.md), so no rung keeps it; the
//              tuning harness still tries it.
// On the CPU both are plain copies.
enum class CacheHint : std::uint8_t { Default, Streaming };

// One aligned 16-byte load (p % 16 == 0 on the GPU; the CPU has no such rule).
template <CacheHint H = CacheHint::Default>
BS_HD Vec16 load16(const std::uint8_t* p) {
#if BS_ON_DEVICE
  Vec16 v;
  if constexpr (H == CacheHint::Streaming) {
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
        : "l"(p));
  } else {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    v.w[0] = u.x;
    v.w[1] = u.y;
    v.w[2] = u.z;
    v.w[3] = u.w;
  }
  return v;
#else
  Vec16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}

// One aligned 16-byte store.
template <CacheHint H = CacheHint::Default>
BS_HD void store16(std::uint8_t* p, const Vec16& v) {
#if BS_ON_DEVICE
  const uint4 u = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
  if constexpr (H == CacheHint::Streaming) __stcs(reinterpret_cast<uint4*>(p), u);
  else *reinterpret_cast<uint4*>(p) = u;
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// One aligned 4-byte store (p % 4 == 0 on the GPU).
template <CacheHint H = CacheHint::Default>
BS_HD void store4(std::uint8_t* p, std::uint32_t w) {
#if BS_ON_DEVICE
  if constexpr (H == CacheHint::Streaming) __stcs(reinterpret_cast<unsigned int*>(p), w);
  else *reinterpret_cast<std::uint32_t*>(p) = w;
#else
  std::memcpy(p, &w, sizeof w);
#endif
}

// The low 32 bits of (hi:lo) >> shift, shift < 32: the bytes of a word that starts `shift / 8`
// bytes into `lo`. One SHF instruction on the GPU.
BS_HD std::uint32_t funnel_shift_right(std::uint32_t lo, std::uint32_t hi, unsigned shift) {
#if BS_ON_DEVICE
  return __funnelshift_r(lo, hi, shift);
#else
  return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> shift);
#endif
}

// One of four values by a run-time selector, without indexing a register array (which would put
// the array in local memory on the GPU): SEL instructions, uniform across the warp here.
BS_HD std::uint32_t pick4(unsigned sel, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return sel == 0 ? a : sel == 1 ? b : sel == 2 ? c : d;
}

// ---------------------------------------------------------------------------------------------
// The vector plan: which pixels go through 16-byte accesses
// ---------------------------------------------------------------------------------------------
//
// A vector kernel handles P consecutive pixels per access ("chunk"): it stores their P output
// bytes with one aligned store (P = 16: STG.128; P = 4: STG.32) and reads each source stream's
// k * P bytes (k bytes per pixel: 1 per plane of a planar image, 4 for RGBA) as aligned 16-byte
// words. The output decides the alignment: the body starts at the first pixel `head` whose output
// byte is P-aligned. A source stream then sits at a misalignment s = (stream + k * head) % 16 that
// is the same for every chunk (k * P is a multiple of 16). With s == 0 a chunk is k*P/16 aligned
// loads; otherwise k*P/16 + 1 aligned loads whose bytes are shifted into place (load_words). The
// planes of a planar image of n pixels start at 0, n and 2n, so unless n % 16 == 0 they sit at
// different misalignments: each stream has its own s.
//
// Every load stays inside its own stream's bytes [stream, stream + k*n): that decides the head and
// the tail.
//   head: the first aligned word of chunk 0 starts at stream + k*head - s, which must not be before
//         the stream: k*head >= s. If the output's alignment point h0 is too early for some stream,
//         the head grows by P (s is unchanged), so head < 2P.
//   tail: the last aligned word of the last chunk (ending at e) ends at stream + k*e - s + 16
//         for a misaligned stream, within the stream while k*e <= k*n - 16 + s; aligned streams
//         only need e <= n. The body is as many whole chunks as fit; the rest is the tail.
// Head and tail pixels are done one per thread with byte loads (gray_pixel). An image too small for
// one chunk is all head.
struct GrayVecPlan {
  long long head = 0;             // pixels [0, head): scalar
  long long vectors = 0;          // chunks of P pixels from `head` on
  long long tail = 0;             // pixels [n - tail, n): scalar
  unsigned shift[3] = {0, 0, 0};  // each source stream's misalignment at pixel `head` (bytes)
};

// The source streams of a layout: their count, bytes per pixel, and where stream s starts.
template <GrayLayout L>
struct GrayStreams;

template <>
struct GrayStreams<GrayLayout::Planar> {
  static constexpr int kCount = 3;
  static constexpr int kBytesPerPixel = 1;
  BS_HD static const std::uint8_t* base(const GrayArgs& a, int s) {
    return a.planar_rgb + static_cast<long long>(s) * a.n;
  }
};

template <>
struct GrayStreams<GrayLayout::Rgba> {
  static constexpr int kCount = 1;
  static constexpr int kBytesPerPixel = 4;
  BS_HD static const std::uint8_t* base(const GrayArgs& a, int) { return a.rgba; }
};

template <GrayLayout L, int P>
BS_HD GrayVecPlan gray_vec_plan(const GrayArgs& a) {
  using S = GrayStreams<L>;
  constexpr long long k = S::kBytesPerPixel;
  static_assert(P == 4 || P == 8 || P == 16, "one aligned store of P output bytes");
  static_assert((k * P) % 16 == 0, "a chunk's source bytes are whole 16-byte words");
  const long long n = a.n;
  GrayVecPlan plan;
  const long long h0 = static_cast<long long>((P - reinterpret_cast<std::uintptr_t>(a.out) % P) % P);
  long long head = h0;
  long long limit = n;
  for (int s = 0; s < S::kCount; ++s) {
    const unsigned shift = static_cast<unsigned>(
        (reinterpret_cast<std::uintptr_t>(S::base(a, s)) + static_cast<std::uintptr_t>(k * h0)) % 16);
    plan.shift[s] = shift;
    if (shift != 0) {
      if (k * h0 < shift) head = h0 + P;
      const long long e = (k * n - 16 + shift) / k;  // <= 0 when the stream is too short
      if (e < limit) limit = e;
    }
  }
  if (head >= n) {
    plan.head = n;
    return plan;
  }
  plan.head = head;
  plan.vectors = limit > head ? (limit - head) / P : 0;
  plan.tail = n - head - P * plan.vectors;
  return plan;
}

// The k*P/16 aligned words (4*NW 32-bit words) of one chunk of one stream, from `aligned` (the
// stream's bytes of the chunk start at aligned + shift, shift < 16). Loads and re-alignment are
// split so a kernel can issue every load of a thread before it waits for the first:
//   load_raw    NW aligned 16-byte loads, plus one more when shift != 0
//   realign     word q of the result is bytes [shift + 4q, shift + 4q + 4) of the raw words: the
//               raw word q + shift/4 and the next, funnel-shifted by 8 * (shift % 4) bits
template <int NW, CacheHint H>
BS_HD void load_raw(const std::uint8_t* aligned, unsigned shift, std::uint32_t (&raw)[4 * NW + 4]) {
  BS_UNROLL
  for (int j = 0; j < NW; ++j) {
    const Vec16 v = load16<H>(aligned + 16 * j);
    BS_UNROLL
    for (int q = 0; q < 4; ++q) raw[4 * j + q] = v.w[q];
  }
  if (shift != 0) {
    const Vec16 v = load16<H>(aligned + 16 * NW);
    BS_UNROLL
    for (int q = 0; q < 4; ++q) raw[4 * NW + q] = v.w[q];
  } else {
    // Not read when shift == 0 (realign copies), but defined: every word of raw has a value.
    BS_UNROLL
    for (int q = 0; q < 4; ++q) raw[4 * NW + q] = 0;
  }
}

template <int NW>
BS_HD void realign(const std::uint32_t (&raw)[4 * NW + 4], unsigned shift, std::uint32_t (&words)[4 * NW]) {
  if (shift == 0) {
    BS_UNROLL
    for (int q = 0; q < 4 * NW; ++q) words[q] = raw[q];
    return;
  }
  const unsigned sel = shift >> 2, bits = 8 * (shift & 3u);
  BS_UNROLL
  for (int q = 0; q < 4 * NW; ++q) {
    const std::uint32_t lo = pick4(sel, raw[q], raw[q + 1], raw[q + 2], raw[q + 3]);
    const std::uint32_t hi = pick4(sel, raw[q + 1], raw[q + 2], raw[q + 3], raw[q + 4]);
    words[q] = funnel_shift_right(lo, hi, bits);
  }
}

}  // namespace bs::gray
