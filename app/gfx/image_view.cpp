#include "gfx/image_view.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gfx/shaders.hpp"

namespace bs {

namespace {

// Texture units the view's program samples from.
constexpr GLint kUnitA = 0, kUnitB = 1, kUnitSmUint = 2, kUnitSmFloat = 3;
constexpr unsigned kSmTextureWidth = 4096;

Status invalid(const std::string& what) {
  return Status::failure("image view: " + what, {}, "ImageViewRenderer::render");
}

// 0 none, 1 R32UI, 2 R32F: which sampler the fragment shader must read the SM ids with.
int sm_texture_kind(GLuint texture) {
  if (texture == 0) return 0;
  GLint previous = 0, format = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, texture);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  if (format == GL_R32UI) return 1;
  if (format == GL_R32F) return 2;
  return -1;
}

}  // namespace

Result<GlTexture> make_sm_of_block_texture(const std::vector<uint32_t>& sm_of_block) {
  if (sm_of_block.empty()) return Status::failure("no blocks to colour by SM", {}, "make_sm_of_block_texture");
  const size_t width = std::min<size_t>(sm_of_block.size(), kSmTextureWidth);
  const size_t rows = (sm_of_block.size() + width - 1) / width;
  std::vector<uint32_t> texels(width * rows, 0xFFFFFFFFu);  // padding: unknown SM
  std::copy(sm_of_block.begin(), sm_of_block.end(), texels.begin());
  return GlTexture::create_r32ui(static_cast<int>(width), static_cast<int>(rows), texels.data());
}

std::pair<double, double> output_to_image(const ImageViewParams& view, double x, double y) {
  return {view.centre_x + (x - 0.5 * view.output_width) / view.zoom,
          view.centre_y + (y - 0.5 * view.output_height) / view.zoom};
}

std::pair<double, double> image_to_output(const ImageViewParams& view, double x, double y) {
  return {(x - view.centre_x) * view.zoom + 0.5 * view.output_width,
          (y - view.centre_y) * view.zoom + 0.5 * view.output_height};
}

bool TextureWindow::holds(const TextureWindow& v) const {
  if (empty() || v.empty() || v.step != step) return false;
  return v.x0 >= x0 && v.y0 >= y0 && v.x0 + 1LL * v.width * step <= x0 + 1LL * width * step &&
         v.y0 + 1LL * v.height * step <= y0 + 1LL * height * step;
}

namespace {
// The window of texels of `step` that covers image pixels [x0, x1) x [y0, y1), clamped to the image.
TextureWindow window_over(double x0, double y0, double x1, double y1, int step, int image_w, int image_h) {
  TextureWindow w;
  w.step = step;
  const long long left = std::clamp<long long>(static_cast<long long>(std::floor(x0)), 0, image_w);
  const long long top = std::clamp<long long>(static_cast<long long>(std::floor(y0)), 0, image_h);
  const long long right = std::clamp<long long>(static_cast<long long>(std::ceil(x1)), 0, image_w);
  const long long bottom = std::clamp<long long>(static_cast<long long>(std::ceil(y1)), 0, image_h);
  // Texels start on multiples of the step, so windows of one step sample the same pixels.
  w.x0 = left / step * step;
  w.y0 = top / step * step;
  w.width = static_cast<int>((right - w.x0 + step - 1) / step);
  w.height = static_cast<int>((bottom - w.y0 + step - 1) / step);
  return w;
}
}  // namespace

TextureWindow visible_window(const ImageViewParams& view) {
  if (view.zoom <= 0 || view.output_width <= 0 || view.output_height <= 0) return {};
  const int step = std::max(1, static_cast<int>(std::floor(1.0 / view.zoom)));
  const auto [x0, y0] = output_to_image(view, 0, 0);
  const auto [x1, y1] = output_to_image(view, view.output_width, view.output_height);
  // One more pixel on each side: bilinear sampling reads the neighbour of an edge texel.
  return window_over(x0 - step, y0 - step, x1 + step, y1 + step, step, view.image_width, view.image_height);
}

TextureWindow padded_window(const TextureWindow& v, int image_w, int image_h) {
  if (v.empty()) return v;
  const double w = 1.0 * v.width * v.step, h = 1.0 * v.height * v.step;
  return window_over(v.x0 - w / 4, v.y0 - h / 4, v.x0 + w * 1.25, v.y0 + h * 1.25, v.step, image_w, image_h);
}

