// RAII wrappers for the OpenGL objects blockscope uses: each owns one GL name, is move-only, and
// deletes the name in its destructor (so it must die while its context is current, i.e. before
// the Window). Creation and uploads report failures as bs::Status; nothing prints and carries on.
//
// Uploads and read-backs set GL_UNPACK_ALIGNMENT / GL_PACK_ALIGNMENT to 1 and unbind pixel
// buffers for the call, then restore them: images in blockscope are tightly packed (an R8 image
// of odd width has rows that are not multiples of 4 bytes), stored top row first. Texture row 0
// is the top row; the image view renderer accounts for that, nothing flips on load.
//
// Sections: GlTexture, GlBuffer, GlProgram, GlVertexArray, GlFramebuffer, GlSampler,
// GlStateGuard (and begin_fullscreen_pass), read-back helpers.
#pragma once
#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <optional>
#include <vector>

#include "core/status.hpp"

namespace bs {

enum class TextureFilter { Nearest, Linear };

// Owns one GL name; `Deleter` is a function deleting n names. Shared by the wrappers below.
template <void (*Deleter)(GLuint)>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  ~GlName() { reset(); }
  GlName(GlName&& other) noexcept : id_(other.id_) { other.id_ = 0; }
  GlName& operator=(GlName&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      other.id_ = 0;
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  GLuint get() const { return id_; }
  void reset() {
    if (id_) Deleter(id_);
    id_ = 0;
  }

 private:
  GLuint id_ = 0;
};

namespace detail {
void delete_texture(GLuint);
void delete_buffer(GLuint);
void delete_program(GLuint);
void delete_vertex_array(GLuint);
void delete_framebuffer(GLuint);
void delete_sampler(GLuint);
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// A 2D texture with one level. Formats: RGBA8 (colour images), R8 (gray results), R32UI
// (per-block data such as the SM a block ran on).
class GlTexture {
 public:
  GlTexture() = default;

  static Result<GlTexture> create_rgba8(int width, int height, const uint8_t* pixels = nullptr);
  // Gray: sampled as (r, 0, 0, 1); created with an R->RGB swizzle so ImGui shows it as gray.
  static Result<GlTexture> create_r8(int width, int height, const uint8_t* pixels = nullptr);
  static Result<GlTexture> create_r32ui(int width, int height, const uint32_t* texels = nullptr);

  // Replaces the whole image from host memory (tightly packed, top row first, the texture's own
  // format: 4 bytes per pixel for RGBA8, 1 for R8, 4 for R32UI).
  Status upload(const void* pixels);

  // Created with Nearest (pixels stay crisp when magnified).
  void set_filter(TextureFilter filter);
  // Gray display: R replicated to RGB, alpha 1 (on for R8 textures by default).
  void set_gray_swizzle(bool on);

  GLuint id() const { return name_.get(); }
  int width() const { return width_; }
  int height() const { return height_; }
  GLenum internal_format() const { return internal_format_; }
  GLenum pixel_format() const;  // GL_RGBA, GL_RED or GL_RED_INTEGER
  GLenum pixel_type() const;    // GL_UNSIGNED_BYTE or GL_UNSIGNED_INT
  int bytes_per_pixel() const;
  bool is_gray() const { return internal_format_ == GL_R8; }
  explicit operator bool() const { return name_.get() != 0; }

 private:
  static Result<GlTexture> create(int width, int height, GLenum internal_format, const void* pixels);
  GlName<detail::delete_texture> name_;
  int width_ = 0, height_ = 0;
  GLenum internal_format_ = 0;
};

// ---------------------------------------------------------------------------------------------
// A buffer object; `target` is where it is bound for uploads (GL_ARRAY_BUFFER,
// GL_PIXEL_UNPACK_BUFFER for a PBO that feeds glTexSubImage2D, ...).
class GlBuffer {
 public:
  GlBuffer() = default;
  static Result<GlBuffer> create(GLenum target, size_t bytes, GLenum usage = GL_STREAM_DRAW,
                                 const void* data = nullptr);
  Status upload(const void* data, size_t bytes, size_t offset = 0);

  GLuint id() const { return name_.get(); }
  GLenum target() const { return target_; }
  size_t size() const { return size_; }
  explicit operator bool() const { return name_.get() != 0; }

