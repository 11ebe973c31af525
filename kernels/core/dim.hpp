// Dim3: CUDA's dim3 without CUDA, so launch shapes can be described, validated and simulated
// on machines with no CUDA toolkit.
#pragma once
#include <cstdint>
#include <string>

#include "core/hd.hpp"

namespace bs {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;

  BS_HD constexpr unsigned long long volume() const { return static_cast<unsigned long long>(x) * y * z; }
};

BS_HD constexpr bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
BS_HD constexpr bool operator!=(const Dim3& a, const Dim3& b) { return !(a == b); }

// The one ceil_div of the project: blocks needed to cover n items with b per block.
BS_HD constexpr unsigned long long ceil_div(unsigned long long n, unsigned long long b) { return (n + b - 1) / b; }

inline std::string to_string(const Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

}  // namespace bs
