// The one compile-time table from (rung, layout) to the rung's per-thread body, shared by the
// GPU wrappers (gray_ladder_kernels.cu) and the simulator (gray_ladder_sim.cpp), so both backends
// run exactly the same code for the same pair.
#pragma once
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/grayscale/gray_grid_stride.hpp"
#include "labs/grayscale/gray_ilp4.hpp"
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_vec16.hpp"

namespace bs::gray {

template <GrayRung R, GrayLayout L, class Ctx>
BS_HD void gray_rung_body(const Ctx& t, const GrayArgs& a) {
  if constexpr (R == GrayRung::Flat1D) gray_1d_flat_thread<L>(t, a);
  else if constexpr (R == GrayRung::Grid2D) gray_2d_thread<L>(t, a);
  else if constexpr (R == GrayRung::Ilp4) gray_ilp4_thread<L>(t, a);
  else if constexpr (R == GrayRung::Vec16) gray_vec16_thread<L>(t, a);
  else if constexpr (R == GrayRung::GridStride) gray_grid_stride_thread<L>(t, a);
  else static_assert(R != R, "the library anchor has no body of ours");
}

// Calls f.template operator()<R, L>() for the run-time pair (r, l). Returns false, calling
// nothing, for the library anchor.
template <class F>
bool with_gray_rung(GrayRung r, GrayLayout l, F&& f) {
  auto by_layout = [&]<GrayRung R>() {
    if (l == GrayLayout::Planar)
      f.template operator()<R, GrayLayout::Planar>();
    else
      f.template operator()<R, GrayLayout::Rgba>();
  };
  switch (r) {
    case GrayRung::Flat1D: by_layout.template operator()<GrayRung::Flat1D>(); return true;
    case GrayRung::Grid2D: by_layout.template operator()<GrayRung::Grid2D>(); return true;
    case GrayRung::Ilp4: by_layout.template operator()<GrayRung::Ilp4>(); return true;
    case GrayRung::Vec16: by_layout.template operator()<GrayRung::Vec16>(); return true;
    case GrayRung::GridStride: by_layout.template operator()<GrayRung::GridStride>(); return true;
    case GrayRung::CubTransform: return false;
  }
  return false;
}

}  // namespace bs::gray
