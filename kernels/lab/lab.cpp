#include "lab/lab.hpp"

#include <algorithm>

namespace bs::lab {

const KernelInfo* Lab::find_kernel(std::string_view id) const {
  for (const KernelInfo& k : kernels())
    if (k.id == id) return &k;
  return nullptr;
}

KernelConfig Lab::default_config(const KernelInfo& k) const {
  KernelConfig c;
  if (k.style == ConfigStyle::Compiled && !k.configs.empty()) {
    c.compiled = std::clamp(k.default_config, 0, static_cast<int>(k.configs.size()) - 1);
    c.block = k.configs[static_cast<std::size_t>(c.compiled)].block;
  } else {
    c.block = k.default_block;
  }
  return c;
}

}  // namespace bs::lab
