#include "source/nvrtc_compile.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "labs/custom/runner/nvrtc_target.hpp"

#ifndef BS_NVRTC_DIR
#define BS_NVRTC_DIR "/usr/local/cuda/lib64"
#endif

namespace bs::source {
namespace {

// NVRTC's C API, declared here so that a build without the CUDA headers still compiles this
// file (the library is found at run time). nvrtcResult is an enum: an int in the C ABI.
using Program = struct NvrtcProgramOpaque*;
struct Api {
  void* lib = nullptr;
  std::string loaded_from, error;
  int (*create)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compile)(Program, int, const char* const*) = nullptr;
  int (*destroy)(Program*) = nullptr;
  int (*log_size)(Program, std::size_t*) = nullptr;
  int (*log)(Program, char*) = nullptr;
  int (*ptx_size)(Program, std::size_t*) = nullptr;
  int (*ptx)(Program, char*) = nullptr;
  int (*cubin_size)(Program, std::size_t*) = nullptr;
  int (*cubin)(Program, char*) = nullptr;
  int (*version)(int*, int*) = nullptr;
  int (*num_archs)(int*) = nullptr;
  int (*archs)(int*) = nullptr;
  const char* (*error_string)(int) = nullptr;

  bool open() {
    std::vector<std::string> tries;
    if (const char* env = std::getenv("BLOCKSCOPE_NVRTC"); env && *env)
      tries.push_back(env);
    else
      tries = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", BS_NVRTC_DIR "/libnvrtc.so",
               "/usr/local/cuda/lib64/libnvrtc.so"};
    for (const std::string& t : tries)
      if ((lib = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        loaded_from = t;
        break;
      }
    if (!lib) {
      for (const std::string& t : tries) error += (error.empty() ? "" : ", ") + t;
      error = "NVRTC, CUDA's runtime compiler, is not installed (tried " + error + ")";
      return false;
    }
    bool ok = true;
    auto sym = [&](auto& field, const char* name) {
      field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(dlsym(lib, name));
      if (!field && ok) {
        error = loaded_from + " lacks " + name + ": an NVRTC too old for blockscope";
        ok = false;
      }
    };
    sym(create, "nvrtcCreateProgram");
    sym(compile, "nvrtcCompileProgram");
    sym(destroy, "nvrtcDestroyProgram");
    sym(log_size, "nvrtcGetProgramLogSize");
    sym(log, "nvrtcGetProgramLog");
    sym(ptx_size, "nvrtcGetPTXSize");
    sym(ptx, "nvrtcGetPTX");
    sym(cubin_size, "nvrtcGetCUBINSize");
    sym(cubin, "nvrtcGetCUBIN");
    sym(version, "nvrtcVersion");
    sym(num_archs, "nvrtcGetNumSupportedArchs");
    sym(archs, "nvrtcGetSupportedArchs");
    sym(error_string, "nvrtcGetErrorString");
    return ok;
  }
};

Api& api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] { a.open(); });
  return a;
}

constexpr int kSuccess = 0;
constexpr int kInvalidOption = 5;  // NVRTC_ERROR_INVALID_OPTION

}  // namespace

Result<NvrtcOutput> nvrtc_compile(const std::string& unit, int cc) {
  Api& n = api();
  if (!n.lib)
    return Status::failure(n.error,
                           "install NVRTC (Debian/Ubuntu with NVIDIA's repository: `apt install cuda-nvrtc-13-0`, or "
                           "the CUDA toolkit) or set BLOCKSCOPE_NVRTC to the path of libnvrtc.so",
                           "dlopen");
  if (!n.error.empty()) return Status::failure(n.error, "", "dlsym");
  NvrtcOutput out;
  int major = 0, minor = 0;
  n.version(&major, &minor);
  out.version = "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
  int count = 0;
  n.num_archs(&count);
  std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) n.archs(archs.data());
  const custom::NvrtcTarget target = custom::nvrtc_target(cc > 0 ? cc : 90, archs);
  if (!target.ok)
    return Status::failure(out.version + " cannot compile for compute capability " + std::to_string(cc / 10) + "." +
                               std::to_string(cc % 10),
                           "", "nvrtcGetSupportedArchs");
  // The runner's options (labs/custom/runner/runner_gpu.cpp), so this is the code that runs.
  auto run = [&](const std::string& arch_option) -> int {
    Program prog = nullptr;
    int r = n.create(&prog, unit.c_str(), "blockscope-kernel.cu", 0, nullptr, nullptr);
    if (r != kSuccess) return r;
    const char* options[] = {arch_option.c_str(), "--device-as-default-execution-space", "--std=c++17",
                             "--generate-line-info"};
    r = n.compile(prog, 4, options);
    std::size_t size = 0;
    n.log_size(prog, &size);
    out.log.assign(size, '\0');
    if (size > 1) n.log(prog, out.log.data());
    out.log.resize(std::strlen(out.log.c_str()));
    if (r == kSuccess) {
      n.ptx_size(prog, &size);
      out.ptx.assign(size, '\0');
      n.ptx(prog, out.ptx.data());
      out.ptx.resize(std::strlen(out.ptx.c_str()));
      if (!target.ptx) {
        n.cubin_size(prog, &size);
        out.cubin.assign(size, '\0');
        n.cubin(prog, out.cubin.data());
      }
    }
    n.destroy(&prog);
    return r;
  };
  out.arch = target.arch;
  int r = run(target.option);
  if (r == kInvalidOption && !target.fallback.empty()) {
    out.arch = target.fallback.substr(target.fallback.find('=') + 1);
    r = run(target.fallback);
  }
  if (r != kSuccess)
    return Status::failure(out.version + " did not compile the kernel: " +
                               (out.log.empty() ? std::string(n.error_string(r)) : out.log),
                           "", "nvrtcCompileProgram");
  return out;
}

}  // namespace bs::source
