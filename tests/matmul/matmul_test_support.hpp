// Shared by the matmul tests: fresh seeds (printed, overridable), shapes, and one helper that
// checks a kernel's output against the CPU reference with the lab's documented tolerance.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "labs/matmul/matmul.hpp"

namespace bs::matmul::testing {

// A fresh seed per process (so every run tests new data), printed so a failure can be
// reproduced with BS_TEST_SEED=<seed>.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const char* env = std::getenv("BS_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  static const bool printed = [] {
    std::cout << "[ matmul  ] data seed " << seed << " (rerun with BS_TEST_SEED=" << seed << ")\n";
    return true;
  }();
  (void)printed;
  return seed;
}

struct Shape {
  int M, N, K;
  std::string name() const { return "s" + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
};

// Inputs and the double-accumulating CPU reference for one shape, seeded from the test seed
// and the shape (so different shapes get different data).
struct Problem {
  Shape shape;
  std::uint64_t seed = 0;
  std::vector<float> A, B, ref;
  ErrorScale scale;

  // `fixed_seed`: the seed the lab generates from (its A from seed, B from seed + 1), so the
  // reference here is of the very matrices the lab holds; 0: a seed from the test seed.
  explicit Problem(Shape s, Pattern pattern = Pattern::Uniform, std::uint64_t fixed_seed = 0) : shape(s) {
    seed = fixed_seed ? fixed_seed : test_seed() ^ (static_cast<std::uint64_t>(s.M) * 1000003u + s.N * 10007u + s.K);
    A = generate_matrix(s.M, s.K, pattern, seed);
    B = generate_matrix(s.K, s.N, pattern, seed + 1);
    ref.resize(static_cast<std::size_t>(s.M) * s.N);
    const Status st = cpu_reference(A.data(), B.data(), ref.data(), s.M, s.N, s.K);
    EXPECT_TRUE(st.ok()) << st.describe();
    scale = error_scale(A.data(), B.data(), s.M, s.N, s.K);
  }
};

inline std::string config_name(MatmulKernel k, const MatmulConfig& c) {
  return matmul_kernel_info(k).id + " [" + c.label + "]";
}

}  // namespace bs::matmul::testing
