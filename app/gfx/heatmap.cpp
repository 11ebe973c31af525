#include "gfx/heatmap.hpp"

#include <string>

#include "gfx/shaders.hpp"

namespace bs {

Result<HeatmapRenderer> HeatmapRenderer::create() {
  auto program = build_embedded_program("heatmap");
  if (!program) return program.status();
  HeatmapRenderer r;
  r.program_ = std::move(program).value();
  r.vertex_array_ = GlVertexArray::create();
  r.framebuffer_ = GlFramebuffer::create();
  r.nearest_ = GlSampler::create(TextureFilter::Nearest);
  r.codes_uniform_ = r.program_.uniform("u_codes");
  r.map_uniform_ = r.program_.uniform("u_colour_map");
  return r;
}

Status HeatmapRenderer::colourize(const GlTexture& codes, HeatmapColourMap map, GlTexture* out) {
  if (!program_) return Status::failure("heatmap renderer was not created", {}, "HeatmapRenderer::colourize");
  if (!codes || codes.internal_format() != GL_R8 || !out)
    return Status::failure("heatmap codes must be an R8 texture", {}, "HeatmapRenderer::colourize");
  if (!*out || out->width() != codes.width() || out->height() != codes.height() || out->internal_format() != GL_RGBA8) {
    auto texture = GlTexture::create_rgba8(codes.width(), codes.height());
    if (!texture) return texture.status();
    *out = std::move(texture).value();
  }
  if (Status attached = framebuffer_.attach_colour(*out); !attached) return attached;

  GlStateGuard guard;
  begin_fullscreen_pass(framebuffer_, codes.width(), codes.height(), program_, vertex_array_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, codes.id());
  glBindSampler(0, nearest_.id());
  glUniform1i(codes_uniform_, 0);
  glUniform1i(map_uniform_, static_cast<GLint>(map));
  take_gl_error();
  glDrawArrays(GL_TRIANGLES, 0, 3);
  if (std::string error = take_gl_error(); !error.empty())
    return Status::failure("heatmap colouring failed", {}, "glDrawArrays", error);
  return Status::success();
}

}  // namespace bs
