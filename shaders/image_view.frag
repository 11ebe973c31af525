#version 330 core
// image_view.frag: one pixel of the image view, with the launch overlay drawn on the data.
//
// Coordinates. The render target's row 0 (gl_FragCoord.y = 0.5) is the TOP of the view, the
// same convention as every image in blockscope (stored top row first, texture row 0 = top
// row). That is the flip: screen y grows downwards and maps straight onto texture rows, so the
// output texture shows upright with ImGui::Image's default uv (0,0)-(1,1) and nothing is ever
// flipped on load. Output pixel p shows image position
//     img = centre + (p - output_size / 2) / zoom          (in image pixels, y down)
// and at zoom 1 with the centre at image_size / 2 and output_size == image_size that is exactly
// pixel p: the view is pixel-exact, which the tests check.
//
// Overlay. The grid/block the launcher reports it launched, and the mapping of threads to
// pixels the kernel uses (kernels/core/index_scheme.hpp), give every image pixel a (block, thread):
//   mapping 0, flat: e = y * width + x; e < head: thread g = e; e in the last `tail`: g = e minus
//                    where the tail starts; else chunk c = (e - head) / vector, q = c % (G * K)
//                    (G = gridDim.x * T, K = per_thread), block = q / (T K), thread = q % T.
//                    The lecture's 1D kernel: vector = K = 1, so block = e / T, thread = e % T;
//   mapping 1, 2D:   block = (x / bdx, y / bdy), thread = (x % bdx, y % bdy).
//   mapping 2, 2D with x down the rows (the global x index is the row): the same with x and y
//                    of the pixel swapped, block = (y / bdx, x / bdy), thread = (y % bdx, x % bdy).
// All of it is integer arithmetic on uint, as on the GPU. Pixels the grid does not reach are
// hatched red: that is what a launch that is too small looks like.
//
// Variants. The overlay's mode and mapping, and whether anything is highlighted, are compiled in
// (ImageViewRenderer builds one program per combination, as it is first needed): a software
// renderer (Mesa's llvmpipe) runs every branch of a shader for every pixel, so one program with
// all of them cost a 1600 x 1000 window 0.1 s a frame with the overlay off. For the same reason
// a pixel's four neighbours are made once (the lines and the outlines compare with them), and a
// cell costs four integer divisions (a vector of integer divisions is done one lane at a time).
#ifndef OVERLAY_MODE
#define OVERLAY_MODE 0
#define MAPPING 0
#define HIGHLIGHT 0
#endif
const int kOverlayMode = OVERLAY_MODE;  // 0 off, 1 block lines, 2 colour by block, 3 by warp, 4 by SM
const int kMapping = MAPPING;           // 0 flat, 1 2D, 2 2D with x down the rows
const bool kHighlight = HIGHLIGHT != 0;  // a block or a thread is highlighted

uniform sampler2D u_image_a;     // left of the split (original)
uniform sampler2D u_image_b;     // right of the split (result)
uniform bool u_a_gray;           // show .r as gray
uniform bool u_b_gray;
uniform bool u_has_b;
uniform ivec2 u_image_size;
uniform vec2 u_centre;           // image position at the centre of the output
uniform ivec3 u_texture_window;  // texel (i, j) of both images is pixel (x0 + i s, y0 + j s): (x0, y0, s)
uniform float u_zoom;            // output pixels per image pixel
uniform vec2 u_output_size;
uniform float u_split_x;         // output x where B starts
uniform bool u_draw_split_line;
uniform bool u_nearest;          // texelFetch (crisp) when magnified, bilinear when minified

uniform uvec4 u_flat;            // flat: vector, per_thread, head, tail
uniform bool u_grid_stride;      // flat: passes repeat a whole grid further on
uniform int u_highlight_thread;  // global linear thread id whose pixels are outlined, -1 none
uniform uvec3 u_block;
uniform uvec3 u_grid;
uniform ivec2 u_domain;          // image size the launch covered (width used by the 1D mapping)
uniform int u_highlight;         // linear block id to outline, -1 none
uniform int u_sm_kind;           // 0 no SM data, 1 R32UI texture, 2 R32F texture
uniform usampler2D u_sm_uint;
uniform sampler2D u_sm_float;
uniform float u_opacity;

