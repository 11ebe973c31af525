// counters_probe: profiles the lecture's grayscale kernels and the matmul rungs with blockscope's
// CounterSession and prints what the hardware counted, as JSON, beside the napkin math. It is the
// blockscope half of compare_with_ncu.sh, which runs the same kernels under Nsight Compute.
//
//   counters_probe                     profile every kernel, JSON on stdout, a summary on stderr
//   counters_probe --json out.json     the same, JSON to a file
//   counters_probe --launch-only       launch every kernel once, no counters (for ncu to profile)
//   counters_probe --list-metrics      the metric names the session collects, one per line
//   counters_probe --repeat 5          profile each kernel 5 times: medians, spreads and the cost
//   counters_probe --launch-only --launches 5   each kernel 5 times, for ncu's own spread
//   counters_probe --launch-only --gap-ms 200   sleep 200 ms before each launch (an idle GPU)
//   counters_probe --keep-enabled      keep CUPTI's range profiler enabled between profiles
//   counters_probe --lean              no stall reasons and no throughput shares (fewer passes)
//   counters_probe --evict read        empty L2 before each pass by reading only (the first
//                                      method); default "discard": read, then discard the lines;
//                                      "none": leave the L2 as the previous pass left it
//   counters_probe --cupti PATH        load this libcupti instead of searching
//   counters_probe --kernels gray_1d_flat,k1_naive --gray 4096x4096 --matmul 1024
//   counters_probe --kernels k3_smem_tiled,k4_blocktile_1d,k5_blocktile_2d,k6_vectorized,k7_warptile,tc2_mma_sync
//                                      the rungs that use shared memory (bank-conflict rows)
//
// Besides the counters it times 200 plain launches of the first kernel with CUDA events, once
// while the session exists and once after it is gone, to show what an open session costs the
// app's own launches.
//
// Exit codes: 0 ok, 1 a profile failed, 2 bad command line, 3 counters unavailable (the message
// says why and how to fix it), 4 no usable CUDA device.
//
// The kernels are the project's own bodies (labs/grayscale, labs/matmul) in one-line __global__
// wrappers named probe_*, so a profiler's kernel filter finds exactly these.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/json_writer.hpp"
#include "core/median.hpp"
#include "counters/counters.hpp"
#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/matmul/k1_naive.hpp"
#include "labs/matmul/k2_uncoalesced.hpp"
#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/k4_blocktile_1d.hpp"
#include "labs/matmul/k5_blocktile_2d.hpp"
#include "labs/matmul/k6_vectorized.hpp"
#include "labs/matmul/k7_warptile.hpp"
#include "labs/matmul/tc2_mma_sync.hpp"

__global__ void probe_gray_1d_flat(bs::gray::GrayArgs a) {
  bs::gray::gray_1d_flat_thread(bs::DeviceCtx::from_builtins(), a);
}
__global__ void probe_gray_2d(bs::gray::GrayArgs a) { bs::gray::gray_2d_thread(bs::DeviceCtx::from_builtins(), a); }
__global__ void probe_k1_naive(bs::matmul::MatmulArgs a) {
  bs::matmul::NoSmem none;
  bs::matmul::k1_naive_thread(bs::DeviceCtx::from_builtins(), none, a);
}
__global__ void probe_k2_uncoalesced(bs::matmul::MatmulArgs a) {
  bs::matmul::NoSmem none;
  bs::matmul::k2_uncoalesced_thread(bs::DeviceCtx::from_builtins(), none, a);
}

// The rungs that stage tiles in shared memory, for the bank-conflict rows (issue 20): one compiled
// configuration each, the body run as the lab's CUDA wrapper runs it (static shared struct).
// k3..k7 reach shared memory only through the load/store pipe (LDS/STS), so the counters see
// every access; T2's loads are ldmatrix (load/store pipe too), its stores cp.async (not counted
// as shared stores: op_ldgsts).
#define BS_PROBE_RUNG(NAME, RUNG, INDEX)                                                                           \
  inline constexpr std::size_t kProbeIndex_##NAME = INDEX;                                                         \
  __global__ void __launch_bounds__(bs::matmul::RUNG::At<INDEX>::threads) probe_##NAME(bs::matmul::RUNG::Args a) { \
    using At = bs::matmul::RUNG::At<INDEX>;                                                                        \
    __shared__ typename At::Smem s;                                                                                \
    At::body(bs::DeviceCtx::from_builtins(), s, a);                                                                \
  }
