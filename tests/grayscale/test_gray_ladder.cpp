// The grayscale ladder on the CPU simulator: every rung in both layouts, on odd sizes, with source
// and output buffers starting 0..15 bytes past a 16-byte boundary (rows that start unaligned,
// planes mutually misaligned), fresh random pixels each run and the output poisoned first.
//
// Section index
//   helpers                 buffers at a chosen misalignment, random images, expected pixels
//   LadderOnSimulator       bit-exact with gray_value per pixel, within 1 of the double reference
//   LadderOwnership         which thread writes each pixel, recorded by running every thread alone,
//                           against what the launch's IndexScheme says (owner arithmetic written
//                           here from index_scheme.hpp's documentation, not the product's)
//   LadderVecPlan           every 16-byte access of the plan stays inside its stream and aligned
//   LadderGuardPages        the real kernels next to unreadable pages: no byte past the buffers
//   LadderLaunchRules       the grid rules and refusals
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "gray_test_support.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_registry.hpp"
#include "mapping/occupancy.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;
using bs::IndexScheme;
using bs::LaunchConfig;

// ------------------------------------------------------------------------------------------------
// helpers
// ------------------------------------------------------------------------------------------------

std::vector<GrayRung> kernel_rungs() {
  std::vector<GrayRung> r;
  for (const GrayRung& rung : gray_rungs())
    if (rung.body) r.push_back(rung);
  return r;
}

// `size` bytes whose first byte sits `offset` bytes past a 64-byte boundary.
class OffsetBuffer {
 public:
  OffsetBuffer(std::size_t size, unsigned offset) : storage_(size + 64 + 16), size_(size) {
    const auto base = reinterpret_cast<std::uintptr_t>(storage_.data());
    p_ = storage_.data() + ((64 - base % 64) % 64) + offset;
  }
  std::uint8_t* data() { return p_; }
  std::size_t size() const { return size_; }

 private:
  std::vector<std::uint8_t> storage_;
  std::size_t size_;
  std::uint8_t* p_;
};

struct Image {
  int w = 0, h = 0;
  std::uint32_t seed = 0;
  std::vector<std::uint8_t> rgba, planar, expected;  // expected: gray_value per pixel
};

Image random_image(int w, int h) {
  Image im;
  im.w = w;
  im.h = h;
  im.seed = fresh_seed();
  im.rgba = random_rgba(w, h, im.seed);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  im.planar.resize(3 * n);
  rgba_to_planar_rgb(im.rgba.data(), w, h, im.planar.data());
  im.expected.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    im.expected[i] = gray_value(im.rgba[4 * i], im.rgba[4 * i + 1], im.rgba[4 * i + 2]);
  return im;
}

// The image's source in layout `l` and an output, at the given misalignments.
struct Buffers {
  OffsetBuffer src, out;
  GrayArgs args{};
  Buffers(const Image& im, GrayLayout l, unsigned src_off, unsigned out_off)
      : src(l == GrayLayout::Planar ? im.planar.size() : im.rgba.size(), src_off), out(im.expected.size(), out_off) {
    const auto& bytes = l == GrayLayout::Planar ? im.planar : im.rgba;
    std::memcpy(src.data(), bytes.data(), bytes.size());
    std::memset(out.data(), 0xff, out.size());  // 255: a value gray_value never produces
    args.out = out.data();
    args.width = im.w;
    args.height = im.h;
    args.n = im.w * im.h;
    if (l == GrayLayout::Planar) args.planar_rgb = src.data();
    else args.rgba = src.data();
  }
};

std::string what(const GrayRung& r, GrayLayout l, const Image& im, Dim3 block, unsigned so, unsigned oo) {
  return r.info.id + " " + to_string(l) + " " + std::to_string(im.w) + "x" + std::to_string(im.h) + " block " +
         bs::to_string(block) + " src+" + std::to_string(so) + " out+" + std::to_string(oo) + " (seed " +
         std::to_string(im.seed) + ")";
}