float zoom_to_fit(int image_w, int image_h, int output_w, int output_h) {
  if (image_w <= 0 || image_h <= 0 || output_w <= 0 || output_h <= 0) return 1.0f;
  return std::min(static_cast<float>(output_w) / static_cast<float>(image_w),
                  static_cast<float>(output_h) / static_cast<float>(image_h));
}

Result<ImageViewRenderer> ImageViewRenderer::create() {
  ImageViewRenderer r;
  // The overlay-off variant now, so that a shader that does not build is said at once.
  if (auto off = r.variant(OverlayParams{}); !off) return off.status();
  r.vertex_array_ = GlVertexArray::create();
  r.framebuffer_ = GlFramebuffer::create();
  r.linear_ = GlSampler::create(TextureFilter::Linear);
  r.nearest_ = GlSampler::create(TextureFilter::Nearest);
  return r;
}

Result<const ImageViewRenderer::Variant*> ImageViewRenderer::variant(const OverlayParams& overlay) {
  const bool on = overlay.mode != OverlayParams::Off;
  const int mode = static_cast<int>(overlay.mode), mapping = on ? overlay.mapping : 0;
  const int highlight = on && (overlay.highlight_block_linear >= 0 || overlay.highlight_thread >= 0) ? 1 : 0;
  std::optional<Variant>& slot = variants_.at(on ? 1 + ((mode - 1) * 3 + mapping) * 2 + highlight : 0);
  if (slot) return &*slot;
  const std::string defines = "#define OVERLAY_MODE " + std::to_string(mode) + "\n#define MAPPING " +
                              std::to_string(mapping) + "\n#define HIGHLIGHT " + std::to_string(highlight) + "\n";
  auto program = build_embedded_program("image_view", defines);
  if (!program) return program.status();
  Variant v{.program = std::move(program).value(), .uniforms = {}};
  const GlProgram& p = v.program;
  Uniforms& u = v.uniforms;
  u.image_a = p.uniform("u_image_a");
  u.image_b = p.uniform("u_image_b");
  u.a_gray = p.uniform("u_a_gray");
  u.b_gray = p.uniform("u_b_gray");
  u.has_b = p.uniform("u_has_b");
  u.image_size = p.uniform("u_image_size");
  u.centre = p.uniform("u_centre");
  u.texture_window = p.uniform("u_texture_window");
  u.zoom = p.uniform("u_zoom");
  u.output_size = p.uniform("u_output_size");
  u.split_x = p.uniform("u_split_x");
  u.draw_split_line = p.uniform("u_draw_split_line");
  u.nearest = p.uniform("u_nearest");
  u.block = p.uniform("u_block");
  u.grid = p.uniform("u_grid");
  u.domain = p.uniform("u_domain");
  u.highlight = p.uniform("u_highlight");
  u.sm_kind = p.uniform("u_sm_kind");
  u.sm_uint = p.uniform("u_sm_uint");
  u.sm_float = p.uniform("u_sm_float");
  u.opacity = p.uniform("u_opacity");
  u.flat = p.uniform("u_flat");
  u.grid_stride = p.uniform("u_grid_stride");
  u.highlight_thread = p.uniform("u_highlight_thread");
  slot.emplace(std::move(v));
  return &*slot;
}

