// The product's ladder, one GrayRung a line of BS_GRAY_RUNGS (gray_registry.hpp). Built in this
// unit so the simulator's instantiations of every rung's body (make_gray_rung's simulate and
// thread) live here: the line counter compiles this unit with coverage counters
// (kernels/linecount/CMakeLists.txt), so its counts are the rungs' own lines.
#include "labs/grayscale/gray_ladder.hpp"
#include "labs/grayscale/gray_registry.hpp"

namespace bs::gray {

const std::vector<GrayRung>& gray_rungs() {
  static const std::vector<GrayRung> ladder = [] {  // immutable once built
    std::vector<GrayRung> v;
    for (int k = 0; k < kGrayKernelCount; ++k)
      with_rung(static_cast<GrayKernel>(k), [&]<class R>() {
        v.push_back(make_gray_rung<R>());
        v.back().kernel = static_cast<GrayKernel>(k);
      });
    return v;
  }();
  return ladder;
}

}  // namespace bs::gray
