// Built without CUDA: there is no GPU clock to measure.
#include "device/sm_clock.hpp"

namespace bs {
Result<SmClock> measure_sm_clock(int) {
  return Status::failure("blockscope was built without CUDA", "", "measure_sm_clock");
}
Status make_device_current(int) {
  return Status::failure("blockscope was built without CUDA", "", "make_device_current");
}
}  // namespace bs
