// The CUDA half of InteropPixelBuffer, behind plain types so interop.cpp never includes CUDA
// headers. interop_cuda.cpp implements it with the CUDA runtime; interop_nocuda.cpp, built
// when BLOCKSCOPE_HAS_CUDA is off, reports "built without CUDA" for every call.
#pragma once
#include <cstddef>
#include <vector>

#include "core/status.hpp"

namespace bs::detail {

// Whether CUDA's current device runs the current GL context (else why not).
Status cuda_check_gl_device();
// Device memory of `bytes` bytes, and its release.
Result<void*> cuda_allocate(size_t bytes);
void cuda_free(void* device);
// Registers GL_TEXTURE_2D `gl_texture` (write-discard); returns the cudaGraphicsResource_t.
Result<void*> cuda_register_gl_texture(unsigned gl_texture);
void cuda_unregister(void* resource);
// Copies `height` rows of `row_bytes` from device memory into the registered texture (mapped for
// the copy and unmapped after it, so GL's later reads wait for it).
Status cuda_copy_to_texture(void* resource, const void* device, size_t row_bytes, int height, void* stream);
Result<std::vector<int>> cuda_gl_devices();

}  // namespace bs::detail