out vec4 frag_colour;

const uint kUnknownSm = 0xffffffffu;

// --- block/thread of a pixel -----------------------------------------------------------------

struct Cell {
  uint block;    // linear block id (blockIdx.x + blockIdx.y * gridDim.x for 2D)
  uint thread;   // linear thread id in the block (threadIdx.x + threadIdx.y * blockDim.x for 2D)
  uvec2 key;     // what makes two pixels the same block, even outside the grid
  bool covered;  // the launched grid contains this block
  uint unit;     // flat: the access it belongs to (a vector chunk, or the pixel for scalars)
};

Cell cell_at(ivec2 p) {
  Cell c;
  uint x = uint(p.x);
  uint y = uint(p.y);
  if (kMapping == 0) {
    // Head, tail and body in one pass (every lane runs every branch on a software renderer):
    // a head or tail pixel's index i gives thread g = i (or i % G in a grid-stride loop); a body
    // pixel's chunk gives q = chunk % (G K), its block q / (T K) and its thread q % T.
    uint threads = u_block.x * u_block.y * u_block.z;
    uint n = uint(u_domain.x) * uint(u_domain.y);
    uint e = y * uint(u_domain.x) + x;
    uint V = max(u_flat.x, 1u), K = max(u_flat.y, 1u), head = u_flat.z, tail = u_flat.w;
    uint G = u_grid.x * threads;
    bool in_head = e < head;
    bool body = !in_head && e < n - tail;
    uint ends = in_head ? e : e - (n - tail);  // the index among the head's or the tail's threads
    uint chunk = (e - head) / V;
    uint num = body ? chunk : ends;
    uint period = body ? G * K : G;
    uint pass = num / period;
    uint q = body || u_grid_stride ? num - pass * period : ends;
    c.block = q / (body ? threads * K : threads);
    c.thread = q % threads;
    c.key = uvec2(c.block, 0u);
    c.covered = (!body || u_grid_stride || pass == 0u) && c.block < u_grid.x * u_grid.y * u_grid.z;
    c.unit = body ? chunk + 0x40000000u : e;
  } else {
    uint gx = kMapping == 2 ? y : x;  // the global x and y indices of the thread
    uint gy = kMapping == 2 ? x : y;
    uint bx = gx / u_block.x;
    uint by = gy / u_block.y;
    c.block = bx + by * u_grid.x;
    c.thread = (gx - bx * u_block.x) + (gy - by * u_block.y) * u_block.x;
    c.key = uvec2(bx, by);
    c.covered = bx < u_grid.x && by < u_grid.y;
    c.unit = y * uint(u_domain.x) + x;
  }
  return c;
}

uint global_thread(Cell c) {
  return c.block * (u_block.x * u_block.y * u_block.z) + c.thread;
}

bool in_domain(ivec2 p) { return all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, u_domain)); }

// A pixel's neighbour: its cell, and whether it is in the launch's domain at all.
struct Neighbour {
  Cell cell;
  bool inside;
};

Neighbour neighbour(ivec2 p) { return Neighbour(cell_at(p), in_domain(p)); }

bool same_block(Neighbour n, Cell c) { return n.inside && n.cell.key == c.key; }

bool same_thread(Neighbour n) {
  return n.inside && n.cell.covered && global_thread(n.cell) == uint(u_highlight_thread);
}

// --- colours -----------------------------------------------------------------------------------