BS_PROBE_RUNG(k3_smem_tiled, K3SmemTiled, 1)  // T = 16, the lecture's tile
BS_PROBE_RUNG(k4_blocktile_1d, K4Blocktile1D, 0)
BS_PROBE_RUNG(k5_blocktile_2d, K5Blocktile2D, 0)
BS_PROBE_RUNG(k6_vectorized, K6Vectorized, 0)
BS_PROBE_RUNG(k7_warptile, K7Warptile, bs::matmul::kK7FastestConfig)
BS_PROBE_RUNG(tc2_mma_sync, Tc2MmaSync, 0)
#undef BS_PROBE_RUNG

namespace {

using bs::Status;
template <class T>
using DeviceBuffer = bs::cuda::DeviceBuffer<T>;

struct Options {
  std::vector<std::string> kernels = {"gray_1d_flat", "gray_2d", "k1_naive", "k2_uncoalesced"};
  int gray_w = 4096, gray_h = 4096;
  int matmul = 1024;
  int repeat = 1, launches = 1;
  int gap_ms = 0;
  bool flush_l2 = true;
  bool launch_only = false, list_metrics = false, keep_enabled = false, lean = false;
  bs::counters::L2Eviction eviction = bs::counters::L2Eviction::ReadAndDiscard;
  std::string json_path, cupti;
};

// One kernel under test: its launch, its configuration, and what napkin math predicts.
struct Case {
  std::string kernel;
  std::string config;  // human-readable
  dim3 grid, block;
  std::function<Status()> launch;
  double napkin_read_bytes = 0, napkin_write_bytes = 0;  // compulsory traffic
  double napkin_ld_spr = 0, napkin_st_spr = 0;           // sectors per request, counted on host
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

// Sectors per request of a warp-wide access, counted the way L1 counts them: one request per
// warp instruction, one sector per distinct 32-byte block its active threads touch. `addr(t)`
// gives the byte address thread t (linear in the block) touches, or -1 when it is inactive.
template <class Addr>
double count_sectors_per_request(long long threads_per_block, long long blocks, Addr addr) {
  double sectors = 0, requests = 0;
  std::vector<long long> s;
  for (long long b = 0; b < blocks; ++b)
    for (long long w0 = 0; w0 < threads_per_block; w0 += 32) {
      s.clear();
      for (long long t = w0; t < std::min(w0 + 32, threads_per_block); ++t)
        if (const long long a = addr(b, t); a >= 0) s.push_back(a / 32);
      if (s.empty()) continue;
      std::sort(s.begin(), s.end());
      sectors += static_cast<double>(std::unique(s.begin(), s.end()) - s.begin());
      requests += 1;
    }
  return requests > 0 ? sectors / requests : 0;
}

// ---- the data every case reads (allocated once, kept until exit) ----
struct Data {
  DeviceBuffer<std::uint8_t> rgb, gray;
  DeviceBuffer<float> A, B, C;
  DeviceBuffer<bs::matmul::Bf16> A16, Bt16;  // T2's operands: M x ld and N x ld, row-major
};

Status make_data(const Options& o, Data& d) {
  const std::size_t n = static_cast<std::size_t>(o.gray_w) * o.gray_h;
  auto rgb = DeviceBuffer<std::uint8_t>::allocate(3 * n);
  auto gray = DeviceBuffer<std::uint8_t>::allocate(n);
  const std::size_t mm = static_cast<std::size_t>(o.matmul) * o.matmul;
  auto A = DeviceBuffer<float>::allocate(mm), B = DeviceBuffer<float>::allocate(mm),
       C = DeviceBuffer<float>::allocate(mm);
  for (const Status& s : {rgb.status(), gray.status(), A.status(), B.status(), C.status()})
    if (!s) return s;
  d.rgb = std::move(rgb.value());
  d.gray = std::move(gray.value());
  d.A = std::move(A.value());
  d.B = std::move(B.value());
  d.C = std::move(C.value());
  std::mt19937 rng(12);
  std::vector<std::uint8_t> bytes(3 * n);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  BS_CUDA_TRY(cudaMemcpy(d.rgb.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  std::vector<float> f(mm);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& x : f) x = u(rng);
  BS_CUDA_TRY(cudaMemcpy(d.A.get(), f.data(), mm * sizeof(float), cudaMemcpyHostToDevice));
  for (auto& x : f) x = u(rng);
  BS_CUDA_TRY(cudaMemcpy(d.B.get(), f.data(), mm * sizeof(float), cudaMemcpyHostToDevice));
  // BF16 operands for T2, padded to its row pitch.
  const std::size_t ld = static_cast<std::size_t>(bs::matmul::bf16_row_pitch(o.matmul));
  for (auto* buf : {&d.A16, &d.Bt16}) {
    auto b = DeviceBuffer<bs::matmul::Bf16>::allocate(static_cast<std::size_t>(o.matmul) * ld);
    if (!b) return b.status();
    *buf = std::move(b.value());
    std::vector<bs::matmul::Bf16> h(static_cast<std::size_t>(o.matmul) * ld);
    for (auto& x : h) x = bs::matmul::float_to_bf16(u(rng));
    BS_CUDA_TRY(cudaMemcpy(buf->get(), h.data(), h.size() * sizeof(h[0]), cudaMemcpyHostToDevice));
  }
  return Status::success();
}

// A shared-memory rung's case: its launch with the lab's grid rule for its configuration. No
// napkin DRAM or sector figures (the bank-conflict rows are what these cases are for). False for
// an unknown kernel.
template <class R, std::size_t I, class Kernel>
void set_rung_case(Case& c, Kernel* kernel, const typename R::Args& args, int M) {
  const auto configs = R::info().configs;
  bs::matmul::MatmulConfig config = configs.at(I);
  const bs::LaunchConfig lc = R::launch_config(config, M, M, M);
  c.grid = dim3(lc.grid.x, lc.grid.y, lc.grid.z);
  c.block = dim3(lc.block.x, lc.block.y, lc.block.z);
  c.launch = [grid = c.grid, block = c.block, kernel, args, name = "probe_" + c.kernel] {
    kernel<<<grid, block>>>(args);
    return bs::cuda::to_status(cudaGetLastError(), name.c_str());
  };
}

bool add_shared_rung(Case& c, const std::string& k, const bs::matmul::MatmulArgs& m, Data& d, const Options& o) {
  using namespace bs::matmul;
  const int M = o.matmul;
  if (k == "k3_smem_tiled") set_rung_case<K3SmemTiled, kProbeIndex_k3_smem_tiled>(c, probe_k3_smem_tiled, m, M);
  else if (k == "k4_blocktile_1d")
    set_rung_case<K4Blocktile1D, kProbeIndex_k4_blocktile_1d>(c, probe_k4_blocktile_1d, m, M);
  else if (k == "k5_blocktile_2d")
    set_rung_case<K5Blocktile2D, kProbeIndex_k5_blocktile_2d>(c, probe_k5_blocktile_2d, m, M);
  else if (k == "k6_vectorized") set_rung_case<K6Vectorized, kProbeIndex_k6_vectorized>(c, probe_k6_vectorized, m, M);
  else if (k == "k7_warptile") set_rung_case<K7Warptile, kProbeIndex_k7_warptile>(c, probe_k7_warptile, m, M);
  else if (k == "tc2_mma_sync") {
    const Bf16Args b{d.A16.get(), d.Bt16.get(), d.C.get(), M, M, M, bf16_row_pitch(M)};
    set_rung_case<Tc2MmaSync, kProbeIndex_tc2_mma_sync>(c, probe_tc2_mma_sync, b, M);
  } else return false;
  return true;
}

std::vector<Case> make_cases(const Options& o, Data& d) {
  std::vector<Case> cases;
  const bs::gray::GrayArgs g{d.rgb.get(), d.gray.get(), o.gray_w, o.gray_h, o.gray_w * o.gray_h};
  const long long n = g.n;
  const int M = o.matmul;
  const bs::matmul::MatmulArgs m{d.A.get(), d.B.get(), d.C.get(), M, M, M};
  const auto base = [](const void* p) { return static_cast<long long>(reinterpret_cast<std::uintptr_t>(p)); };

  for (const auto& k : o.kernels) {
    Case c;
    c.kernel = k;
    if (k == "gray_1d_flat") {
      c.block = dim3(256);
      c.grid = dim3(static_cast<unsigned>(bs::ceil_div(n, 256)));
      c.launch = [=] {
        probe_gray_1d_flat<<<c.grid, c.block>>>(g);
        return bs::cuda::to_status(cudaGetLastError(), "probe_gray_1d_flat");
      };
      c.napkin_read_bytes = 3.0 * n;
      c.napkin_write_bytes = 1.0 * n;
      const long long in = base(g.planar_rgb), out = base(g.out);
      const auto idx = [=](long long b, long long t) {
        const long long i = b * 256 + t;
        return i < n ? i : -1;
      };
      double ld = 0;
      for (int plane = 0; plane < 3; ++plane)
        ld += count_sectors_per_request(256, c.grid.x, [&](long long b, long long t) {
          const long long i = idx(b, t);
          return i < 0 ? -1 : in + plane * n + i;
        });
      c.napkin_ld_spr = ld / 3;  // three load instructions with the same number of requests
      c.napkin_st_spr = count_sectors_per_request(256, c.grid.x, [&](long long b, long long t) {
        const long long i = idx(b, t);
        return i < 0 ? -1 : out + i;
      });
    } else if (k == "gray_2d") {
      c.block = dim3(16, 16);
      c.grid =
          dim3(static_cast<unsigned>(bs::ceil_div(o.gray_w, 16)), static_cast<unsigned>(bs::ceil_div(o.gray_h, 16)));
      c.launch = [=] {
        probe_gray_2d<<<c.grid, c.block>>>(g);
        return bs::cuda::to_status(cudaGetLastError(), "probe_gray_2d");
      };
      c.napkin_read_bytes = 3.0 * n;
      c.napkin_write_bytes = 1.0 * n;
      const long long in = base(g.planar_rgb), out = base(g.out);
      const unsigned gx = c.grid.x;
      const auto idx = [=](long long b, long long t) {
        const long long col = (b % gx) * 16 + t % 16, row = (b / gx) * 16 + t / 16;
        return (col < o.gray_w && row < o.gray_h) ? row * o.gray_w + col : -1;
      };
      const long long blocks = static_cast<long long>(c.grid.x) * c.grid.y;
      double ld = 0;
      for (int plane = 0; plane < 3; ++plane)
        ld += count_sectors_per_request(256, blocks, [&](long long b, long long t) {
          const long long i = idx(b, t);
          return i < 0 ? -1 : in + plane * n + i;
        });
      c.napkin_ld_spr = ld / 3;
      c.napkin_st_spr = count_sectors_per_request(256, blocks, [&](long long b, long long t) {
        const long long i = idx(b, t);
        return i < 0 ? -1 : out + i;
      });
    } else if (k == "k1_naive" || k == "k2_uncoalesced") {
      const bool k1 = k == "k1_naive";
      c.block = dim3(32, 32);
      c.grid = dim3(static_cast<unsigned>(bs::ceil_div(M, 32)), static_cast<unsigned>(bs::ceil_div(M, 32)));
      if (k1)
        c.launch = [=] {
          probe_k1_naive<<<c.grid, c.block>>>(m);
          return bs::cuda::to_status(cudaGetLastError(), "probe_k1_naive");
        };
      else
        c.launch = [=] {
          probe_k2_uncoalesced<<<c.grid, c.block>>>(m);
          return bs::cuda::to_status(cudaGetLastError(), "probe_k2_uncoalesced");
        };
      c.napkin_read_bytes = 2.0 * M * M * sizeof(float);  // A and B once each, if L2 holds them
      c.napkin_write_bytes = 1.0 * M * M * sizeof(float);
      // Per k step a warp loads one A element per thread and one B element per thread; the
      // ratio does not depend on k, so count k = 0 (A) and k = 0 (B) over every warp.
      const long long a0 = base(m.A), b0 = base(m.B), c0 = base(m.C);
      const unsigned gx = c.grid.x;
      const auto rc = [=](long long b, long long t, long long& row, long long& col) {
        const long long tx = t % 32, ty = t / 32, bx = b % gx, by = b / gx;
        if (k1) {
          row = by * 32 + ty;
          col = bx * 32 + tx;
        } else {
          row = bx * 32 + tx;
          col = by * 32 + ty;
        }
        return row < M && col < M;
      };
      const long long blocks = static_cast<long long>(c.grid.x) * c.grid.y;
      const double spr_a = count_sectors_per_request(1024, blocks, [&](long long b, long long t) {
        long long row, col;
        return rc(b, t, row, col) ? a0 + 4 * (row * M) : -1;
      });
      const double spr_b = count_sectors_per_request(1024, blocks, [&](long long b, long long t) {
        long long row, col;
        return rc(b, t, row, col) ? b0 + 4 * col : -1;
      });
      c.napkin_ld_spr = (spr_a + spr_b) / 2;  // as many A loads as B loads
      c.napkin_st_spr = count_sectors_per_request(1024, blocks, [&](long long b, long long t) {
        long long row, col;
        return rc(b, t, row, col) ? c0 + 4 * (row * M + col) : -1;
      });
    } else if (!add_shared_rung(c, k, m, d, o)) {
      continue;
    }
    std::ostringstream cfg;
    if (k.rfind("gray", 0) == 0) cfg << o.gray_w << "x" << o.gray_h;
    else cfg << M << "x" << M << "x" << M;
    cfg << " grid (" << c.grid.x << "," << c.grid.y << ") block (" << c.block.x << "," << c.block.y << ")";
    c.config = cfg.str();
    cases.push_back(std::move(c));
  }
  return cases;
}

void write_status(bs::JsonWriter& j, const Status& s) {
  j.key("error").begin_object();
  j.field("message", s.message).field("call", s.call).field("code", s.code).field("hint", s.hint);
  j.end_object();
}

// Counts are integers and JsonWriter keeps 6 significant digits: write integral values whole,
// so the comparison with ncu sees every sector.
void put(bs::JsonWriter& j, double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15) j.value(static_cast<long long>(v));
  else j.value(v);
}

// Mean time per launch of `n` back-to-back launches, by CUDA events.
bs::Result<double> time_launches(const Case& c, int n) {
  struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    ~Events() {
      if (start) cudaEventDestroy(start);
      if (stop) cudaEventDestroy(stop);
    }
  } e;
  BS_CUDA_TRY(cudaEventCreate(&e.start));
  BS_CUDA_TRY(cudaEventCreate(&e.stop));
  if (Status s = c.launch(); !s) return s;  // warm-up
  BS_CUDA_TRY(cudaEventRecord(e.start));
  for (int i = 0; i < n; ++i)
    if (Status s = c.launch(); !s) return s;
  BS_CUDA_TRY(cudaEventRecord(e.stop));
  BS_CUDA_TRY(cudaEventSynchronize(e.stop));
  float ms = 0;
  BS_CUDA_TRY(cudaEventElapsedTime(&ms, e.start, e.stop));
  return 1000.0 * ms / n;
}

int usage(const char* why) {
  std::fprintf(stderr, "counters_probe: %s\n(see the comment at the top of counters_probe.cu)\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--launch-only") o.launch_only = true;
    else if (a == "--keep-enabled") o.keep_enabled = true;
    else if (a == "--lean") o.lean = true;
    else if (a == "--evict") {
      const char* v = next();
      if (v && std::strcmp(v, "read") == 0) o.eviction = bs::counters::L2Eviction::Read;
      else if (v && std::strcmp(v, "discard") == 0) o.eviction = bs::counters::L2Eviction::ReadAndDiscard;
      else if (v && std::strcmp(v, "none") == 0) o.flush_l2 = false;
      else return usage("--evict takes read, discard or none");
    } else if (a == "--gap-ms") {
      const char* v = next();
      if (!v || (o.gap_ms = std::atoi(v)) < 0) return usage("--gap-ms needs milliseconds >= 0");
    } else if (a == "--launches") {
      const char* v = next();
      if (!v || (o.launches = std::atoi(v)) < 1) return usage("--launches needs a count >= 1");
    } else if (a == "--list-metrics") o.list_metrics = true;
    else if (a == "--json") {
      const char* v = next();
      if (!v) return usage("--json needs a path");
      o.json_path = v;
    } else if (a == "--cupti") {
      const char* v = next();
      if (!v) return usage("--cupti needs a path");
      o.cupti = v;
    } else if (a == "--repeat") {
      const char* v = next();
      if (!v || (o.repeat = std::atoi(v)) < 1) return usage("--repeat needs a count >= 1");
    } else if (a == "--matmul") {
      const char* v = next();
      if (!v || (o.matmul = std::atoi(v)) < 32) return usage("--matmul needs a size >= 32");
    } else if (a == "--gray") {
      const char* v = next();
      if (!v || std::sscanf(v, "%dx%d", &o.gray_w, &o.gray_h) != 2 || o.gray_w < 1 || o.gray_h < 1)
        return usage("--gray needs WxH");
    } else if (a == "--kernels") {
      const char* v = next();
      if (!v) return usage("--kernels needs a list");
      o.kernels = split(v, ',');
    } else return usage(("unknown argument " + a).c_str());
  }

  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "counters_probe: no usable CUDA device\n");
    return 4;
  }

  std::unique_ptr<bs::counters::CounterSession> session;
  if (!o.launch_only) {
    auto created = bs::counters::CounterSession::create(
        0, {.stall_reasons = !o.lean, .throughput = !o.lean, .keep_enabled = o.keep_enabled, .cupti_library = o.cupti});
    if (!created) {
      const Status s = created.status();
      std::fprintf(stderr, "counters unavailable: %s\n", s.describe().c_str());
      bs::JsonWriter j;
      j.begin_object();
      write_status(j, s);
      j.end_object();
      std::printf("%s\n", j.str().c_str());
      return 3;
    }
    session = std::move(created.value());
    if (o.list_metrics) {
      for (const auto& m : session->metric_names()) std::printf("%s\n", m.c_str());
      return 0;
    }
  }

  Data data;
  if (Status s = make_data(o, data); !s) {
    std::fprintf(stderr, "counters_probe: %s\n", s.describe().c_str());
    return 4;
  }
  const std::vector<Case> cases = make_cases(o, data);

  if (o.launch_only) {
    for (const auto& c : cases)
      for (int r = 0; r < o.launches; ++r) {
        if (o.gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.gap_ms));
        if (Status s = c.launch(); !s) {
          std::fprintf(stderr, "%s\n", s.describe().c_str());
          return 1;
        }
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        std::fprintf(stderr, "launched %s %s\n", c.kernel.c_str(), c.config.c_str());
      }
    return 0;
  }

  bs::JsonWriter j;
  j.begin_object();
  j.field("chip", session->chip()).field("cupti", session->cupti_path());
  j.field("passes_planned", session->passes_per_profile());
  j.field("keep_enabled", o.keep_enabled).field("lean", o.lean).field("repeat", o.repeat);
  j.field("l2_eviction", !o.flush_l2 ? "none" : o.eviction == bs::counters::L2Eviction::Read ? "read" : "read+discard");
  j.key("kernels").begin_array();
  int failures = 0;
  std::fprintf(stderr, "%-16s %12s %12s %9s %8s %8s %8s %7s %7s %7s %6s %9s\n", "kernel", "dram_rd_B", "dram_wr_B",
               "GB/s", "L2hit%", "ld_s/r", "st_s/r", "occ%", "sm%", "mem%", "passes", "wall_ms");
  for (const auto& c : cases) {
    j.begin_object();
    j.field("kernel", c.kernel).field("config", c.config);
    j.key("grid").begin_array().value(c.grid.x).value(c.grid.y).value(c.grid.z).end_array();
    j.key("block").begin_array().value(c.block.x).value(c.block.y).value(c.block.z).end_array();
    j.key("napkin").begin_object();
    j.field("dram_read_bytes", c.napkin_read_bytes).field("dram_write_bytes", c.napkin_write_bytes);
    j.field("ld_sectors_per_request", c.napkin_ld_spr).field("st_sectors_per_request", c.napkin_st_spr);
    j.end_object();

    std::vector<bs::counters::Measurement> runs;
    Status failed;
    for (int r = 0; r < o.repeat; ++r) {
      auto m = session->profile(c.launch, {.flush_l2 = o.flush_l2, .eviction = o.eviction});
      if (!m) {
        failed = m.status();
        break;
      }
      runs.push_back(std::move(m.value()));
    }
    if (!failed.ok()) {
      ++failures;
      write_status(j, failed);
      j.end_object();
      std::fprintf(stderr, "%-16s failed: %s\n", c.kernel.c_str(), failed.describe().c_str());
      continue;
    }
    // Medians over the repeats, and each repeat's value for the spread.
    const auto med = [&](auto get) {
      std::vector<double> v;
      for (const auto& m : runs) v.push_back(get(m));
      return bs::median_of(v);
    };
    const auto series = [&](const char* key, auto get) {
      j.key(key).begin_array();
      for (const auto& m : runs) put(j, get(m));
      j.end_array();
    };
    const auto& last = runs.back();
    j.field("range", last.range).field("range_note", session->range_note());
    j.field("passes", last.passes);
    series("wall_ms", [](const auto& m) { return m.wall_ms; });
    j.field("wall_ms_median", med([](const auto& m) { return m.wall_ms; }));
    j.key("cost_ms_median").begin_object();
    j.field("enable", med([](const auto& m) { return m.cost.enable_ms; }));
    j.field("configure", med([](const auto& m) { return m.cost.configure_ms; }));
    j.field("passes", med([](const auto& m) { return m.cost.passes_ms; }));
    j.field("decode", med([](const auto& m) { return m.cost.decode_ms; }));
    j.field("evaluate", med([](const auto& m) { return m.cost.evaluate_ms; }));
    j.field("disable", med([](const auto& m) { return m.cost.disable_ms; }));
    j.end_object();
    j.key("derived").begin_object();
    j.field("dram_bandwidth_gbs", med([](const auto& m) { return m.dram_bandwidth_gbs; }));
    j.field("ld_sectors_per_request", last.ld_sectors_per_request());
    j.field("st_sectors_per_request", last.st_sectors_per_request());
    j.end_object();
    j.key("stalls").begin_array();  // of the last repeat
    for (const auto& s : last.stalls) {
      if (s.cycles_per_issue <= 0) continue;
      j.begin_object().field("reason", s.reason).field("cycles_per_issue", s.cycles_per_issue);
      j.field("share_pct", s.share_pct).end_object();
    }
    j.end_array();
    // Every raw metric, each repeat's value in order (what changes from one profile to the next).
    j.key("metrics_series").begin_object();
    for (std::size_t i = 0; i < last.raw.size(); ++i) {
      j.key(last.raw[i].name).begin_array();
      for (const auto& m : runs) put(j, m.raw[i].value);
      j.end_array();
    }
    j.end_object();
    // Every raw metric: median, min and max over the repeats (compare_with_ncu.py reads these).
    for (const char* what : {"metrics", "metrics_min", "metrics_max"}) {
      j.key(what).begin_object();
      for (std::size_t i = 0; i < last.raw.size(); ++i) {
        std::vector<double> v;
        for (const auto& m : runs) v.push_back(m.raw[i].value);
        const std::string w = what;
        const double x = w == "metrics"       ? bs::median_of(v)
                         : w == "metrics_min" ? *std::min_element(v.begin(), v.end())
                                              : *std::max_element(v.begin(), v.end());
        j.key(last.raw[i].name);
        put(j, x);
      }
      j.end_object();
    }
    j.end_object();
    const auto m_rd = med([](const auto& m) { return m.dram_read_bytes; });
    const auto m_wr = med([](const auto& m) { return m.dram_write_bytes; });
    std::fprintf(stderr, "%-16s %12.0f %12.0f %9.1f %8.2f %8.3f %8.3f %7.2f %7.2f %7.2f %6d %9.2f\n", c.kernel.c_str(),
                 m_rd, m_wr, med([](const auto& m) { return m.dram_bandwidth_gbs; }),
                 med([](const auto& m) { return m.l2_hit_pct; }), last.ld_sectors_per_request(),
                 last.st_sectors_per_request(), med([](const auto& m) { return m.achieved_occupancy_pct; }),
                 med([](const auto& m) { return m.sm_throughput_pct; }),
                 med([](const auto& m) { return m.memory_throughput_pct; }), last.passes,
                 med([](const auto& m) { return m.wall_ms; }));
    std::fprintf(stderr,
                 "%-16s napkin: read %.0f write %.0f ld_s/r %.3f st_s/r %.3f; range %s; duration "
                 "%.1f us; top stalls:",
                 "", c.napkin_read_bytes, c.napkin_write_bytes, c.napkin_ld_spr, c.napkin_st_spr, last.range.c_str(),
                 med([](const auto& m) { return m.duration_ns; }) / 1e3);
    for (std::size_t s = 0; s < std::min<std::size_t>(3, last.stalls.size()); ++s)
      std::fprintf(stderr, " %s %.2f (%.0f%%)", last.stalls[s].reason.c_str(), last.stalls[s].cycles_per_issue,
                   last.stalls[s].share_pct);
    std::fprintf(
        stderr,
        "\n%-16s cost ms (median): enable %.2f configure %.2f passes %.2f decode %.2f "
        "evaluate %.2f disable %.2f; wall per repeat:",
        "", med([](const auto& m) { return m.cost.enable_ms; }), med([](const auto& m) { return m.cost.configure_ms; }),
        med([](const auto& m) { return m.cost.passes_ms; }), med([](const auto& m) { return m.cost.decode_ms; }),
        med([](const auto& m) { return m.cost.evaluate_ms; }), med([](const auto& m) { return m.cost.disable_ms; }));
    for (const auto& m : runs) std::fprintf(stderr, " %.1f", m.wall_ms);
    std::fprintf(stderr, "\n");
  }
  j.end_array();
  if (!session->range_note().empty()) std::fprintf(stderr, "range note: %s\n", session->range_note().c_str());

  // What an open session costs the app's own launches.
  if (!cases.empty()) {
    auto with = time_launches(cases.front(), 200);
    session.reset();
    auto without = time_launches(cases.front(), 200);
    j.key("launch_check").begin_object();
    j.field("kernel", cases.front().kernel);
    j.field("us_per_launch_session_open", with ? *with : std::nan(""));
    j.field("us_per_launch_session_closed", without ? *without : std::nan(""));
    j.end_object();
    std::fprintf(stderr,
                 "200 plain launches of %s: %.2f us each with the session open (%s), %.2f us after it "
                 "closed\n",
                 cases.front().kernel.c_str(), with ? *with : -1.0,
                 o.keep_enabled ? "range profiler kept enabled" : "range profiler disabled between profiles",
                 without ? *without : -1.0);
  }
  j.end_object();

  if (o.json_path.empty()) {
    std::printf("%s\n", j.str().c_str());
  } else if (FILE* f = std::fopen(o.json_path.c_str(), "w")) {
    std::fprintf(f, "%s\n", j.str().c_str());
    std::fclose(f);
  } else {
    std::fprintf(stderr, "counters_probe: cannot write %s\n", o.json_path.c_str());
    return 1;
  }
  return failures ? 1 : 0;
}
