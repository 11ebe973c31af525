// Matrices, the CPU reference and verification: the parts of the lab that need no kernel.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/host_data.hpp"
#include "core/parallel.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {
namespace {

// 24 random bits as a float in [0, 1): exactly representable, no rounding to 1.
float unit_float(std::uint64_t h) { return static_cast<float>(h >> 40) * 0x1p-24f; }

float element(Pattern p, std::uint64_t seed, long long i, long long j, long long cols) {
  const std::uint64_t e = static_cast<std::uint64_t>(i * cols + j);
  const std::uint64_t h = splitmix64(seed * 0xD1B54A32D192ED03ull + e);
  switch (p) {
    case Pattern::Uniform: return 2.0f * unit_float(h) - 1.0f;
    case Pattern::Normal: {
      const double u1 = 1.0 - static_cast<double>(h >> 11) * 0x1p-53;  // (0, 1]
      const double u2 = static_cast<double>(splitmix64(h) >> 11) * 0x1p-53;
      return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
    case Pattern::SmallIntegers: return static_cast<float>(static_cast<int>(h % 9) - 4);
    case Pattern::Identity: return i == j ? 1.0f : 0.0f;
    case Pattern::Structured: return static_cast<float>((3 * i + 5 * j) % 17 - 8) / 8.0f;
  }
  return 0.0f;
}

std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::Uniform: return "uniform";
    case Pattern::Normal: return "normal";
    case Pattern::SmallIntegers: return "small-integers";
    case Pattern::Identity: return "identity";
    case Pattern::Structured: return "structured";
  }
  return "?";
}

bool pattern_from_string(std::string_view name, Pattern& out) {
  for (Pattern p : {Pattern::Uniform, Pattern::Normal, Pattern::SmallIntegers, Pattern::Identity, Pattern::Structured})
    if (name == to_string(p)) {
      out = p;
      return true;
    }
  return false;
}

