// blockscope: see how a CUDA grid of blocks of threads covers your data.
// main() only parses the command line and hands over to one of the run modes.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "shell/run_modes.hpp"
#include "shell/soak_mode.hpp"

int main(int argc, char** argv) {
  using namespace bs::app;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = parse_command_line(args);
  if (!options) {
    std::fprintf(stderr, "blockscope: %s\n  %s\n", options.status().message.c_str(),
                 options.status().hint.c_str());
    return kExitUsage;
  }
  if (options->help) {
    std::fputs(help_text().c_str(), stdout);
    return kExitOk;
  }
  if (options->version) {
    std::printf("blockscope %s\n", BLOCKSCOPE_VERSION);
    return kExitOk;
  }
  if (options->bench) return run_bench(options.value());
  if (options->soak) return run_soak(options.value());
  if (options->headless) return run_headless(options.value());
  return run_window(options.value());
}
