// The vector-add lab's offer to the user's own kernels (lab/user_kernel_spec.hpp), written here
// with the lab and nowhere else: its one form, a template, and its vectors packed with its own
// check and counts. Nothing outside tests/lab_interface names this lab.
//
//   form   signature                              grid
//   vadd   (float* a, float* b, float* c, int n)  (ceil(n / blockDim.x), 1, 1)
#include <cstring>
#include <memory>

#include "lab/user_kernel_spec.hpp"
#include "vadd_lab.hpp"

namespace bs::test {
namespace {

using Role = lab::UserParam::Role;

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

class VaddSpec final : public lab::UserKernelSpec {
 public:
  VaddSpec() {
    lab::UserForm f;
    f.id = "vadd";
    f.title = "vector add";
    f.params = {{Role::Input, "float", 4, "a", "n floats"},
                {Role::Input, "float", 4, "b", "n floats"},
                {Role::Output, "float", 4, "c", "n floats: a + b"},
                {Role::Int, "int", 0, "n", "elements"}};
    f.grid_extent = {"n", "", ""};
    f.block_rank = 1;
    f.default_block = {256, 1, 1};
    f.presets = {{32, 1, 1}, {96, 1, 1}, {256, 1, 1}};
    forms_ = {f};
    templates_ = {{"vadd",
                   "Vector add",
                   "vadd",
                   {256, 1, 1},
                   0,
                   "__global__ void vadd(float* a, float* b, float* c, int n) {\n"
                   "    int i = blockIdx.x*blockDim.x + threadIdx.x;\n"
                   "    if (i < n) c[i] = a[i] + b[i];\n"
                   "}\n"}};
  }
  const std::vector<lab::UserForm>& forms() const override { return forms_; }
  const std::vector<lab::UserTemplate>& templates() const override { return templates_; }
  std::string template_for(std::string_view) const override { return "vadd"; }
  std::uint64_t generation(const lab::Lab& l) const override {
    const auto* v = lab::layer<VaddLab>(l);
    return v ? v->generation() : 0;
  }
  Result<lab::UserProblem> pack(const lab::Lab& l, const lab::UserForm& form) const override {
    const auto* v = lab::layer<VaddLab>(l);
    if (!v || v->a().empty()) return Status::failure("no vectors yet", "", "vadd lab");
    lab::UserProblem p;
    p.form = form.id;
    const std::size_t n = v->a().size();
    p.sizes = {{"n", static_cast<long long>(n)}};
    p.inputs = {bytes_of(v->a()), bytes_of(v->b())};
    p.output_count = static_cast<long long>(n);
    p.output_fill = 0xFF;  // NaN: an element no thread wrote is wrong
    p.out_width = static_cast<long long>(n);
    p.out_height = 1;
    p.summary = std::to_string(n) + " floats";
    p.bytes_moved = vadd_bytes(n);
    p.bytes_note = "4 + 4 bytes read, 4 written per element";
    p.flops = vadd_flops(n);
    p.replay_work = static_cast<double>(n);
    auto a = std::make_shared<const std::vector<float>>(v->a());
    auto b = std::make_shared<const std::vector<float>>(v->b());
    p.verify = [a, b](const std::uint8_t* out) {
      std::vector<float> c(a->size());
      std::memcpy(c.data(), out, c.size() * sizeof(float));
      return vadd_check(a->data(), b->data(), c.data(), c.size());
    };
    return p;
  }

 private:
  std::vector<lab::UserForm> forms_;
  std::vector<lab::UserTemplate> templates_;
};

}  // namespace

const lab::UserKernelSpec& vadd_user_kernel_spec() {
  static const VaddSpec spec;
  return spec;
}

const lab::UserKernelSpec* VaddLab::user_kernel_spec() const { return &vadd_user_kernel_spec(); }

}  // namespace bs::test
