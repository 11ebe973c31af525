// GLSL sources from shaders/, embedded into the binary at build time (embed_shaders.cmake
// writes them into a generated .cpp as raw string literals), so the executable needs no files
// beside it. Editing a shader and rebuilding re-embeds it.
#pragma once
#include <span>
#include <string_view>

#include "core/status.hpp"
#include "gfx/gl_objects.hpp"

namespace bs {

struct EmbeddedShader {
  std::string_view name;    // file name in shaders/, e.g. "image_view.frag"
  std::string_view source;  // the file's text
};

// Every file of shaders/, sorted by name.
std::span<const EmbeddedShader> embedded_shaders();

// One of them by file name, or a Status naming the missing file.
Result<std::string_view> embedded_shader(std::string_view name);

// The program of shaders/<name>.vert and shaders/<name>.frag, built under `name` (which the
// compile and link errors quote). `fragment_defines` (lines such as "#define MODE 1\n") go right
// after the fragment shader's #version line. Needs a current GL 3.3 core context.
Result<GlProgram> build_embedded_program(std::string_view name, std::string_view fragment_defines = {});

}  // namespace bs
