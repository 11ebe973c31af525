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

Result<GlProgram> build_embedded_program(std::string_view name, std::string_view fragment_defines) {
  auto vertex = embedded_shader(std::string(name) + ".vert");
  if (!vertex) return vertex.status();
  auto fragment = embedded_shader(std::string(name) + ".frag");
  if (!fragment) return fragment.status();
  if (fragment_defines.empty()) return GlProgram::build(vertex.value(), fragment.value(), name);
  const std::string_view source = fragment.value();
  const std::size_t after_version = source.find('\n') + 1;  // #version must stay the first line
  const std::string text = std::string(source.substr(0, after_version)) + std::string(fragment_defines) +
                           std::string(source.substr(after_version));
  return GlProgram::build(vertex.value(), text, name);
}

}  // namespace bs
