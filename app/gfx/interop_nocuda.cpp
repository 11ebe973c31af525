// InteropPixelBuffer's CUDA half for builds without CUDA: every call says so, and the buffer
// stays in host-copy mode.
#include "gfx/interop_backend.hpp"

namespace bs::detail {

namespace {
Status no_cuda(const char* call) {
  return Status::failure("built without CUDA", "rebuild with nvcc on PATH for CUDA-GL interop", call);
}
}  // namespace

Status cuda_check_gl_device() { return no_cuda("cudaGLGetDevices"); }
Result<void*> cuda_allocate(size_t) { return no_cuda("cudaMalloc"); }
void cuda_free(void*) {}
Result<void*> cuda_register_gl_texture(unsigned) { return no_cuda("cudaGraphicsGLRegisterImage"); }
void cuda_unregister(void*) {}
Status cuda_copy_to_texture(void*, const void*, size_t, int, void*) { return no_cuda("cudaMemcpy2DToArrayAsync"); }
Result<std::vector<int>> cuda_gl_devices() { return no_cuda("cudaGLGetDevices"); }

}  // namespace bs::detail