LaunchConfig rule_config(const GrayRung& r, GrayLayout l, Dim3 block, int w, int h, const bs::DeviceLimits& limits) {
  return r.launch_config(l, block, w, h, limits, bs::KernelAttributes{});
}

std::vector<Dim3> blocks_for(const GrayRung& r, std::size_t n) {
  if (r.info.block_rank == 2) {
    std::vector<Dim3> b{{16, 16, 1}, {7, 13, 1}, {32, 8, 1}};
    if (n <= 100000) b.push_back({1, 1, 1});
    return b;
  }
  std::vector<Dim3> b{{256, 1, 1}, {100, 1, 1}, {16, 4, 2}};
  if (n <= 100000) b.push_back({1, 1, 1});
  return b;
}

bs::sim::GridSimulator& simulator() {
  static bs::sim::GridSimulator sim;
  return sim;
}

// ------------------------------------------------------------------------------------------------
// LadderOnSimulator
// ------------------------------------------------------------------------------------------------

struct SizeCase {
  int w, h;
};

class LadderOnSimulator : public ::testing::TestWithParam<SizeCase> {};

TEST_P(LadderOnSimulator, EveryRungAndLayoutIsExactAtEveryAlignment) {
  const SizeCase s = GetParam();
  const Image im = random_image(s.w, s.h);
  const std::size_t n = im.expected.size();
  const bs::DeviceLimits limits = bs::sim::simulator_limits(simulator().workers());
  const std::pair<unsigned, unsigned> offsets[] = {{0, 0}, {1, 5}, {7, 15}, {15, 1}, {3, 8}, {12, 4}};
  for (const GrayRung& r : kernel_rungs())
    for (GrayLayout l : kGrayLayouts)
      for (Dim3 block : blocks_for(r, n))
        for (auto [so, oo] : offsets) {
          Buffers b(im, l, so, oo);
          const LaunchConfig cfg = rule_config(r, l, block, s.w, s.h, limits);
          ASSERT_TRUE(check_gray_rung_launch(r, l, cfg, s.w, s.h, limits, nullptr).ok())
              << what(r, l, im, block, so, oo) << ": "
              << check_gray_rung_launch(r, l, cfg, s.w, s.h, limits, nullptr).describe();
          const auto res = r.simulate(simulator(), l, cfg, b.args, {});
          ASSERT_TRUE(res.status.ok()) << res.status.describe();
          std::vector<std::uint8_t> got(b.out.data(), b.out.data() + n);
          for (std::size_t i = 0; i < n; ++i)
            ASSERT_EQ(int(got[i]), int(im.expected[i]))
                << what(r, l, im, block, so, oo) << ": pixel " << i
                << (got[i] == 0xff ? " was never written" : " differs from gray_value");
          expect_matches_reference(im.rgba, s.w, s.h, got, what(r, l, im, block, so, oo).c_str(), im.seed);
        }
}

INSTANTIATE_TEST_SUITE_P(OddSizes, LadderOnSimulator,
                         ::testing::Values(SizeCase{1, 1}, SizeCase{1, 5000}, SizeCase{1023, 767}, SizeCase{4000, 3},
                                           SizeCase{8191, 1}, SizeCase{17, 3}, SizeCase{33, 7}, SizeCase{5, 5},
                                           SizeCase{100, 1}, SizeCase{31, 1}),
                         [](const auto& p) { return std::to_string(p.param.w) + "x" + std::to_string(p.param.h); });

// n a multiple of 16: at offsets (0, 0) every stream and the output are 16-byte aligned, the case a
// rung may take a shorter path for (gray_vec16_aligned.hpp); several blocks of chunks, the last one
// partly past the end. The other offsets take the general path on the same image.
INSTANTIATE_TEST_SUITE_P(AlignedSizes, LadderOnSimulator,
                         ::testing::Values(SizeCase{320, 41}, SizeCase{16, 1}, SizeCase{96, 2}, SizeCase{2048, 3}),
                         [](const auto& p) { return std::to_string(p.param.w) + "x" + std::to_string(p.param.h); });

