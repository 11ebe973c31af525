// The CUDA half of InteropPixelBuffer, behind plain types so interop.cpp never includes CUDA
// headers. interop_cuda.cpp implements it with the CUDA runtime; interop_nocuda.cpp, built
// when BLOCKSCOPE_HAS_CUDA is off, reports "built without CUDA" for every call.
#pragma once
#include <cstddef>
#include <vector>

#include "core/status.hpp"

namespace bs::detail {

// Registers GL buffer `gl_buffer` (write-discard); returns the cudaGraphicsResource_t.
Result<void*> cuda_register_gl_buffer(unsigned gl_buffer);
void cuda_unregister(void* resource);
// Maps and returns the device pointer; fails if the mapped size is smaller than expected.
Result<void*> cuda_map(void* resource, void* stream, size_t expected_bytes);
Status cuda_unmap(void* resource, void* stream);
Result<std::vector<int>> cuda_gl_devices();

}  // namespace bs::detail
