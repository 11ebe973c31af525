// InteropPixelBuffer's CUDA half for builds without CUDA: every call says so, and the buffer
// stays in host-copy mode.
#include "gfx/interop_backend.hpp"

namespace bs::detail {

namespace {
Status no_cuda(const char* call) {
  return Status::failure("built without CUDA", "rebuild with nvcc on PATH for CUDA-GL interop", call);
}
}  // namespace

Result<void*> cuda_register_gl_buffer(unsigned) { return no_cuda("cudaGraphicsGLRegisterBuffer"); }
void cuda_unregister(void*) {}
Result<void*> cuda_map(void*, void*, size_t) { return no_cuda("cudaGraphicsMapResources"); }
Status cuda_unmap(void*, void*) { return no_cuda("cudaGraphicsUnmapResources"); }
Result<std::vector<int>> cuda_gl_devices() { return no_cuda("cudaGLGetDevices"); }

}  // namespace bs::detail
