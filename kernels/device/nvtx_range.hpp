// Named ranges for Nsight Systems: blockscope's own phases (map, launch, unmap, draw, each sweep
// point) show up by name on the timeline of a user who profiles blockscope itself.
//
//   { bs::NvtxRange r("sweep point gray_2d 32x8"); ... }   // pushed here, popped at scope end
//
// NVTX3 is header-only (the toolkit's include/nvtx3): a range costs a call through a function
// pointer that stays a no-op until a tool such as nsys injects itself. Builds without CUDA
// compile the type to nothing.
#pragma once
#include <string>

#if defined(BLOCKSCOPE_HAS_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace bs {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) {
#if defined(BLOCKSCOPE_HAS_NVTX)
    nvtxRangePushA(name);
#else
    (void)name;
#endif
  }
  explicit NvtxRange(const std::string& name) : NvtxRange(name.c_str()) {}
  ~NvtxRange() {
#if defined(BLOCKSCOPE_HAS_NVTX)
    nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace bs
