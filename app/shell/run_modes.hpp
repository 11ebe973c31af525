// The three ways blockscope runs: a desktop window, headless (EGL, offscreen) and the
// benchmarks (no GL at all). main() parses the command line and calls one of these; each
// returns a process exit code (cli/options.hpp documents them).
#pragma once
#include "cli/options.hpp"

namespace bs::app {
int run_window(const CliOptions& options);
int run_headless(const CliOptions& options);
int run_bench(const CliOptions& options);
}  // namespace bs::app
