#include "lab/lab.hpp"

#include <algorithm>

namespace bs::lab {

Status Lab::set_setting(std::string_view key, std::string_view value) {
  std::string keys;
  for (const Setting& s : settings()) keys += (keys.empty() ? "" : ", ") + s.key;
  (void)value;
  return Status::failure("the " + std::string(title()) + " lab has no setting '" + std::string(key) + "'",
                         keys.empty() ? "it has no settings" : "its settings: " + keys, "--set");
}

std::vector<std::pair<std::string, std::string>> Lab::setting_values() const {
  std::vector<std::pair<std::string, std::string>> v;
  for (const Setting& s : settings()) v.emplace_back(s.key, s.value);
  return v;
}

Status check_setting_value(const Setting& s, std::string_view value) {
  for (const std::string& c : s.choices)
    if (c == value) return Status::success();
  std::string list;
  for (const std::string& c : s.choices) list += (list.empty() ? "" : ", ") + c;
  return Status::failure("'" + std::string(value) + "' is not a " + s.label, "it takes " + list, "--set " + s.key);
}

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
