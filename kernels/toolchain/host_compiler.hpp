// The host C++ compiler that builds a user's kernel for the CPU simulator, and the per-user cache
// of what it built.
//
// Which compiler: $BLOCKSCOPE_CXX when set (tests point it at a missing path to check the
// message), else the first of c++, g++, clang++ on $PATH. Missing: a Status that says which
// backend cannot compile and what to install; the built-in kernels do not need it.
//
// The cache: $XDG_CACHE_HOME/blockscope/kernels (else ~/.cache/blockscope/kernels), one shared
// object per hash of (compiler identity, flags, the whole generated unit). An unchanged kernel is
// not compiled again, and its warnings come back from the log stored beside it.
//
// Flags: -std=c++17 -O2 -fPIC -shared, plain text diagnostics. The unit includes only <math.h>
// (cpu_prelude.h), so g++ builds the lecture's kernels in about 0.2 s on one core.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "toolchain/process.hpp"

namespace bs::toolchain {

struct HostCompiler {
  std::filesystem::path path;
  std::string name;              // "g++", "clang++"
  std::string version;           // the first line of --version
  bool gcc = false;              // GCC (knows -fdiagnostics-column-unit)
  std::string identity() const;  // path + version: part of the cache key
};

// Finds it (and asks it its version, once per call). `override_path`: the engine's option; empty
// falls back to $BLOCKSCOPE_CXX, then $PATH.
Result<HostCompiler> find_host_compiler(std::string_view override_path = {});

std::filesystem::path default_cache_dir();

struct SharedObject {
  bool ok = false;
  std::filesystem::path path;  // the .so (when ok)
  bool cache_hit = false;
  bool timed_out = false;
  ExitInfo exit;
  std::string log;      // the compiler's diagnostics (also for a cache hit)
  std::string command;  // what ran, for the log
  double ms = 0;
};

// Compiles `unit` into a shared object in `cache_dir` (created if needed; a temporary folder if it
// cannot be written), or finds it there. A compiler that outlives `time_limit_s` is killed.
Result<SharedObject> build_shared_object(const HostCompiler& compiler, const std::string& unit,
                                         const std::filesystem::path& cache_dir, std::string_view optimisation,
                                         double time_limit_s);

// The flags every unit is compiled with (the optimisation given), without -shared.
std::vector<std::string> unit_flags(const HostCompiler& compiler, std::string_view optimisation);

// The cache key: 64-bit FNV-1a of its parts, as 16 hex digits.
std::string cache_key(std::initializer_list<std::string_view> parts);

}  // namespace bs::toolchain
