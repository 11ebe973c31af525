// The parts of Window that do not depend on how the context was made.
#include "platform/window.hpp"

#include <epoxy/gl.h>

#include <cstring>

namespace bs {

namespace {
std::string gl_string(GLenum name) {
  const auto* s = reinterpret_cast<const char*>(glGetString(name));
  return s ? std::string(s) : std::string();
}
}  // namespace

std::string Window::gl_renderer() const { return gl_string(GL_RENDERER); }
std::string Window::gl_version() const { return gl_string(GL_VERSION); }

std::vector<uint8_t> Window::read_pixels_rgba() {
  auto [width, height] = framebuffer_size();
  if (width <= 0 || height <= 0) return {};

  // Leave the framebuffer bindings and pack state as the caller had them.
  GLint previous_read_fbo = 0, previous_draw_fbo = 0, previous_pack_alignment = 4, previous_pack_buffer = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read_fbo);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_draw_fbo);
  glGetIntegerv(GL_PACK_ALIGNMENT, &previous_pack_alignment);
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &previous_pack_buffer);

  bind_default_framebuffer();
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);  // a bound pack buffer would turn the pointer into an offset
  glPixelStorei(GL_PACK_ALIGNMENT, 1);

  const size_t row_bytes = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> bottom_up(row_bytes * static_cast<size_t>(height));
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());

  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read_fbo));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous_draw_fbo));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(previous_pack_buffer));
  glPixelStorei(GL_PACK_ALIGNMENT, previous_pack_alignment);

  // GL's row 0 is the bottom of the frame; blockscope stores images top row first everywhere.
  std::vector<uint8_t> top_down(bottom_up.size());
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[static_cast<size_t>(y) * row_bytes],
                &bottom_up[static_cast<size_t>(height - 1 - y) * row_bytes], row_bytes);
  }
  return top_down;
}

}  // namespace bs
