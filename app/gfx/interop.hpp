// CUDA writes the result straight into GL: a pixel-unpack buffer (PBO) registered with CUDA
// (cudaGraphicsGLRegisterBuffer, write-discard). Each relaunch maps it, lets the kernel write
// the output through the mapped device pointer, unmaps it, and copies it into the result
// texture on the GL side (glTexSubImage2D from the PBO): no round trip through host memory.
//
// When registration is impossible (GL on another GPU or in software, WSL, no CUDA device, a
// build without CUDA) the same object still works in "host copy" mode: the kernel's output is
// copied to the host by the caller and upload_from_host() puts it into the texture. The status
// bar shows mode_description() either way.
//
//   auto pbo = bs::InteropPixelBuffer::create(w, h);            // GL context current
//   if (pbo->interop_active()) {
//     auto ptr = pbo->map();                                    // device pointer, w*h bytes
//     if (ptr) launch(..., static_cast<uint8_t*>(*ptr));        // rows top first, tightly packed
//     pbo->unmap();
//     pbo->upload_to(result_texture);                           // R8 texture of w x h
//   } else {
//     pbo->upload_from_host(host_result.data(), result_texture);
//   }
//
// CUDA uses its current device: on a multi-GPU machine make it the GL context's device
// (Window::egl_cuda_device(), cuda_devices_for_current_gl_context()) before creating this.
#pragma once
#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "gfx/gl_objects.hpp"

namespace bs {

class InteropPixelBuffer {
 public:
  // A width x height PBO of `channels` bytes per pixel (1: R8 results, 4: RGBA8), registered
  // with CUDA when possible. Fails only when the GL buffer itself cannot be made; a failed
  // registration leaves the host-copy mode and says why in registration_status().
  static Result<InteropPixelBuffer> create(int width, int height, int channels = 1);

  InteropPixelBuffer() = default;
  ~InteropPixelBuffer();  // unmaps if still mapped, unregisters, deletes the buffer
  InteropPixelBuffer(InteropPixelBuffer&& other) noexcept;
  InteropPixelBuffer& operator=(InteropPixelBuffer&& other) noexcept;
  InteropPixelBuffer(const InteropPixelBuffer&) = delete;
  InteropPixelBuffer& operator=(const InteropPixelBuffer&) = delete;

  bool interop_active() const { return cuda_resource_ != nullptr; }
  // Why interop is off (message, call, CUDA error name in code); ok() when it is on.
  const Status& registration_status() const { return registration_; }
  // "CUDA-GL interop (zero-copy PBO)" or "host copy fallback: <reason>".
  std::string mode_description() const;

  // Maps the buffer for CUDA and returns its device pointer (size_bytes() bytes, rows top
  // first, tightly packed). `cuda_stream` is a cudaStream_t (nullptr: the default stream).
  // While mapped, GL must not touch the buffer.
  Result<void*> map(void* cuda_stream = nullptr);
  Status unmap(void* cuda_stream = nullptr);
  bool mapped() const { return mapped_; }

  // GL-side copy PBO -> texture (R8 for 1 channel, RGBA8 for 4, same size). Not while mapped.
  Status upload_to(GlTexture& texture) const;
  // The fallback: host pixels (size_bytes(), rows top first) -> texture, no CUDA involved.
  Status upload_from_host(const uint8_t* pixels, GlTexture& texture) const;

  int width() const { return width_; }
  int height() const { return height_; }
  int channels() const { return channels_; }
  size_t size_bytes() const { return buffer_.size(); }
  GLuint buffer_id() const { return buffer_.id(); }

 private:
  Status check_texture(const GlTexture& texture) const;
  void release();

  GlBuffer buffer_;
  void* cuda_resource_ = nullptr;  // cudaGraphicsResource_t when registered
  bool mapped_ = false;
  Status registration_ = Status::failure("not created");
  int width_ = 0, height_ = 0, channels_ = 1;
};

// The CUDA devices that the current GL context runs on (cudaGLGetDevices with
// cudaGLDeviceListAll). Empty: GL is not on a CUDA GPU (software GL, another vendor), so
// interop cannot work. A Status when CUDA is unavailable or the build has no CUDA.
Result<std::vector<int>> cuda_devices_for_current_gl_context();

}  // namespace bs
