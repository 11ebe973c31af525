#include "gfx/gl_objects.hpp"

#include <string>

namespace bs {

namespace detail {
void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
void delete_buffer(GLuint id) { glDeleteBuffers(1, &id); }
void delete_program(GLuint id) { glDeleteProgram(id); }
void delete_vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }
void delete_framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
void delete_sampler(GLuint id) { glDeleteSamplers(1, &id); }
}  // namespace detail

namespace {

const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "GL error";
  }
}

// Binds a texture for the scope of an upload (unpack) or a read-back (pack) and puts back what
// was bound, plus that direction's pixel state: a bound pixel buffer would turn the host pointer
// into an offset.
class PixelScope {
 public:
  enum Direction { Unpack, Pack };
  PixelScope(GLuint texture, Direction d)
      : buffer_target_(d == Unpack ? GL_PIXEL_UNPACK_BUFFER : GL_PIXEL_PACK_BUFFER),
        alignment_name_(d == Unpack ? GL_UNPACK_ALIGNMENT : GL_PACK_ALIGNMENT),
        row_length_name_(d == Unpack ? GL_UNPACK_ROW_LENGTH : GL_PACK_ROW_LENGTH) {
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
    glGetIntegerv(d == Unpack ? GL_PIXEL_UNPACK_BUFFER_BINDING : GL_PIXEL_PACK_BUFFER_BINDING, &buffer_);
    glGetIntegerv(alignment_name_, &alignment_);
    glGetIntegerv(row_length_name_, &row_length_);
    glBindTexture(GL_TEXTURE_2D, texture);
    glBindBuffer(buffer_target_, 0);
    glPixelStorei(alignment_name_, 1);
    glPixelStorei(row_length_name_, 0);
  }
  ~PixelScope() {
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture_));
    glBindBuffer(buffer_target_, static_cast<GLuint>(buffer_));
    glPixelStorei(alignment_name_, alignment_);
    glPixelStorei(row_length_name_, row_length_);
  }
  PixelScope(const PixelScope&) = delete;
  PixelScope& operator=(const PixelScope&) = delete;

 private:
  GLenum buffer_target_, alignment_name_, row_length_name_;
  GLint texture_ = 0, buffer_ = 0, alignment_ = 4, row_length_ = 0;
};

// Runs `set` with `texture` bound to GL_TEXTURE_2D, then binds back what was bound.
template <class F>
void with_texture_bound(GLuint texture, F&& set) {
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, texture);
  set();
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
}

// One new name from a glGen* function (glGenTextures, glGenBuffers, ...).
GLuint generate(PFNGLGENTEXTURESPROC gen) {
  GLuint id = 0;
  gen(1, &id);
  return id;
}

const char* format_name(GLenum internal_format) {
  switch (internal_format) {
    case GL_RGBA8: return "RGBA8";
    case GL_R8: return "R8";
    case GL_R32UI: return "R32UI";
    default: return "?";
  }
}

}  // namespace

std::string take_gl_error() {
  std::string last;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) last = gl_error_name(e);
  return last;
}

// --- GlTexture -------------------------------------------------------------------------------

GLenum GlTexture::pixel_format() const {
  switch (internal_format_) {
    case GL_R8: return GL_RED;
    case GL_R32UI: return GL_RED_INTEGER;
    default: return GL_RGBA;
  }
}

GLenum GlTexture::pixel_type() const { return internal_format_ == GL_R32UI ? GL_UNSIGNED_INT : GL_UNSIGNED_BYTE; }

int GlTexture::bytes_per_pixel() const { return internal_format_ == GL_R8 ? 1 : 4; }

Result<GlTexture> GlTexture::create_rgba8(int width, int height, const uint8_t* pixels) {
  return create(width, height, GL_RGBA8, pixels);
}

Result<GlTexture> GlTexture::create_r8(int width, int height, const uint8_t* pixels) {
  auto texture = create(width, height, GL_R8, pixels);
  if (texture) texture->set_gray_swizzle(true);
  return texture;
}

Result<GlTexture> GlTexture::create_r32ui(int width, int height, const uint32_t* texels) {
  return create(width, height, GL_R32UI, texels);
}

