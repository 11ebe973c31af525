// bs_matmul_bench: the matmul ladder without the GUI, for the GPU machine.
//
//   bs_matmul_bench [--size MxNxK]... [--backend cuda|cpu] [--json FILE] [--repeats N]
//                   [--warmup N] [--kernels id,id,...] [--first-config-only] [--no-flush]
//                   [--pedantic] [--pattern uniform|normal|small-integers|identity|structured]
//                   [--seed N]
//
// Exit status: 0 when every run matched its reference, 1 when one did not, 2 on bad arguments
// or when nothing could run (no device, say).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "labs/matmul/matmul_bench.hpp"

namespace {

int usage(const char* why) {
  std::cerr << "bs_matmul_bench: " << why
            << "\nusage: bs_matmul_bench [--size MxNxK]... [--backend cuda|cpu] [--json FILE]"
               " [--repeats N] [--warmup N] [--kernels id,...] [--first-config-only]"
               " [--no-flush] [--pedantic] [--pattern NAME] [--seed N]\n";
  return 2;
}

bool parse_int(const std::string& s, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bs::matmul::BenchOptions options;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    long long n = 0;
    if (arg == "--size") {
      const char* v = value();
      bs::matmul::MatmulSize s;
      if (!v || !bs::matmul::parse_matmul_size(v, s)) return usage("--size takes MxNxK or N");
      options.sizes.push_back(s);
    } else if (arg == "--backend") {
      const char* v = value();
      if (!v) return usage("--backend takes cuda or cpu");
      options.backend = v;
    } else if (arg == "--json") {
      const char* v = value();
      if (!v) return usage("--json takes a file name");
      json_path = v;
    } else if (arg == "--repeats") {
      const char* v = value();
      if (!v || !parse_int(v, 1, 100000, n)) return usage("--repeats takes a number >= 1");
      options.repeats = static_cast<int>(n);
    } else if (arg == "--warmup") {
      const char* v = value();
      if (!v || !parse_int(v, 0, 100000, n)) return usage("--warmup takes a number >= 0");
      options.warmup = static_cast<int>(n);
    } else if (arg == "--seed") {
      const char* v = value();
      if (!v || !parse_int(v, 0, (1LL << 62), n)) return usage("--seed takes a number");
      options.seed = static_cast<std::uint64_t>(n);
    } else if (arg == "--kernels") {
      const char* v = value();
      if (!v) return usage("--kernels takes a comma-separated list of ids");
      std::string list = v;
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string id = list.substr(start, comma - start);
        if (!bs::matmul::find_matmul_kernel(id)) return usage(("unknown kernel id '" + id + "'").c_str());
        options.kernels.push_back(id);
        start = comma + 1;
      }
    } else if (arg == "--pattern") {
      const char* v = value();
      if (!v || !bs::matmul::pattern_from_string(v, options.pattern))
        return usage("--pattern takes uniform, normal, small-integers, identity or structured");
    } else if (arg == "--first-config-only") {
      options.first_config_only = true;
    } else if (arg == "--no-flush") {
      options.flush_l2 = false;
    } else if (arg == "--pedantic") {
      options.cublas_pedantic = true;
    } else {
      return usage(("unknown argument '" + arg + "'").c_str());
    }
  }

  const bs::matmul::BenchOutcome outcome = bs::matmul::run_matmul_bench_detailed(options);
  if (!outcome.ran) {
    std::cerr << "bs_matmul_bench: nothing ran: " << outcome.status.describe() << "\n";
    return 2;
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    f << outcome.json << "\n";
    if (!f) {
      std::cerr << "bs_matmul_bench: could not write " << json_path << "\n";
      return 2;
    }
    std::cout << "\nJSON written to " << json_path << "\n";
  }
  if (!outcome.all_passed) {
    std::cerr << "bs_matmul_bench: at least one result did not match its reference\n";
    return 1;
  }
  return 0;
}
