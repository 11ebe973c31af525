#version 330 core
// heatmap.vert: one triangle over the whole render target (vertices at (-1,-1), (3,-1),
// (-1,3) from gl_VertexID; no vertex buffer). heatmap.frag works per output texel.
void main() {
  vec2 corner = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(corner, 0.0, 1.0);
}
