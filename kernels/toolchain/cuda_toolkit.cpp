#include "toolchain/cuda_toolkit.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "toolchain/process.hpp"

#ifndef BS_CUDA_BIN_DIR
#define BS_CUDA_BIN_DIR ""
#endif

namespace bs::toolchain {
namespace {

namespace fs = std::filesystem;

// The file that marks a folder as a CUDA toolkit's include folder.
constexpr const char* kMarker = "cuda_runtime.h";

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// "/usr/local/cuda/lib64/../include" -> "/usr/local/cuda/include": lexically, links kept (the
// user recognises the path they installed), unless ".." went back through a link (lib64 ->
// targets/x86_64-linux/lib), where only the real path names the same folder.
std::string tidy(const fs::path& p) {
  const fs::path lexical = p.lexically_normal();
  std::error_code ec;
  if (!fs::exists(p, ec) || fs::equivalent(lexical, p, ec)) return lexical.string();
  const fs::path real = fs::weakly_canonical(p, ec);
  return ec ? lexical.string() : real.string();
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

struct Search {
  CudaHeaderSearch result;

  // Try one include folder; true when it is taken.
  bool try_include(const fs::path& include, const std::string& why) {
    const std::string dir = tidy(include);
    for (const std::string& s : result.searched)
      if (s.rfind(dir + " (", 0) == 0) return false;  // looked at already, under another name
    if (!is_file(include / kMarker)) {
      result.searched.push_back(dir + " (" + why +
                                "): " + (is_dir(include) ? "no " + std::string(kMarker) : "no such folder"));
      return false;
    }
    result.searched.push_back(dir + " (" + why + "): taken");
    result.include_dir = dir;
    result.chosen_by = why;
    result.include_dirs = {dir};
    if (is_dir(include / "cccl")) result.include_dirs.push_back(tidy(include / "cccl"));
    return true;
  }

  // A toolkit root (or its include folder itself, which users also give).
  bool try_root(const std::string& value, const std::string& why) {
    if (value.empty()) return false;
    const fs::path root(value);
    if (is_file(root / kMarker)) return try_include(root, why);
    return try_include(root / "include", why);
  }
};

}  // namespace

std::vector<std::string> CudaHeaderSearch::options() const {
  std::vector<std::string> out;
  for (const std::string& d : include_dirs) out.push_back("-I" + d);
  return out;
}

std::string CudaHeaderSearch::folders_text() const {
  std::string out;
  for (const std::string& d : include_dirs) out += (out.empty() ? "" : ", ") + d;
  return out.empty() ? "none" : out;
}

CudaHeaderSearch find_cuda_headers(const CudaHeaderInputs& in) {
  Search s;
  if (s.try_root(in.blockscope_cuda_home, "BLOCKSCOPE_CUDA_HOME")) return s.result;
  if (s.try_root(in.cuda_path, "CUDA_PATH")) return s.result;
  if (s.try_root(in.cuda_home, "CUDA_HOME")) return s.result;
  if (!in.nvrtc_library.empty()) {
    // The library's folder as loaded (/usr/local/cuda/lib64) and as it really is
    // (/usr/local/cuda-13.0/targets/x86_64-linux/lib); include/ is beside lib/ in a toolkit,
    // two up for a distribution's multiarch folder (/usr/lib/x86_64-linux-gnu -> /usr/include).
    std::vector<fs::path> libs{fs::path(in.nvrtc_library).parent_path()};
    std::error_code ec;
    const fs::path real = fs::canonical(in.nvrtc_library, ec);
    if (!ec && real.parent_path() != libs.front()) libs.push_back(real.parent_path());
    const std::string why = "the loaded NVRTC, " + in.nvrtc_library;
    for (const fs::path& lib : libs)
      for (const char* up : {"../include", "../../include"})
        if (s.try_include(lib / up, why)) return s.result;
  }
  for (const std::string& d : in.built_with)
    if (!d.empty() && s.try_include(d, "the toolkit blockscope was built with")) return s.result;
  s.try_root("/usr/local/cuda", "the default place");
  return s.result;
}

Toolkit find_toolkit() {
  Toolkit t;
  std::vector<fs::path> dirs;
  // Each folder once (CUDA_HOME, the build's toolkit and the default are often the same one: a
  // message listed /usr/local/cuda/bin three times).
  auto add = [&](const fs::path& d) {
    fs::path n = d.lexically_normal();
    if (!n.has_filename()) n = n.parent_path();  // "/usr/local/cuda/bin/" is "/usr/local/cuda/bin"
    if (std::find(dirs.begin(), dirs.end(), n) == dirs.end()) dirs.push_back(n);
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) add(fs::path(v) / "bin");
  if (std::string_view(BS_CUDA_BIN_DIR).size()) add(BS_CUDA_BIN_DIR);
  add("/usr/local/cuda/bin");
  for (const fs::path& d : dirs) t.searched += (t.searched.empty() ? "" : ", ") + d.string();
  t.searched += ", $PATH";
  auto find = [&](const char* name) {
    for (const fs::path& d : dirs) {
      const fs::path p = d / name;
      if (access(p.c_str(), X_OK) == 0) return p;
    }
    return find_executable(name);
  };
  t.cuobjdump = find("cuobjdump");
  t.nvdisasm = find("nvdisasm");
  return t;
}

Status missing_tool(std::string_view tool, const Toolkit& toolkit) {
  return Status::failure(
      "the CUDA toolkit's " + std::string(tool) + " was not found (looked in " + toolkit.searched + ")",
      "install it (Debian/Ubuntu with NVIDIA's repository: `apt install cuda-" + std::string(tool) +
          "-13-0`, or the whole CUDA toolkit) or set CUDA_HOME to the toolkit's folder",
      std::string(tool));
}

CudaHeaderInputs cuda_header_inputs_from_environment(std::string nvrtc_library) {
  CudaHeaderInputs in;
  in.blockscope_cuda_home = env("BLOCKSCOPE_CUDA_HOME");
  in.cuda_path = env("CUDA_PATH");
  in.cuda_home = env("CUDA_HOME");
  in.nvrtc_library = std::move(nvrtc_library);
#ifdef BS_CUDA_INCLUDE_DIRS
  const std::string dirs = BS_CUDA_INCLUDE_DIRS;
  std::size_t at = 0;
  while (at <= dirs.size()) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    if (end > at) in.built_with.push_back(dirs.substr(at, end - at));
    at = end + 1;
  }
#endif
  return in;
}

namespace {

struct LogLine {
  std::string_view head;     // "kernel.cu(3): catastrophic error: "
  std::string_view message;  // the rest
};

// "file(line): severity: message"; false for other lines (echoed source, carets, summaries).
bool split_log_line(std::string_view line, LogLine& out) {
  const std::size_t open = line.find('(');
  if (open == std::string_view::npos || open == 0) return false;
  const std::size_t close = line.find("): ", open);
  if (close == std::string_view::npos || close == open + 1) return false;
  for (std::size_t i = open + 1; i < close; ++i)
    if (line[i] < '0' || line[i] > '9') return false;
  const std::size_t colon = line.find(": ", close + 3);
  if (colon == std::string_view::npos) return false;
  out.head = line.substr(0, colon + 2);
  out.message = line.substr(colon + 2);
  return true;
}

// The header named by "cannot open source file "X"" / "could not open source file "X" (...)".
bool missing_header(std::string_view message, std::string& header) {
  if (message.find("open source file \"") == std::string_view::npos) return false;
  const std::size_t q0 = message.find('"');
  const std::size_t q1 = message.find('"', q0 + 1);
  if (q1 == std::string_view::npos) return false;
  header = std::string(message.substr(q0 + 1, q1 - q0 - 1));
  return true;
}

bool is_torch_header(std::string_view h) {
  for (std::string_view p : {"torch/", "ATen/", "c10/", "pybind11/"})
    if (h.rfind(p, 0) == 0) return true;
  return h == "torch.h" || h == "Python.h";
}

// A C or C++ standard library header (<vector>, <stdlib.h>): no folder of a toolkit has it for
// NVRTC, so pointing at another toolkit would not help.
bool is_standard_library_header(std::string_view h) {
  if (h.find('/') != std::string_view::npos) return false;
  if (h.find('.') == std::string_view::npos) return !h.empty() && std::islower(static_cast<unsigned char>(h[0]));
  for (std::string_view c :
       {"stdlib.h", "string.h", "stdbool.h", "time.h", "ctype.h", "errno.h", "signal.h", "stdarg.h", "wchar.h",
        "locale.h", "setjmp.h", "iso646.h", "inttypes.h", "complex.h", "fenv.h", "tgmath.h", "uchar.h", "unistd.h"})
    if (h == c) return true;
  return false;
}

constexpr std::string_view kTorchNote =
    "torch's host API (torch/extension.h, torch::Tensor, at::) is not available in a kernel: "
    "blockscope compiles the device code alone and launches the kernel itself with the lab's "
    "buffers, so leave out the torch #include, the CHECK_INPUT macros and the launcher function "
    "and keep the __global__ kernel with its __device__ helpers";

// Does the echoed source at the caret start with torch:: or at:: (as a whole name)?
bool torch_at_caret(std::string_view source, std::string_view caret) {
  const std::size_t at = caret.find('^');
  if (at == std::string_view::npos || at >= source.size()) return false;
  const std::string_view rest = source.substr(at);
  const bool name_start =
      at == 0 || !(std::isalnum(static_cast<unsigned char>(source[at - 1])) || source[at - 1] == '_');
  return name_start && (rest.rfind("torch::", 0) == 0 || rest.rfind("at::", 0) == 0 || rest.rfind("c10::", 0) == 0);
}

}  // namespace

std::string explain_nvrtc_log(std::string_view log, const CudaHeaderSearch& headers) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < log.size()) {
    std::size_t end = log.find('\n', at);
    if (end == std::string_view::npos) end = log.size();
    lines.push_back(log.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  out.reserve(log.size() + 512);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LogLine l;
    std::string header;
    if (split_log_line(lines[i], l) && missing_header(l.message, header)) {
      out += l.head;
      if (is_torch_header(header)) {
        out += "cannot include \"" + header + "\": " + std::string(kTorchNote);
      } else if (is_standard_library_header(header)) {
        out += "cannot include \"" + header +
               "\": NVRTC compiles device code without the C and C++ standard library (host "
               "code); libcu++ has device versions of many of its headers as <cuda/std/...> "
               "(e.g. <cuda/std/array>, <cuda/std/span>, <cuda/std/utility>), and printf, assert "
               "and the math functions need no include";
      } else {
        out += "cannot open \"" + header + "\": it is in none of the folders NVRTC searched (" + headers.folders_text();
        if (!headers.found()) {
          out += "): no CUDA toolkit's headers were found (looked in ";
          for (std::size_t s = 0; s < headers.searched.size(); ++s) out += (s ? "; " : "") + headers.searched[s];
          out += ")";
        } else {
          out += "; the CUDA toolkit chosen by " + headers.chosen_by + ")";
        }
        out +=
            ". To use another CUDA toolkit's headers, start blockscope with "
            "BLOCKSCOPE_CUDA_HOME=/path/to/cuda (the folder with include/)";
      }
    } else if (split_log_line(lines[i], l) && i + 2 < lines.size() && torch_at_caret(lines[i + 1], lines[i + 2])) {
      out += std::string(l.head) + std::string(l.message) + " (" + std::string(kTorchNote) + ")";
    } else {
      out += lines[i];
    }
    if (i + 1 < lines.size() || (!log.empty() && log.back() == '\n')) out += '\n';
  }
  return out;
}

}  // namespace bs::toolchain
