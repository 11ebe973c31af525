// dlopen and dlsym for CuptiApi. The candidate list is short and fixed: the soname first, so an
// LD_LIBRARY_PATH the user set wins, then the toolkit CMake found, then the toolkit's standard
// folders (where the .deb and .run installers put CUPTI).
#include "counters/cupti_library.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "counters/counter_errors.hpp"

#ifndef BLOCKSCOPE_CUPTI_SONAME
#define BLOCKSCOPE_CUPTI_SONAME "libcupti.so"
#endif
#ifndef BLOCKSCOPE_CUPTI_CONFIGURED_PATH
#define BLOCKSCOPE_CUPTI_CONFIGURED_PATH ""
#endif

namespace bs::counters {
namespace {

std::vector<std::string> candidates() {
  const std::string soname = BLOCKSCOPE_CUPTI_SONAME;
  std::vector<std::string> c = {soname};
  if (const std::string configured = BLOCKSCOPE_CUPTI_CONFIGURED_PATH; !configured.empty()) c.push_back(configured);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root) {
      c.push_back(std::string(root) + "/lib64/" + soname);
      c.push_back(std::string(root) + "/extras/CUPTI/lib64/" + soname);
    }
  for (const char* root :
       {"/usr/local/cuda/lib64/", "/usr/local/cuda/extras/CUPTI/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"})
    c.push_back(root + soname);
  return c;
}

// `too_old` tells a library that loaded but lacks an entry point from one that did not load.
Result<std::unique_ptr<CuptiApi>> open_one(const std::string& path, bool& too_old) {
  too_old = false;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return explain(CounterProblem::LibraryMissing, "dlopen", "", why ? why : path);
  }
  auto api = std::make_unique<CuptiApi>();
  api->path = path;
  std::string missing;
#define BS_CUPTI_RESOLVE(fn)                                       \
  api->fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn)); \
  if (!api->fn && missing.empty()) missing = #fn;
  BS_CUPTI_ENTRIES(BS_CUPTI_RESOLVE)
#undef BS_CUPTI_RESOLVE
#define BS_CUPTI_RESOLVE_OPTIONAL(fn)                              \
  api->fn = reinterpret_cast<decltype(&::fn)>(dlsym(handle, #fn)); \
  if (!api->fn && api->missing_optional.empty()) api->missing_optional = #fn;
  BS_CUPTI_OPTIONAL_ENTRIES(BS_CUPTI_RESOLVE_OPTIONAL)
#undef BS_CUPTI_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    // Deliberately not dlclose'd: an old CUPTI may have registered callbacks on load.
    too_old = true;
    return explain(CounterProblem::LibraryTooOld, "dlsym", "", path + " has no " + missing);
  }
  return Result<std::unique_ptr<CuptiApi>>(std::move(api));
}

}  // namespace

std::string CuptiApi::describe(CUptiResult r) const {
  const char* s = nullptr;
  if (cuptiGetResultString && cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
  return {};
}

Result<const CuptiApi*> load_cupti(const std::string& path) {
  // Process-wide on purpose: a loaded library is process-wide, and loading it twice gains nothing.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<CuptiApi>> loaded;
  std::lock_guard lock(mutex);

  const std::vector<std::string> tries = path.empty() ? candidates() : std::vector{path};
  Status first_failure;
  for (const auto& p : tries) {
    if (auto it = loaded.find(p); it != loaded.end()) return static_cast<const CuptiApi*>(it->second.get());
    bool too_old = false;
    auto api = open_one(p, too_old);
    if (api) {
      const CuptiApi* raw = api->get();
      loaded.emplace(p, std::move(api.value()));
      return raw;
    }
    // A library that loads but is too old is the answer; a missing one, try the next.
    if (too_old) return api.status();
    if (first_failure.ok()) first_failure = api.status();
  }
  if (path.empty()) {
    first_failure = explain(CounterProblem::LibraryMissing, "dlopen", "",
                            "tried " + std::string(BLOCKSCOPE_CUPTI_SONAME) + " on the loader path and " +
                                std::to_string(tries.size() - 1) + " toolkit folders");
  }
  return first_failure;
}

Result<CUcontext> current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      !fn || found != cudaDriverEntryPointSuccess)
    return Status::failure("the CUDA driver has no cuCtxGetCurrent", "update the NVIDIA driver",
                           "cudaGetDriverEntryPointByVersion");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    return Status::failure("no CUDA context is current on this thread", "call cudaSetDevice first", "cuCtxGetCurrent");
  return ctx;
}

Result<CUcontext> device_context(int device) {
  if (device >= 0)
    if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
      return Status::failure(std::string("the CUDA device could not be made current: ") + cudaGetErrorString(e), "",
                             "cudaSetDevice", cudaGetErrorName(e));
  return current_context();
}

std::mutex& profile_lock() {
  static std::mutex m;
  return m;
}

}  // namespace bs::counters
