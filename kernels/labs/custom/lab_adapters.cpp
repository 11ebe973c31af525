// The built-in labs' adapters for their user kernels (user_kernel_lab.hpp): the data as the
// lecture's kernels take it, a number that changes with it, and which template an edit of each
// built-in kernel starts from.
#include "labs/custom/user_kernel_lab.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/grayscale/gray_reference.hpp"
#include "labs/matmul/matmul_lab.hpp"

namespace bs::custom {

LabAdapter gray_adapter() {
  LabAdapter a;
  a.generation = [](const lab::Lab& l) -> std::uint64_t {
    const auto* g = lab::layer<gray::GrayLab>(l);
    return g ? g->generation() : 0;
  };
  a.problem = [](const lab::Lab& l) -> Result<Problem> {
    const auto* g = lab::layer<gray::GrayLab>(l);
    if (!g || g->width() <= 0) return Status::failure("no image loaded", "drop an image on the window", "gray lab");
    // The lecture's tensors are planar (all red bytes, then green, then blue).
    std::vector<std::uint8_t> planar(static_cast<std::size_t>(g->width()) * g->height() * 3);
    gray::rgba_to_planar_rgb(g->rgba().data(), g->width(), g->height(), planar.data());
    return Problem::gray(planar, g->width(), g->height());
  };
  a.settings_check = [](const lab::Lab& l) {
    const auto* g = lab::layer<gray::GrayLab>(l);
    if (g && g->layout() != gray::GrayLayout::Planar)
      return Status::failure("user kernels read the lecture's planar RGB (x[i], x[i+n], x[i+2n]), not RGBA",
                             "set the source layout to planar", "user kernel");
    return Status::success();
  };
  a.template_for = [](std::string_view id) -> std::string {
    if (id == "gray_2d") return "gray_2d";
    if (id == "gray_grid_stride") return "gray_grid_stride";
    return "gray_1d";  // the lecture's first kernel, the ladder's other rungs start from it
  };
  return a;
}

LabAdapter matmul_adapter() {
  LabAdapter a;
  a.generation = [](const lab::Lab& l) -> std::uint64_t {
    const auto* m = lab::layer<matmul::MatmulLab>(l);
    return m ? m->generation() : 0;
  };
  a.problem = [](const lab::Lab& l) -> Result<Problem> {
    const auto* m = lab::layer<matmul::MatmulLab>(l);
    if (!m || !m->ready()) return m ? m->status() : Status::failure("no matrices yet", "", "matmul lab");
    const matmul::MatrixSpec& s = m->spec();
    // The lecture's names: out (h x w) = m (h x k) * n (k x w); the lab's C (M x N) = A (M x K) * B (K x N).
    return Problem::matmul(m->a(), m->b(), s.M, s.N, s.K);
  };
  a.template_for = [](std::string_view id) -> std::string {
    if (id == "k1_naive" || id == "k2_uncoalesced" || id == matmul::kCublasId) return "matmul_naive";
    return "matmul_tiled";  // shared-memory tiles: where the ladder from rung 3 on starts
  };
  return a;
}

}  // namespace bs::custom
