#include "shell/matmul_bench_runner.hpp"

#include "labs/matmul/matmul_bench.hpp"

namespace bs::app {

Result<std::string> run_matmul_bench_command(const CliOptions& options) {
  const BenchOptions& b = *options.bench;
  matmul::BenchOptions m;
  for (const auto& s : b.matmul_sizes) m.sizes.push_back({s[0], s[1], s[2]});
  m.backend = options.backend == BackendChoice::Cpu ? "cpu" : "cuda";
  m.kernels = b.kernels;
  m.repeats = b.repeats;
  m.warmup = b.warmup;
  matmul::BenchOutcome out = matmul::run_matmul_bench_detailed(m);
  if (!out.ran) return out.status;
  if (!out.all_passed)
    return Status::failure("some kernel gave a wrong result (see the table)", "", "bench matmul");
  return out.json;
}

}  // namespace bs::app