// ------------------------------------------------------------------------------------------------
// LadderOwnership
// ------------------------------------------------------------------------------------------------

constexpr std::uint32_t kNobody = 0xffffffffu;

// The owner of pixel e as index_scheme.hpp documents it, written independently of the product's
// mapping code: the global linear thread (linear block * threads per block + linear thread).
std::uint32_t scheme_owner(const IndexScheme& s, const LaunchConfig& c, long long w, long long n, long long e) {
  const long long T = static_cast<long long>(c.block.x) * c.block.y * c.block.z;
  if (s.kind == IndexScheme::Kind::Grid2D) {
    const long long x = e % w, y = e / w;
    const long long bx = x / c.block.x, tx = x % c.block.x, by = y / c.block.y, ty = y % c.block.y;
    if (bx >= c.grid.x || by >= c.grid.y) return kNobody;
    return static_cast<std::uint32_t>((bx + static_cast<long long>(c.grid.x) * by) * T + tx +
                                      static_cast<long long>(c.block.x) * ty);
  }
  EXPECT_EQ(s.kind, IndexScheme::Kind::Flat);
  const long long G = static_cast<long long>(c.grid.x) * T;
  if (e < s.head) return static_cast<std::uint32_t>(s.grid_stride ? e % G : e);
  if (e >= n - s.tail) {
    const long long r = e - (n - s.tail);
    return static_cast<std::uint32_t>(s.grid_stride ? r % G : r);
  }
  const long long chunk = (e - s.head) / s.vector;
  const long long K = s.per_thread;
  const long long block = (chunk / (T * K)) % c.grid.x;
  const long long thread = chunk % T;
  if (!s.grid_stride && chunk / (T * K) >= c.grid.x) return kNobody;
  return static_cast<std::uint32_t>(block * T + thread);
}

// Runs each thread of the launch alone and records which pixels it wrote.
std::vector<std::uint32_t> recorded_owners(const GrayRung& r, GrayLayout l, const LaunchConfig& c, Buffers& b) {
  const std::size_t n = static_cast<std::size_t>(b.args.n);
  std::vector<std::uint32_t> owner(n, kNobody);
  const unsigned long long T = c.block.volume();
  for (unsigned bz = 0; bz < c.grid.z; ++bz)
    for (unsigned by = 0; by < c.grid.y; ++by)
      for (unsigned bx = 0; bx < c.grid.x; ++bx)
        for (unsigned tz = 0; tz < c.block.z; ++tz)
          for (unsigned ty = 0; ty < c.block.y; ++ty)
            for (unsigned tx = 0; tx < c.block.x; ++tx) {
              bs::sim::HostCtx t;
              t.blockIdx = {bx, by, bz};
              t.threadIdx = {tx, ty, tz};
              t.blockDim = c.block;
              t.gridDim = c.grid;
              const unsigned long long lb = bx + 1ull * c.grid.x * (by + 1ull * c.grid.y * bz);
              const auto g = static_cast<std::uint32_t>(lb * T + bs::linear_thread_in_block(t));
              r.thread(l, t, b.args);
              for (std::size_t e = 0; e < n; ++e) {
                if (b.out.data()[e] == 0xff) continue;
                EXPECT_EQ(owner[e], kNobody) << "pixel " << e << " written by threads " << owner[e] << " and " << g;
                owner[e] = g;
                b.out.data()[e] = 0xff;
              }
            }
  return owner;
}

