// The grayscale ladder as the lab holds it: the lecture's two kernels, the rungs that take
// grayscale to the memory limit, and CUB's DeviceTransform as the library anchor, each a GrayRung
// made from its traits (gray_rung.hpp; the list is gray_registry.hpp). A ladder is a value: the
// lab takes one, so a test can add a rung of its own (gray_ladder_with<Traits>()).
//
// Section index
//   gray_rungs, gray_rung, find_gray_rung   the product's ladder and look-ups
//   gray_ladder_with<R...>                  the product's ladder and more rungs
//   check_gray_rung_launch                  refusals, before any launch
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

// The product's ladder, in BS_GRAY_RUNGS order (built in gray_ladder_sim.cpp, where the
// simulator's instantiations of the bodies live); gray_rung(k) is its line k.
const std::vector<GrayRung>& gray_rungs();
const GrayRung& gray_rung(GrayKernel k);
const GrayRung* find_gray_rung(const std::vector<GrayRung>& ladder, std::string_view id);
std::optional<GrayLayout> gray_layout_from_name(std::string_view name);  // "planar", "rgba"

template <class... R>
std::vector<GrayRung> gray_ladder_with() {
  std::vector<GrayRung> ladder = gray_rungs();
  (ladder.push_back(make_gray_rung<R>()), ...);
  return ladder;
}

// Refusals on top of CUDA's own rules: no image, an image over 2^31 - 1 pixels, then the rung's
// own (rung.check: blockDim.z > 1 for the 2D kernel, grids with y or z extent for the flattened
// kernels, a fixed grid too small to cover the image for the rungs that do not loop).
Status check_gray_rung_launch(const GrayRung& rung, GrayLayout l, const LaunchConfig& config, int width, int height,
                              const DeviceLimits& limits, const KernelAttributes* kernel);

}  // namespace bs::gray
