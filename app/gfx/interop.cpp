// The GL half of InteropPixelBuffer; the CUDA half is in interop_cuda.cpp / interop_nocuda.cpp.
#include "gfx/interop.hpp"

#include "gfx/interop_backend.hpp"

namespace bs {

Result<InteropPixelBuffer> InteropPixelBuffer::create(int width, int height, int channels, bool try_cuda) {
  if (width <= 0 || height <= 0) {
    return Status::failure(
        "pixel buffer size must be positive, got " + std::to_string(width) + "x" + std::to_string(height), {},
        "InteropPixelBuffer::create");
  }
  if (channels != 1 && channels != 4) {
    return Status::failure("pixel buffer channels must be 1 (R8) or 4 (RGBA8)", {}, "InteropPixelBuffer::create");
  }
  const size_t bytes = static_cast<size_t>(width) * static_cast<size_t>(height) * static_cast<size_t>(channels);
  // STREAM_DRAW: in host-copy mode, written by GL code and read once for the texture copy.
  auto buffer = GlBuffer::create(GL_PIXEL_UNPACK_BUFFER, bytes, GL_STREAM_DRAW);
  if (!buffer) return buffer.status();

  InteropPixelBuffer pbo;
  pbo.buffer_ = std::move(buffer).value();
  pbo.width_ = width;
  pbo.height_ = height;
  pbo.channels_ = channels;
  pbo.registration_ = try_cuda ? detail::cuda_check_gl_device()
                               : Status::failure("host copy asked for", {}, "InteropPixelBuffer::create");
  if (pbo.registration_) {
    auto device = detail::cuda_allocate(bytes);
    if (device) pbo.device_ = device.value();
    else pbo.registration_ = device.status();
  }
  return pbo;
}

InteropPixelBuffer::~InteropPixelBuffer() { release(); }

void InteropPixelBuffer::release() {
  detail::cuda_unregister(texture_resource_);
  detail::cuda_free(device_);
  texture_resource_ = nullptr;
  registered_texture_ = 0;
  device_ = nullptr;
  mapped_ = false;
}

InteropPixelBuffer::InteropPixelBuffer(InteropPixelBuffer&& other) noexcept { *this = std::move(other); }

InteropPixelBuffer& InteropPixelBuffer::operator=(InteropPixelBuffer&& other) noexcept {
  if (this != &other) {
    release();  // the CUDA registration goes before the GL buffer it refers to
    buffer_ = std::move(other.buffer_);
    device_ = other.device_;
    texture_resource_ = other.texture_resource_;
    registered_texture_ = other.registered_texture_;
    mapped_ = other.mapped_;
    registration_ = std::move(other.registration_);
    width_ = other.width_;
    height_ = other.height_;
    channels_ = other.channels_;
    other.device_ = nullptr;
    other.texture_resource_ = nullptr;
    other.registered_texture_ = 0;
    other.mapped_ = false;
    other.registration_ = Status::failure("moved from");
  }
  return *this;
}

std::string InteropPixelBuffer::mode_description() const {
  if (interop_active()) return "CUDA-GL interop (zero-copy: CUDA copies into the texture)";
  return "host copy fallback: " + registration_.describe();
}

Result<void*> InteropPixelBuffer::map() {
  if (!interop_active())
    return Status::failure("CUDA-GL interop is off: " + registration_.describe(), "use upload_from_host",
                           "InteropPixelBuffer::map");
  if (mapped_) return Status::failure("the pixel buffer is already mapped", {}, "InteropPixelBuffer::map");
  mapped_ = true;
  return device_;
}

Status InteropPixelBuffer::unmap() {
  if (!mapped_) return Status::failure("the pixel buffer is not mapped", {}, "InteropPixelBuffer::unmap");
  mapped_ = false;
  return Status::success();
}

Status InteropPixelBuffer::check_texture(const GlTexture& texture) const {
  const GLenum expected = channels_ == 1 ? GL_R8 : GL_RGBA8;
  if (!texture || texture.internal_format() != expected || texture.width() != width_ || texture.height() != height_) {
    return Status::failure(std::string("the texture must be ") + (channels_ == 1 ? "R8" : "RGBA8") + " of " +
                               std::to_string(width_) + "x" + std::to_string(height_),
                           {}, "InteropPixelBuffer::upload");
  }
  return Status::success();
}

Status InteropPixelBuffer::upload_to(GlTexture& texture) {
  if (Status s = check_texture(texture); !s) return s;
  if (mapped_) return Status::failure("unmap the pixel buffer before GL reads it", {}, "InteropPixelBuffer::upload_to");
  if (interop_active()) {
    if (registered_texture_ != texture.id()) {
      detail::cuda_unregister(texture_resource_);
      texture_resource_ = nullptr;
      registered_texture_ = 0;
      auto resource = detail::cuda_register_gl_texture(texture.id());
      if (!resource) return resource.status();
      texture_resource_ = resource.value();
      registered_texture_ = texture.id();
    }
    return detail::cuda_copy_to_texture(texture_resource_, device_, static_cast<size_t>(width_) * channels_, height_,
                                        nullptr);
  }

  GLint previous_texture = 0, previous_unpack = 0, previous_alignment = 4, previous_row_length = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_texture);
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &previous_unpack);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &previous_alignment);
  glGetIntegerv(GL_UNPACK_ROW_LENGTH, &previous_row_length);
  take_gl_error();

  glBindTexture(GL_TEXTURE_2D, texture.id());
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_.id());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);  // rows are tightly packed: odd widths are not 4-aligned
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  // With an unpack buffer bound the "pointer" is an offset into it: the copy stays on the GPU.
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, texture.pixel_format(), GL_UNSIGNED_BYTE, nullptr);
  const std::string error = take_gl_error();

  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous_texture));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, static_cast<GLuint>(previous_unpack));
  glPixelStorei(GL_UNPACK_ALIGNMENT, previous_alignment);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, previous_row_length);
  if (!error.empty()) return Status::failure("copy from the pixel buffer failed", {}, "glTexSubImage2D", error);
  return Status::success();
}

Status InteropPixelBuffer::upload_from_host(const uint8_t* pixels, GlTexture& texture) const {
  if (Status s = check_texture(texture); !s) return s;
  return texture.upload(pixels);
}

Result<std::vector<int>> cuda_devices_for_current_gl_context() { return detail::cuda_gl_devices(); }

}  // namespace bs
