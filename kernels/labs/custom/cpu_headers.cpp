#include "labs/custom/cpu_headers.hpp"

#include <algorithm>
#include <cctype>

#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace {

constexpr std::string_view kFp16 = "cpu_cuda_fp16.h", kBf16 = "cpu_cuda_bf16.h", kWarp = "cpu_warp.h",
                           kMma = "cpu_mma.h", kCg = "cpu_cooperative_groups.h";

// A word that needs cpu_warp.h: a warp-synchronous operation.
bool is_warp_word(std::string_view w) {
  static constexpr std::string_view kPrefixes[] = {"__shfl", "__reduce_", "__match_", "__syncthreads_"};
  for (std::string_view p : kPrefixes)
    if (w.starts_with(p)) return true;
  static constexpr std::string_view kWords[] = {"__syncwarp", "__ballot_sync", "__any_sync",   "__all_sync",
                                                "__uni_sync", "__activemask",  "__lanemask_lt"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// The one table: a header the simulator provides, and the prelude files it needs.
struct Provided {
  std::string_view header;
  std::vector<std::string_view> sections;
};
const std::vector<Provided>& provided() {
  static const std::vector<Provided> table = {
      {"cuda_fp16.h", {kFp16}},
      {"cuda_fp16.hpp", {kFp16}},
      {"cuda_bf16.h", {kBf16}},
      {"cuda_bf16.hpp", {kBf16}},
      {"mma.h", {kFp16, kBf16, kMma}},
      {"cooperative_groups.h", {kCg}},
      {"cooperative_groups/reduce.h", {kCg}},
      {"cooperative_groups/scan.h", {kCg}},
      // What the core prelude already is: the built-ins, the intrinsics, the vector of launches.
      {"cuda_runtime.h", {}},
      {"cuda_runtime_api.h", {}},
      {"cuda.h", {}},
      {"device_launch_parameters.h", {}},
      {"device_functions.h", {}},
      {"device_atomic_functions.h", {}},
      {"sm_20_intrinsics.h", {}},
      {"sm_30_intrinsics.h", {}},
      {"sm_32_intrinsics.h", {}},
      {"sm_60_atomic_functions.h", {}},
      {"cuda_device_runtime_api.h", {}},
  };
  return table;
}

// Header prefixes refused, with what they are.
struct Refused {
  std::string_view prefix;
  std::string_view what;
};
constexpr Refused kRefusedHeaders[] = {
    {"cub/", "CUB's block and warp primitives"},
    {"cuda/std/", "libcu++ (use the standard C++ header, e.g. <cstdint>, instead)"},
    {"cuda/pipeline", "cuda::pipeline (asynchronous copies)"},
    {"cuda/barrier", "cuda::barrier (asynchronous barriers)"},
    {"cuda/ptx", "cuda::ptx (PTX instructions)"},
    {"cuda/", "libcu++"},
    {"cute/", "CuTe"},
    {"cutlass/", "CUTLASS"},
    {"thrust/", "Thrust"},
    {"cuda_pipeline", "the asynchronous-copy pipeline"},
    {"cuda_awbarrier", "asynchronous barriers"},
    {"cuda_fp8", "FP8 types"},
    {"cuda_fp6", "FP6 types"},
    {"cuda_fp4", "FP4 types"},
    {"cooperative_groups/memcpy_async", "cooperative_groups' asynchronous copies"},
};

// Identifiers refused wherever they appear in code (comments and strings are ignored).
struct RefusedWord {
  std::string_view word;
  std::string_view what;
};
constexpr RefusedWord kRefusedWords[] = {
    {"asm", "inline PTX (`asm`)"},
    {"__asm__", "inline PTX (`__asm__`)"},
    {"__asm", "inline PTX (`__asm`)"},
    {"__cluster_dims__", "thread block clusters (`__cluster_dims__`)"},
    {"this_cluster", "thread block clusters (`this_cluster`)"},
    {"cluster_group", "thread block clusters (`cluster_group`)"},
    {"this_grid", "grid-wide groups (`this_grid`: they need a cooperative launch)"},
    {"grid_group", "grid-wide groups (`grid_group`: they need a cooperative launch)"},
    {"this_multi_grid", "multi-device groups (`this_multi_grid`)"},
    {"memcpy_async", "asynchronous copies (`memcpy_async`)"},
    {"__pipeline_memcpy_async", "asynchronous copies (`__pipeline_memcpy_async`)"},
    {"coalesced_threads",
     "`coalesced_threads()` (the simulator runs a warp's lanes one after another, so it cannot know which "
     "lanes are converged)"},
    {"labeled_partition", "`labeled_partition`"},
    {"binary_partition", "`binary_partition`"},
};

std::string refusal_text(int line, std::string_view what) {
  return "line " + std::to_string(line) + ": " + std::string(what) +
         " is not available on the CPU simulator (it runs only what it can simulate thread by thread); "
         "run this kernel on the GPU backend";
}

Diagnostic error_at(int line, int column, std::string message) {
  return {.line = line, .column = column, .message = std::move(message), .origin = "blockscope"};
}

}  // namespace

CpuSourcePlan plan_cpu_source(std::string_view source) {
  CpuSourcePlan plan;
  plan.source = std::string(source);
  auto want = [&](std::string_view s) {
    if (std::find(plan.sections.begin(), plan.sections.end(), s) == plan.sections.end()) plan.sections.emplace_back(s);
  };

  // #include lines: `#  include <name>` or "name", at the start of a line.
  int line = 1;
  for (std::size_t start = 0; start <= source.size(); ++line) {
    std::size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    const std::string_view text = source.substr(start, end - start);
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && text[i] == '#') {
      ++i;
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (text.substr(i, 7) == "include") {
        i += 7;
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        const char open = i < text.size() ? text[i] : 0;
        const char close = open == '<' ? '>' : '"';
        const std::size_t stop = (open == '<' || open == '"') ? text.find(close, i + 1) : std::string_view::npos;
        if (stop != std::string_view::npos) {
          const std::string_view name = text.substr(i + 1, stop - i - 1);
          const int column = static_cast<int>(i + 1);
          bool handled = false;
          for (const Provided& p : provided())
            if (p.header == name) {
              for (std::string_view s : p.sections) {
                if (s == kMma) {  // wmma's types come first
                  want(kFp16);
                  want(kBf16);
                }
                want(s);
              }
              for (std::size_t k = start; k < end; ++k) plan.source[k] = ' ';
              handled = true;
              break;
            }
          if (!handled)
            for (const Refused& r : kRefusedHeaders)
              if (name.starts_with(r.prefix)) {
                plan.refusals.push_back(error_at(line, column,
                                                 refusal_text(line, std::string(1, open) + std::string(name) + close +
                                                                        " (" + std::string(r.what) + ")")));
                break;
              }
        }
      }
    }
    start = end + 1;
  }
  // Constructs, in code only (comments, strings and preprocessor lines blanked).
  const std::string code = blank_non_code(source);
  line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) ++j;
    const std::string_view word(code.data() + i, j - i);
    if (is_warp_word(word)) want(kWarp);
    for (const RefusedWord& r : kRefusedWords)
      if (word == r.word) {
        plan.refusals.push_back(error_at(line, static_cast<int>(i - line_start + 1), refusal_text(line, r.what)));
        break;
      }
    i = j;
  }
  // Sections in dependency order: fp16, bf16, the warp operations (wmma and cooperative groups
  // are built on them), mma, cooperative groups.
  auto has = [&](std::string_view s) {
    return std::find(plan.sections.begin(), plan.sections.end(), s) != plan.sections.end();
  };
  if (has(kMma) || has(kCg)) want(kWarp);
  const std::string_view order[] = {kFp16, kBf16, kWarp, kMma, kCg};
  std::vector<std::string> sorted;
  for (std::string_view s : order)
    if (has(s)) sorted.emplace_back(s);
  plan.sections = std::move(sorted);
  return plan;
}

}  // namespace bs::custom
