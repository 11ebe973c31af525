// `blockscope bench matmul`: runs the matmul ladder and cuBLAS (kernels/matmul) and returns the
// JSON text; the table is printed as it runs.
#pragma once
#include <string>

#include "cli/options.hpp"

namespace bs::app {
Result<std::string> run_matmul_bench_command(const CliOptions& options);
}
