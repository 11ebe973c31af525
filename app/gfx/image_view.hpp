// The image view: draws an image (or an original|result split of two) with pan and zoom, plus
// the launch overlay (block lines, colour by block / warp / SM, one highlighted block), into an
// offscreen texture the UI shows with
//
//     ImGui::Image((ImTextureID)(intptr_t)renderer.texture(), ImVec2(w, h));   // default uvs
//
// The output texture is stored top row first, like every image in blockscope, so ImGui's
// default uv (0,0)-(1,1) shows it upright. Shaders: shaders/image_view.{vert,frag}.
//
//   auto renderer = bs::ImageViewRenderer::create();          // GL context current
//   bs::ImageViewParams view;
//   view.texture_a = original.id();  view.a_is_gray = false;
//   view.texture_b = result.id();    view.b_is_gray = true;   view.split_fraction = 0.5f;
//   view.image_width = w;  view.image_height = h;
//   view.centre_x = w / 2.0f;  view.centre_y = h / 2.0f;  view.zoom = 1.0f;
//   view.output_width = panel_w;  view.output_height = panel_h;   // framebuffer pixels
//   bs::OverlayParams overlay;  overlay.mode = bs::OverlayParams::BlockLines;  ... from the LaunchRecord
//   if (auto st = renderer->render(view, overlay); !st) show(st);
#pragma once
#include <epoxy/gl.h>

#include <cstdint>
#include <utility>
#include <vector>

#include <array>
#include <optional>

#include "core/status.hpp"
#include "gfx/gl_objects.hpp"

namespace bs {

struct ImageViewParams {
  GLuint texture_a = 0;    // shown left of the split (the original); required
  bool a_is_gray = false;  // true: an R8 texture, shown as gray (.r -> rgb)
  GLuint texture_b = 0;    // shown right of the split (the result); 0: A everywhere
  bool b_is_gray = true;
  int image_width = 0;  // size of A (and B), in image pixels
  int image_height = 0;
  float centre_x = 0.0f;        // image position (pixels, y down) at the centre of the output;
  float centre_y = 0.0f;        // (w/2, h/2) centres the image
  float zoom = 1.0f;            // output pixels per image pixel: >= 1 crisp (nearest), < 1 bilinear
  float split_fraction = 0.5f;  // in [0,1] of the output width: A left of it, B right of it
  bool draw_split_line = true;
  int output_width = 0;  // render target size in pixels (use framebuffer pixels on HiDPI)
  int output_height = 0;
  // The textures hold the whole image (the defaults), or a window of it (TextureWindow): texel
  // (i, j) is image pixel (texture_x0 + i step, texture_y0 + j step).
  long long texture_x0 = 0, texture_y0 = 0;
  int texture_step = 1;
};

// The part of an image that textures hold when the whole image would cost too much memory (a
// 16384^2 image is 1 GiB as RGBA8): what the view shows, one texel per `step` image pixels, the
// step the zoom allows (at zoom 1/s or less, s pixels share an output pixel anyway). Texel (i, j)
// is image pixel (x0 + i step, y0 + j step).
struct TextureWindow {
  long long x0 = 0, y0 = 0;
  int step = 1;
  int width = 0, height = 0;  // texels
  bool empty() const { return width <= 0 || height <= 0; }
  // Whether this window holds every texel `visible` needs: the same step, and its area inside.
  bool holds(const TextureWindow& visible) const;
};
// What `view` shows of its image_width x image_height image, clamped to the image, at the step of
// its zoom (max(1, floor(1 / zoom))).
TextureWindow visible_window(const ImageViewParams& view);
// `visible` widened by a quarter of its extent on every side (clamped to the image), so that
// small pans are drawn from the texels already held.
TextureWindow padded_window(const TextureWindow& visible, int image_w, int image_h);

struct OverlayParams {
  enum Mode { Off, BlockLines, ColourByBlock, ColourByWarp, ColourBySm };
  Mode mode = Off;
  // 0 = flat (core/index_scheme.hpp): the pixel's index e = y * image_w + x belongs to a head
  //     thread (e < head), a tail thread (the last `tail` pixels), or the body chunk
  //     (e - head) / vector, whose block and thread follow from per_thread and grid_stride; the
  //     lecture's 1D kernel is vector = per_thread = 1: block = e / T, thread = e % T.
  // 1 = 2D: block = (x / block[0], y / block[1]), thread = (x % block[0], y % block[1]).
  // 2 = 2D with x down the rows (IndexScheme::Grid2DTransposed): the same with the pixel's x and
  //     y swapped, block = (y / block[0], x / block[1]).
  int mapping = 1;
  unsigned vector = 1, per_thread = 1;  // flat only
  bool grid_stride = false;             // flat only
  unsigned head = 0, tail = 0;          // flat only
  unsigned block[3] = {16, 16, 1};      // blockDim the launcher reports it launched
  unsigned grid[3] = {1, 1, 1};         // gridDim the launcher reports it launched
  int image_w = 0;                      // the image the launch covered (0: the view's image size)
  int image_h = 0;
  int highlight_block_linear = -1;  // outline and tint this block (linear id); -1 none
  long long highlight_thread = -1;  // outline the pixels this thread (global linear id) stores
  // Per-block SM ids for ColourBySm: an R32UI (or R32F) texture with one texel per linear block
  // id, width = min(nblocks, 4096), rows wrapping; 0xFFFFFFFF (or a negative float) = unknown.
  // make_sm_of_block_texture builds one. 0 = no data (ColourBySm then tints nothing).
  GLuint sm_of_block_texture = 0;
  float opacity = 0.6f;  // of lines and colour fills
};

// A texture for OverlayParams::sm_of_block_texture from sm_of_block[linear block id].
Result<GlTexture> make_sm_of_block_texture(const std::vector<uint32_t>& sm_of_block);

// Where output pixel (x, y) (from the top-left of the view, in output pixels, fractional)
// falls in the image, in image pixels (y down); floor() of it is the pixel under the mouse.
std::pair<double, double> output_to_image(const ImageViewParams& view, double x, double y);
// The inverse: the output position of image position (x, y).
std::pair<double, double> image_to_output(const ImageViewParams& view, double x, double y);
// The zoom that fits a whole w x h image into an output_w x output_h view.
float zoom_to_fit(int image_w, int image_h, int output_w, int output_h);

class ImageViewRenderer {
 public:
  // Compiles the embedded shaders; needs a current GL 3.3 core context.
  static Result<ImageViewRenderer> create();