TEST(LadderOwnership, EachPixelIsWrittenByTheThreadTheIndexSchemeNames) {
  const bs::DeviceLimits limits = bs::sim::simulator_limits(2);
  // 32 x 35: 70 chunks of 16, several blocks of K chunks per thread (and n % 16 == 0).
  const SizeCase sizes[] = {{37, 3}, {1, 1}, {200, 1}, {5, 13}, {64, 4}, {31, 1}, {32, 35}};
  const Dim3 flat_blocks[] = {{32, 1, 1}, {7, 1, 1}, {4, 2, 2}};
  const Dim3 grid_blocks[] = {{8, 4, 1}, {3, 5, 1}};
  const std::pair<unsigned, unsigned> offsets[] = {{0, 0}, {5, 3}, {15, 9}, {2, 14}};
  int checked = 0;
  for (SizeCase s : sizes) {
    const Image im = random_image(s.w, s.h);
    const long long n = static_cast<long long>(s.w) * s.h;
    for (const GrayRung& r : kernel_rungs())
      for (GrayLayout l : kGrayLayouts)
        for (auto [so, oo] : offsets) {
          std::vector<Dim3> blocks;
          if (r.info.block_rank == 2) blocks.assign(std::begin(grid_blocks), std::end(grid_blocks));
          else blocks.assign(std::begin(flat_blocks), std::end(flat_blocks));
          for (Dim3 block : blocks) {
            std::vector<LaunchConfig> configs{rule_config(r, l, block, s.w, s.h, limits)};
            if (r.info.fixed_grid_allowed)  // fixed grids: several passes, head/tail loops
              for (unsigned g : {1u, 2u, 3u}) configs.push_back(LaunchConfig{{g, 1, 1}, block, 0});
            for (const LaunchConfig& c : configs) {
              Buffers b(im, l, so, oo);
              const auto scheme = r.scheme(l, b.args);
              ASSERT_TRUE(scheme.has_value());
              const auto owners = recorded_owners(r, l, c, b);
              for (long long e = 0; e < n; ++e) {
                ASSERT_NE(owners[e], kNobody) << what(r, l, im, block, so, oo) << " grid " << bs::to_string(c.grid)
                                              << ": nobody wrote pixel " << e;
                ASSERT_EQ(owners[e], scheme_owner(*scheme, c, s.w, n, e))
                    << what(r, l, im, block, so, oo) << " grid " << bs::to_string(c.grid) << ": pixel " << e
                    << " (scheme: " << bs::describe(*scheme) << ")";
              }
              ++checked;
            }
          }
        }
  }
  EXPECT_GT(checked, 500);
}

// ------------------------------------------------------------------------------------------------
// LadderVecPlan
// ------------------------------------------------------------------------------------------------

// From first principles: chunk c of stream s reads aligned 16-byte words starting at the aligned
// address at or below its first byte, enough to cover its k*P bytes.
template <GrayLayout L, int P>
void check_plan(const GrayArgs& a, const std::string& what) {
  using S = GrayStreams<L>;
  constexpr long long k = S::kBytesPerPixel;
  const GrayVecPlan plan = gray_vec_plan<L, P>(a);
  const long long n = a.n;
  ASSERT_GE(plan.head, 0) << what;
  ASSERT_GE(plan.tail, 0) << what;
  ASSERT_EQ(plan.head + P * plan.vectors + plan.tail, n) << what;
  if (plan.vectors > 0) {
    ASSERT_LT(plan.head, 2 * P) << what;
    ASSERT_LT(plan.tail, 2 * P + 16) << what;
  }
  for (long long c = 0; c < plan.vectors; ++c) {
    const long long px = plan.head + c * P;
    const auto out = reinterpret_cast<std::uintptr_t>(a.out + px);
    ASSERT_EQ(out % P, 0u) << what << ": output of chunk " << c << " misaligned";
    for (int s = 0; s < S::kCount; ++s) {
      const auto lo = reinterpret_cast<std::uintptr_t>(S::base(a, s));
      const std::uintptr_t hi = lo + k * n;
      const std::uintptr_t first = lo + k * px, last = first + k * P;  // needed [first, last)
      const std::uintptr_t word0 = first - first % 16;
      const std::uintptr_t words_end = (last + 15) / 16 * 16;
      ASSERT_EQ(first % 16, plan.shift[s]) << what << ": stream " << s << " chunk " << c;
      ASSERT_GE(word0, lo) << what << ": stream " << s << " chunk " << c << " reads before it";
      ASSERT_LE(words_end, hi) << what << ": stream " << s << " chunk " << c << " reads past it";
    }
  }
}

