// The files the tools read and write: a text file in and out, a temporary folder of one's own
// (mkdtemp under the system's temporary folder) removed with everything in it when its owner lets
// it go, and the build that uses one: a generated C++ unit compiled and linked into a shared
// object there with the host compiler's flags, each step a child process with a time limit. The
// counting build of a user's kernel (gcov counters) and its recording build (shared-memory access
// hooks) are two such builds.
//
//   std::string text = read_text(path);                           // "" when it cannot be read
//   auto folder = TempFolder::make("blockscope-count");        // removed when `folder` goes
//   auto built = build_in_temp_folder(compiler, spec, 60);     // built->dir holds unit.cpp, X.so
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "toolchain/host_compiler.hpp"

namespace bs::toolchain {

std::string read_text(const std::filesystem::path& path);
bool write_text(const std::filesystem::path& path, std::string_view text);  // false: not written

class TempFolder {
 public:
  // "<tmp>/<prefix>-XXXXXX", made private to this process's user by mkdtemp.
  static Result<TempFolder> make(std::string_view prefix);

  TempFolder() = default;
  TempFolder(TempFolder&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  TempFolder& operator=(TempFolder&& o) noexcept;
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() { remove(); }

  const std::filesystem::path& path() const { return path_; }
  // Keeps the folder: the caller removes it (an object whose folder outlives this handle).
  std::filesystem::path release() { return std::exchange(path_, {}); }

 private:
  void remove();
  std::filesystem::path path_;
};

// What build_in_temp_folder writes, compiles and links.
struct TempFolderBuild {
  std::string what;                                             // "the counting build": in its messages
  std::string prefix;                                           // the folder's name: "blockscope-lines"
  std::string unit;                                             // written as unit.cpp and compiled to unit.o
  std::vector<std::pair<std::string, std::string>> more_files;  // {name, text} beside it
  std::string optimisation;                                     // "-O0"
  std::vector<std::string> compile_flags;                       // after unit_flags(): "-g", "--coverage", ...
  std::vector<std::string> link_flags;                          // after -shared: "--coverage", "-Wl,-z,defs"
  std::string library;                                          // "counting.so"
  std::string failure_note;                                     // after "<what> of the kernel" in the failure message
  std::string failure_hint;                                     // the hint of a failed compile or link
  std::string failure_code;                                     // its Status code: "line_counts_build"
};

struct BuiltInTempFolder {
  std::filesystem::path dir;      // the folder (the caller removes it: remove_folder)
  std::filesystem::path library;  // dir / spec.library
};

Result<BuiltInTempFolder> build_in_temp_folder(const HostCompiler& compiler, const TempFolderBuild& spec,
                                               double time_limit_s);

// Removes `dir` and everything in it (nothing when empty).
void remove_folder(const std::filesystem::path& dir);

}  // namespace bs::toolchain
