#version 330 core
// image_view.vert: one triangle that covers the whole render target (vertices at (-1,-1),
// (3,-1), (-1,3)); no vertex buffer, positions come from gl_VertexID. The fragment shader works
// in output pixels (gl_FragCoord), so nothing needs to be interpolated.
void main() {
  vec2 corner = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
  gl_Position = vec4(corner, 0.0, 1.0);
}
