// The kernels the editor offers to start from, written as the lecture writes them (its notebook's
// grayscale and matmul kernels, lecture 5's shared-memory tiled matmul) plus a grid-stride loop
// that shows the fixed-grid rule. The sources are the .cu files in templates/, embedded at build
// time.
#pragma once
#include <span>
#include <string_view>

#include "core/dim.hpp"
#include "labs/custom/forms.hpp"

namespace bs::custom {

struct KernelTemplate {
  std::string_view id;     // "gray_1d", "gray_2d", "gray_grid_stride", "matmul_naive", "matmul_tiled"
  std::string_view title;  // for the menu
  std::string_view file;   // templates/<file>
  Form form;
  Dim3 block;              // the block it is meant for (matmul_tiled needs 16 x 16)
  unsigned fixed_blocks_per_sm = 0;  // > 0: run with a fixed grid of this many blocks per SM
  std::string_view source() const;
};

std::span<const KernelTemplate> kernel_templates();
const KernelTemplate* find_template(std::string_view id);

}  // namespace bs::custom
