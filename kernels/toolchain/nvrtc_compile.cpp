#include "toolchain/nvrtc_compile.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#ifndef BS_NVRTC_DIR
#define BS_NVRTC_DIR "/usr/local/cuda/lib64"
#endif

namespace bs::toolchain {

// NVRTC's program handle, opaque. Declared outside the anonymous namespace below: NvrtcLibrary::Api
// (a member of a class with linkage) holds pointers to functions taking it.
struct NvrtcProgramOpaque;

namespace {

// NVRTC's C API, declared here so that a build without the CUDA headers compiles this file too
// (the library is found at run time). nvrtcResult is an enum: an int in the C ABI.
using nvrtcProgram = NvrtcProgramOpaque*;
using nvrtcResult = int;
constexpr nvrtcResult NVRTC_SUCCESS = 0;
constexpr nvrtcResult NVRTC_ERROR_INVALID_OPTION = 5;

}  // namespace

struct NvrtcLibrary::Api {
  nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  nvrtcResult (*compile)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram*) = nullptr;
  nvrtcResult (*log_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*cubin_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*cubin)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*ptx_size)(nvrtcProgram, std::size_t*) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  nvrtcResult (*num_archs)(int*) = nullptr;
  nvrtcResult (*archs)(int*) = nullptr;
  const char* (*error_string)(nvrtcResult) = nullptr;
};

NvrtcLibrary NvrtcLibrary::open() { return open(BS_NVRTC_DIR); }

NvrtcLibrary NvrtcLibrary::open(const std::string& build_dir) {
  NvrtcLibrary n;
  std::vector<std::string> tries;
  if (const char* env = std::getenv("BLOCKSCOPE_NVRTC"); env && *env) {
    tries.push_back(env);
  } else {
    tries = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", build_dir + "/libnvrtc.so",
             "/usr/local/cuda/lib64/libnvrtc.so"};
  }
  void* lib = nullptr;
  for (const std::string& t : tries) {
    lib = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      n.loaded_from_ = t;
      break;
    }
  }
  if (!lib) {
    std::string list;
    for (const std::string& t : tries) list += (list.empty() ? "" : ", ") + t;
    n.error_ = "NVRTC, CUDA's runtime compiler, is not installed (tried " + list +
               "). Install it (Debian/Ubuntu with NVIDIA's repository: the cuda-nvrtc package of "
               "your CUDA version, e.g. `apt install cuda-nvrtc-13-0`; or the CUDA toolkit) or set "
               "BLOCKSCOPE_NVRTC to the path of libnvrtc.so";
    return n;
  }
  auto api = std::make_shared<Api>();
#define BS_SYM(field, name)                                                          \
  api->field = reinterpret_cast<decltype(api->field)>(dlsym(lib, #name));            \
  if (!api->field) {                                                                 \
    n.error_ = n.loaded_from_ + " lacks " #name ": an NVRTC too old for blockscope"; \
    return n;                                                                        \
  }
  BS_SYM(create, nvrtcCreateProgram)
  BS_SYM(compile, nvrtcCompileProgram)
  BS_SYM(destroy, nvrtcDestroyProgram)
  BS_SYM(log_size, nvrtcGetProgramLogSize)
  BS_SYM(log, nvrtcGetProgramLog)
  BS_SYM(cubin_size, nvrtcGetCUBINSize)
  BS_SYM(cubin, nvrtcGetCUBIN)
  BS_SYM(ptx_size, nvrtcGetPTXSize)
  BS_SYM(ptx, nvrtcGetPTX)
  BS_SYM(version, nvrtcVersion)
  BS_SYM(num_archs, nvrtcGetNumSupportedArchs)
  BS_SYM(archs, nvrtcGetSupportedArchs)
  BS_SYM(error_string, nvrtcGetErrorString)
#undef BS_SYM
  // The file the loader really took ("libnvrtc.so.13" names none): where its toolkit is.
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(api->create), &where) && where.dli_fname) n.path_ = where.dli_fname;
  api->version(&n.major_, &n.minor_);
  n.api_ = std::move(api);
  n.ok_ = true;
  return n;
}

std::vector<int> NvrtcLibrary::supported_archs() const {
  if (!ok_) return {};
  int count = 0;
  api_->num_archs(&count);
  std::vector<int> archs(static_cast<std::size_t>(std::max(count, 0)));
  if (count > 0) api_->archs(archs.data());
  return archs;
}