std::vector<float> generate_matrix(int rows, int cols, Pattern pattern, std::uint64_t seed) {
  if (rows <= 0 || cols <= 0) return {};
  std::vector<float> m(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  fill_matrix(m.data(), rows, cols, pattern, seed);
  return m;
}

void fill_matrix(float* out, int rows, int cols, Pattern pattern, std::uint64_t seed) {
  if (rows <= 0 || cols <= 0) return;
  const unsigned long long row_blocks = (static_cast<unsigned long long>(rows) + 63) / 64;
  const unsigned workers = 1ull * rows * cols < (1u << 20) ? 1 : worker_count(0, row_blocks);
  parallel_tasks(workers, row_blocks, [&](unsigned long long rb) {
    const long long r_end = std::min<long long>(rows, static_cast<long long>(rb + 1) * 64);
    for (long long r = static_cast<long long>(rb) * 64; r < r_end; ++r)
      for (long long c = 0; c < cols; ++c) out[r * cols + c] = element(pattern, seed, r, c, cols);
  });
}

const std::vector<MatmulPreset>& matmul_presets() {
  static const std::vector<MatmulPreset> presets = {
      {"MNIST layer: 10000x784 times 784x10 (the lecture's)", 10000, 10, 784, Pattern::Uniform, Pattern::Uniform},
      {"small square 128^3 (every rung simulates quickly)", 128, 128, 128, Pattern::Uniform, Pattern::Uniform},
      {"odd sizes 129x67x131 (edge tiles everywhere)", 129, 67, 131, Pattern::Structured, Pattern::Structured},
      {"exact: small integers 256^3", 256, 256, 256, Pattern::SmallIntegers, Pattern::SmallIntegers},
      {"identity A, 512^3 (C = B)", 512, 512, 512, Pattern::Identity, Pattern::Uniform},
      {"square 1024^3", 1024, 1024, 1024, Pattern::Uniform, Pattern::Uniform},
      {"benchmark 4096^3 (GPU only)", 4096, 4096, 4096, Pattern::Uniform, Pattern::Uniform},
  };
  return presets;
}

Status check_matmul_sizes(long long M, long long N, long long K) {
  if (M < 1 || N < 1 || K < 1)
    return Status::failure("matrix sizes must be at least 1 (got M=" + std::to_string(M) + ", N=" + std::to_string(N) +
                               ", K=" + std::to_string(K) + ")",
                           "choose M, N and K >= 1", "check_matmul_sizes");
  constexpr long long kIntMax = std::numeric_limits<int>::max();
  if (M > kIntMax || N > kIntMax || K > kIntMax)
    return Status::failure("a dimension exceeds 2^31 - 1", "choose smaller sizes", "check_matmul_sizes");
  const long double elements =
      static_cast<long double>(M) * K + static_cast<long double>(K) * N + static_cast<long double>(M) * N;
  if (elements * sizeof(float) > static_cast<long double>(std::numeric_limits<std::size_t>::max()))
    return Status::failure("A, B and C together exceed the address space", "choose smaller sizes",
                           "check_matmul_sizes");
  return Status::success();
}

void round_to_bf16(std::span<float> m) {
  parallel_chunks(m.size(), 1ull << 20, [&](std::size_t b, std::size_t e) {
    for (float& v : m.subspan(b, e - b)) v = bf16_to_float(float_to_bf16(v));
  });
}

void pack_bf16_rows_into(const float* a, int cols, int r0, int r1, Bf16* out) {
  const int ld = bf16_row_pitch(cols);
  for (int r = r0; r < r1; ++r)
    for (int c = 0; c < ld; ++c)
      out[static_cast<std::size_t>(r) * ld + c] =
          c < cols ? float_to_bf16(a[static_cast<std::size_t>(r) * cols + c]) : Bf16{};
}

void pack_bf16_transposed_into(const float* b, int K, int N, int n0, int n1, Bf16* out) {
  const int ld = bf16_row_pitch(K);
  for (int n = n0; n < n1; ++n)
    for (int k = 0; k < ld; ++k)
      out[static_cast<std::size_t>(n) * ld + k] =
          k < K ? float_to_bf16(b[static_cast<std::size_t>(k) * N + n]) : Bf16{};
}

std::vector<Bf16> pack_bf16_rows(const float* a, int rows, int cols) {
  std::vector<Bf16> out(static_cast<std::size_t>(rows) * bf16_row_pitch(cols));
  pack_bf16_rows_into(a, cols, 0, rows, out.data());
  return out;
}

std::vector<Bf16> pack_bf16_transposed(const float* b, int K, int N) {
  std::vector<Bf16> out(static_cast<std::size_t>(N) * bf16_row_pitch(K));
  pack_bf16_transposed_into(b, K, N, 0, N, out.data());
  return out;
}

Status cpu_reference(const float* A, const float* B, float* C, int M, int N, int K, unsigned threads) {
  if (Status s = check_matmul_sizes(M, N, K); !s) return s;
  if (!A || !B || !C) return Status::failure("cpu_reference needs three host buffers", "", "cpu_reference");
  constexpr int kRows = 4, kCols = 256;
  const long long row_tiles = (M + kRows - 1) / kRows, col_tiles = (N + kCols - 1) / kCols;
  const unsigned long long tasks = static_cast<unsigned long long>(row_tiles) * col_tiles;
  parallel_tasks(worker_count(threads, tasks), tasks, [&](unsigned long long task) {
    const int i0 = static_cast<int>(task / col_tiles) * kRows;
    const int j0 = static_cast<int>(task % col_tiles) * kCols;
    const int rows = std::min(kRows, M - i0), cols = std::min(kCols, N - j0);
    double acc[kRows][kCols] = {};
    for (int k = 0; k < K; ++k) {
      const float* b = B + static_cast<std::size_t>(k) * N + j0;
      for (int r = 0; r < rows; ++r) {
        const double a = A[static_cast<std::size_t>(i0 + r) * K + k];
        double* out = acc[r];
        for (int c = 0; c < cols; ++c) out[c] += a * static_cast<double>(b[c]);
      }
    }
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) C[static_cast<std::size_t>(i0 + r) * N + j0 + c] = static_cast<float>(acc[r][c]);
  });
  return Status::success();
}

