// CounterSession on a real GPU: the counters of the lecture's kernels against napkin math and
// against sector counts computed here on the host, warp by warp (never by blockscope's own
// mapping code). Label `gpu`; skips visibly without a device.
//
// Sections: 1. kernels and data  2. host references  3. tests of values  4. tests of behaviour
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "gpu_skip.hpp"
#include "counters/counters.hpp"
#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"

#ifndef FAKE_CUPTI_PATH
#define FAKE_CUPTI_PATH ""
#endif

namespace {

using bs::Status;
using bs::counters::CounterSession;
using bs::counters::Measurement;

// ---- 1. kernels and data -------------------------------------------------------------------
__global__ void test_gray_1d(bs::gray::GrayArgs a) { bs::gray::gray_1d_flat_thread(bs::DeviceCtx::from_builtins(), a); }
__global__ void test_k1(bs::matmul::MatmulArgs a) {
  bs::matmul::NoSmem none;
  bs::matmul::k1_naive_thread(bs::DeviceCtx::from_builtins(), none, a);
}
__global__ void test_k2(bs::matmul::MatmulArgs a) {
  bs::matmul::NoSmem none;
  bs::matmul::k2_uncoalesced_thread(bs::DeviceCtx::from_builtins(), none, a);
}

template <class T>
bs::cuda::DeviceBuffer<T> random_buffer(std::size_t count, unsigned seed) {
  auto b = bs::cuda::DeviceBuffer<T>::allocate(count);
  EXPECT_TRUE(b.ok()) << b.status().describe();
  if (!b) return {};
  std::mt19937 rng(seed);
  std::vector<T> host(count);
  for (auto& x : host) x = static_cast<T>(rng() % 251);
  EXPECT_EQ(cudaMemcpy(b->get(), host.data(), count * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return std::move(b.value());
}

// Environments where counters cannot be read by design skip with the reason; anything else that
// stops a session is a failure.
bool environment_refuses(const Status& s) {
  for (const char* code : {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED",
                           "CUPTI_ERROR_HARDWARE_BUSY", "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED",
                           "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES"})
    if (s.code == code) return true;
  return s.call == "dlopen";
}

class Counters : public ::testing::Test {
 protected:
  void SetUp() override {
    BS_SKIP_WITHOUT_GPU();
    auto s = CounterSession::create(0);
    if (!s && environment_refuses(s.status())) BS_SKIP_NO_GPU() << s.status().describe();
    ASSERT_TRUE(s.ok()) << s.status().describe();
    session = std::move(s.value());
  }
  std::unique_ptr<CounterSession> session;
};

// ---- 2. host references --------------------------------------------------------------------
// Sector and request totals of warp-wide accesses, counted as L1 counts them: one request per
// warp instruction with at least one active lane, one sector per distinct 32-byte block.
struct SectorCount {
  double sectors = 0, requests = 0;
  void add_warp(std::vector<long long>& byte_addresses) {
    if (byte_addresses.empty()) return;
    for (auto& a : byte_addresses) a /= 32;
    std::sort(byte_addresses.begin(), byte_addresses.end());
    sectors += static_cast<double>(std::unique(byte_addresses.begin(), byte_addresses.end()) - byte_addresses.begin());
    requests += 1;
    byte_addresses.clear();
  }
  double per_request() const { return sectors / requests; }
};

long long address(const void* p) { return static_cast<long long>(reinterpret_cast<std::uintptr_t>(p)); }

// The 1D grayscale kernel, block of 256: three 1-byte loads (planes at 0, n, 2n) and a store.
void count_gray_1d(const bs::gray::GrayArgs& a, SectorCount& ld, SectorCount& st) {
  const long long n = a.n, blocks = (n + 255) / 256;
  std::vector<long long> lanes;
  for (long long w = 0; w < blocks * 8; ++w) {
    for (int plane = 0; plane < 3; ++plane) {
      for (long long i = w * 32; i < std::min(w * 32 + 32, n); ++i)
        lanes.push_back(address(a.planar_rgb) + plane * n + i);
      ld.add_warp(lanes);
    }
    for (long long i = w * 32; i < std::min(w * 32 + 32, n); ++i) lanes.push_back(address(a.out) + i);
    st.add_warp(lanes);
  }
}

// The naive matmul with a 32 x 32 block: per k, a load of A[row][k] and one of B[k][col], then
// the store of C[row][col]. k1 takes the row from y, k2 from x.
void count_matmul(const bs::matmul::MatmulArgs& a, bool row_from_y, SectorCount& ld, SectorCount& st) {
  const int bx_count = row_from_y ? (a.N + 31) / 32 : (a.M + 31) / 32;
  const int by_count = row_from_y ? (a.M + 31) / 32 : (a.N + 31) / 32;
  std::vector<long long> la, lb, lc;
  for (int by = 0; by < by_count; ++by)
    for (int bx = 0; bx < bx_count; ++bx)
      for (int ty = 0; ty < 32; ++ty) {  // a warp is one ty: threadIdx.x = 0..31
        std::vector<std::pair<int, int>> active;
        for (int tx = 0; tx < 32; ++tx) {
          const int x = bx * 32 + tx, y = by * 32 + ty;
          const int row = row_from_y ? y : x, col = row_from_y ? x : y;
          if (row < a.M && col < a.N) active.push_back({row, col});
        }
        if (active.empty()) continue;
        for (int k = 0; k < a.K; ++k) {
          for (auto [row, col] : active) la.push_back(address(a.A) + 4LL * ((long long)row * a.K + k));
          ld.add_warp(la);
          for (auto [row, col] : active) lb.push_back(address(a.B) + 4LL * ((long long)k * a.N + col));
          ld.add_warp(lb);
        }
        for (auto [row, col] : active) lc.push_back(address(a.C) + 4LL * ((long long)row * a.N + col));
        st.add_warp(lc);
      }
}

// ---- 3. values -----------------------------------------------------------------------------
Measurement profile_gray_1d(CounterSession& session, int w, int h, SectorCount* ld = nullptr,
                            SectorCount* st = nullptr) {
  const int n = w * h;
  auto rgb = random_buffer<std::uint8_t>(3 * static_cast<std::size_t>(n), 1u + n);
  auto out = random_buffer<std::uint8_t>(n, 2u + n);
  const bs::gray::GrayArgs args{rgb.get(), out.get(), w, h, n};
  if (ld && st) count_gray_1d(args, *ld, *st);
  auto m = session.profile([&] {
    test_gray_1d<<<(n + 255) / 256, 256>>>(args);
    return bs::cuda::to_status(cudaGetLastError(), "test_gray_1d");
  });
  EXPECT_TRUE(m.ok()) << m.status().describe();
  return m ? *m : Measurement{};
}

TEST_F(Counters, Gray1dAt4096SquaredReadsThreePlanesOnceWithOneSectorPerRequest) {
  const double n = 4096.0 * 4096.0;
  const Measurement m = profile_gray_1d(*session, 4096, 4096);
  // Cold L2 before the pass: every byte of the three planes comes from DRAM once.
  EXPECT_NEAR(m.dram_read_bytes / (3 * n), 1.0, 0.03) << m.dram_read_bytes;
  // The output may still sit in L2 when the range ends, so writes are at most n (and a bit).
  EXPECT_LE(m.dram_write_bytes, 1.05 * n);
  // 32 consecutive bytes from a 32-byte aligned start: one sector per request, loads and stores.
  EXPECT_DOUBLE_EQ(m.ld_sectors_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(m.st_sectors_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(m.global_ld_requests, 3 * n / 32);
  EXPECT_DOUBLE_EQ(m.global_st_requests, n / 32);
  EXPECT_GT(m.achieved_occupancy_pct, 10.0);
  EXPECT_LE(m.achieved_occupancy_pct, 100.0);
  EXPECT_GT(m.duration_ns, 0.0);
  EXPECT_GT(m.dram_bandwidth_gbs, 100.0);  // a memory-bound kernel on any data-centre GPU
  EXPECT_GE(m.l2_hit_pct, 0.0);
  EXPECT_LE(m.l2_hit_pct, 100.0);
  EXPECT_FALSE(m.stalls.empty());
  EXPECT_EQ(m.passes, session->passes_per_profile());
  EXPECT_GT(m.wall_ms, 0.0);
  // The kernel is the range, so the duration is the kernel's: 64 MB at several TB/s is tens of
  // microseconds, not the hundreds a range holding the launch latency would show.
  EXPECT_EQ(m.range, "kernel") << session->range_note();
  std::printf(
      "gray_1d 4096^2: read %.0f B (3n = %.0f), write %.0f B, %.1f us, %.0f GB/s, "
      "occupancy %.1f%%, %d passes, %.1f ms (range %s)\n",
      m.dram_read_bytes, 3 * n, m.dram_write_bytes, m.duration_ns / 1e3, m.dram_bandwidth_gbs, m.achieved_occupancy_pct,
      m.passes, m.wall_ms, m.range.c_str());
}

TEST_F(Counters, Gray1dAtAnOddSizeMatchesHostSectorCounts) {
  // n odd: the G and B planes start mid-sector, so their warps straddle two sectors.
  SectorCount ld, st;
  const int w = 3001, h = 2999;
  const Measurement m = profile_gray_1d(*session, w, h, &ld, &st);
  EXPECT_DOUBLE_EQ(m.global_ld_requests, ld.requests);
  EXPECT_DOUBLE_EQ(m.global_ld_sectors, ld.sectors);
  EXPECT_DOUBLE_EQ(m.global_st_requests, st.requests);
  EXPECT_DOUBLE_EQ(m.global_st_sectors, st.sectors);
  EXPECT_GT(m.ld_sectors_per_request(), 1.5);
  EXPECT_NEAR(m.dram_read_bytes / (3.0 * w * h), 1.0, 0.03);
}

TEST_F(Counters, MatmulRungsMatchHostSectorCounts) {
  const int M = 200, N = 136, K = 72;  // ragged edges in both block directions
  auto A = random_buffer<float>(static_cast<std::size_t>(M) * K, 3);
  auto B = random_buffer<float>(static_cast<std::size_t>(K) * N, 4);
  auto C = random_buffer<float>(static_cast<std::size_t>(M) * N, 5);
  const bs::matmul::MatmulArgs args{A.get(), B.get(), C.get(), M, N, K};
  for (bool k1 : {true, false}) {
    SCOPED_TRACE(k1 ? "k1_naive" : "k2_uncoalesced");
    SectorCount ld, st;
    count_matmul(args, k1, ld, st);
    auto m = session->profile([&] {
      const dim3 block(32, 32);
      if (k1) test_k1<<<dim3((N + 31) / 32, (M + 31) / 32), block>>>(args);
      else test_k2<<<dim3((M + 31) / 32, (N + 31) / 32), block>>>(args);
      return bs::cuda::to_status(cudaGetLastError(), "matmul");
    });
    ASSERT_TRUE(m.ok()) << m.status().describe();
    EXPECT_DOUBLE_EQ(m->global_ld_requests, ld.requests);
    EXPECT_DOUBLE_EQ(m->global_ld_sectors, ld.sectors);
    EXPECT_DOUBLE_EQ(m->global_st_requests, st.requests);
    EXPECT_DOUBLE_EQ(m->global_st_sectors, st.sectors);
    std::printf("%s %dx%dx%d: ld %.3f sectors/request (host %.3f), st %.3f (host %.3f)\n", k1 ? "k1" : "k2", M, N, K,
                m->ld_sectors_per_request(), ld.per_request(), m->st_sectors_per_request(), st.per_request());
  }
}

// ---- 4. behaviour --------------------------------------------------------------------------
TEST_F(Counters, ACallbackFailureIsReturnedAndTheSessionStillWorks) {
  auto failed = session->profile([] { return Status::failure("the test's launch failed", "none", "launch"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message, "the test's launch failed");
  const Measurement m = profile_gray_1d(*session, 1024, 768);
  EXPECT_GT(m.dram_read_bytes, 0.0);
}

TEST_F(Counters, ProfilesFromAWorkerThread) {
  Measurement m;
  std::thread worker([&] { m = profile_gray_1d(*session, 640, 480); });
  worker.join();
  EXPECT_DOUBLE_EQ(m.global_st_requests, 640.0 * 480 / 32);
}

TEST_F(Counters, AKeptEnabledProfilerSkipsEnablingAndMeasuresTheSame) {
  session.reset();  // one range profiler per context: the kept one must be the only session
  auto kept = CounterSession::create(0, {.keep_enabled = true});
  ASSERT_TRUE(kept.ok()) << kept.status().describe();
  const Measurement first = profile_gray_1d(**kept, 2048, 1024);
  const Measurement second = profile_gray_1d(**kept, 2048, 1024);
  EXPECT_GT(first.cost.enable_ms, 0.0);
  EXPECT_EQ(second.cost.enable_ms, 0.0);
  EXPECT_EQ(second.cost.disable_ms, 0.0);
  EXPECT_DOUBLE_EQ(first.global_ld_sectors, second.global_ld_sectors);
  EXPECT_DOUBLE_EQ(first.global_st_requests, second.global_st_requests);
  std::printf("kept enabled: first profile %.1f ms, second %.1f ms\n", first.wall_ms, second.wall_ms);
}

TEST(CountersWithoutPermission, TheUserReadsTheCauseAndTheDriverOption) {
  BS_SKIP_WITHOUT_GPU();
  std::string fake = FAKE_CUPTI_PATH;
  if (const char* env = std::getenv("BS_FAKE_CUPTI")) fake = env;
  if (fake.empty()) BS_SKIP_NO_GPU() << "no fake libcupti built";
  auto s = CounterSession::create(0, {.cupti_library = fake});
  ASSERT_FALSE(s.ok());
  const Status st = s.status();
  EXPECT_EQ(st.code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << st.describe();
  EXPECT_EQ(st.call, "cuptiProfilerGetCounterAvailability");
  EXPECT_NE(st.hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << st.hint;
  std::printf("what a user without permission sees:\n  %s\n", st.describe().c_str());
}

}  // namespace
