#include "lab/bench.hpp"

#include <algorithm>

namespace bs::lab {

std::vector<std::pair<std::string, KernelConfig>> bench_points(const Lab& lab, const BenchSpec& spec,
                                                               std::vector<std::string>* unknown) {
  std::vector<std::pair<std::string, KernelConfig>> points;
  for (const std::string& id : spec.kernels)
    if (!lab.find_kernel(id) && unknown) unknown->push_back(id);
  for (const KernelInfo& k : lab.kernels()) {
    if (!spec.kernels.empty() && std::find(spec.kernels.begin(), spec.kernels.end(), k.id) == spec.kernels.end())
      continue;
    if (k.style == ConfigStyle::Compiled) {
      if (!spec.all_compiled) {
        points.emplace_back(k.id, lab.default_config(k));
        continue;
      }
      for (std::size_t i = 0; i < k.configs.size(); ++i) {
        KernelConfig c;
        c.compiled = static_cast<int>(i);
        c.block = k.configs[i].block;
        points.emplace_back(k.id, c);
      }
      continue;
    }
    for (const Dim3& b : spec.blocks.empty() ? k.presets : spec.blocks) {
      KernelConfig c;
      c.block = b;
      points.emplace_back(k.id, c);
    }
  }
  return points;
}

Result<std::vector<SettingCombo>> setting_combinations(
    const Lab& lab, const std::vector<std::pair<std::string, std::vector<std::string>>>& asked_in,
    bool every_choice_unnamed) {
  std::vector<std::pair<std::string, std::vector<std::string>>> asked = asked_in;
  const std::vector<Setting> all = lab.settings();
  if (every_choice_unnamed)
    for (const Setting& st : all) {
      bool named = false;
      for (const auto& a : asked) named |= a.first == st.key;
      if (!named) asked.emplace_back(st.key, st.choices);
    }
  std::vector<SettingCombo> combos{{}};
  for (const auto& [key, values] : asked) {
    const Setting* known = nullptr;
    for (const Setting& st : all)
      if (st.key == key) known = &st;
    if (!known) {
      std::string keys;
      for (const Setting& st : all) keys += (keys.empty() ? "" : ", ") + st.key;
      return Status::failure("the " + std::string(lab.title()) + " lab has no setting '" + key + "'",
                             keys.empty() ? "it has no settings" : "its settings: " + keys, "--set");
    }
    for (const std::string& v : values)
      if (Status st = check_setting_value(*known, v); !st) return st;
    std::vector<SettingCombo> next;
    for (const SettingCombo& c : combos)
      for (const std::string& v : values) {
        next.push_back(c);
        next.back().emplace_back(key, v);
      }
    combos = std::move(next);
  }
  return combos;
}

std::vector<LaunchRecord> run_bench(Lab& lab, const BenchSpec& spec,
                                    const std::function<void(const LaunchRecord&)>& progress) {
  std::vector<LaunchRecord> out;
  RunOptions options;
  options.timing = spec.timing;
  options.trace_schedule = spec.trace_schedule;
  options.verify = true;
  for (const auto& [kernel, config] : bench_points(lab, spec, nullptr)) {
    out.push_back(lab.run(kernel, config, options));
    if (progress) progress(out.back());
  }
  return out;
}

}  // namespace bs::lab