Result<GlTexture> GlTexture::create(int width, int height, GLenum internal_format, const void* pixels) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (width <= 0 || height <= 0 || width > max_size || height > max_size) {
    return Status::failure(std::string("cannot make a ") + format_name(internal_format) + " texture of " +
                               std::to_string(width) + "x" + std::to_string(height) + " (this GL allows up to " +
                               std::to_string(max_size) + " per side)",
                           "use a smaller image", "glTexImage2D");
  }
  take_gl_error();  // so what follows reports only this texture's errors

  GlTexture texture;
  const GLuint id = generate(glGenTextures);
  texture.name_ = GlName<detail::delete_texture>(id);
  texture.width_ = width;
  texture.height_ = height;
  texture.internal_format_ = internal_format;
  {
    PixelScope scope(id, PixelScope::Unpack);
    // Integer textures must use nearest filtering to be complete; nearest suits the rest too.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, static_cast<GLint>(internal_format), width, height, 0, texture.pixel_format(),
                 texture.pixel_type(), pixels);
  }
  if (std::string error = take_gl_error(); !error.empty()) {
    return Status::failure(std::string("cannot allocate a ") + format_name(internal_format) + " texture of " +
                               std::to_string(width) + "x" + std::to_string(height),
                           "the GPU may be out of memory; try a smaller image", "glTexImage2D", error);
  }
  return texture;
}

Status GlTexture::upload(const void* pixels) {
  if (!*this || !pixels) return Status::failure("upload to an empty texture or from null", {}, "glTexSubImage2D");
  take_gl_error();
  {
    PixelScope scope(id(), PixelScope::Unpack);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, pixel_format(), pixel_type(), pixels);
  }
  if (std::string error = take_gl_error(); !error.empty()) {
    return Status::failure("texture upload failed", {}, "glTexSubImage2D", error);
  }
  return Status::success();
}

void GlTexture::set_filter(TextureFilter filter) {
  const GLint mode = filter == TextureFilter::Nearest ? GL_NEAREST : GL_LINEAR;
  with_texture_bound(id(), [&] {
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, mode);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mode);
  });
}

void GlTexture::set_gray_swizzle(bool on) {
  const GLint gray[4] = {GL_RED, GL_RED, GL_RED, GL_ONE};
  const GLint identity[4] = {GL_RED, GL_GREEN, GL_BLUE, GL_ALPHA};
  with_texture_bound(id(), [&] { glTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_RGBA, on ? gray : identity); });
}

// --- GlBuffer --------------------------------------------------------------------------------

namespace {
GLenum binding_query(GLenum target) {
  switch (target) {
    case GL_ARRAY_BUFFER: return GL_ARRAY_BUFFER_BINDING;
    case GL_ELEMENT_ARRAY_BUFFER: return GL_ELEMENT_ARRAY_BUFFER_BINDING;
    case GL_PIXEL_UNPACK_BUFFER: return GL_PIXEL_UNPACK_BUFFER_BINDING;
    case GL_PIXEL_PACK_BUFFER: return GL_PIXEL_PACK_BUFFER_BINDING;
    case GL_UNIFORM_BUFFER: return GL_UNIFORM_BUFFER_BINDING;
    case GL_COPY_READ_BUFFER: return GL_COPY_READ_BUFFER_BINDING;
    case GL_COPY_WRITE_BUFFER: return GL_COPY_WRITE_BUFFER_BINDING;
    default: return 0;
  }
}

// Binds a buffer to its target for a scope and puts back the previous binding.
class BufferScope {
 public:
  BufferScope(GLenum target, GLuint id) : target_(target) {
    if (GLenum query = binding_query(target)) glGetIntegerv(query, &previous_);
    glBindBuffer(target, id);
  }
  ~BufferScope() { glBindBuffer(target_, static_cast<GLuint>(previous_)); }
  BufferScope(const BufferScope&) = delete;
  BufferScope& operator=(const BufferScope&) = delete;

 private:
  GLenum target_;
  GLint previous_ = 0;
};
}  // namespace

Result<GlBuffer> GlBuffer::create(GLenum target, size_t bytes, GLenum usage, const void* data) {
  if (bytes == 0) return Status::failure("cannot make an empty GL buffer", {}, "glBufferData");
  if (binding_query(target) == 0) return Status::failure("unsupported GL buffer target", {}, "glBindBuffer");
  take_gl_error();
  GlBuffer buffer;
  const GLuint id = generate(glGenBuffers);
  buffer.name_ = GlName<detail::delete_buffer>(id);
  buffer.target_ = target;
  buffer.size_ = bytes;
  {
    BufferScope scope(target, id);
    glBufferData(target, static_cast<GLsizeiptr>(bytes), data, usage);
  }
  if (std::string error = take_gl_error(); !error.empty()) {
    return Status::failure("cannot allocate a GL buffer of " + std::to_string(bytes) + " bytes",
                           "the GPU may be out of memory; try a smaller image", "glBufferData", error);
  }
  return buffer;
}