namespace {

#define BS_STD_INTS                                                                             \
  "namespace std {\n"                                                                           \
  "using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;\n"                        \
  "using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;\n"                    \
  "using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t; using ::size_t;\n" \
  "}\n"

#define BS_STD_MATH                                                                                                   \
  "#ifndef BS_STD_MATH_STAND_IN\n#define BS_STD_MATH_STAND_IN\n"                                                      \
  "namespace std {\n"                                                                                                 \
  "using ::abs; using ::fabs; using ::fabsf; using ::sqrt; using ::sqrtf; using ::rsqrt;\n"                           \
  "using ::exp; using ::expf; using ::exp2; using ::log; using ::logf; using ::log2; using ::log10;\n"                \
  "using ::pow; using ::powf; using ::fma; using ::fmaf; using ::fmod; using ::trunc; using ::cbrt;\n"                \
  "using ::fmin; using ::fminf; using ::fmax; using ::fmaxf; using ::hypot; using ::copysign;\n"                      \
  "using ::floor; using ::floorf; using ::ceil; using ::ceilf; using ::round; using ::roundf;\n"                      \
  "using ::sin; using ::sinf; using ::cos; using ::cosf; using ::tan; using ::tanh; using ::tanhf;\n"                 \
  "using ::asin; using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::erf;\n"               \
  "using ::isnan; using ::isinf; using ::isfinite; using ::signbit;\n"                                                \
  "template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }\n" \
  "template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }\n" \
  "}\n#endif\n"

// <float.h>'s macros for IEEE binary32 and binary64 (libcu++'s cfloat is empty under NVRTC).
#define BS_FLOAT_H                                                                                       \
  "#ifndef FLT_MAX\n"                                                                                    \
  "#define FLT_RADIX 2\n#define FLT_MANT_DIG 24\n#define FLT_DIG 6\n#define FLT_MIN_EXP (-125)\n"        \
  "#define FLT_MAX_EXP 128\n#define FLT_MAX 3.40282347e+38F\n#define FLT_MIN 1.17549435e-38F\n"          \
  "#define FLT_EPSILON 1.19209290e-7F\n#define FLT_TRUE_MIN 1.40129846e-45F\n"                           \
  "#define DBL_MANT_DIG 53\n#define DBL_DIG 15\n#define DBL_MIN_EXP (-1021)\n#define DBL_MAX_EXP 1024\n" \
  "#define DBL_MAX 1.7976931348623157e+308\n#define DBL_MIN 2.2250738585072014e-308\n"                   \
  "#define DBL_EPSILON 2.2204460492503131e-16\n#define DBL_TRUE_MIN 4.9406564584124654e-324\n"           \
  "#endif\n"

constexpr const char* kBuiltIn = "// blockscope: built into device code under NVRTC, nothing to include\n";

constexpr StandInHeader kStandIns[] = {
    {"cstdio", kBuiltIn},
    {"stdio.h", kBuiltIn},
    {"cassert", kBuiltIn},
    {"assert.h", kBuiltIn},
    {"math.h", kBuiltIn},
    {"cmath", "// blockscope: the math functions are built into device code; their std:: names\n" BS_STD_MATH},
    {"algorithm", "// blockscope: std::min and std::max for device code\n" BS_STD_MATH},
    {"stdint.h", "#include <cuda/std/cstdint>\n"},
    {"cstdint", "#include <cuda/std/cstdint>\n" BS_STD_INTS},
    {"stddef.h", "#include <cuda/std/cstddef>\n"},
    {"cstddef", "#include <cuda/std/cstddef>\n"},
    {"limits.h", "#include <cuda/std/climits>\n"},
    {"climits", "#include <cuda/std/climits>\n"},
    {"float.h", BS_FLOAT_H},
    {"cfloat", BS_FLOAT_H},
};

#undef BS_STD_INTS
#undef BS_STD_MATH
#undef BS_FLOAT_H

}  // namespace

std::span<const StandInHeader> standard_header_stand_ins() { return kStandIns; }

std::vector<std::string> nvrtc_options(const std::string& arch_option, const CudaHeaderSearch& headers) {
  std::vector<std::string> o{arch_option, "--device-as-default-execution-space", "--std=c++17", "--generate-line-info"};
  for (std::string& i : headers.options()) o.push_back(std::move(i));
  return o;
}