TEST(LadderVecPlan, EveryAccessIsAlignedAndInsideItsStream) {
  std::vector<std::uint8_t> storage(3 * 4096 + 256), out_storage(4096 + 256);
  const auto align64 = [](std::uint8_t* p) { return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64; };
  std::uint8_t* src0 = align64(storage.data());
  std::uint8_t* out0 = align64(out_storage.data());
  for (int n = 1; n <= 200; ++n)
    for (unsigned so = 0; so < 16; ++so)
      for (unsigned oo = 0; oo < 16; ++oo) {
        GrayArgs a{};
        a.n = n;
        a.width = n;
        a.height = 1;
        a.planar_rgb = src0 + so;
        a.rgba = src0 + so;
        a.out = out0 + oo;
        const std::string w = "n=" + std::to_string(n) + " src+" + std::to_string(so) + " out+" + std::to_string(oo);
        check_plan<GrayLayout::Planar, 16>(a, "planar " + w);
        check_plan<GrayLayout::Rgba, 4>(a, "rgba P=4 " + w);
        check_plan<GrayLayout::Rgba, 16>(a, "rgba P=16 " + w);
        if (HasFatalFailure()) return;
      }
}

TEST(LadderVecPlan, LargeAlignedImagesAreAlmostAllVectors) {
  std::vector<std::uint8_t> src(3 * 4096 + 64), out(4096 + 64);
  GrayArgs a{};
  a.n = 4096;
  a.planar_rgb = src.data() + (64 - reinterpret_cast<std::uintptr_t>(src.data()) % 64) % 64;
  a.out = out.data() + (64 - reinterpret_cast<std::uintptr_t>(out.data()) % 64) % 64;
  const GrayVecPlan p = gray_vec_plan<GrayLayout::Planar, 16>(a);
  EXPECT_EQ(p.head, 0);
  EXPECT_EQ(p.tail, 0);
  EXPECT_EQ(p.vectors, 256);
  // n = 4095: planes G and B sit 15 and 14 bytes off; the body keeps them 16 bytes wide.
  a.n = 4095;
  const GrayVecPlan q = gray_vec_plan<GrayLayout::Planar, 16>(a);
  EXPECT_EQ(q.shift[0], 0u);
  EXPECT_EQ(q.shift[1], 15u);
  EXPECT_EQ(q.shift[2], 14u);
  EXPECT_EQ(q.head, 16);  // k * head >= shift pushes the body one chunk on
  EXPECT_GE(q.vectors, 250);
}

// ------------------------------------------------------------------------------------------------
// LadderGuardPages
// ------------------------------------------------------------------------------------------------

#if defined(__linux__)
// `size` bytes that end exactly where an unreadable page begins: a read or write past the end
// faults (the test crashes, which ctest reports as a failure).
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t size) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    data_pages_ = (size + page_ - 1) / page_;
    void* m = mmap(nullptr, (data_pages_ + 1) * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    base_ = static_cast<std::uint8_t*>(m);
    mprotect(base_ + data_pages_ * page_, page_, PROT_NONE);
    p_ = base_ + data_pages_ * page_ - size;
  }
  ~GuardedBuffer() {
    if (base_) munmap(base_, (data_pages_ + 1) * page_);
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  std::uint8_t* data() const { return p_; }

 private:
  std::size_t page_ = 0, data_pages_ = 0;
  std::uint8_t* base_ = nullptr;
  std::uint8_t* p_ = nullptr;
};

