#include "toolchain/host_compiler.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "toolchain/files.hpp"

namespace bs::toolchain {
namespace {

constexpr const char* kInstall =
    "install a C++ compiler (Debian/Ubuntu: `sudo apt install g++`; Fedora: `sudo dnf install "
    "gcc-c++`), or set BLOCKSCOPE_CXX to one";

// A folder we can write: the cache, or a private temporary one.
std::filesystem::path writable(const std::filesystem::path& want) {
  std::error_code ec;
  std::filesystem::create_directories(want, ec);
  if (!ec && access(want.c_str(), W_OK) == 0) return want;
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path(ec) / ("blockscope-kernels-" + std::to_string(getuid()));
  std::filesystem::create_directories(tmp, ec);
  return tmp;
}

}  // namespace

std::string HostCompiler::identity() const { return path.string() + "|" + version; }

std::string cache_key(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::string_view p : parts) {
    for (unsigned char c : p) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Result<HostCompiler> find_host_compiler(std::string_view override_path) {
  std::string wanted(override_path);
  std::string source = "the engine's option";
  if (wanted.empty()) {
    if (const char* env = std::getenv("BLOCKSCOPE_CXX"); env && *env) {
      wanted = env;
      source = "BLOCKSCOPE_CXX";
    }
  }
  HostCompiler c;
  if (!wanted.empty()) {
    c.path = find_executable(wanted);
    if (c.path.empty())
      return Status::failure("the CPU simulator cannot compile your kernel: the C++ compiler " + wanted + " (from " +
                                 source + ") was not found",
                             kInstall, "find_host_compiler", "no_host_compiler");
  } else {
    for (const char* name : {"c++", "g++", "clang++"}) {
      c.path = find_executable(name);
      if (!c.path.empty()) break;
    }
    if (c.path.empty())
      return Status::failure(
          "the CPU simulator cannot compile your kernel: no C++ compiler found (looked for c++, "
          "g++ and clang++ on PATH); the built-in kernels still run",
          kInstall, "find_host_compiler", "no_host_compiler");
  }
  auto v = run_command({c.path.string(), "--version"}, 20.0);
  if (!v || v->timed_out || !v->exit.exited || v->exit.code != 0)
    return Status::failure("the CPU simulator cannot compile your kernel: " + c.path.string() + " does not run (" +
                               (v ? v->exit.describe() : v.status().message) + ")",
                           kInstall, "find_host_compiler", "no_host_compiler");
  c.version = v->output.substr(0, v->output.find('\n'));
  c.gcc = c.version.find("clang") == std::string::npos;
  c.name = c.gcc ? "g++" : "clang++";
  return c;
}

std::filesystem::path default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "blockscope" / "kernels";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "blockscope" / "kernels";
  std::error_code ec;
  return std::filesystem::temp_directory_path(ec) / ("blockscope-kernels-" + std::to_string(getuid()));
}

std::vector<std::string> unit_flags(const HostCompiler& compiler, std::string_view optimisation) {
  std::vector<std::string> flags = {"-std=c++17",
                                    std::string(optimisation),
                                    "-fPIC",
                                    "-fvisibility=hidden",
                                    "-Wall",
                                    "-fno-diagnostics-show-caret",
                                    "-fdiagnostics-color=never"};
  if (compiler.gcc) flags.push_back("-fdiagnostics-column-unit=byte");
  // C++ lets the optimiser assume loops without side effects end, so `while (i < n) {}` would be
  // deleted and the kernel "finish" having written nothing. A user's endless loop must stay
  // endless, so the time limit stops it and says so (GCC 10+, Clang 12+).
  flags.push_back("-fno-finite-loops");
  return flags;
}

Result<SharedObject> build_shared_object(const HostCompiler& compiler, const std::string& unit,
                                         const std::filesystem::path& cache_dir, std::string_view optimisation,
                                         double time_limit_s) {
  SharedObject so;
  const auto t0 = Clock::now();
  std::vector<std::string> flags = unit_flags(compiler, optimisation);
  flags.push_back("-shared");
  std::string flag_text;
  for (const std::string& f : flags) flag_text += f + " ";
  const std::filesystem::path dir = writable(cache_dir);
  const std::string key = cache_key({compiler.identity(), flag_text, unit});
  const std::filesystem::path lib = dir / ("cpu-" + key + ".so");
  const std::filesystem::path log = dir / ("cpu-" + key + ".log");
  const std::filesystem::path src = dir / ("cpu-" + key + ".cpp");

  std::error_code ec;
  if (std::filesystem::exists(lib, ec)) {
    so.ok = true;
    so.cache_hit = true;
    so.path = lib;
    so.log = read_text(log);
    so.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return so;
  }
  // Unique temporaries, then renames: two blockscopes compiling the same kernel never see half a
  // file.
  const std::string tag = "." + std::to_string(getpid()) + ".tmp";
  const std::filesystem::path src_tmp = src.string() + tag;
  const std::filesystem::path lib_tmp = lib.string() + tag;
  if (!write_text(src_tmp, unit))
    return Status::failure("cannot write the kernel's source to " + dir.string(), "is the disk full?",
                           "build_shared_object");
  std::filesystem::rename(src_tmp, src, ec);

  std::vector<std::string> argv = {compiler.path.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", lib_tmp.string(), src.string(), "-lm"});
  for (const std::string& a : argv) so.command += a + " ";
  auto r = run_command(argv, time_limit_s);
  if (!r) return r.status();
  so.log = r->output;
  so.timed_out = r->timed_out;
  so.exit = r->exit;
  if (!r->timed_out && r->exit.exited && r->exit.code == 0) {
    write_text(log, so.log);
    std::filesystem::rename(lib_tmp, lib, ec);
    if (ec)
      return Status::failure("cannot store the compiled kernel in " + dir.string() + ": " + ec.message(), "",
                             "build_shared_object");
    so.ok = true;
    so.path = lib;
  } else {
    std::filesystem::remove(lib_tmp, ec);
  }
  so.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return so;
}

}  // namespace bs::toolchain
