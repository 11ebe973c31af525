// Stands in for matmul_hopper.cu where the build has no Hopper architecture (sm_90a): the
// wgmma rungs stay in the kernel list and say why they cannot run.
#include "labs/matmul/matmul_hopper.hpp"

namespace bs::matmul::hopper_host {
namespace {
Status not_built(const char* call) {
  return Status::failure(
      "this blockscope was built without sm_90a, the Hopper-only target that wgmma, TMA "
      "multicast and setmaxnreg need",
      "rebuild with 90 in CMAKE_CUDA_ARCHITECTURES (the default list has it) and nvcc 12 or newer", call);
}
}  // namespace

bool built() { return false; }
Result<TcTensorMaps> encode(const Bf16Args&) { return not_built("encode"); }
Status launch(MatmulKernel, const MatmulConfig&, const LaunchConfig&, const Bf16Args&, const TcTensorMaps&,
              trace::DeviceBlockRecord*, cudaStream_t) {
  return not_built("launch");
}
Status launch_tagged(MatmulKernel, const MatmulConfig&, const LaunchConfig&, const Bf16Args&, const TcTensorMaps&,
                     const TagFragments&, cudaStream_t) {
  return not_built("launch_tagged (fragment tags of the Hopper rungs)");
}
bool has_pipeline_trace(MatmulKernel, const MatmulConfig&) { return false; }
Status prepare_pipeline(MatmulKernel, const MatmulConfig&) { return not_built("prepare_pipeline"); }
Status launch_pipeline(MatmulKernel, const MatmulConfig&, const LaunchConfig&, const Bf16Args&, const TcTensorMaps&,
                       trace::DeviceBlockRecord*, PipelineDeviceArgs, cudaStream_t) {
  return not_built("launch_pipeline");
}
Result<KernelAttributes> attributes(MatmulKernel, const MatmulConfig&) { return not_built("attributes"); }
Result<int> max_active_clusters(MatmulKernel, const MatmulConfig&, const LaunchConfig&) {
  return not_built("max_active_clusters");
}

}  // namespace bs::matmul::hopper_host