Status GlBuffer::upload(const void* data, size_t bytes, size_t offset) {
  if (!*this || !data || offset + bytes > size_) {
    return Status::failure("buffer upload out of range", {}, "glBufferSubData");
  }
  take_gl_error();
  {
    BufferScope scope(target_, id());
    glBufferSubData(target_, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
  }
  if (std::string error = take_gl_error(); !error.empty()) {
    return Status::failure("buffer upload failed", {}, "glBufferSubData", error);
  }
  return Status::success();
}

// --- GlProgram -------------------------------------------------------------------------------

namespace {
// A shader's (glGetShaderiv, glGetShaderInfoLog) or a program's info log, without trailing blanks.
std::string info_log(GLuint object, PFNGLGETSHADERIVPROC get_iv, PFNGLGETSHADERINFOLOGPROC get_log) {
  GLint length = 0;
  get_iv(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<size_t>(length > 0 ? length : 0), '\0');
  if (length > 0) get_log(object, length, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Compiles one stage; on failure returns the driver's log in the Status.
Result<GLuint> compile(GLenum stage, std::string_view source, std::string_view name) {
  GLuint shader = glCreateShader(stage);
  const GLchar* text = source.data();
  const GLint length = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string stage_name = stage == GL_VERTEX_SHADER ? "vertex" : "fragment";
    Status status = Status::failure(std::string(name) + ": " + stage_name + " shader does not compile:\n" +
                                        info_log(shader, glGetShaderiv, glGetShaderInfoLog),
                                    "this is a bug in blockscope's shaders or the GL driver",
                                    "glCompileShader(" + std::string(name) + ")");
    glDeleteShader(shader);
    return status;
  }
  return shader;
}
}  // namespace

Result<GlProgram> GlProgram::build(std::string_view vertex_source, std::string_view fragment_source,
                                   std::string_view name) {
  auto vertex = compile(GL_VERTEX_SHADER, vertex_source, name);
  if (!vertex) return vertex.status();
  auto fragment = compile(GL_FRAGMENT_SHADER, fragment_source, name);
  if (!fragment) {
    glDeleteShader(vertex.value());
    return fragment.status();
  }
  GlProgram program;
  program.name_ = GlName<detail::delete_program>(glCreateProgram());
  glAttachShader(program.id(), vertex.value());
  glAttachShader(program.id(), fragment.value());
  glLinkProgram(program.id());
  // The program keeps the compiled code; the shader objects are no longer needed.
  glDetachShader(program.id(), vertex.value());
  glDetachShader(program.id(), fragment.value());
  glDeleteShader(vertex.value());
  glDeleteShader(fragment.value());
  GLint ok = GL_FALSE;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    return Status::failure(
        std::string(name) + ": program does not link:\n" + info_log(program.id(), glGetProgramiv, glGetProgramInfoLog),
        "this is a bug in blockscope's shaders or the GL driver", "glLinkProgram(" + std::string(name) + ")");
  }
  return program;
}

// --- GlVertexArray, GlFramebuffer, GlSampler -------------------------------------------------

GlVertexArray GlVertexArray::create() {
  GlVertexArray vao;
  vao.name_ = GlName<detail::delete_vertex_array>(generate(glGenVertexArrays));
  return vao;
}

GlFramebuffer GlFramebuffer::create() {
  GlFramebuffer fbo;
  fbo.name_ = GlName<detail::delete_framebuffer>(generate(glGenFramebuffers));
  return fbo;
}

Status GlFramebuffer::attach_colour(const GlTexture& texture) {
  GLint previous = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, id());
  glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
  const GLenum complete = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(previous));
  if (complete != GL_FRAMEBUFFER_COMPLETE) {
    return Status::failure("the render target framebuffer is incomplete", {}, "glCheckFramebufferStatus",
                           std::to_string(complete));
  }
  return Status::success();
}

GlSampler GlSampler::create(TextureFilter filter) {
  const GLuint id = generate(glGenSamplers);
  const GLint mode = filter == TextureFilter::Nearest ? GL_NEAREST : GL_LINEAR;
  glSamplerParameteri(id, GL_TEXTURE_MIN_FILTER, mode);
  glSamplerParameteri(id, GL_TEXTURE_MAG_FILTER, mode);
  glSamplerParameteri(id, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glSamplerParameteri(id, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  GlSampler sampler;
  sampler.name_ = GlName<detail::delete_sampler>(id);
  return sampler;
}

// --- GlStateGuard ----------------------------------------------------------------------------

GlStateGuard::GlStateGuard() {
  glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array_);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &array_buffer_);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active_texture_);
  for (int unit = 0; unit < kUnits; ++unit) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures_[unit]);
    glGetIntegerv(GL_SAMPLER_BINDING, &samplers_[unit]);
  }
  glActiveTexture(static_cast<GLenum>(active_texture_));
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_framebuffer_);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer_);
  glGetIntegerv(GL_VIEWPORT, viewport_);
  blend_ = glIsEnabled(GL_BLEND);
  scissor_ = glIsEnabled(GL_SCISSOR_TEST);
  depth_ = glIsEnabled(GL_DEPTH_TEST);
  stencil_ = glIsEnabled(GL_STENCIL_TEST);
  cull_ = glIsEnabled(GL_CULL_FACE);
  glGetIntegerv(GL_BLEND_SRC_RGB, &blend_src_rgb_);
  glGetIntegerv(GL_BLEND_DST_RGB, &blend_dst_rgb_);
  glGetIntegerv(GL_BLEND_SRC_ALPHA, &blend_src_alpha_);
  glGetIntegerv(GL_BLEND_DST_ALPHA, &blend_dst_alpha_);
  glGetIntegerv(GL_BLEND_EQUATION_RGB, &blend_equation_rgb_);
  glGetIntegerv(GL_BLEND_EQUATION_ALPHA, &blend_equation_alpha_);
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack_buffer_);
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer_);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &unpack_alignment_);
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment_);
}

