#include "labs/custom/forms.hpp"

#include <array>

namespace bs::custom {
namespace {

const std::array<FormSpec, 3>& specs() {
  static const std::array<FormSpec, 3> s = {{
      {Form::Gray1D,
       "gray_1d",
       "gray",
       "(unsigned char* x, unsigned char* out, int n)",
       {{"unsigned char", true, Role::Input, "x", "planar RGB input, 3n bytes"},
        {"unsigned char", true, Role::Output, "out", "grayscale output, n bytes"},
        {"int", false, Role::Int, "n", "pixels, width * height"}},
       "gridDim = (ceil(n / blockDim.x), 1, 1)",
       1,
       Dim3{256, 1, 1}},
      {Form::Gray2D,
       "gray_2d",
       "gray",
       "(unsigned char* x, unsigned char* out, int w, int h)",
       {{"unsigned char", true, Role::Input, "x", "planar RGB input, 3 * w * h bytes"},
        {"unsigned char", true, Role::Output, "out", "grayscale output, w * h bytes, row-major"},
        {"int", false, Role::Int, "w", "image width"},
        {"int", false, Role::Int, "h", "image height"}},
       "gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)",
       2,
       Dim3{16, 16, 1}},
      {Form::Matmul,
       "matmul",
       "matmul",
       "(float* m, float* n, float* out, int h, int w, int k)",
       {{"float", true, Role::Input, "m", "left matrix, h x k, row-major"},
        {"float", true, Role::Input, "n", "right matrix, k x w, row-major"},
        {"float", true, Role::Output, "out", "product, h x w, row-major"},
        {"int", false, Role::Int, "h", "rows of m and out"},
        {"int", false, Role::Int, "w", "columns of n and out"},
        {"int", false, Role::Int, "k", "columns of m, rows of n"}},
       "gridDim = (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)",
       2,
       Dim3{16, 16, 1}},
  }};
  return s;
}

constexpr Form kAll[] = {Form::Gray1D, Form::Gray2D, Form::Matmul};
constexpr Form kGray[] = {Form::Gray1D, Form::Gray2D};
constexpr Form kMatmul[] = {Form::Matmul};

}  // namespace

const FormSpec& form_spec(Form f) { return specs()[static_cast<std::size_t>(f)]; }
std::span<const Form> all_forms() { return kAll; }
std::span<const Form> lab_forms(std::string_view lab) {
  if (lab == "gray") return kGray;
  if (lab == "matmul") return kMatmul;
  return {};
}
const char* to_string(Form f) { return form_spec(f).id.data(); }

Result<Dim3> grid_for(Form f, const Shape& shape, Dim3 block, const GridRule& rule) {
  if (block.x == 0 || block.y == 0 || block.z == 0)
    return Status::failure("blockDim " + to_string(block) + " has a zero dimension",
                           "every block dimension must be at least 1", "grid_for");
  if (rule.kind == GridRule::Kind::Fixed) {
    if (rule.fixed.x == 0 || rule.fixed.y == 0 || rule.fixed.z == 0)
      return Status::failure("the fixed grid " + to_string(rule.fixed) + " has a zero dimension",
                             "every grid dimension must be at least 1", "grid_for");
    return rule.fixed;
  }
  auto clamp = [](unsigned long long v) {
    return static_cast<unsigned>(v > 0xffffffffull ? 0xffffffffull : v);
  };
  const auto n = static_cast<unsigned long long>(shape.n() > 0 ? shape.n() : 0);
  const auto w = static_cast<unsigned long long>(shape.w > 0 ? shape.w : 0);
  const auto h = static_cast<unsigned long long>(shape.h > 0 ? shape.h : 0);
  switch (f) {
    case Form::Gray1D: return Dim3{clamp(ceil_div(n, block.x)), 1, 1};
    case Form::Gray2D:
    case Form::Matmul: return Dim3{clamp(ceil_div(w, block.x)), clamp(ceil_div(h, block.y)), 1};
  }
  return Status::failure("unknown form", "", "grid_for");
}

std::vector<int> int_args(Form f, const Shape& s) {
  switch (f) {
    case Form::Gray1D: return {static_cast<int>(s.n())};
    case Form::Gray2D: return {static_cast<int>(s.w), static_cast<int>(s.h)};
    case Form::Matmul: return {static_cast<int>(s.h), static_cast<int>(s.w), static_cast<int>(s.k)};
  }
  return {};
}

std::string describe_forms(std::span<const Form> forms) {
  std::string out;
  for (Form f : forms) {
    const FormSpec& s = form_spec(f);
    if (!out.empty()) out += "\n";
    out += "  __global__ void NAME";
    out += s.signature;
    out += "   [";
    out += s.id;
    out += "; ";
    out += s.grid_rule;
    out += "]";
  }
  return out;
}

}  // namespace bs::custom
