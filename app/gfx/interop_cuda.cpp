// InteropPixelBuffer's CUDA half: plain C++ calling the CUDA runtime (compiled as CXX with the
// cudart headers). Every CUDA error is cleared after it is turned into a Status, so a failed
// registration here is not picked up later by a launcher's cudaGetLastError().
#include <epoxy/gl.h>  // cuda_gl_interop.h needs GL types; epoxy provides them, not <GL/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <string>

#include "device/cuda_status.hpp"
#include "gfx/interop_backend.hpp"

namespace bs::detail {

namespace {

Status cuda_failure(cudaError_t error, std::string message, std::string call, std::string hint = {}) {
  cudaGetLastError();  // clear the error so it is reported once, here
  Status s = Status::failure(std::move(message) + ": " + cudaGetErrorString(error), std::move(hint),
                             std::move(call), cudaGetErrorName(error));
  s.sticky = cuda::is_sticky(error);
  return s;
}

}  // namespace

Result<void*> cuda_register_gl_buffer(unsigned gl_buffer) {
  int device_count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&device_count); e != cudaSuccess) {
    return cuda_failure(e, "no usable CUDA device", "cudaGetDeviceCount");
  }
  if (device_count == 0) {
    return Status::failure("no CUDA device", {}, "cudaGetDeviceCount", "cudaErrorNoDevice");
  }

  // Say *why* registration will fail when GL is not on the current CUDA device: the CUDA error
  // alone (often cudaErrorUnknown or cudaErrorInvalidDevice) does not.
  auto gl_devices = cuda_gl_devices();
  int current = -1;
  cudaGetDevice(&current);
  if (gl_devices && gl_devices->empty()) {
    return Status::failure("the OpenGL context is not on a CUDA device (software GL or another GPU)",
                           "run on the NVIDIA GPU's display, or headless with EGL on the CUDA device",
                           "cudaGLGetDevices", "no CUDA device for the GL context");
  }
  if (gl_devices) {
    bool found = false;
    std::string list;
    for (int d : gl_devices.value()) {
      found = found || d == current;
      list += (list.empty() ? "" : ", ") + std::to_string(d);
    }
    if (!found) {
      return Status::failure("the OpenGL context is on CUDA device " + list + ", CUDA is using device " +
                                 std::to_string(current),
                             "select the GL context's CUDA device before creating the buffer",
                             "cudaGLGetDevices", "device mismatch");
    }
  }

  cudaGraphicsResource_t resource = nullptr;
  if (cudaError_t e = cudaGraphicsGLRegisterBuffer(&resource, gl_buffer, cudaGraphicsRegisterFlagsWriteDiscard);
      e != cudaSuccess) {
    return cuda_failure(e, "cannot register the GL buffer with CUDA", "cudaGraphicsGLRegisterBuffer");
  }
  return static_cast<void*>(resource);
}

void cuda_unregister(void* resource) {
  if (!resource) return;
  if (cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource)) != cudaSuccess) {
    cudaGetLastError();  // nothing to do about it in a destructor; do not leave it for a launcher
  }
}

Result<void*> cuda_map(void* resource, void* stream, size_t expected_bytes) {
  auto r = static_cast<cudaGraphicsResource_t>(resource);
  auto s = static_cast<cudaStream_t>(stream);
  if (cudaError_t e = cudaGraphicsMapResources(1, &r, s); e != cudaSuccess) {
    return cuda_failure(e, "cannot map the GL buffer for CUDA", "cudaGraphicsMapResources");
  }
  void* pointer = nullptr;
  size_t size = 0;
  if (cudaError_t e = cudaGraphicsResourceGetMappedPointer(&pointer, &size, r); e != cudaSuccess) {
    Status status = cuda_failure(e, "cannot get the mapped buffer's address", "cudaGraphicsResourceGetMappedPointer");
    cudaGraphicsUnmapResources(1, &r, s);
    cudaGetLastError();
    return status;
  }
  if (size < expected_bytes) {
    cudaGraphicsUnmapResources(1, &r, s);
    cudaGetLastError();
    return Status::failure("the mapped buffer has " + std::to_string(size) + " bytes, expected " +
                               std::to_string(expected_bytes),
                           {}, "cudaGraphicsResourceGetMappedPointer");
  }
  return pointer;
}

Status cuda_unmap(void* resource, void* stream) {
  auto r = static_cast<cudaGraphicsResource_t>(resource);
  if (cudaError_t e = cudaGraphicsUnmapResources(1, &r, static_cast<cudaStream_t>(stream)); e != cudaSuccess) {
    return cuda_failure(e, "cannot unmap the GL buffer", "cudaGraphicsUnmapResources");
  }
  return Status::success();
}

Result<std::vector<int>> cuda_gl_devices() {
  unsigned int count = 0;
  int devices[16] = {};
  cudaError_t e = cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll);
  if (e == cudaErrorNoDevice) {  // "no CUDA device corresponds to the current GL context"
    cudaGetLastError();
    return std::vector<int>{};
  }
  if (e != cudaSuccess) return cuda_failure(e, "cannot ask CUDA which GPU runs OpenGL", "cudaGLGetDevices");
  return std::vector<int>(devices, devices + count);
}

}  // namespace bs::detail
