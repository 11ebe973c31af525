// The grayscale ladder: one line a rung. A rung is its file (the kernel body and its traits, see
// gray_rung.hpp) plus its line below; the enumerator, the kernel list, the simulator's and the
// CUDA build's instantiations all come from here.
//
//   with_rung(kernel, f)   f.template operator()<Traits>() for the kernel's traits
#pragma once
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/grayscale/gray_cub.hpp"
#include "labs/grayscale/gray_grid_stride.hpp"
#include "labs/grayscale/gray_ilp4.hpp"
#include "labs/grayscale/gray_vec16.hpp"
#include "labs/grayscale/gray_vec16_aligned.hpp"

// X(enumerator of GrayKernel, traits), in ladder order. The last is not ours: CUB's
// DeviceTransform, timed as the library anchor.
#define BS_GRAY_RUNGS(X)            \
  X(Flat1D, GrayFlat1D)             \
  X(Grid2D, Gray2D)                 \
  X(Ilp4, GrayIlp4)                 \
  X(Vec16, GrayVec16)               \
  X(GridStride, GrayGridStride)     \
  X(Vec16Aligned, GrayVec16Aligned) \
  X(CubTransform, GrayCubTransform)

namespace bs::gray {

#define BS_GRAY_ENUMERATOR(name, traits) name,
enum class GrayKernel : int { BS_GRAY_RUNGS(BS_GRAY_ENUMERATOR) };
#undef BS_GRAY_ENUMERATOR

#define BS_GRAY_COUNT(name, traits) +1
inline constexpr int kGrayKernelCount = 0 BS_GRAY_RUNGS(BS_GRAY_COUNT);
#undef BS_GRAY_COUNT

template <class F>
bool with_rung(GrayKernel kernel, F&& f) {
  switch (kernel) {
#define BS_GRAY_CASE(name, traits) \
  case GrayKernel::name: f.template operator()<traits>(); return true;
    BS_GRAY_RUNGS(BS_GRAY_CASE)
#undef BS_GRAY_CASE
  }
  return false;
}

}  // namespace bs::gray
