// The matmul GPU tests' one lab per process: creating a CUDA context and a cuBLAS handle per test
// would dominate the run time. Null (with the reason) when there is no usable device. Each test
// binary asks for one precision (the first call decides). The lab is released after the last
// test, before the CUDA runtime tears down at exit, so compute-sanitizer's leak check sees
// everything freed.
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "core/status.hpp"
#include "device/cuda_device.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_lab.hpp"

namespace bs::matmul::testing {

struct SharedLab {
  std::unique_ptr<MatmulLab> lab;
  Status why_not;
};

inline SharedLab& shared_gpu_lab(Precision precision) {
  static SharedLab shared = [precision] {
    SharedLab s;
    auto limits = cuda_device_limits(0);
    if (!limits) {
      s.why_not = limits.status();
      return s;
    }
    lab::Backend b;
    b.kind = BackendKind::Cuda;
    b.cuda_device = 0;
    b.limits = limits.value();
    auto created = MatmulLab::create(b);
    if (!created) {
      s.why_not = created.status();
      return s;
    }
    s.lab = std::move(created.value());
    if (precision != Precision::Fp32)
      if (Status st = s.lab->set_setting("precision", to_string(precision)); !st) {
        s.why_not = st;
        s.lab.reset();
      }
    return s;
  }();
  return shared;
}

// Registered once per test binary that includes this header.
class ReleaseGpuLabAtEnd : public ::testing::Environment {
 public:
  explicit ReleaseGpuLabAtEnd(SharedLab& (*lab)()) : lab_(lab) {}
  void TearDown() override { lab_().lab.reset(); }

 private:
  SharedLab& (*lab_)();
};

}  // namespace bs::matmul::testing