GlStateGuard::~GlStateGuard() {
  auto set = [](GLenum cap, GLboolean on) { on ? glEnable(cap) : glDisable(cap); };
  glUseProgram(static_cast<GLuint>(program_));
  glBindVertexArray(static_cast<GLuint>(vertex_array_));
  glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(array_buffer_));
  for (int unit = 0; unit < kUnits; ++unit) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(textures_[unit]));
    glBindSampler(static_cast<GLuint>(unit), static_cast<GLuint>(samplers_[unit]));
  }
  glActiveTexture(static_cast<GLenum>(active_texture_));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(draw_framebuffer_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(read_framebuffer_));
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  set(GL_BLEND, blend_);
  set(GL_SCISSOR_TEST, scissor_);
  set(GL_DEPTH_TEST, depth_);
  set(GL_STENCIL_TEST, stencil_);
  set(GL_CULL_FACE, cull_);
  glBlendFuncSeparate(static_cast<GLenum>(blend_src_rgb_), static_cast<GLenum>(blend_dst_rgb_),
                      static_cast<GLenum>(blend_src_alpha_), static_cast<GLenum>(blend_dst_alpha_));
  glBlendEquationSeparate(static_cast<GLenum>(blend_equation_rgb_), static_cast<GLenum>(blend_equation_alpha_));
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, static_cast<GLuint>(unpack_buffer_));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(pack_buffer_));
  glPixelStorei(GL_UNPACK_ALIGNMENT, unpack_alignment_);
  glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment_);
}

void begin_fullscreen_pass(const GlFramebuffer& target, int width, int height, const GlProgram& program,
                           const GlVertexArray& vertex_array) {
  glBindFramebuffer(GL_FRAMEBUFFER, target.id());
  glViewport(0, 0, width, height);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glDisable(GL_CULL_FACE);
  glUseProgram(program.id());
  glBindVertexArray(vertex_array.id());
}

// --- read-backs ------------------------------------------------------------------------------

namespace {
std::vector<uint8_t> read_texture(const GlTexture& texture, GLenum format, int channels) {
  if (!texture) return {};
  const size_t row = static_cast<size_t>(texture.width()) * static_cast<size_t>(channels);
  std::vector<uint8_t> pixels(row * static_cast<size_t>(texture.height()));
  PixelScope scope(texture.id(), PixelScope::Pack);
  glGetTexImage(GL_TEXTURE_2D, 0, format, GL_UNSIGNED_BYTE, pixels.data());
  return pixels;
}
}  // namespace

std::vector<uint8_t> read_texture_r8(const GlTexture& texture) { return read_texture(texture, GL_RED, 1); }
std::vector<uint8_t> read_texture_rgba8(const GlTexture& texture) { return read_texture(texture, GL_RGBA, 4); }

std::optional<uint8_t> read_texel_r8(const GlTexture& texture, int x, int y) {
  if (!texture || x < 0 || y < 0 || x >= texture.width() || y >= texture.height()) return std::nullopt;
  // One texel through a framebuffer (glGetTexImage has no sub-rectangle in GL 3.3). PixelScope
  // restores the caller's pack state (and keeps a bound pixel buffer from taking the read); the
  // read framebuffer is restored here.
  PixelScope scope(texture.id(), PixelScope::Pack);
  GLint previous_read = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_read);
  const GlFramebuffer fbo = GlFramebuffer::create();
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo.id());
  glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
  std::optional<uint8_t> out;
  if (glCheckFramebufferStatus(GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE) {
    uint8_t v = 0;
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glReadPixels(x, y, 1, 1, GL_RED, GL_UNSIGNED_BYTE, &v);
    out = v;
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous_read));
  return out;
}

}  // namespace bs