TEST(LadderGuardPages, NoRungReadsOrWritesPastItsBuffers) {
  const bs::DeviceLimits limits = bs::sim::simulator_limits(2);
  // Buffers ending at a page end start at (-size) mod 16: these sizes cover every alignment.
  for (int w = 1; w <= 48; ++w)
    for (int h : {1, 3, 7}) {
      const Image im = random_image(w, h);
      const std::size_t n = im.expected.size();
      for (const GrayRung& r : kernel_rungs())
        for (GrayLayout l : kGrayLayouts) {
          const auto& bytes = l == GrayLayout::Planar ? im.planar : im.rgba;
          GuardedBuffer src(bytes.size()), out(n);
          ASSERT_NE(src.data(), nullptr);
          std::memcpy(src.data(), bytes.data(), bytes.size());
          std::memset(out.data(), 0xff, n);
          GrayArgs a{};
          a.width = w;
          a.height = h;
          a.n = w * h;
          a.out = out.data();
          (l == GrayLayout::Planar ? a.planar_rgb : a.rgba) = src.data();
          const Dim3 block = r.info.block_rank == 2 ? Dim3{8, 4, 1} : Dim3{32, 1, 1};
          const auto cfg = rule_config(r, l, block, w, h, limits);
          ASSERT_TRUE(r.simulate(simulator(), l, cfg, a, {}).status.ok());
          ASSERT_TRUE(std::equal(im.expected.begin(), im.expected.end(), out.data())) << what(r, l, im, block, 0, 0);
        }
    }
}
#endif

// ------------------------------------------------------------------------------------------------
// LadderLaunchRules
// ------------------------------------------------------------------------------------------------

bs::DeviceLimits h200_like() {
  bs::DeviceLimits d;
  d.name = "H200-like";
  d.compute_major = 9;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.shared_per_sm = 228 * 1024;
  d.reserved_shared_per_block = 1024;
  return d;
}

TEST(LadderLaunchRules, IdsAreStableAndUnique) {
  const char* ids[] = {"gray_1d_flat",       "gray_2d",      "gray_ilp4", "gray_vec16", "gray_grid_stride",
                       "gray_vec16_aligned", "cub_transform"};
  ASSERT_EQ(gray_rungs().size(), std::size(ids));
  for (std::size_t i = 0; i < std::size(ids); ++i) {
    EXPECT_EQ(gray_rungs()[i].info.id, ids[i]);
    EXPECT_EQ(gray_rungs()[i].kernel, static_cast<GrayKernel>(i));
    EXPECT_EQ(find_gray_rung(gray_rungs(), ids[i]), &gray_rungs()[i]);
  }
  EXPECT_EQ(find_gray_rung(gray_rungs(), "gray_nope"), nullptr);
  EXPECT_EQ(gray_layout_from_name("rgba"), GrayLayout::Rgba);
  EXPECT_TRUE(gray_rung(GrayKernel::CubTransform).info.timed_only);
  EXPECT_FALSE(gray_rung(GrayKernel::CubTransform).body);
}

TEST(LadderLaunchRules, GridStrideGridIsOneWaveOfResidentBlocks) {
  const bs::DeviceLimits d = h200_like();
  bs::KernelAttributes k;
  k.registers_per_thread = 32;  // 8 blocks of 256 threads fit (2048 threads per SM)
  auto c = gray_rung(GrayKernel::GridStride).launch_config(GrayLayout::Planar, {256, 1, 1}, 8192, 8192, d, k);
  EXPECT_EQ(c.grid, (Dim3{132 * 8, 1, 1}));
  k.registers_per_thread = 72;  // 2304 registers per warp: 7 warps per sub-partition, 3 blocks
  c = gray_rung(GrayKernel::GridStride).launch_config(GrayLayout::Planar, {256, 1, 1}, 8192, 8192, d, k);
  EXPECT_EQ(c.grid, (Dim3{132 * 3, 1, 1}));
  // A small image needs fewer blocks than one wave: 100 x 100 planar is 625 chunks of 16 pixels.
  c = gray_rung(GrayKernel::GridStride).launch_config(GrayLayout::Planar, {256, 1, 1}, 100, 100, d, k);
  EXPECT_EQ(c.grid, (Dim3{3, 1, 1}));
  // The non-looping vector rung covers every chunk: 8192^2 / 16 chunks of 256 threads.
  c = gray_rung(GrayKernel::Vec16).launch_config(GrayLayout::Planar, {256, 1, 1}, 8192, 8192, d, k);
  EXPECT_EQ(c.grid, (Dim3{8192u * 8192u / 16 / 256, 1, 1}));
  c = gray_rung(GrayKernel::Vec16).launch_config(GrayLayout::Rgba, {256, 1, 1}, 8192, 8192, d, k);
  EXPECT_EQ(c.grid, (Dim3{8192u * 8192u / 16 / 256, 1, 1}));
  c = gray_rung(GrayKernel::Ilp4).launch_config(GrayLayout::Rgba, {128, 1, 1}, 1023, 767, d, k);
  EXPECT_EQ(c.grid, (Dim3{static_cast<unsigned>(bs::ceil_div(1023 * 767, 512)), 1, 1}));
}

