// blockscope: see how a CUDA grid of blocks of threads covers your data.
// main() only parses the command line and hands the catalog of labs to one of the run modes.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "labs/catalog.hpp"
#include "shell/run_modes.hpp"

int main(int argc, char** argv) {
  using namespace bs::app;
  LabCatalog catalog = built_in_labs();
  const std::vector<LabFlags> flags = lab_flags(catalog);
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = parse_command_line(args, flags);
  if (!options) {
    std::fprintf(stderr, "blockscope: %s\n  %s\n", options.status().message.c_str(), options.status().hint.c_str());
    return kExitUsage;
  }
  if (options->help) {
    // `bench LAB --help` / `sweep LAB --help`: that command's help alone.
    const std::string text = options->bench ? command_help_text(options->bench->sweep, flags) : help_text(flags);
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  if (options->version) {
    std::printf("blockscope %s\n", BLOCKSCOPE_VERSION);
    return kExitOk;
  }
  if (options->bench && options->bench->sweep) return run_sweep_command(options.value(), catalog);
  if (options->bench) return run_bench(options.value(), catalog);
  if (options->headless) return run_headless(options.value(), std::move(catalog));
  return run_window(options.value(), std::move(catalog));
}
