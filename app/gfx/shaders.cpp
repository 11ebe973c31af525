#include "gfx/shaders.hpp"

#include <string>

namespace bs {

Result<std::string_view> embedded_shader(std::string_view name) {
  for (const EmbeddedShader& shader : embedded_shaders()) {
    if (shader.name == name) return shader.source;
  }
  return Status::failure("no embedded shader named " + std::string(name), "add the file to shaders/ and re-run cmake",
                         "embedded_shader");
}

Result<GlProgram> build_embedded_program(std::string_view name) {
  auto vertex = embedded_shader(std::string(name) + ".vert");
  if (!vertex) return vertex.status();
  auto fragment = embedded_shader(std::string(name) + ".frag");
  if (!fragment) return fragment.status();
  return GlProgram::build(vertex.value(), fragment.value(), name);
}

}  // namespace bs