uint hash_u32(uint v) {  // a well-mixed integer hash, so neighbouring ids get unrelated colours
  v ^= v >> 16; v *= 0x7feb352du;
  v ^= v >> 15; v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

vec3 hsv_to_rgb(float h, float s, float v) {
  vec3 k = clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
  return v * mix(vec3(1.0), k, s);
}

vec3 id_colour(uint id, uint salt) {
  uint h = hash_u32(id * 0x9e3779b9u + salt);
  return hsv_to_rgb(float(h & 0xffffu) / 65536.0, 0.45 + 0.45 * float((h >> 16) & 0xffu) / 255.0,
                    0.65 + 0.35 * float(h >> 24) / 255.0);
}

uint sm_of_block(uint block) {
  if (u_sm_kind == 1) {
    ivec2 size = textureSize(u_sm_uint, 0);
    uint w = uint(size.x);
    if (block >= w * uint(size.y)) return kUnknownSm;
    return texelFetch(u_sm_uint, ivec2(int(block % w), int(block / w)), 0).r;
  }
  if (u_sm_kind == 2) {
    ivec2 size = textureSize(u_sm_float, 0);
    uint w = uint(size.x);
    if (block >= w * uint(size.y)) return kUnknownSm;
    float sm = texelFetch(u_sm_float, ivec2(int(block % w), int(block / w)), 0).r;
    return sm < 0.0 ? kUnknownSm : uint(sm + 0.5);
  }
  return kUnknownSm;
}

// --- lines ---------------------------------------------------------------------------------------

float distance_to_multiple(float v, float period) {
  float r = mod(v, period);
  return min(r, period - r);
}

// Coverage of a ~1 output pixel wide line at `d` output pixels from its centre.
float line_coverage(float d) { return clamp(1.0 - d, 0.0, 1.0); }

// Lines fade out as the blocks get too small on screen to read, instead of turning to mush.
float fade_for_extent(float extent_in_output_pixels) {
  return smoothstep(3.0, 8.0, extent_in_output_pixels);
}

// The neighbours of the pixel, in this order.
const int kLeft = 0, kRight = 1, kUp = 2, kDown = 3;

// The pixel's edge nearest `img` along x: the column edge between pixels edge_col - 1 and
// edge_col is the pixel's left edge or its right one, so the pixel across it is its left or right
// neighbour (and up or down along y).
int across_x(vec2 img, ivec2 pix) { return int(floor(img.x + 0.5)) == pix.x ? kLeft : kRight; }
int across_y(vec2 img, ivec2 pix) { return int(floor(img.y + 0.5)) == pix.y ? kUp : kDown; }

float block_line_alpha(vec2 img, ivec2 pix, Cell c, Neighbour nb[4]) {
  float W = float(u_domain.x);
  if (kMapping != 0) {  // block edges every blockDim along each axis (swapped for mapping 2)
    float bdx = float(kMapping == 2 ? u_block.y : u_block.x), bdy = float(kMapping == 2 ? u_block.x : u_block.y);
    float v = line_coverage(distance_to_multiple(img.x, bdx) * u_zoom) * fade_for_extent(bdx * u_zoom);
    float h = line_coverage(distance_to_multiple(img.y, bdy) * u_zoom) * fade_for_extent(bdy * u_zoom);
    return max(v, h);
  }
  // Flat: a block edge wherever two neighbouring pixels belong to different blocks. A block's run
  // is T * vector * per_thread pixels long; the lines fade when that run is too short on screen
  // (horizontally) or a block fills less than a row (vertically: the edges between rows).
  uint threads = u_block.x * u_block.y * u_block.z;
  float run = float(threads) * float(max(u_flat.x, 1u) * max(u_flat.y, 1u));
  float v = 0.0;
  Neighbour side = nb[across_x(img, pix)];
  if (side.inside && side.cell.key != c.key) {
    float edge_col = floor(img.x + 0.5);
    v = line_coverage(abs(img.x - edge_col) * u_zoom) * fade_for_extent(min(run, W) * u_zoom);
  }
  float h = 0.0;
  Neighbour other_row = nb[across_y(img, pix)];
  if (other_row.inside && other_row.cell.key != c.key) {
    float edge_row = floor(img.y + 0.5);
    h = line_coverage(abs(img.y - edge_row) * u_zoom) * fade_for_extent(max(1.0, run / W) * u_zoom);
  }
  return max(v, h);
}

// Flat blocks thinner than a row (the lecture's 1D kernel: 256 pixels of a 512-pixel row) have a
// line between every two rows, faded out at fit zoom, where nothing would then show the blocks.
// As those lines fade, neighbouring blocks are told apart by a faint tint of every other block
// (darker on every other pair), so a block still reads as its run of pixels along a row.
float thin_block_tint(Cell c) {
  if (kMapping != 0) return 0.0;
  uint threads = u_block.x * u_block.y * u_block.z;
  float run = float(threads) * float(max(u_flat.x, 1u) * max(u_flat.y, 1u));
  float rows_on_screen = max(1.0, run / float(u_domain.x)) * u_zoom;
  float hidden = 1.0 - fade_for_extent(rows_on_screen);
  if (hidden <= 0.0 || (c.block & 1u) == 0u) return 0.0;
  return hidden * (((c.block >> 1) & 1u) == 0u ? 0.35 : 0.55);
}

// Faint lines between accesses (a thread's pixel, or its vector chunk) once a pixel is big
// enough to point at.
float thread_line_alpha(vec2 img, ivec2 pix, Cell c, Neighbour nb[4]) {
  float fade = smoothstep(6.0, 10.0, u_zoom);
  if (fade <= 0.0) return 0.0;
  float dy = distance_to_multiple(img.y, 1.0) * u_zoom;
  float dx = u_zoom;
  Neighbour side = nb[across_x(img, pix)];
  if (side.inside && side.cell.unit != c.unit) dx = abs(img.x - floor(img.x + 0.5)) * u_zoom;
  return 0.3 * line_coverage(min(dx, dy)) * fade;
}

// --- the pixel -----------------------------------------------------------------------------------

// Spelled out rather than mix(): some drivers compute mix as a + t (b - a), which at t = 1 is
// not exactly b, and an opaque fill must give the same colour for every pixel of a block.
vec4 over(vec4 base, vec3 colour, float alpha) {
  return vec4(base.rgb * (1.0 - alpha) + colour * alpha, base.a * (1.0 - alpha) + alpha);
}

void main() {
  vec2 frag = gl_FragCoord.xy;
  vec2 img = u_centre + (frag - 0.5 * u_output_size) / u_zoom;
  ivec2 pix = ivec2(floor(img));
  ivec2 screen = ivec2(frag);

  if (!(all(greaterThanEqual(pix, ivec2(0))) && all(lessThan(pix, u_image_size)))) {
    // Outside the image: a dark checker in output pixels, so the image edge is obvious.
    bool odd = (((screen.x >> 3) + (screen.y >> 3)) & 1) == 1;
    frag_colour = vec4(vec3(odd ? 0.16 : 0.12), 1.0);
  } else {
    bool use_b = u_has_b && frag.x >= u_split_x;
    vec4 texel;
    // Both textures are sampled (explicit LOD, outside any branch) and one is kept.
    // The textures hold the whole image (x0 = y0 = 0, s = 1) or the window of it the view shows.
    ivec2 origin = u_texture_window.xy;
    int step = max(u_texture_window.z, 1);
    if (u_nearest) {
      ivec2 t = clamp((pix - origin) / step, ivec2(0), textureSize(u_image_a, 0) - 1);
      vec4 a = texelFetch(u_image_a, t, 0);
      vec4 b = texelFetch(u_image_b, clamp(t, ivec2(0), textureSize(u_image_b, 0) - 1), 0);
      texel = use_b ? b : a;
    } else {
      vec2 uv = (img - vec2(origin)) / (float(step) * vec2(textureSize(u_image_a, 0)));
      vec4 a = textureLod(u_image_a, uv, 0.0);
      vec4 b = textureLod(u_image_b, uv, 0.0);
      texel = use_b ? b : a;
    }
    bool gray = use_b ? u_b_gray : u_a_gray;
    vec4 colour = gray ? vec4(texel.rrr, 1.0) : texel;

    if (kOverlayMode != 0 && in_domain(pix)) {
      Cell c = cell_at(pix);
      Neighbour nb[4];
      if (kOverlayMode == 1 || kHighlight) {
        nb[kLeft] = neighbour(pix + ivec2(-1, 0));
        nb[kRight] = neighbour(pix + ivec2(1, 0));
        nb[kUp] = neighbour(pix + ivec2(0, -1));
        nb[kDown] = neighbour(pix + ivec2(0, 1));
      }
      if (!c.covered) {
        bool stripe = (((screen.x + screen.y) / 6) & 1) == 0;
        colour = over(colour, vec3(0.9, 0.1, 0.1), stripe ? 0.6 * u_opacity : 0.15 * u_opacity);
      } else if (kOverlayMode == 1) {
        // Lines are one pixel wide: at the fills' opacity they would vanish on a busy image, so
        // they are drawn stronger (0.45 -> 0.81), still reaching zero with the slider.
        float line_strength = min(1.0, 1.8 * u_opacity);
        colour = over(colour, vec3(1.0, 0.82, 0.1), thin_block_tint(c) * u_opacity);
        colour = over(colour, vec3(1.0), thread_line_alpha(img, pix, c, nb) * line_strength);
        colour = over(colour, vec3(1.0, 0.82, 0.1), block_line_alpha(img, pix, c, nb) * line_strength);
      } else if (kOverlayMode == 2) {
        colour = over(colour, id_colour(c.block, 0x1234u), u_opacity);
      } else if (kOverlayMode == 3) {
        colour = over(colour, id_colour(c.thread / 32u, 0x5678u), u_opacity);
      } else if (kOverlayMode == 4) {
        uint sm = sm_of_block(c.block);
        if (sm != kUnknownSm) colour = over(colour, id_colour(sm, 0x9abcu), u_opacity);
      }

      // The highlighted block, tinted as a whole and outlined on its own pixels. With the 1D
      // mapping this shows one block's run of flattened indices wrapping across rows.
      if (kHighlight && u_highlight >= 0 && c.covered && c.block == uint(u_highlight)) {
        colour = over(colour, vec3(1.0, 0.95, 0.35), 0.45);
        vec2 f = fract(img) * u_zoom;          // output pixels from the pixel's left/top edge
        vec2 g = (1.0 - fract(img)) * u_zoom;  // ... from its right/bottom edge
        const float width = 2.0;
        bool edge = (f.x < width && !same_block(nb[kLeft], c)) || (g.x < width && !same_block(nb[kRight], c)) ||
                    (f.y < width && !same_block(nb[kUp], c)) || (g.y < width && !same_block(nb[kDown], c));
        if (edge) colour = over(colour, vec3(1.0, 0.45, 0.0), 1.0);
      }
      // The pixels one thread stores (its several pixels, its vector chunks, every pass of a
      // grid-stride loop), tinted and outlined.
      if (kHighlight && u_highlight_thread >= 0 && c.covered && global_thread(c) == uint(u_highlight_thread)) {
        colour = over(colour, vec3(0.2, 1.0, 1.0), 0.55);
        vec2 f = fract(img) * u_zoom;
        vec2 g = (1.0 - fract(img)) * u_zoom;
        const float w2 = 2.0;
        bool edge = (f.x < w2 && !same_thread(nb[kLeft])) || (g.x < w2 && !same_thread(nb[kRight])) ||
                    (f.y < w2 && !same_thread(nb[kUp])) || (g.y < w2 && !same_thread(nb[kDown]));
        if (edge) colour = over(colour, vec3(0.0, 0.9, 1.0), 1.0);
      }
    }
    frag_colour = colour;
  }

  if (u_has_b && u_draw_split_line && abs(frag.x - u_split_x) < 1.0) {
    frag_colour = vec4(1.0, 1.0, 1.0, 1.0);
  }
}
