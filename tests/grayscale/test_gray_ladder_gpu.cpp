// The grayscale ladder on the GPU: every rung in both layouts, and CUB's DeviceTransform, bit-exact
// with the simulator (the same body runs in both) and with gray_value, within 1 of the double
// reference, at odd sizes with source and output starting 0..15 bytes past a 16-byte boundary.
// Device buffers are allocated to the exact byte (offset + size), so compute-sanitizer's memcheck
// sees any access past their ends. Skips visibly without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "device/cuda_device.hpp"
#include "device/device_buffer.hpp"
#include "gray_test_support.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_ladder_cuda.hpp"
#include "simulator/grid_simulator.hpp"
#include "trace/trace_buffer.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;
using bs::LaunchConfig;

struct Image {
  int w = 0, h = 0;
  std::uint32_t seed = 0;
  std::vector<std::uint8_t> rgba, planar, expected;
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

// Host bytes starting `offset` past a 64-byte boundary (the same misalignment mod 16 as the
// device buffer: cudaMalloc returns 256-byte aligned memory), so the simulator runs the very same
// head, body and tail as the GPU.
struct HostBytes {
  std::vector<std::uint8_t> storage;
  std::uint8_t* p = nullptr;
  HostBytes(std::size_t size, unsigned offset) : storage(size + 64 + 16) {
    const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    p = storage.data() + (64 - base % 64) % 64 + offset;
  }
};

// Device bytes allocated to the exact end: [base, base + offset + size).
struct DeviceBytes {
  bs::cuda::DeviceBuffer<std::uint8_t> buffer;
  std::uint8_t* p = nullptr;
  static DeviceBytes make(std::size_t size, unsigned offset) {
    DeviceBytes d;
    auto b = bs::cuda::DeviceBuffer<std::uint8_t>::allocate(size + offset);
    EXPECT_TRUE(b.ok()) << b.status().describe();
    if (!b.ok()) return d;
    d.buffer = std::move(b.value());
    d.p = d.buffer.get() + offset;
    return d;
  }
};

std::string what(const GrayRung& r, GrayLayout l, const Image& im, Dim3 block, unsigned so, unsigned oo) {
  return r.info.id + " " + to_string(l) + " " + std::to_string(im.w) + "x" + std::to_string(im.h) + " block " +
         bs::to_string(block) + " src+" + std::to_string(so) + " out+" + std::to_string(oo) + " (seed " +
         std::to_string(im.seed) + ")";
}

TEST(GrayLadderOnGpu, EveryRungAndLayoutIsBitExactWithTheSimulatorAtEveryAlignment) {
  BS_SKIP_WITHOUT_GPU();
  auto limits = bs::cuda_device_limits(0);
  ASSERT_TRUE(limits.ok()) << limits.status().describe();
  bs::sim::GridSimulator sim;
  const bs::DeviceLimits sim_limits = bs::sim::simulator_limits(sim.workers());

  // 4000 x 3 and 2048 x 33 (n a multiple of 16) at offsets (0, 0): every buffer 16-byte aligned,
  // the case a rung may take a shorter path for; 2048 x 33 is several blocks of chunks.
  const std::vector<std::pair<int, int>> sizes{{1, 1},    {1, 5000}, {1023, 767}, {4000, 3}, {2048, 33},
                                               {8191, 1}, {17, 3},   {33, 7},     {31, 1}};
  const std::pair<unsigned, unsigned> offsets[] = {{0, 0}, {1, 5}, {7, 15}, {15, 1}, {3, 8}};
  int compared = 0;
  for (auto [w, h] : sizes) {
    const Image im = random_image(w, h);
    const std::size_t n = im.expected.size();
    for (const GrayRung& rung : gray_rungs())
      for (GrayLayout l : kGrayLayouts) {
        const GrayRung& r = rung;
        bs::KernelAttributes attrs;
        if (rung.body) {
          auto a = gray_rung_attributes(r, l);
          ASSERT_TRUE(a.ok()) << a.status().describe();
          attrs = a.value();
          EXPECT_EQ(attrs.local_bytes_per_thread, 0u) << rung.info.id << " spills to local memory";
        }
        std::vector<Dim3> blocks{rung.info.default_block};
        if (rung.body) blocks.push_back(rung.info.block_rank == 2 ? Dim3{7, 13, 1} : Dim3{100, 1, 1});
        for (Dim3 block : blocks)
          for (auto [so, oo] : offsets) {
            SCOPED_TRACE(what(r, l, im, block, so, oo));
            const auto& bytes = l == GrayLayout::Planar ? im.planar : im.rgba;
            DeviceBytes src = DeviceBytes::make(bytes.size(), so);
            DeviceBytes out = DeviceBytes::make(n, oo);
            ASSERT_NE(src.p, nullptr);
            ASSERT_NE(out.p, nullptr);
            ASSERT_EQ(cudaMemcpy(src.p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemset(out.p, 0xff, n), cudaSuccess);
            GrayArgs a{};
            a.width = w;
            a.height = h;
            a.n = w * h;
            a.out = out.p;
            (l == GrayLayout::Planar ? a.planar_rgb : a.rgba) = src.p;

            const LaunchConfig cfg = r.launch_config(l, block, w, h, limits.value(), attrs);
            const auto refusal = check_gray_rung_launch(r, l, cfg, w, h, limits.value(), &attrs);
            ASSERT_TRUE(refusal.ok()) << refusal.describe();
            const auto launched = launch_gray_rung(r, l, cfg, a, nullptr, nullptr);
            ASSERT_TRUE(launched.ok()) << launched.describe();
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            std::vector<std::uint8_t> from_gpu(n);
            ASSERT_EQ(cudaMemcpy(from_gpu.data(), out.p, n, cudaMemcpyDeviceToHost), cudaSuccess);

            for (std::size_t i = 0; i < n; ++i)
              ASSERT_EQ(int(from_gpu[i]), int(im.expected[i]))
                  << "pixel " << i << (from_gpu[i] == 0xff ? " never written" : " != gray_value");
            expect_matches_reference(im.rgba, w, h, from_gpu, what(r, l, im, block, so, oo).c_str(), im.seed);
            if (rung.body) {
              // The simulator, on host buffers at the same misalignments, with the simulator's
              // own grid (the GPU's grid-stride grid comes from the device).
              HostBytes hs(bytes.size(), so), ho(n, oo);
              std::memcpy(hs.p, bytes.data(), bytes.size());
              std::memset(ho.p, 0xff, n);
              GrayArgs ha = a;
              ha.out = ho.p;
              (l == GrayLayout::Planar ? ha.planar_rgb : ha.rgba) = hs.p;
              EXPECT_EQ(r.plan(l, ha).head, r.plan(l, a).head);
              EXPECT_EQ(r.plan(l, ha).tail, r.plan(l, a).tail);
              const LaunchConfig scfg = r.launch_config(l, block, w, h, sim_limits, bs::KernelAttributes{});
              ASSERT_TRUE(r.simulate(sim, l, scfg, ha, {}).status.ok());
              ASSERT_EQ(0, std::memcmp(from_gpu.data(), ho.p, n)) << "GPU and simulator disagree";
            }
            ++compared;
          }
      }
  }
  EXPECT_GT(compared, 500);
}

TEST(GrayLadderOnGpu, TracedWrappersRecordEveryBlockOnceAndComputeTheSamePixels) {
  BS_SKIP_WITHOUT_GPU();
  auto limits = bs::cuda_device_limits(0);
  ASSERT_TRUE(limits.ok());
  const Image im = random_image(1023, 767);
  const std::size_t n = im.expected.size();
  for (const GrayRung& rung : gray_rungs()) {
    if (!rung.body) continue;
    for (GrayLayout l : kGrayLayouts) {
      SCOPED_TRACE(rung.info.id + " " + to_string(l));
      const auto& bytes = l == GrayLayout::Planar ? im.planar : im.rgba;
      DeviceBytes src = DeviceBytes::make(bytes.size(), 0), out = DeviceBytes::make(n, 3);
      ASSERT_EQ(cudaMemcpy(src.p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemset(out.p, 0xff, n), cudaSuccess);
      GrayArgs a{};
      a.width = im.w;
      a.height = im.h;
      a.n = im.w * im.h;
      a.out = out.p;
      (l == GrayLayout::Planar ? a.planar_rgb : a.rgba) = src.p;
      auto attrs = gray_rung_attributes(rung, l);
      ASSERT_TRUE(attrs.ok());
      const LaunchConfig cfg =
          rung.launch_config(l, rung.info.default_block, im.w, im.h, limits.value(), attrs.value());
      auto trace = bs::trace::TraceBuffer::allocate(cfg.grid);
      ASSERT_TRUE(trace.ok()) << trace.status().describe();
      ASSERT_TRUE(launch_gray_rung(rung, l, cfg, a, trace->records(), nullptr).ok());
      auto schedule = trace->collect(limits->sm_count);
      ASSERT_TRUE(schedule.ok()) << schedule.status().describe();
      EXPECT_EQ(schedule->size(), cfg.total_blocks());
      std::vector<std::uint8_t> got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), out.p, n, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(got, im.expected);
    }
  }
}

TEST(GrayLadderOnGpu, AttributesComeFromTheCompiledKernels) {
  BS_SKIP_WITHOUT_GPU();
  for (const GrayRung& rung : gray_rungs())
    for (GrayLayout l : kGrayLayouts) {
      auto a = gray_rung_attributes(rung, l);
      if (!rung.body) {
        EXPECT_FALSE(a.ok());
        continue;
      }
      ASSERT_TRUE(a.ok()) << a.status().describe();
      EXPECT_GT(a->registers_per_thread, 0u) << rung.info.id;
      EXPECT_GE(a->max_threads_per_block, 256u) << rung.info.id;
    }
}

}  // namespace