NvrtcLibrary::Output NvrtcLibrary::compile(const std::string& unit, const NvrtcTarget& target,
                                           const CudaHeaderSearch& headers, bool with_ptx) const {
  Output out;
  if (!ok_) {
    out.log = error_;
    return out;
  }
  const auto t0 = std::chrono::steady_clock::now();
  out.ptx = target.ptx;
  out.arch = target.arch;
  auto run = [&](const std::string& arch_option, nvrtcProgram& prog) {
    out.options = nvrtc_options(arch_option, headers);
    std::vector<const char*> argv;
    for (const std::string& o : out.options) argv.push_back(o.c_str());
    std::vector<const char*> texts, names;
    for (const StandInHeader& h : standard_header_stand_ins()) {
      texts.push_back(h.text);
      names.push_back(h.name);
    }
    nvrtcResult r = api_->create(&prog, unit.c_str(), "blockscope-kernel.cu", static_cast<int>(texts.size()),
                                 texts.data(), names.data());
    if (r != NVRTC_SUCCESS) return r;
    return api_->compile(prog, static_cast<int>(argv.size()), argv.data());
  };
  nvrtcProgram prog = nullptr;
  nvrtcResult r = run(target.option, prog);
  if (r == NVRTC_ERROR_INVALID_OPTION && !target.fallback.empty()) {
    // An NVRTC that lists the architecture but not its arch-specific variant.
    if (prog) api_->destroy(&prog);
    out.arch = target.fallback.substr(target.fallback.find('=') + 1);
    r = run(target.fallback, prog);
  }
  if (!prog) {
    out.log = std::string("nvrtcCreateProgram: ") + api_->error_string(r);
    return out;
  }
  std::size_t log_size = 0;
  api_->log_size(prog, &log_size);
  if (log_size > 1) {
    std::string raw(log_size, '\0');
    api_->log(prog, raw.data());
    raw.resize(std::strlen(raw.c_str()));
    out.log = explain_nvrtc_log(raw, headers);
  }
  if (r == NVRTC_SUCCESS) {
    std::size_t size = 0;
    if (with_ptx && !target.ptx) {
      api_->ptx_size(prog, &size);
      out.ptx_text.assign(size, '\0');
      api_->ptx(prog, out.ptx_text.data());
      out.ptx_text.resize(std::strlen(out.ptx_text.c_str()));
    }
    if (!target.ptx) {
      api_->cubin_size(prog, &size);
      out.image.resize(size);
      api_->cubin(prog, out.image.data());
    } else {
      api_->ptx_size(prog, &size);
      out.image.resize(size);
      api_->ptx(prog, out.image.data());
      if (with_ptx) out.ptx_text.assign(out.image.c_str());
    }
    out.ok = true;
  } else if (out.log.empty()) {
    out.log = std::string("nvrtcCompileProgram: ") + api_->error_string(r);
  }
  api_->destroy(&prog);
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

Result<NvrtcListing> compile_for_listing(const std::string& unit, int cc) {
  const NvrtcLibrary lib = NvrtcLibrary::open();
  if (!lib.ok()) return Status::failure(lib.error(), "", "dlopen");
  NvrtcListing out;
  out.version = "NVRTC " + std::to_string(lib.major()) + "." + std::to_string(lib.minor());
  const NvrtcTarget target = nvrtc_target(cc > 0 ? cc : 90, lib.supported_archs());
  if (!target.ok)
    return Status::failure(out.version + " cannot compile for compute capability " + std::to_string(cc / 10) + "." +
                               std::to_string(cc % 10),
                           "", "nvrtcGetSupportedArchs");
  NvrtcLibrary::Output o = lib.compile(unit, target, find_cuda_headers(cuda_header_inputs_from_environment(lib.path())),
                                       /*with_ptx=*/true);
  if (!o.ok) return Status::failure(out.version + " did not compile the kernel: " + o.log, "", "nvrtcCompileProgram");
  out.ptx = std::move(o.ptx_text);
  if (!o.ptx) out.cubin = std::move(o.image);
  out.arch = std::move(o.arch);
  out.log = std::move(o.log);
  return out;
}

}  // namespace bs::toolchain
