// blockscope-selftest: the hardening tools, kept out of the user's `blockscope --help`.
//
//   blockscope-selftest soak  [--backend auto|cuda|cpu] [--launches N] [--seconds S] [--seed N]
//                             [--leak-bytes-per-launch N] [--device N]
//   blockscope-selftest fault [--at-frame N] [--frames N] [--output F.png] [--device N]
//
// Exit codes as blockscope's (cli/options.hpp): 0 passed, 1 failed, 2 bad command line, 4 no
// usable CUDA device where one is needed.
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "fault.hpp"
#include "soak.hpp"

namespace {

using bs::app::kExitUsage;

constexpr const char* kUsage =
    "usage: blockscope-selftest soak [--backend auto|cuda|cpu] [--launches N] [--seconds S] [--seed N]\n"
    "                                [--leak-bytes-per-launch N] [--device N]\n"
    "       blockscope-selftest fault [--at-frame N] [--frames N] [--output F.png] [--device N]\n";

bool to_number(const std::string& s, long long& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

int usage(const std::string& why) {
  std::fprintf(stderr, "blockscope-selftest: %s\n%s", why.c_str(), kUsage);
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bs::selftest;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage("name a self-test: soak or fault");
  const std::string mode = args[0];
  SoakOptions soak;
  FaultOptions fault;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (i + 1 >= args.size()) return usage(a + " needs a value");
    const std::string& v = args[++i];
    long long n = 0;
    const bool number = to_number(v, n);
    if (a == "--device" && number && n >= 0) {
      soak.cuda_device = fault.cuda_device = static_cast<int>(n);
    } else if (mode == "soak" && a == "--backend") {
      if (v == "auto") soak.backend = bs::app::BackendChoice::Auto;
      else if (v == "cuda") soak.backend = bs::app::BackendChoice::Cuda;
      else if (v == "cpu") soak.backend = bs::app::BackendChoice::Cpu;
      else return usage("--backend takes auto, cuda or cpu, not '" + v + "'");
    } else if (mode == "soak" && a == "--launches" && number && n >= 10) {
      soak.launches = n;
    } else if (mode == "soak" && a == "--seconds" && number && n >= 0) {
      soak.seconds = static_cast<double>(n);
    } else if (mode == "soak" && a == "--seed" && number && n >= 0) {
      soak.seed = static_cast<unsigned long long>(n);
    } else if (mode == "soak" && a == "--leak-bytes-per-launch" && number && n >= 0) {
      soak.leak_bytes_per_launch = n;
    } else if (mode == "fault" && a == "--at-frame" && number && n >= 0) {
      fault.at_frame = static_cast<int>(n);
    } else if (mode == "fault" && a == "--frames" && number && n >= 1) {
      fault.frames = static_cast<int>(n);
    } else if (mode == "fault" && a == "--output") {
      fault.output = v;
    } else {
      return usage("'" + a + " " + v + "' is not a flag of `" + mode + "` (or its value is out of range)");
    }
  }
  if (mode == "soak") return run_soak(soak);
  if (mode == "fault") return run_fault(fault);
  return usage("no self-test '" + mode + "'");
}
