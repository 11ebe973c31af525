#include "lab/user_kernel_spec.hpp"

#include <algorithm>
#include <limits>

namespace bs::lab {

std::string UserForm::signature() const {
  std::string s = "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    const UserParam& p = params[i];
    if (i) s += ", ";
    s += p.type + (p.pointer() ? "* " : " ") + p.name;
  }
  return s + ")";
}

std::string UserForm::grid_rule() const {
  static constexpr const char* kAxis[] = {"x", "y", "z"};
  std::string s = "gridDim = (";
  for (int d = 0; d < 3; ++d) {
    if (d) s += ", ";
    if (grid_extent[d].empty()) {
      s += "1";
      continue;
    }
    s += "ceil(" + grid_extent[d] + " / " +
         (grid_tile[d] ? std::to_string(grid_tile[d]) : std::string("blockDim.") + kAxis[d]) + ")";
  }
  return s + ")";
}

const UserParam* UserForm::output() const {
  for (const UserParam& p : params)
    if (p.role == UserParam::Role::Output) return &p;
  return nullptr;
}

std::optional<long long> UserProblem::size(std::string_view name) const {
  for (const auto& [k, v] : sizes)
    if (k == name) return v;
  return std::nullopt;
}

const UserForm* UserKernelSpec::find_form(std::string_view id) const {
  for (const UserForm& f : forms())
    if (f.id == id) return &f;
  return nullptr;
}

const UserTemplate* UserKernelSpec::find_template(std::string_view id) const {
  for (const UserTemplate& t : templates())
    if (t.id == id) return &t;
  return nullptr;
}

Result<Dim3> user_grid(const UserForm& form, const UserProblem& problem, Dim3 block) {
  if (block.x == 0 || block.y == 0 || block.z == 0)
    return Status::failure("blockDim " + to_string(block) + " has a zero dimension",
                           "every block dimension must be at least 1", "user_grid");
  const unsigned b[3] = {block.x, block.y, block.z};
  unsigned g[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    if (form.grid_extent[d].empty()) continue;
    const auto extent = problem.size(form.grid_extent[d]);
    if (!extent)
      return Status::failure("the problem has no size '" + form.grid_extent[d] + "' for the grid of form " + form.id,
                             "the lab's spec packs the sizes its forms name", "user_grid");
    const unsigned long long step = form.grid_tile[d] ? form.grid_tile[d] : b[d];
    const unsigned long long blocks = ceil_div(static_cast<unsigned long long>(*extent > 0 ? *extent : 0), step);
    g[d] = static_cast<unsigned>(std::min<unsigned long long>(blocks, std::numeric_limits<unsigned>::max()));
  }
  return Dim3{g[0], g[1], g[2]};
}

std::string describe_forms(std::span<const UserForm> forms) {
  std::string out;
  for (const UserForm& f : forms) {
    if (!out.empty()) out += "\n";
    out += "  __global__ void NAME" + f.signature() + "   [" + f.id + "; " + f.grid_rule() + "]";
  }
  return out;
}

}  // namespace bs::lab