Status ImageViewRenderer::render(const ImageViewParams& view, const OverlayParams& overlay) {
  if (!variants_[0]) return invalid("renderer was not created (use ImageViewRenderer::create)");
  if (view.texture_a == 0) return invalid("no image texture");
  if (view.image_width <= 0 || view.image_height <= 0) return invalid("image size must be positive");
  if (view.output_width <= 0 || view.output_height <= 0) return invalid("output size must be positive");
  if (!(view.zoom > 0.0f) || !std::isfinite(view.zoom)) return invalid("zoom must be a positive number");
  if (!std::isfinite(view.centre_x) || !std::isfinite(view.centre_y)) return invalid("centre must be finite");

  const bool overlay_on = overlay.mode != OverlayParams::Off;
  if (overlay_on) {
    if (overlay.mapping < 0 || overlay.mapping > 2)
      return invalid("overlay mapping must be 0 (flat), 1 (2D) or 2 (2D, x down the rows)");
    if (overlay.mapping == 0 && (overlay.vector == 0 || overlay.per_thread == 0))
      return invalid("a flat overlay needs vector and per_thread >= 1");
    for (int d = 0; d < 3; ++d) {
      if (overlay.block[d] == 0 || overlay.grid[d] == 0) return invalid("overlay block and grid dims must be >= 1");
    }
    if (overlay.image_w < 0 || overlay.image_h < 0) return invalid("overlay image size must not be negative");
  }
  const int sm_kind = overlay_on ? sm_texture_kind(overlay.sm_of_block_texture) : 0;
  if (sm_kind < 0) return invalid("the SM-of-block texture must be R32UI or R32F");

  if (!output_ || output_.width() != view.output_width || output_.height() != view.output_height) {
    auto texture = GlTexture::create_rgba8(view.output_width, view.output_height);
    if (!texture) return texture.status();
    output_ = std::move(texture).value();
    if (Status attached = framebuffer_.attach_colour(output_); !attached) return attached;
  }

  auto built = variant(overlay);
  if (!built) return built.status();
  const Variant& program = *built.value();

  GlStateGuard guard;  // everything below is undone when this returns
  begin_fullscreen_pass(framebuffer_, view.output_width, view.output_height, program.program, vertex_array_);

  const bool has_b = view.texture_b != 0;
  const GLuint sampler = view.zoom >= 1.0f ? nearest_.id() : linear_.id();
  auto bind = [](GLint unit, GLuint texture, GLuint sampler_id) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_2D, texture);
    glBindSampler(static_cast<GLuint>(unit), sampler_id);
  };
  bind(kUnitA, view.texture_a, sampler);
  bind(kUnitB, has_b ? view.texture_b : view.texture_a, sampler);  // never sample an empty unit
  bind(kUnitSmUint, sm_kind == 1 ? overlay.sm_of_block_texture : 0, nearest_.id());
  bind(kUnitSmFloat, sm_kind == 2 ? overlay.sm_of_block_texture : 0, nearest_.id());

  const Uniforms& u = program.uniforms;
  glUniform1i(u.image_a, kUnitA);
  glUniform1i(u.image_b, kUnitB);
  glUniform1i(u.sm_uint, kUnitSmUint);
  glUniform1i(u.sm_float, kUnitSmFloat);
  glUniform1i(u.a_gray, view.a_is_gray ? 1 : 0);
  glUniform1i(u.b_gray, view.b_is_gray ? 1 : 0);
  glUniform1i(u.has_b, has_b ? 1 : 0);
  glUniform2i(u.image_size, view.image_width, view.image_height);
  glUniform2f(u.centre, view.centre_x, view.centre_y);
  glUniform3i(u.texture_window, static_cast<GLint>(view.texture_x0), static_cast<GLint>(view.texture_y0),
              std::max(1, view.texture_step));
  glUniform1f(u.zoom, view.zoom);
  glUniform2f(u.output_size, static_cast<float>(view.output_width), static_cast<float>(view.output_height));
  const float split = std::clamp(view.split_fraction, 0.0f, 1.0f);
  glUniform1f(u.split_x, split * static_cast<float>(view.output_width));
  glUniform1i(u.draw_split_line, view.draw_split_line && split > 0.0f && split < 1.0f ? 1 : 0);
  glUniform1i(u.nearest, view.zoom >= 1.0f ? 1 : 0);

  glUniform3ui(u.block, overlay.block[0], overlay.block[1], overlay.block[2]);
  glUniform3ui(u.grid, overlay.grid[0], overlay.grid[1], overlay.grid[2]);
  glUniform2i(u.domain, overlay.image_w > 0 ? overlay.image_w : view.image_width,
              overlay.image_h > 0 ? overlay.image_h : view.image_height);
  glUniform1i(u.highlight, overlay.highlight_block_linear);
  glUniform4ui(u.flat, overlay.vector, overlay.per_thread, overlay.head, overlay.tail);
  glUniform1i(u.grid_stride, overlay.grid_stride ? 1 : 0);
  glUniform1i(u.highlight_thread, overlay.highlight_thread >= 0 && overlay.highlight_thread < 0x7fffffff
                                      ? static_cast<GLint>(overlay.highlight_thread)
                                      : -1);
  glUniform1i(u.sm_kind, sm_kind);
  glUniform1f(u.opacity, std::clamp(overlay.opacity, 0.0f, 1.0f));

  take_gl_error();
  glDrawArrays(GL_TRIANGLES, 0, 3);
  if (std::string error = take_gl_error(); !error.empty()) {
    return Status::failure("image view draw failed", "check that the textures are complete 2D textures", "glDrawArrays",
                           error);
  }
  return Status::success();
}

}  // namespace bs