TEST(LadderLaunchRules, RefusalsSayWhy) {
  const bs::DeviceLimits d = h200_like();
  // 2D with z extent.
  auto c = gray_rung(GrayKernel::Grid2D).launch_config(GrayLayout::Rgba, {8, 8, 2}, 64, 64, d, {});
  auto s = check_gray_rung_launch(gray_rung(GrayKernel::Grid2D), GrayLayout::Rgba, c, 64, 64, d, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("blockDim.z"), std::string::npos) << s.message;
  // A fixed grid too small for a rung that does not loop.
  c = gray_rung(GrayKernel::Vec16).launch_config(GrayLayout::Planar, {256, 1, 1}, 1023, 767, d, {});
  c.grid.x -= 1;
  s = check_gray_rung_launch(gray_rung(GrayKernel::Vec16), GrayLayout::Planar, c, 1023, 767, d, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("too small"), std::string::npos) << s.message;
  // ... but any grid is fine for a grid-stride rung, as long as it is (x, 1, 1).
  c.grid = {1, 1, 1};
  EXPECT_TRUE(
      check_gray_rung_launch(gray_rung(GrayKernel::GridStride), GrayLayout::Planar, c, 1023, 767, d, nullptr).ok());
  c.grid = {4, 2, 1};
  s = check_gray_rung_launch(gray_rung(GrayKernel::GridStride), GrayLayout::Planar, c, 1023, 767, d, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("y or z extent"), std::string::npos) << s.message;
  // CUDA's own rules still apply, and no image is refused first.
  c = gray_rung(GrayKernel::Ilp4).launch_config(GrayLayout::Planar, {2048, 1, 1}, 64, 64, d, {});
  s = check_gray_rung_launch(gray_rung(GrayKernel::Ilp4), GrayLayout::Planar, c, 64, 64, d, nullptr);
  EXPECT_EQ(s.code, "cudaErrorInvalidConfiguration");
  s = check_gray_rung_launch(gray_rung(GrayKernel::Ilp4), GrayLayout::Planar, c, 0, 0, d, nullptr);
  EXPECT_NE(s.message.find("no image"), std::string::npos);
  // The library anchor has no grid of ours and no simulator body.
  c = gray_rung(GrayKernel::CubTransform).launch_config(GrayLayout::Planar, {256, 1, 1}, 64, 64, d, {});
  EXPECT_EQ(c.grid, (Dim3{0, 0, 0}));
  const GrayRung& cub = gray_rung(GrayKernel::CubTransform);
  EXPECT_FALSE(cub.scheme(GrayLayout::Planar, GrayArgs{}).has_value());
  GrayArgs a{};
  EXPECT_FALSE(cub.simulate(simulator(), GrayLayout::Planar, LaunchConfig{{1, 1, 1}, {1, 1, 1}, 0}, a, {}).status.ok());
  EXPECT_EQ(cub.thread, nullptr);
}

TEST(LadderLaunchRules, BytesCountedPerLayout) {
  EXPECT_DOUBLE_EQ(gray_bytes_moved(GrayLayout::Planar, 8192, 8192), 4.0 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(gray_bytes_moved(GrayLayout::Rgba, 3840, 2160), 5.0 * 3840 * 2160);
  EXPECT_NE(gray_bytes_note(GrayLayout::Rgba).find("4 bytes read"), std::string::npos);
}

}  // namespace
