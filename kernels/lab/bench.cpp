#include "lab/bench.hpp"

#include <algorithm>

namespace bs::lab {

std::vector<std::pair<std::string, KernelConfig>> bench_points(const Lab& lab, const BenchSpec& spec,
                                                               std::vector<std::string>* unknown) {
  std::vector<std::pair<std::string, KernelConfig>> points;
  for (const std::string& id : spec.kernels)
    if (!lab.find_kernel(id) && unknown) unknown->push_back(id);
  for (const KernelInfo& k : lab.kernels()) {
    if (!spec.kernels.empty() &&
        std::find(spec.kernels.begin(), spec.kernels.end(), k.id) == spec.kernels.end())
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
