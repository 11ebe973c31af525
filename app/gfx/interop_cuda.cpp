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
  Status s = Status::failure(std::move(message) + ": " + cudaGetErrorString(error), std::move(hint), std::move(call),
                             cudaGetErrorName(error));
  s.sticky = cuda::is_sticky(error);
  return s;
}

}  // namespace

Status cuda_check_gl_device() {
  int device_count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&device_count); e != cudaSuccess) {
    return cuda_failure(e, "no usable CUDA device", "cudaGetDeviceCount");
  }
  if (device_count == 0) { return Status::failure("no CUDA device", {}, "cudaGetDeviceCount", "cudaErrorNoDevice"); }

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
      return Status::failure(
          "the OpenGL context is on CUDA device " + list + ", CUDA is using device " + std::to_string(current),
          "select the GL context's CUDA device before creating the buffer", "cudaGLGetDevices", "device mismatch");
    }
  }
  return Status::success();
}

Result<void*> cuda_allocate(size_t bytes) {
  void* device = nullptr;
  if (cudaError_t e = cudaMalloc(&device, bytes); e != cudaSuccess) {
    return cuda_failure(e, "cannot allocate the result's device buffer", "cudaMalloc");
  }
  return device;
}

void cuda_free(void* device) {
  if (device && cudaFree(device) != cudaSuccess) cudaGetLastError();  // in a destructor: leave nothing behind
}

Result<void*> cuda_register_gl_texture(unsigned gl_texture) {
  cudaGraphicsResource_t resource = nullptr;
  if (cudaError_t e =
          cudaGraphicsGLRegisterImage(&resource, gl_texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard);
      e != cudaSuccess) {
    return cuda_failure(e, "cannot register the GL texture with CUDA", "cudaGraphicsGLRegisterImage");
  }
  return static_cast<void*>(resource);
}

void cuda_unregister(void* resource) {
  if (!resource) return;
  if (cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource)) != cudaSuccess) {
    cudaGetLastError();  // nothing to do about it in a destructor; do not leave it for a launcher
  }
}

Status cuda_copy_to_texture(void* resource, const void* device, size_t row_bytes, int height, void* stream) {
  auto r = static_cast<cudaGraphicsResource_t>(resource);
  auto s = static_cast<cudaStream_t>(stream);
  if (cudaError_t e = cudaGraphicsMapResources(1, &r, s); e != cudaSuccess) {
    return cuda_failure(e, "cannot map the GL texture for CUDA", "cudaGraphicsMapResources");
  }
  cudaArray_t array = nullptr;
  Status status = Status::success();
  if (cudaError_t e = cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0); e != cudaSuccess) {
    status = cuda_failure(e, "cannot get the mapped texture's array", "cudaGraphicsSubResourceGetMappedArray");
  } else if (cudaError_t c = cudaMemcpy2DToArrayAsync(array, 0, 0, device, row_bytes, row_bytes,
                                                      static_cast<size_t>(height), cudaMemcpyDeviceToDevice, s);
             c != cudaSuccess) {
    status = cuda_failure(c, "cannot copy the result into the GL texture", "cudaMemcpy2DToArrayAsync");
  }
  if (cudaError_t e = cudaGraphicsUnmapResources(1, &r, s); e != cudaSuccess && status) {
    status = cuda_failure(e, "cannot unmap the GL texture", "cudaGraphicsUnmapResources");
  }
  return status;
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
