// The grayscale lab's user-kernel spec: forms, templates (the lecture's kernels as its notebook
// writes them), and the packing of the lab's image with the lab's own check and counts.
#include "labs/grayscale/gray_user_spec.hpp"

#include <climits>
#include <memory>

#include "labs/grayscale/gray_engine.hpp"
#include "labs/grayscale/gray_lab.hpp"

namespace bs::gray {
namespace {

using lab::UserParam;
using Role = lab::UserParam::Role;

std::vector<lab::UserForm> make_forms() {
  lab::UserForm one;
  one.id = "gray_1d";
  one.title = "grayscale, 1D (the lecture's)";
  one.params = {{Role::Input, "unsigned char", 1, "x", "planar RGB input, 3n bytes"},
                {Role::Output, "unsigned char", 1, "out", "grayscale output, n bytes"},
                {Role::Int, "int", 0, "n", "pixels, width * height"}};
  one.grid_extent = {"n", "", ""};
  one.block_rank = 1;
  one.default_block = {256, 1, 1};
  one.presets = {{64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}, {1024, 1, 1}};
  one.element = "pixel";

  lab::UserForm two;
  two.id = "gray_2d";
  two.title = "grayscale, 2D (the lecture's)";
  two.params = {{Role::Input, "unsigned char", 1, "x", "planar RGB input, 3 * w * h bytes"},
                {Role::Output, "unsigned char", 1, "out", "grayscale output, w * h bytes, row-major"},
                {Role::Int, "int", 0, "w", "image width"},
                {Role::Int, "int", 0, "h", "image height"}};
  two.grid_extent = {"w", "h", ""};
  two.block_rank = 2;
  two.default_block = {16, 16, 1};
  two.presets = {{8, 8, 1}, {16, 16, 1}, {32, 8, 1}, {32, 32, 1}};
  two.element = "pixel";
  return {one, two};
}

std::vector<lab::UserTemplate> make_templates() {
  return {
      {"gray_1d",
       "Grayscale, 1D (the lecture's)",
       "gray_1d",
       {256, 1, 1},
       0,
       R"(// The lecture's first kernel: one thread per pixel of the flattened image.
// x is planar RGB (all red bytes, then green, then blue), n = width * height.
// Launched with gridDim = ceil(n / blockDim.x).
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i<n) out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)"},
      {"gray_2d",
       "Grayscale, 2D blocks (the lecture's)",
       "gray_2d",
       {16, 16, 1},
       0,
       R"(// The lecture's 2D kernel: blocks tile the image, x across columns, y down rows.
// Launched with gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y)).
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int w, int h) {
    int c = blockIdx.x*blockDim.x + threadIdx.x;
    int r = blockIdx.y*blockDim.y + threadIdx.y;

    if (c<w && r<h) {
        int i = r*w + c;
        int n = h*w;
        out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
    }
}
)"},
      {"gray_grid_stride",
       "Grayscale, grid-stride loop (fixed grid)",
       "gray_1d",
       {256, 1, 1},
       2,
       R"(// A grid-stride loop: any grid covers the image, each thread takes every
// (gridDim.x * blockDim.x)-th pixel. Run it with a fixed grid, e.g. 2 blocks per SM.
__global__ void rgb_to_grayscale_kernel(unsigned char* x, unsigned char* out, int n) {
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += gridDim.x*blockDim.x)
        out[i] = 0.2989*x[i] + 0.5870*x[i+n] + 0.1140*x[i+2*n];
}
)"},
  };
}

class GraySpec final : public lab::UserKernelSpec {
 public:
  const std::vector<lab::UserForm>& forms() const override { return forms_; }
  const std::vector<lab::UserTemplate>& templates() const override { return templates_; }
  std::string template_for(std::string_view kernel) const override {
    // The rung's own choice (its traits' kUserTemplate); the lecture's first kernel for the rest.
    const GrayRung* rung = find_gray_rung(gray_rungs(), kernel);
    return rung ? std::string(rung->user_template) : "gray_1d";
  }
  std::uint64_t generation(const lab::Lab& l) const override {
    const auto* g = lab::layer<GrayLab>(l);
    return g ? g->generation() : 0;
  }
  Result<lab::UserProblem> pack(const lab::Lab& l, const lab::UserForm& form) const override {
    const auto* g = lab::layer<GrayLab>(l);
    if (!g || g->width() <= 0) return Status::failure("no image loaded", "drop an image on the window", "gray lab");
    if (g->layout() != GrayLayout::Planar)
      return Status::failure("user kernels read the lecture's planar RGB (x[i], x[i+n], x[i+2n]), not RGBA",
                             "set the source layout to planar", "user kernel");
    const std::size_t n = static_cast<std::size_t>(g->width()) * g->height();
    std::vector<std::uint8_t> planar(3 * n), reference(n);
    g->copy_planar(planar.data());
    for (std::size_t i = 0; i < n; ++i) reference[i] = gray_reference_of(planar[i], planar[i + n], planar[i + 2 * n]);
    return pack_user_problem(form, std::move(planar), g->width(), g->height(), std::move(reference), g->image_name());
  }

 private:
  std::vector<lab::UserForm> forms_ = make_forms();
  std::vector<lab::UserTemplate> templates_ = make_templates();
};

}  // namespace

const lab::UserKernelSpec& user_kernel_spec() {
  static const GraySpec spec;
  return spec;
}

const lab::UserKernelSpec* GrayLab::user_kernel_spec() const { return &gray::user_kernel_spec(); }

Result<lab::UserProblem> pack_user_problem(const lab::UserForm& form, std::vector<std::uint8_t> planar, int w, int h,
                                           std::vector<std::uint8_t> reference, const std::string& name) {
  const long long n = static_cast<long long>(w) * h;
  if (w < 1 || h < 1)
    return Status::failure("the image is empty (" + std::to_string(w) + " x " + std::to_string(h) + ")", "",
                           "gray user kernels");
  // The kernel indexes x[i + 2n] with an int.
  if (3 * n - 1 > INT_MAX)
    return Status::failure("the image has " + std::to_string(n) +
                               " pixels; a kernel's int index into planar RGB (x[i + 2n]) "
                               "reaches at most " +
                               std::to_string(INT_MAX / 3) + " pixels",
                           "choose a smaller image", "gray user kernels");
  if (static_cast<long long>(planar.size()) != 3 * n || static_cast<long long>(reference.size()) != n)
    return Status::failure("planar RGB of " + std::to_string(w) + " x " + std::to_string(h) + " needs " +
                               std::to_string(3 * n) + " bytes and its reference " + std::to_string(n),
                           "", "gray user kernels");
  lab::UserProblem p;
  p.form = form.id;
  p.sizes = {{"n", n}, {"w", w}, {"h", h}};
  p.inputs.push_back(std::move(planar));
  p.output_count = n;
  p.output_fill = 0xFF;
  p.out_width = w;
  p.out_height = h;
  p.summary = (name.empty() ? std::string() : name + ", ") + std::to_string(w) + " x " + std::to_string(h) +
              " image, planar RGB";
  p.bytes_moved = gray_bytes_moved(GrayLayout::Planar, w, h);
  p.bytes_note = gray_bytes_note(GrayLayout::Planar);
  p.flops = gray_flops(w, h);
  p.replay_work = 4.0 * static_cast<double>(n);
  auto ref = std::make_shared<const std::vector<std::uint8_t>>(std::move(reference));
  p.verify = [ref, n, w](const std::uint8_t* out) { return compare_with_reference(out, ref->data(), n, w); };
  return p;
}

}  // namespace bs::gray
