#include "labs/custom/templates.hpp"

#include "labs/custom/codegen.hpp"

namespace bs::custom {
namespace {
constexpr KernelTemplate kTemplates[] = {
    {"gray_1d", "Grayscale, 1D (the lecture's)", "gray_1d.cu", Form::Gray1D, {256, 1, 1}, 0},
    {"gray_2d", "Grayscale, 2D blocks (the lecture's)", "gray_2d.cu", Form::Gray2D, {16, 16, 1}, 0},
    {"gray_grid_stride", "Grayscale, grid-stride loop (fixed grid)", "gray_grid_stride.cu",
     Form::Gray1D, {256, 1, 1}, 2},
    {"matmul_naive", "Matmul, naive (the lecture's)", "matmul_naive.cu", Form::Matmul, {16, 16, 1}, 0},
    {"matmul_tiled", "Matmul, shared-memory tiles (lecture 5)", "matmul_tiled.cu", Form::Matmul,
     {16, 16, 1}, 0},
};
}  // namespace

std::string_view KernelTemplate::source() const { return embedded_text(file); }

std::span<const KernelTemplate> kernel_templates() { return kTemplates; }

const KernelTemplate* find_template(std::string_view id) {
  for (const KernelTemplate& t : kTemplates)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace bs::custom
