#include "source/toolkit.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "toolchain/files.hpp"
#include "toolchain/process.hpp"

namespace bs::source {
namespace fs = std::filesystem;
namespace {

constexpr double kExtractLimitS = 120;  // cuobjdump over the whole executable
constexpr double kDisasmLimitS = 60;    // nvdisasm of one cubin
constexpr std::size_t kOutputLimit = 256u << 20;

std::string tail(const std::string& s, std::size_t n = 400) {
  return s.size() > n ? "..." + s.substr(s.size() - n) : s;
}

// The extracted files of each binary, kept for the life of the process and removed at its end.
struct Extracted {
  std::mutex mutex;
  toolchain::TempFolder root;
  std::map<std::string, std::vector<fs::path>> by_key;  // binary | kind
};
Extracted& extracted() {
  static Extracted e;
  return e;
}

}  // namespace

Result<std::vector<AsmFunction>> disassemble_cubin(const toolchain::Toolkit& toolkit, const fs::path& cubin,
                                                   std::string_view function, std::string_view prefer_file) {
  if (toolkit.nvdisasm.empty()) return toolchain::missing_tool("nvdisasm", toolkit);
  toolchain::CommandOptions options;
  options.output_limit = kOutputLimit;
  // Newest form first: inlined frames (-gi) of one function; older nvdisasms lack -gi or a
  // function name for -fun, so fall back step by step.
  std::vector<std::vector<std::string>> tries;
  const std::string nv = toolkit.nvdisasm.string();
  if (!function.empty()) tries.push_back({nv, "-c", "-gi", "-fun", std::string(function), cubin.string()});
  tries.push_back({nv, "-c", "-gi", cubin.string()});
  tries.push_back({nv, "-c", "-g", cubin.string()});
  std::string last;
  for (const auto& argv : tries) {
    auto r = toolchain::run_command(argv, kDisasmLimitS, options);
    if (!r) return r.status();
    if (r->timed_out)
      return Status::failure("nvdisasm took longer than " + std::to_string(static_cast<int>(kDisasmLimitS)) + " s", "",
                             "nvdisasm");
    if (r->exit.exited && r->exit.code == 0) {
      auto parsed = parse_nvdisasm(r->output, prefer_file);
      if (parsed && (function.empty() || find_function(*parsed, function))) return parsed;
      last = parsed ? "its output has no function " + std::string(function) : parsed.status().message;
      continue;
    }
    last = "nvdisasm " + r->exit.describe() + ": " + tail(r->output);
  }
  return Status::failure(
      "nvdisasm could not list " + (function.empty() ? cubin.string() : std::string(function)) + ": " + last, "",
      "nvdisasm");
}

Status add_life_ranges(const toolchain::Toolkit& toolkit, const fs::path& cubin, std::string_view function,
                       std::vector<AsmFunction>& functions) {
  if (toolkit.nvdisasm.empty()) return toolchain::missing_tool("nvdisasm", toolkit);
  toolchain::CommandOptions options;
  options.output_limit = kOutputLimit;
  // The compact form first (counts only); an nvdisasm without --life-range-mode may still have
  // --print-life-ranges (the wide table: the same counts, each group's first number).
  const std::string nv = toolkit.nvdisasm.string();
  std::vector<std::vector<std::string>> tries;
  if (!function.empty()) tries.push_back({nv, "-c", "-lrm", "count", "-fun", std::string(function), cubin.string()});
  tries.push_back({nv, "-c", "-lrm", "count", cubin.string()});
  tries.push_back({nv, "-c", "-plr", cubin.string()});
  std::string last;
  for (const auto& argv : tries) {
    auto r = toolchain::run_command(argv, kDisasmLimitS, options);
    if (!r) return r.status();
    if (r->timed_out)
      return Status::failure(
          "nvdisasm's life ranges took longer than " + std::to_string(static_cast<int>(kDisasmLimitS)) + " s",
          "the SASS shows without them", "nvdisasm");
    if (!(r->exit.exited && r->exit.code == 0)) {
      last = "nvdisasm " + r->exit.describe() + ": " + tail(r->output);
      continue;
    }
    auto ranges = parse_nvdisasm(r->output, {});
    if (!ranges) {
      last = ranges.status().message;
      continue;
    }
    if (merge_live(functions, *ranges) > 0) return Status::success();
    last = "its output has no live-register column for these functions";
  }
  return Status::failure("this nvdisasm gives no register life ranges (" + last + ")",
                         "a newer CUDA toolkit's nvdisasm prints them (--print-life-ranges, --life-range-mode); "
                         "install one or set CUDA_HOME to it. The SASS shows without them",
                         "nvdisasm -lrm count");
}

Result<std::vector<fs::path>> extract_from_binary(const toolchain::Toolkit& toolkit, const fs::path& binary, bool ptx) {
  if (toolkit.cuobjdump.empty()) return toolchain::missing_tool("cuobjdump", toolkit);
  Extracted& e = extracted();
  std::lock_guard lock(e.mutex);
  const std::string key = binary.string() + (ptx ? "|ptx" : "|elf");
  if (auto it = e.by_key.find(key); it != e.by_key.end()) return it->second;
  std::error_code ec;
  if (e.root.path().empty()) {
    auto made = toolchain::TempFolder::make("blockscope-listing");
    if (!made) return Status::failure("cannot make a temporary folder for the extracted cubins", "", "mkdtemp");
    e.root = std::move(*made);
  }
  const fs::path dir = e.root.path() / std::to_string(e.by_key.size());
  fs::create_directories(dir, ec);
  toolchain::CommandOptions options;
  options.cwd = dir;
  // -xelf all / -xptx all write every embedded cubin / PTX file into the working folder.
  auto r = toolchain::run_command({toolkit.cuobjdump.string(), ptx ? "-xptx" : "-xelf", "all", binary.string()},
                                  kExtractLimitS, options);
  if (!r) return r.status();
  if (r->timed_out) return Status::failure("cuobjdump took longer than 120 s on " + binary.string(), "", "cuobjdump");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty() && !(r->exit.exited && r->exit.code == 0) &&
      r->output.find("does not contain") == std::string::npos && r->output.find("No ") == std::string::npos)
    return Status::failure("cuobjdump " + r->exit.describe() + " on " + binary.string() + ": " + tail(r->output), "",
                           "cuobjdump");
  e.by_key[key] = files;
  return files;
}

fs::path file_containing(const std::vector<fs::path>& files, std::string_view needle, std::string_view prefer) {
  fs::path found;
  for (const fs::path& f : files) {
    if (toolchain::read_text(f).find(needle) == std::string::npos) continue;
    if (prefer.empty() || f.filename().string().find(prefer) != std::string::npos) return f;
    if (found.empty()) found = f;
  }
  return found;
}

}  // namespace bs::source
