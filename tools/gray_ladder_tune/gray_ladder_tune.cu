// gray_ladder_tune: times the grayscale ladder on the device, outside the product.
//
// For each image size (default 8192x8192 and 3840x2160) and layout (planar, RGBA), in one run:
//   copy      cudaMemcpyAsync device-to-device moving the same bytes (read + write) as the kernels:
//             the ceiling the targets are measured against
//   cub       cub::DeviceTransform::Transform (the library anchor, GrayCubTransform::launch_cuda)
//   rungs     every rung of the ladder through the product's own path (grid rule, attributes,
//             launch_gray_rung)
//   x:*       exploratory variants of the same bodies (chunks per thread, pixels per chunk, cache
//             hints, a conversion-free spelling of the formula, block sizes, waves): what the
//             ladder's parameters were chosen from (kernels/labs/grayscale/NOTES.md)
// and prints median ms, GB/s (the layout's bytes: 3 + 1 planar, 4 + 1 RGBA), share of the copy's
// GB/s, ratio to CUB, and whether the output matched gray_value on every pixel.
//
// Method: fresh random pixels; every timed launch is preceded by a ~30 us spin kernel so the
// host's enqueue never shows up as GPU time; CUDA events around each launch; warm-up, then
// `--reps` timed launches, median; rotating buffer sets whose total exceeds 3x the L2, so no
// launch reads what the previous one left in L2. Outputs are poisoned (0xff) before each variant
// and the last set written is compared with gray_value on the host.
//
// Build: cmake --build build --target gray_ladder_tune (excluded from `all`).
// Usage: gray_ladder_tune [--reps N] [--size WxH]... [--json FILE] [--rungs-only]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "core/json_writer.hpp"
#include "core/median.hpp"
#include "device/cuda_device.hpp"
#include "labs/grayscale/gray_grid_stride.hpp"
#include "labs/grayscale/gray_ilp4.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_ladder_cuda.hpp"
#include "labs/grayscale/gray_vec16.hpp"

namespace {

using namespace bs;
using namespace bs::gray;

#define TUNE_CHECK(expr)                                                                          \
  do {                                                                                            \
    if (cudaError_t e_ = (expr); e_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// ------------------------------------------------------------------------------------------------
// Exploratory bodies (the same building blocks as the rungs, other parameters)
// ------------------------------------------------------------------------------------------------

// The formula without integer<->float conversion instructions: a byte b becomes the float
// 2^23 + b by OR-ing it into 2^23's mantissa, minus 2^23 (exact); truncation of v in [0, 255) is
// the low mantissa byte of 2^23 + v added rounding toward zero (exact). Same values as gray_value
// for every input (the FMA chain is the same); checked on every pixel by the harness.
struct FastFormula {
  __device__ static std::uint32_t apply(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    const float fr = __uint_as_float(0x4B000000u | r) - 8388608.0f;
    const float fg = __uint_as_float(0x4B000000u | g) - 8388608.0f;
    const float fb = __uint_as_float(0x4B000000u | b) - 8388608.0f;
    const float v = fmaf(kBlueWeight, fb, fmaf(kGreenWeight, fg, kRedWeight * fr));
    return __float_as_uint(__fadd_rz(v, 8388608.0f)) & 0xffu;
  }
};

// Non-looping vector body with K chunks per thread (T apart) and P pixels per chunk.
template <GrayLayout L, int P, int K, CacheHint H, class F>
struct VecBody {
  __device__ static void run(const GrayArgs& a) {
    const DeviceCtx t = DeviceCtx::from_builtins();
    const GrayVecPlan plan = gray_vec_plan<L, P>(a);
    const long long T = static_cast<long long>(t.blockDim.x) * t.blockDim.y * t.blockDim.z;
    const long long tid = linear_thread_in_block(t);
    const long long g = static_cast<long long>(t.blockIdx.x) * T + tid;
    gray_vec_chunks<L, P, K, H, F>(a, plan, static_cast<long long>(t.blockIdx.x) * T * K + tid, T);
    if (g < plan.head) a.out[g] = gray_pixel<L>(a, g);
    if (g < plan.tail) a.out[a.n - plan.tail + g] = gray_pixel<L>(a, a.n - plan.tail + g);
  }
  static constexpr int kChunkPixels = P * K;
  static constexpr bool kGridStride = false;
};

template <GrayLayout L, int P, int K, CacheHint H, class F>
struct StrideBody {
  __device__ static void run(const GrayArgs& a) { gray_grid_stride_loop<L, K, H, P, F>(DeviceCtx::from_builtins(), a); }
  static constexpr int kChunkPixels = P * K;
  static constexpr bool kGridStride = true;
};

template <GrayLayout L, int K>
struct IlpBody {
  __device__ static void run(const GrayArgs& a) { gray_ilp_thread<L, K>(DeviceCtx::from_builtins(), a); }
  static constexpr int kChunkPixels = K;
  static constexpr bool kGridStride = false;
};

template <class Body>
__global__ void explore_kernel(GrayArgs a) {
  Body::run(a);
}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
}

// ------------------------------------------------------------------------------------------------
// Variants
// ------------------------------------------------------------------------------------------------

struct Variant {
  std::string name;
  std::string kind;  // "copy", "library", "rung", "explore"
  std::string config;
  int regs = -1;
  std::function<void(const GrayArgs&, void* copy_dst, cudaStream_t)> launch;
};

struct Setup {
  int sms = 0;
  int w = 0, h = 0;
  GrayLayout layout = GrayLayout::Planar;
  DeviceLimits limits;
};

template <class Body>
Variant explore(const std::string& name, const Setup& s, unsigned threads, int waves = 1) {
  Variant v;
  v.name = name;
  v.kind = "explore";
  cudaFuncAttributes fa{};
  TUNE_CHECK(cudaFuncGetAttributes(&fa, explore_kernel<Body>));
  v.regs = fa.numRegs;
  const long long n = static_cast<long long>(s.w) * s.h;
  const long long per_block = static_cast<long long>(threads) * Body::kChunkPixels;
  long long blocks = std::max<long long>((n + per_block - 1) / per_block, 1);
  if (Body::kGridStride) {
    int active = 0;
    TUNE_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, explore_kernel<Body>, static_cast<int>(threads), 0));
    blocks = std::min<long long>(blocks, static_cast<long long>(s.sms) * std::max(active, 1) * waves);
  }
  const unsigned grid = static_cast<unsigned>(blocks);
  v.config = std::to_string(grid) + " x " + std::to_string(threads);
  v.launch = [grid, threads](const GrayArgs& a, void*, cudaStream_t st) {
    explore_kernel<Body><<<grid, threads, 0, st>>>(a);
  };
  return v;
}

