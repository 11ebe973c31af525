// Colours a matmul heatmap: an R8 texture of heatmap codes (kernels/labs/matmul/matmul_heatmap.hpp,
// written by CUDA through interop or by the host) goes through the colour-map shader
// (shaders/heatmap.{vert,frag}) into an RGBA8 texture of the same size, which the UI shows with
// ImGui::Image. Runs only when the codes change, not every frame.
//
//   auto colours = bs::HeatmapRenderer::create();                  // GL context current
//   GlTexture rgba;
//   colours->colourize(codes_r8, bs::HeatmapColourMap::Values, &rgba);
#pragma once
#include "core/status.hpp"
#include "gfx/gl_objects.hpp"

namespace bs {

enum class HeatmapColourMap { Values = 0, Errors = 1 };

class HeatmapRenderer {
 public:
  // Compiles the embedded shaders; needs a current GL 3.3 core context.
  static Result<HeatmapRenderer> create();

  HeatmapRenderer() = default;
  HeatmapRenderer(HeatmapRenderer&&) noexcept = default;
  HeatmapRenderer& operator=(HeatmapRenderer&&) noexcept = default;

  // `codes` must be an R8 texture. `out` is (re)created as RGBA8 of the same size when it is not
  // one already. Saves and restores the GL state it touches.
  Status colourize(const GlTexture& codes, HeatmapColourMap map, GlTexture* out);

 private:
  GlProgram program_;
  GlVertexArray vertex_array_;
  GlFramebuffer framebuffer_;
  GlSampler nearest_;
  GLint codes_uniform_ = -1, map_uniform_ = -1;
};

}  // namespace bs
