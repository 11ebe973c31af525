#version 330 core
// heatmap.frag: the colour maps of the matmul lab. Input: an R8 texture of heatmap codes, one
// byte per texel, written by CUDA (through a mapped GL pixel buffer) or by the host; the codes
// are defined in kernels/matmul/matmul_heatmap.hpp. Output: the same texel, in colour, into an
// RGBA8 texture of the same size (texel (x, y) -> fragment (x, y): row 0 stays the top row).
//
// Values (A, B, C), a diverging map with a dark centre: zero is the dark panel colour, negative
// values turn blue and positive ones orange, the extremes pale. On the dark UI, an identity
// matrix is a bright diagonal on black and random data reads as blue/orange noise.
//   code 0 = NaN or Inf (magenta, a colour no value can take); 1..255 = lo..hi.
// Errors (|C - reference|), a sequential map from dark blue to pale green for everything within
// the range shown (the largest tolerance), and one hot red for "above": a wrong element pops out.
//   code 0 = exact; 1..254 = log10 of the error, lo..hi; 255 = above hi or non-finite.

uniform sampler2D u_codes;
uniform int u_colour_map;  // 0 values (diverging), 1 errors

out vec4 frag_colour;

// Piecewise-linear interpolation through five evenly spaced colours, t in [0, 1].
vec3 ramp5(float t, vec3 c0, vec3 c1, vec3 c2, vec3 c3, vec3 c4) {
  float s = clamp(t, 0.0, 1.0) * 4.0;
  if (s < 1.0) return mix(c0, c1, s);
  if (s < 2.0) return mix(c1, c2, s - 1.0);
  if (s < 3.0) return mix(c2, c3, s - 2.0);
  return mix(c3, c4, s - 3.0);
}

vec3 values_colour(int code) {
  if (code == 0) return vec3(0.95, 0.20, 0.95);
  float t = float(code - 1) / 254.0;
  return ramp5(t, vec3(0.66, 0.87, 1.00), vec3(0.17, 0.50, 0.92), vec3(0.09, 0.10, 0.13),
               vec3(0.93, 0.45, 0.12), vec3(1.00, 0.88, 0.58));
}

vec3 error_colour(int code) {
  if (code == 0) return vec3(0.05, 0.06, 0.08);
  if (code == 255) return vec3(1.00, 0.16, 0.28);
  float t = float(code - 1) / 253.0;
  return ramp5(t, vec3(0.08, 0.10, 0.19), vec3(0.10, 0.22, 0.40), vec3(0.12, 0.42, 0.52),
               vec3(0.25, 0.64, 0.52), vec3(0.62, 0.88, 0.46));
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int code = int(texelFetch(u_codes, p, 0).r * 255.0 + 0.5);
  vec3 c = u_colour_map == 0 ? values_colour(code) : error_colour(code);
  frag_colour = vec4(c, 1.0);
}