std::vector<Variant> variants(const Setup& s, bool rungs_only) {
  std::vector<Variant> out;
  const double bytes = gray_bytes_moved(s.layout, s.w, s.h);
  {
    Variant copy;
    copy.name = "copy (D2D)";
    copy.kind = "copy";
    const std::size_t half = static_cast<std::size_t>(bytes / 2);
    copy.config = std::to_string(half >> 20) + " MiB read + written";
    copy.launch = [half](const GrayArgs& a, void* dst, cudaStream_t st) {
      const void* src = a.planar_rgb ? static_cast<const void*>(a.planar_rgb) : a.rgba;
      cudaMemcpyAsync(dst, src, half, cudaMemcpyDeviceToDevice, st);
    };
    out.push_back(copy);
  }
  for (const GrayRung& rung : gray_rungs()) {
    Variant v;
    v.name = rung.info.id;
    v.kind = rung.body ? "rung" : "library";
    LaunchConfig cfg;
    if (rung.body) {
      auto attrs = gray_rung_attributes(rung, s.layout);
      if (!attrs) {
        std::fprintf(stderr, "%s\n", attrs.status().describe().c_str());
        std::exit(1);
      }
      v.regs = static_cast<int>(attrs->registers_per_thread);
      cfg = rung.launch_config(s.layout, rung.info.default_block, s.w, s.h, s.limits, attrs.value());
      v.config = to_string(cfg.grid) + " x " + to_string(cfg.block);
    } else {
      v.config = "CUB's";
    }
    const GrayRung* r = &rung;  // gray_rungs() lives as long as the program
    const GrayLayout l = s.layout;
    v.launch = [r, l, cfg](const GrayArgs& a, void*, cudaStream_t st) {
      if (Status st2 = launch_gray_rung(*r, l, cfg, a, nullptr, st); !st2) {
        std::fprintf(stderr, "launch failed: %s\n", st2.describe().c_str());
        std::exit(1);
      }
    };
    out.push_back(v);
  }
  if (rungs_only) {
    out.push_back(out.front());
    out.back().name = "copy (D2D, again)";
    return out;
  }

  constexpr CacheHint D = CacheHint::Default, S = CacheHint::Streaming;
  using GF = GrayFormula;
  using FF = FastFormula;
  auto add = [&](Variant v) { out.push_back(std::move(v)); };
  if (s.layout == GrayLayout::Planar) {
    constexpr GrayLayout L = GrayLayout::Planar;
    add(explore<IlpBody<L, 8>>("x:ilp K=8", s, 256));
    add(explore<VecBody<L, 16, 2, D, GF>>("x:vec K=2", s, 256));
    add(explore<VecBody<L, 16, 1, D, FF>>("x:vec fastcvt", s, 256));
    add(explore<VecBody<L, 16, 1, S, GF>>("x:vec streaming", s, 256));
    add(explore<StrideBody<L, 16, 2, D, GF>>("x:gs K=2", s, 256));
    add(explore<StrideBody<L, 16, 1, S, GF>>("x:gs streaming", s, 256));
    add(explore<StrideBody<L, 16, 1, D, FF>>("x:gs fastcvt", s, 256));
    add(explore<StrideBody<L, 16, 1, D, GF>>("x:gs b128", s, 128));
    add(explore<StrideBody<L, 16, 1, D, GF>>("x:gs b512", s, 512));
    add(explore<StrideBody<L, 16, 1, D, GF>>("x:gs waves x2", s, 256, 2));
  } else {
    constexpr GrayLayout L = GrayLayout::Rgba;
    add(explore<IlpBody<L, 8>>("x:ilp K=8", s, 256));
    add(explore<VecBody<L, 4, 1, D, GF>>("x:vec P=4 (run-1 rung)", s, 256));
    add(explore<VecBody<L, 4, 2, D, GF>>("x:vec P=4 K=2", s, 256));
    add(explore<VecBody<L, 16, 2, D, GF>>("x:vec K=2", s, 256));
    add(explore<VecBody<L, 16, 1, D, FF>>("x:vec fastcvt", s, 256));
    add(explore<VecBody<L, 16, 1, S, GF>>("x:vec streaming", s, 256));
    add(explore<StrideBody<L, 4, 1, D, GF>>("x:gs P=4", s, 256));
    add(explore<StrideBody<L, 4, 2, D, GF>>("x:gs P=4 K=2 (run-1 rung)", s, 256));
    add(explore<StrideBody<L, 16, 2, D, GF>>("x:gs K=2", s, 256));
    add(explore<StrideBody<L, 16, 1, S, GF>>("x:gs streaming", s, 256));
    add(explore<StrideBody<L, 16, 1, D, FF>>("x:gs fastcvt", s, 256));
    add(explore<StrideBody<L, 16, 1, D, GF>>("x:gs b128", s, 128));
    add(explore<StrideBody<L, 16, 1, D, GF>>("x:gs b512", s, 512));
  }
  // The copy again at the end: the ceiling is the larger of the two (clocks and heat drift).
  out.push_back(out.front());
  out.back().name = "copy (D2D, again)";
  return out;
}