 private:
  GlName<detail::delete_buffer> name_;
  GLenum target_ = 0;
  size_t size_ = 0;
};

// ---------------------------------------------------------------------------------------------
// A linked vertex + fragment program. A compile or link error comes back as a Status whose
// message holds the driver's info log and whose call names the shader.
class GlProgram {
 public:
  GlProgram() = default;
  static Result<GlProgram> build(std::string_view vertex_source, std::string_view fragment_source,
                                 std::string_view name);
  GLuint id() const { return name_.get(); }
  GLint uniform(const char* uniform_name) const { return glGetUniformLocation(id(), uniform_name); }
  explicit operator bool() const { return name_.get() != 0; }

 private:
  GlName<detail::delete_program> name_;
};

// ---------------------------------------------------------------------------------------------
// A vertex array object: the core profile draws nothing without one bound, even when the vertex
// shader makes its positions from gl_VertexID.
class GlVertexArray {
 public:
  GlVertexArray() = default;
  static GlVertexArray create();
  GLuint id() const { return name_.get(); }
  explicit operator bool() const { return name_.get() != 0; }

 private:
  GlName<detail::delete_vertex_array> name_;
};

// ---------------------------------------------------------------------------------------------
// A framebuffer object rendering into a texture.
class GlFramebuffer {
 public:
  GlFramebuffer() = default;
  static GlFramebuffer create();
  // Attaches level 0 of `texture` as colour attachment 0 and checks completeness.
  Status attach_colour(const GlTexture& texture);
  GLuint id() const { return name_.get(); }
  explicit operator bool() const { return name_.get() != 0; }

 private:
  GlName<detail::delete_framebuffer> name_;
};

// ---------------------------------------------------------------------------------------------
// A sampler object: filtering chosen per draw without changing the texture's own state (which
// belongs to whoever created the texture).
class GlSampler {
 public:
  GlSampler() = default;
  static GlSampler create(TextureFilter filter);
  GLuint id() const { return name_.get(); }

 private:
  GlName<detail::delete_sampler> name_;
};

// ---------------------------------------------------------------------------------------------
// Saves the GL state a draw pass changes and restores it on destruction, so a pass run in the
// middle of an ImGui frame leaves no surprises: program, VAO, array buffer, active texture and
// the 2D texture + sampler on units 0..3, framebuffers, viewport, blend (enable, funcs,
// equations), scissor, depth, stencil, cull, pixel (un)pack buffers and alignments.
class GlStateGuard {
 public:
  GlStateGuard();
  ~GlStateGuard();
  GlStateGuard(const GlStateGuard&) = delete;
  GlStateGuard& operator=(const GlStateGuard&) = delete;

 private:
  static constexpr int kUnits = 4;
  GLint program_ = 0, vertex_array_ = 0, array_buffer_ = 0, active_texture_ = 0;
  GLint textures_[kUnits] = {}, samplers_[kUnits] = {};
  GLint draw_framebuffer_ = 0, read_framebuffer_ = 0;
  GLint viewport_[4] = {};
  GLboolean blend_ = GL_FALSE, scissor_ = GL_FALSE, depth_ = GL_FALSE, stencil_ = GL_FALSE, cull_ = GL_FALSE;
  GLint blend_src_rgb_ = 0, blend_dst_rgb_ = 0, blend_src_alpha_ = 0, blend_dst_alpha_ = 0;
  GLint blend_equation_rgb_ = 0, blend_equation_alpha_ = 0;
  GLint unpack_buffer_ = 0, pack_buffer_ = 0, unpack_alignment_ = 4, pack_alignment_ = 4;
};

// Starts a full-screen pass into `target`: binds it, sets the viewport to width x height, turns
// off blending, scissor, depth, stencil and culling (an ImGui frame leaves some of them on) and
// binds `program` and `vertex_array`. Call it under a GlStateGuard, which undoes all of this.
void begin_fullscreen_pass(const GlFramebuffer& target, int width, int height, const GlProgram& program,
                           const GlVertexArray& vertex_array);

// ---------------------------------------------------------------------------------------------
// Pixel-exact read-backs (glGetTexImage, pack alignment 1), top row first like the uploads.
// read_texture_r8 returns the red channel of any 8-bit texture; read_texture_rgba8 all four.
std::vector<uint8_t> read_texture_r8(const GlTexture& texture);
std::vector<uint8_t> read_texture_rgba8(const GlTexture& texture);
// One texel (x, y) of an 8-bit texture's red channel (the inspector's value under the mouse,
// where the result lives only in GL); nullopt outside the texture or if it cannot be read.
std::optional<uint8_t> read_texel_r8(const GlTexture& texture, int x, int y);

// The most recent GL error as a name ("GL_OUT_OF_MEMORY"), or empty; drains the error queue.
std::string take_gl_error();

}  // namespace bs
