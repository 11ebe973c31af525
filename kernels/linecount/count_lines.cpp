#include "linecount/count_lines.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lab/size_text.hpp"
#include "toolchain/gcov.hpp"
#include "toolchain/process.hpp"
#include "toolchain/files.hpp"

namespace bs::linecount {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The value of "key: value" in the counter's output, or "".
std::string field(std::string_view output, std::string_view key) {
  std::size_t pos = 0;
  while (pos < output.size()) {
    std::size_t end = output.find('\n', pos);
    if (end == std::string_view::npos) end = output.size();
    const std::string_view line = output.substr(pos, end - pos);
    if (line.size() > key.size() + 1 && line.substr(0, key.size()) == key && line[key.size()] == ':')
      return std::string(trim(line.substr(key.size() + 1)));
    pos = end + 1;
  }
  return {};
}

// The size the lab's problem has now, in its own syntax (set_random_problem's): every lab's
// record names its problem by that size first ("37x23 planar", "67x45x33 bf16").
Result<std::string> problem_size(lab::Lab& lab, const std::string& kernel, const KernelConfig& config) {
  const LaunchRecord plan = lab.plan(kernel, config);
  const std::string size = plan.problem.substr(0, plan.problem.find(' '));
  if (!lab.problem().ready || !lab::parse_dims(size, 1, 3))
    return Status::failure(
        "the " + std::string(lab.title()) + " lab's problem has no size to count lines on ('" + plan.problem + "')",
        "load an image or make matrices first", "count_lines");
  return size;
}

}  // namespace

Result<fs::path> find_counter(const fs::path& option) {
  const std::string built = BS_LINE_COUNTER_BUILD_PATH;
  const char* env = std::getenv("BLOCKSCOPE_LINE_COUNTER");
  if (option.empty() && !(env && *env) && built.empty())
    return Status::failure(
        "this build of blockscope has no line counter (it needs GCC's coverage counters: configured with "
        "BLOCKSCOPE_LINE_COUNTER=OFF, or another compiler), so it cannot count the built-in rungs' lines on the CPU",
        "configure with GCC and -DBLOCKSCOPE_LINE_COUNTER=ON, or use the CUDA backend's stall samples", "find_counter",
        "no_line_counter");
  const auto s = toolchain::find_helper(kCounterName, option, "BLOCKSCOPE_LINE_COUNTER", built);
  if (!s.found.empty()) return s.found;
  return Status::failure(std::string("the built-in rungs' lines are counted by ") + kCounterName +
                             ", which was not found (looked at " + s.looked_at + ")",
                         std::string("build it (cmake --build build --target ") + kCounterName +
                             ") and keep it next to blockscope, or set BLOCKSCOPE_LINE_COUNTER to its path",
                         "find_counter", "no_line_counter");
}

Status count_refusal(const lab::Lab& lab, std::string_view kernel, const fs::path& counter) {
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  if (!k)
    return Status::failure("the " + std::string(lab.title()) + " lab has no kernel '" + std::string(kernel) + "'",
                           "pick one of the kernel list", "count_lines");
  if (k->timed_only)
    return Status::failure(k->label +
                               " is a library's kernel: its code is not blockscope's, so there are no lines "
                               "of it to count",
                           "count one of the ladder's own rungs", "count_lines");
  if (!k->unavailable.empty())
    return Status::failure(k->unavailable, "count a rung the CPU simulator runs", "count_lines");
  if (auto found = find_counter(counter); !found) return found.status();
  return Status::success();
}

Result<LineProfile> count_lines(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                const CountOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (Status s = count_refusal(lab, kernel, options.counter); !s) return s;
  auto counter = find_counter(options.counter);
  if (!counter) return counter.status();
  auto size = problem_size(lab, kernel, config);
  if (!size) return size.status();

  auto folder = toolchain::TempFolder::make("blockscope-count");
  if (!folder)
    return Status::failure("cannot make a folder for the line counts in " + fs::temp_directory_path().string(),
                           "is the disk full?", "count_lines");
  const fs::path& out = folder->path();

  std::vector<std::string> argv = {
      counter->string(), "--lab", std::string(lab.id()), "--kernel", kernel, "--size", *size, "--out", out.string()};
  if (config.compiled >= 0) {
    argv.insert(argv.end(), {"--config", std::to_string(config.compiled)});
  } else {
    const Dim3& b = config.block;
    argv.insert(argv.end(), {"--block", std::to_string(b.x) + "x" + std::to_string(b.y) + "x" + std::to_string(b.z)});
  }
  if (config.fixed_grid()) {
    const Dim3& g = config.grid;
    argv.insert(argv.end(), {"--grid", std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z)});
  }
  for (const auto& [key, value] : lab.setting_values()) argv.insert(argv.end(), {"--set", key + "=" + value});
  if (lab.backend().sim_workers > 0) argv.insert(argv.end(), {"--workers", std::to_string(lab.backend().sim_workers)});

  toolchain::CommandOptions in_out;
  in_out.cwd = out;
  auto r = toolchain::run_command(argv, options.time_limit_s, in_out);
  if (!r) return r.status();
  if (r->timed_out)
    return Status::failure("counting the lines of " + kernel + " took longer than " +
                               std::to_string(static_cast<int>(options.time_limit_s)) +
                               " s (the counted launch runs unoptimized, with a counter on every line)",
                           "count a smaller problem", "count_lines");
  if (!r->exit.exited || r->exit.code != 0) {
    const std::string error = field(r->output, "error");
    if (!error.empty()) return Status::failure(error, field(r->output, "fix"), kCounterName);
    return Status::failure(std::string(kCounterName) + " " + r->exit.describe() + ": " + r->output.substr(0, 2000), "",
                           kCounterName);
  }
  std::ifstream f(out / "gcov.txt", std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  if (!f) return Status::failure("the line counter wrote no gcov text to " + out.string(), "", kCounterName);
  auto lines = toolchain::parse_gcov_sources(text.str());
  if (!lines) return lines.status();
  if (lines->empty())
    return Status::failure(
        "gcov read no executed line of " + kernel + "'s code (" + field(r->output, "ran") + ")",
        "are the sources still at " + field(r->output, "source-dir") + "? gcov reads each line from them",
        kCounterName);

  LineProfile p;
  p.measure = LineMeasure::Executions;
  const std::string compiler = field(r->output, "compiler");
  p.measure_note = "executions per line on the CPU simulator, every thread's added up (gcov of " +
                   std::string(kCounterName) + (compiler.empty() ? "" : ", " + compiler) +
                   ", random data of the same size)";
  for (const LineSamples& l : *lines)
    if (l.folded > 0) {
      p.measure_note +=
          "; the simulator's lane-by-lane stand-ins for warp instructions (mma, ldmatrix, wmma) are "
          "counted on the kernel lines that call them, as each call is one instruction on the GPU";
      break;
    }
  p.kernel = kernel;
  p.lines = std::move(*lines);
  for (const LineSamples& l : p.lines) p.total_samples += l.samples;
  p.launches = 1;
  p.profile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return p;
}

}  // namespace bs::linecount