  ImageViewRenderer() = default;
  ImageViewRenderer(ImageViewRenderer&&) noexcept = default;
  ImageViewRenderer& operator=(ImageViewRenderer&&) noexcept = default;

  // Draws one frame of the view into texture() (reallocated when the output size changes).
  // Saves and restores the GL state it touches (GlStateGuard), so it can run mid ImGui frame.
  // Invalid parameters (no texture, zero sizes, zoom <= 0, zero block or grid dims) give a
  // Status and draw nothing.
  Status render(const ImageViewParams& view, const OverlayParams& overlay = {});

  // RGBA8, output size, top row first. 0 before the first successful render.
  GLuint texture() const { return output_.id(); }
  const GlTexture& output() const { return output_; }

 private:
  struct Uniforms {
    GLint image_a = -1, image_b = -1, a_gray = -1, b_gray = -1, has_b = -1, image_size = -1, centre = -1, zoom = -1,
          output_size = -1, split_x = -1, draw_split_line = -1, nearest = -1, block = -1, grid = -1, domain = -1,
          highlight = -1, sm_kind = -1, sm_uint = -1, sm_float = -1, opacity = -1, flat = -1, grid_stride = -1,
          highlight_thread = -1, texture_window = -1;
  };
  // The shader compiled for one overlay mode, mapping and highlight (shaders/image_view.frag says
  // why): slot 0 is the overlay off, then 1 + ((mode - 1) * 3 + mapping) * 2 + highlighted.
  struct Variant {
    GlProgram program;
    Uniforms uniforms;
  };
  static constexpr int kVariants = 1 + 4 * 3 * 2;
  // `overlay`'s variant, built the first time it is asked for.
  Result<const Variant*> variant(const OverlayParams& overlay);

  std::array<std::optional<Variant>, kVariants> variants_;
  GlVertexArray vertex_array_;
  GlFramebuffer framebuffer_;
  GlSampler linear_, nearest_;
  GlTexture output_;
};

}  // namespace bs