ErrorScale error_scale(const float* A, const float* B, int M, int N, int K) {
  ErrorScale s;
  s.M = M, s.N = N, s.K = K;
  s.a_row_norms.assign(static_cast<std::size_t>(std::max(M, 0)), 0.0);
  s.b_col_norms.assign(static_cast<std::size_t>(std::max(N, 0)), 0.0);
  // Rows of A on the host's cores. B's columns in one pass down its rows: split into column
  // blocks, each worker strode across every row and the pass took 3x as long (issue 34).
  parallel_chunks(static_cast<std::size_t>(std::max(M, 0)), 64, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      double sum = 0;
      for (int k = 0; k < K; ++k) {
        const double v = A[i * K + k];
        sum += v * v;
      }
      s.a_row_norms[i] = std::sqrt(sum);
    }
  });
  std::vector<double> sums(static_cast<std::size_t>(std::max(N, 0)), 0.0);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) {
      const double v = B[static_cast<std::size_t>(k) * N + j];
      sums[static_cast<std::size_t>(j)] += v * v;
    }
  for (int j = 0; j < N; ++j) s.b_col_norms[static_cast<std::size_t>(j)] = std::sqrt(sums[static_cast<std::size_t>(j)]);
  return s;
}

double tolerance_per_unit(const ErrorScale& scale) {
  return kToleranceFactor * std::sqrt(static_cast<double>(std::max(scale.K, 1))) * std::ldexp(1.0, -24);
}

Verification verify(const float* got, const float* ref, int M, int N, const ErrorScale& scale) {
  Verification v;
  const double per_unit = tolerance_per_unit(scale);
  v.tolerance = "|got - ref| <= 16 * sqrt(K=" + std::to_string(scale.K) + ") * 2^-24 * ||A_i,:|| * ||B_:,j|| + 1e-30";
  if (M != scale.M || N != scale.N || !got || !ref) {
    v.tolerance += " (not checked: the error scale is for another shape)";
    return v;
  }
  for (int i = 0; i < M; ++i) {
    const double row_scale = per_unit * scale.a_row_norms[static_cast<std::size_t>(i)];
    for (int j = 0; j < N; ++j) {
      const std::size_t e = static_cast<std::size_t>(i) * N + j;
      const double g = got[e], r = ref[e];
      const double err = std::fabs(g - r);
      const double tol = row_scale * scale.b_col_norms[static_cast<std::size_t>(j)] + kToleranceFloor;
      const bool ok = err <= tol;  // false for NaN
      ++v.checked;
      if (std::isfinite(err)) {
        v.max_abs = std::max(v.max_abs, err);
        if (std::fabs(r) > 1e-30) v.max_rel = std::max(v.max_rel, err / std::fabs(r));
        v.max_tolerance_ratio = std::max(v.max_tolerance_ratio, err / tol);
      } else {
        v.max_abs = v.max_rel = v.max_tolerance_ratio = std::numeric_limits<double>::infinity();
      }
      if (!ok) {
        if (v.mismatches == 0) {
          v.first_bad_row = i, v.first_bad_col = j;
          v.first_bad_got = got[e], v.first_bad_want = ref[e];
        }
        ++v.mismatches;
      }
    }
  }
  v.passed = v.mismatches == 0 && v.checked == static_cast<std::size_t>(M) * N;
  return v;
}

std::string Verification::summary() const {
  std::string s = passed ? "PASS" : "FAIL";
  s += ": max abs " + format_g(max_abs) + ", max rel " + format_g(max_rel) + ", worst err/tol " +
       format_g(max_tolerance_ratio) + ", " + std::to_string(mismatches) + " of " + std::to_string(checked) +
       " outside tolerance";
  if (first_bad_row >= 0)
    s += "; first at C[" + std::to_string(first_bad_row) + "][" + std::to_string(first_bad_col) +
         "] = " + format_g(first_bad_got) + ", want " + format_g(first_bad_want);
  return s;
}

}  // namespace bs::matmul
