// The labs the GPU tests of kernels/measured profile and sample: the CUDA backend of device 0,
// a grayscale lab on a fresh random image, a matmul lab on fresh random square matrices.
// Null (or the Status) where there is no device; the tests skip visibly then.
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "device/cuda_device.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"

namespace bs::measured::test {

inline Result<lab::Backend> cuda_backend() {
  auto limits = cuda_device_limits(0);
  if (!limits) return limits.status();
  lab::Backend b;
  b.kind = BackendKind::Cuda;
  b.cuda_device = 0;
  b.limits = limits.value();
  b.label = limits->name;
  return b;
}

inline std::unique_ptr<gray::GrayLab> gray_lab(int w, int h) {
  auto b = cuda_backend();
  if (!b) return nullptr;
  auto lab = gray::GrayLab::create(*b);
  if (!lab) return nullptr;
  std::mt19937 rng(std::random_device{}());
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  if (!(*lab)->set_image(rgba.data(), w, h, "random.png")) return nullptr;
  return std::move(lab.value());
}

inline std::unique_ptr<matmul::MatmulLab> matmul_lab(int n) {
  auto b = cuda_backend();
  if (!b) return nullptr;
  auto lab = matmul::MatmulLab::create(*b);
  if (!lab) return nullptr;
  matmul::MatrixSpec spec;
  spec.M = spec.N = spec.K = n;
  spec.seed = std::random_device{}();
  if (!(*lab)->set_matrices(spec)) return nullptr;
  return std::move(lab.value());
}

}  // namespace bs::measured::test
