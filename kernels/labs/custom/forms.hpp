// The kernel signatures a lab accepts from the user, and how each one's grid follows from the
// data. A "form" is a parameter list with a role per parameter; the names are the user's own.
//
//   form        signature (types matter, names do not)                 grid (blockDim free)
//   gray_1d     (unsigned char* x, unsigned char* out, int n)          (ceil(n / blockDim.x), 1, 1)
//   gray_2d     (unsigned char* x, unsigned char* out, int w, int h)   (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)
//   matmul      (float* m, float* n, float* out, int h, int w, int k)  (ceil(w / blockDim.x), ceil(h / blockDim.y), 1)
//
// gray: x is planar RGB (all red bytes, then green, then blue) of 3n bytes, n = w * h; out is
// n bytes, row-major. These are the lecture's own kernels (its notebook's rgb_to_grayscale_kernel,
// 1D and 2D; the 2D one takes width before height). matmul: out (h x w) = m (h x k) * n (k x w),
// row-major FP32, the lecture's matmul_k.
//
// `const`, `__restrict__`/`__restrict`, `volatile` and spacing are ignored when matching, so
// `const float* __restrict__ m` matches `float* m`. A kernel that wants another grid (a
// grid-stride loop covers the data with any grid) runs with GridRule::fixed.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs::custom {

enum class Form { Gray1D, Gray2D, Matmul };

enum class Role { Input, Output, Int };

struct FormParam {
  std::string_view type;  // the element type for pointers ("unsigned char", "float"), or "int"
  bool pointer = false;
  Role role = Role::Input;
  std::string_view lecture_name;  // the lecture's name, for messages: x, out, n, w, h, m, k
  std::string_view meaning;       // "planar RGB input, 3n bytes"
};

struct FormSpec {
  Form form;
  std::string_view id;         // "gray_1d", "gray_2d", "matmul"
  std::string_view lab;        // the lab that accepts it: "gray", "matmul"
  std::string_view signature;  // "(unsigned char* x, unsigned char* out, int n)"
  std::vector<FormParam> params;
  std::string_view grid_rule;  // "gridDim = (ceil(n / blockDim.x), 1, 1)"
  unsigned block_rank = 1;     // block dimensions the grid rule reads: 1 or 2
  Dim3 default_block{256, 1, 1};
};

const FormSpec& form_spec(Form f);
std::span<const Form> all_forms();
std::span<const Form> lab_forms(std::string_view lab);  // "gray": 1D and 2D; "matmul"
const char* to_string(Form f);                            // the id

// The problem a form runs on: the image (w x h, n = w * h) or the matrices (h, w, k).
struct Shape {
  long long w = 0, h = 0, k = 0;
  long long n() const { return w * h; }
};

// How the grid follows from the data: the form's rule (the lecture's ceil-divisions) or a fixed
// grid the user chose (grid-stride loops, or to see what a too-small grid leaves undone).
struct GridRule {
  enum class Kind { Form, Fixed };
  Kind kind = Kind::Form;
  Dim3 fixed{1, 1, 1};

  static GridRule form_rule() { return {}; }
  static GridRule fixed_grid(Dim3 g) { return GridRule{Kind::Fixed, g}; }
  friend bool operator==(const GridRule&, const GridRule&) = default;
};

// The grid a launch with `block` gets. Refuses a zero block dimension and grids over CUDA's
// limits are left to validate_launch (the grid is still computed so the message can name it).
Result<Dim3> grid_for(Form f, const Shape& shape, Dim3 block, const GridRule& rule);

// The int arguments the kernel receives, in parameter order (n; w, h; h, w, k).
std::vector<int> int_args(Form f, const Shape& shape);

// One line per accepted form, for a diagnostic: "  (unsigned char* x, unsigned char* out, int n)
// -- gray 1D, grid ceil(n / blockDim.x)".
std::string describe_forms(std::span<const Form> forms);

}  // namespace bs::custom