// ------------------------------------------------------------------------------------------------
// Measurement
// ------------------------------------------------------------------------------------------------

struct Row {
  std::string size, layout, name, kind, config;
  int regs = -1;
  double median_ms = 0, min_ms = 0, max_ms = 0, gbs = 0, share_of_copy = 0, vs_cub = 0;
  bool correct = true;
  long long mismatches = 0;
};

std::uint64_t next_random(std::uint64_t& s) {  // xorshift64*
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 2685821657736338717ull;
}

struct Options {
  int reps = 60;
  int warmup = 5;
  std::vector<std::pair<int, int>> sizes;
  std::string json;
  bool rungs_only = false;
};

void measure(const Options& opt, int w, int h, GrayLayout layout, const cudaDeviceProp& prop,
             const DeviceLimits& limits, std::vector<Row>& rows) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const std::size_t src_bytes = static_cast<std::size_t>(bytes_read_per_pixel(layout)) * n;
  const double moved = gray_bytes_moved(layout, w, h);
  const std::size_t copy_bytes = static_cast<std::size_t>(moved / 2);
  const std::size_t l2 = static_cast<std::size_t>(prop.l2CacheSize);
  // Enough sets that a launch's own bytes (source + output) were last touched 4 x L2 ago.
  const std::size_t footprint = src_bytes + n;
  const int sets = static_cast<int>(std::clamp<std::size_t>((4 * l2 + footprint - 1) / footprint, 1, 16));

  // Fresh random pixels (seeded from the clock), the same in every set.
  std::uint64_t seed = static_cast<std::uint64_t>(std::time(nullptr)) * 0x9E3779B97F4A7C15ull | 1;
  std::vector<std::uint8_t> rgba(4 * n);
  for (std::size_t i = 0; i < rgba.size(); i += 8) {
    const std::uint64_t r = next_random(seed);
    std::memcpy(&rgba[i], &r, std::min<std::size_t>(8, rgba.size() - i));
  }
  std::vector<std::uint8_t> src_host;
  if (layout == GrayLayout::Planar) {
    src_host.resize(3 * n);
    rgba_to_planar_rgb(rgba.data(), w, h, src_host.data());
  } else {
    src_host = rgba;
  }
  std::vector<std::uint8_t> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = gray_value(rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]);

  std::vector<std::uint8_t*> src(sets), out(sets), copy_dst(sets);
  for (int k = 0; k < sets; ++k) {
    TUNE_CHECK(cudaMalloc(&src[k], src_bytes));
    TUNE_CHECK(cudaMalloc(&out[k], n));
    TUNE_CHECK(cudaMalloc(&copy_dst[k], copy_bytes));
    TUNE_CHECK(cudaMemcpy(src[k], src_host.data(), src_bytes, cudaMemcpyHostToDevice));
  }
  auto args_for = [&](int k) {
    GrayArgs a{};
    a.width = w;
    a.height = h;
    a.n = static_cast<int>(n);
    a.out = out[k];
    (layout == GrayLayout::Planar ? a.planar_rgb : a.rgba) = src[k];
    return a;
  };

  Setup s;
  s.sms = prop.multiProcessorCount;
  s.w = w;
  s.h = h;
  s.layout = layout;
  s.limits = limits;
  const auto vs = variants(s, opt.rungs_only);

  cudaStream_t stream;
  TUNE_CHECK(cudaStreamCreate(&stream));
  std::vector<cudaEvent_t> start(opt.reps), stop(opt.reps);
  for (int i = 0; i < opt.reps; ++i) {
    TUNE_CHECK(cudaEventCreate(&start[i]));
    TUNE_CHECK(cudaEventCreate(&stop[i]));
  }
  const long long spin_cycles = 60000;  // ~30 us at ~2 GHz
  const std::string size_text = std::to_string(w) + "x" + std::to_string(h);
  const std::size_t first_row = rows.size();
  // Clocks up before the first measurement: ~20 copies' worth of memory traffic.
  for (int i = 0; i < 20; ++i) vs.front().launch(args_for(i % sets), copy_dst[i % sets], stream);
  TUNE_CHECK(cudaStreamSynchronize(stream));
  for (const Variant& v : vs) {
    for (int k = 0; k < sets; ++k) TUNE_CHECK(cudaMemsetAsync(out[k], 0xff, n, stream));
    for (int i = 0; i < opt.warmup; ++i) v.launch(args_for(i % sets), copy_dst[i % sets], stream);
    TUNE_CHECK(cudaStreamSynchronize(stream));
    TUNE_CHECK(cudaGetLastError());
    int last = 0;
    for (int i = 0; i < opt.reps; ++i) {
      last = (opt.warmup + i) % sets;
      spin_kernel<<<1, 1, 0, stream>>>(spin_cycles);
      TUNE_CHECK(cudaEventRecord(start[i], stream));
      v.launch(args_for(last), copy_dst[last], stream);
      TUNE_CHECK(cudaEventRecord(stop[i], stream));
    }
    TUNE_CHECK(cudaStreamSynchronize(stream));
    TUNE_CHECK(cudaGetLastError());
    std::vector<double> ms(opt.reps);
    for (int i = 0; i < opt.reps; ++i) {
      float f = 0;
      TUNE_CHECK(cudaEventElapsedTime(&f, start[i], stop[i]));
      ms[i] = f;
    }
    Row r;
    r.size = size_text;
    r.layout = to_string(layout);
    r.name = v.name;
    r.kind = v.kind;
    r.config = v.config;
    r.regs = v.regs;
    r.median_ms = median_of(ms);
    r.min_ms = *std::min_element(ms.begin(), ms.end());
    r.max_ms = *std::max_element(ms.begin(), ms.end());
    r.gbs = moved / (r.median_ms * 1e6);
    if (v.kind != "copy") {
      std::vector<std::uint8_t> got(n);
      TUNE_CHECK(cudaMemcpy(got.data(), out[last], n, cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < n; ++i) r.mismatches += got[i] != expected[i];
      r.correct = r.mismatches == 0;
    }
    rows.push_back(r);
  }
  double copy_gbs = 0, cub_gbs = 0;
  for (std::size_t i = first_row; i < rows.size(); ++i) {
    if (rows[i].kind == "copy") copy_gbs = std::max(copy_gbs, rows[i].gbs);
    if (rows[i].kind == "library") cub_gbs = rows[i].gbs;
  }
  for (std::size_t i = first_row; i < rows.size(); ++i) {
    rows[i].share_of_copy = copy_gbs > 0 ? rows[i].gbs / copy_gbs : 0;
    rows[i].vs_cub = cub_gbs > 0 ? rows[i].gbs / cub_gbs : 0;
  }
  std::printf(
      "\n== %s %s: %.1f MB moved (%s), %d buffer set(s) rotating, %d reps, L2 %zu MB;"
      " %%copy against the larger copy figure\n",
      size_text.c_str(), to_string(layout), moved / 1e6, gray_bytes_note(layout).c_str(), sets, opt.reps, l2 >> 20);
  std::printf("%-30s %-8s %-22s %4s %9s %8s %7s %7s %s\n", "variant", "kind", "config", "regs", "median_ms", "GB/s",
              "%copy", "xCUB", "ok");
  for (std::size_t i = first_row; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("%-30s %-8s %-22s %4d %9.4f %8.1f %6.1f%% %7.3f %s\n", r.name.c_str(), r.kind.c_str(), r.config.c_str(),
                r.regs, r.median_ms, r.gbs, 100 * r.share_of_copy, r.vs_cub,
                r.kind == "copy" ? "-"
                : r.correct      ? "yes"
                                 : ("NO " + std::to_string(r.mismatches)).c_str());
  }
  std::fflush(stdout);
  for (int i = 0; i < opt.reps; ++i) {
    cudaEventDestroy(start[i]);
    cudaEventDestroy(stop[i]);
  }
  cudaStreamDestroy(stream);
  for (int k = 0; k < sets; ++k) {
    cudaFree(src[k]);
    cudaFree(out[k]);
    cudaFree(copy_dst[k]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      opt.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--size" && i + 1 < argc) {
      int w = 0, h = 0;
      if (std::sscanf(argv[++i], "%dx%d", &w, &h) == 2 && w > 0 && h > 0) opt.sizes.push_back({w, h});
    } else if (a == "--json" && i + 1 < argc) {
      opt.json = argv[++i];
    } else if (a == "--rungs-only") {
      opt.rungs_only = true;
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--size WxH]... [--json FILE] [--rungs-only]\n", argv[0]);
      return 2;
    }
  }
  if (opt.sizes.empty()) opt.sizes = {{8192, 8192}, {3840, 2160}};

  cudaDeviceProp prop{};
  TUNE_CHECK(cudaGetDeviceProperties(&prop, 0));
  auto limits = bs::cuda_device_limits(0);
  if (!limits) {
    std::fprintf(stderr, "%s\n", limits.status().describe().c_str());
    return 1;
  }
  std::printf("device: %s, %d SMs, L2 %d MB, sm_%d%d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              prop.major, prop.minor);

  std::vector<Row> rows;
  for (auto [w, h] : opt.sizes)
    for (GrayLayout l : kGrayLayouts) measure(opt, w, h, l, prop, limits.value(), rows);

  if (!opt.json.empty()) {
    JsonWriter j;
    j.begin_object().field("device", prop.name).field("reps", opt.reps).key("rows").begin_array();
    for (const Row& r : rows) {
      j.begin_object()
          .field("size", r.size)
          .field("layout", r.layout)
          .field("variant", r.name)
          .field("kind", r.kind)
          .field("config", r.config)
          .field("regs", r.regs)
          .field("median_ms", r.median_ms)
          .field("min_ms", r.min_ms)
          .field("max_ms", r.max_ms)
          .field("gbs", r.gbs)
          .field("share_of_copy", r.share_of_copy)
          .field("vs_cub", r.vs_cub)
          .field("correct", r.correct)
          .field("mismatches", r.mismatches)
          .end_object();
    }
    j.end_array().end_object();
    if (FILE* f = std::fopen(opt.json.c_str(), "w")) {
      std::fputs(j.str().c_str(), f);
      std::fclose(f);
    }
  }
  int wrong = 0;
  for (const Row& r : rows) wrong += !r.correct;
  std::printf("\n%d variant(s) wrong\n", wrong);
  return wrong == 0 ? 0 : 1;
}
