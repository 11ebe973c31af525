// CUDA writes the result straight into GL without a trip through host memory: the kernel writes
// into a device buffer, and upload_to() copies it into the result texture with CUDA
// (cudaGraphicsGLRegisterImage, write-discard; cudaMemcpy2DToArrayAsync), mapping the texture
// only for that copy. GL's own copy from a pixel-unpack buffer ran at about 13 GB/s on an H200,
// whose few graphics units do it (0.73 ms of a 3840x2160 frame, 4.75 ms at 8192^2); CUDA's copy
// is device to device.
//
// When CUDA cannot reach GL (GL on another GPU or in software, WSL, no CUDA device, a build
// without CUDA) the same object still works in "host copy" mode: the kernel's output is copied
// to the host by the caller and upload_from_host() puts it into the texture, or GL code fills
// the pixel-unpack buffer (buffer_id()) and upload_to() copies it on the GL side. The status bar
// shows mode_description() either way.
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
  // A width x height buffer of `channels` bytes per pixel (1: R8 results, 4: RGBA8), in device
  // memory when CUDA runs the GL context's GPU. Fails only when the GL buffer itself cannot be
  // made; when CUDA cannot reach GL it stays in host-copy mode and says why in registration_status().
  // `try_cuda` false asks for host-copy mode (GL fills buffer_id(), upload_to copies it on GL).
  static Result<InteropPixelBuffer> create(int width, int height, int channels = 1, bool try_cuda = true);

  InteropPixelBuffer() = default;
  ~InteropPixelBuffer();  // unmaps if still mapped, unregisters, deletes the buffer
  InteropPixelBuffer(InteropPixelBuffer&& other) noexcept;
  InteropPixelBuffer& operator=(InteropPixelBuffer&& other) noexcept;
  InteropPixelBuffer(const InteropPixelBuffer&) = delete;
  InteropPixelBuffer& operator=(const InteropPixelBuffer&) = delete;

  bool interop_active() const { return device_ != nullptr; }
  // Why interop is off (message, call, CUDA error name in code); ok() when it is on.
  const Status& registration_status() const { return registration_; }
  // "CUDA-GL interop (zero-copy: CUDA copies into the texture)" or "host copy fallback: <reason>".
  std::string mode_description() const;

  // The device buffer the kernel writes (size_bytes() bytes, rows top first, tightly packed),
  // between map() and unmap().
  Result<void*> map();
  Status unmap();
  bool mapped() const { return mapped_; }

  // The result into `texture` (R8 for 1 channel, RGBA8 for 4, same size). Not while mapped.
  // With interop: CUDA copies the device buffer into the texture (registered with CUDA the first
  // time, and again for another texture), on the default stream, after the kernel. Without: GL
  // copies the pixel-unpack buffer.
  Status upload_to(GlTexture& texture);
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
  void* device_ = nullptr;            // the kernel's output, in device memory (interop only)
  void* texture_resource_ = nullptr;  // cudaGraphicsResource_t of the texture registered last
  GLuint registered_texture_ = 0;
  bool mapped_ = false;
  Status registration_ = Status::failure("not created");
  int width_ = 0, height_ = 0, channels_ = 1;
};

// The CUDA devices that the current GL context runs on (cudaGLGetDevices with
// cudaGLDeviceListAll). Empty: GL is not on a CUDA GPU (software GL, another vendor), so
// interop cannot work. A Status when CUDA is unavailable or the build has no CUDA.
Result<std::vector<int>> cuda_devices_for_current_gl_context();

}  // namespace bs
