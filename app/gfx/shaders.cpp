#include "gfx/shaders.hpp"

#include <string>

namespace bs {

Result<std::string_view> embedded_shader(std::string_view name) {
  for (const EmbeddedShader& shader : embedded_shaders()) {
    if (shader.name == name) return shader.source;
  }
  return Status::failure("no embedded shader named " + std::string(name),
                         "add the file to shaders/ and re-run cmake", "embedded_shader");
}

}  // namespace bs
