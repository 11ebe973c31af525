// The matmul ladder benchmark behind `blockscope bench matmul` and the standalone
// `bs_matmul_bench`: every rung and configuration plus cuBLAS at the given sizes, verified, timed
// (warm-up, repeats, median), printed as the classic SGEMM ladder table and returned as JSON.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

struct MatmulSize {
  int M = 0, N = 0, K = 0;
};
// "4096x4096x4096" or "4096" (cube); false on anything else.
bool parse_matmul_size(std::string_view text, MatmulSize& out);

struct BenchOptions {
  std::vector<MatmulSize> sizes;  // empty: 4096^3 on CUDA, 256^3 on the CPU simulator
  std::string backend = "cuda";   // "cuda" or "cpu" (the grid simulator)
  int warmup = 2;
  int repeats = 10;               // timed launches per configuration; the median is reported
  double max_ms_per_config = 1500;  // slow rungs get fewer repeats (at least 3) to stay within this
  std::uint64_t seed = 20240607;  // A uses seed, B uses seed + 1
  Pattern pattern = Pattern::Uniform;
  std::vector<std::string> kernels;  // registry ids to run; empty: all seven rungs
  bool first_config_only = false;    // rungs 1-6: only their first configuration (rung 7: all)
  bool flush_l2 = true;
  bool cublas_pedantic = false;      // CUBLAS_PEDANTIC_MATH instead of CUBLAS_DEFAULT_MATH
  // Also check cuBLAS against the CPU reference when M*N*K is at most this (CPU time).
  long long cpu_check_max_multiply_adds = 1LL << 31;
  std::ostream* table = nullptr;     // where the table and progress go; nullptr: std::cout
};

struct BenchOutcome {
  std::string json;
  bool all_passed = false;   // every run that was made matched its reference
  bool ran = false;          // at least one size ran (false: no device, bad options, ...)
  Status status;             // why nothing ran, if so
};

BenchOutcome run_matmul_bench_detailed(const BenchOptions& options);
// The JSON text of run_matmul_bench_detailed.
std::string run_matmul_bench(const BenchOptions& options);

}  // namespace bs::matmul
