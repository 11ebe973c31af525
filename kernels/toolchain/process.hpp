// Child processes blockscope can always take back: each is started in a process group of its own
// (so SIGKILL reaches anything it started), reaped when its handle dies, and described in the
// user's terms when it ends badly ("killed by signal 11 (SIGSEGV, a segmentation fault)").
// POSIX only (Linux): posix_spawn, process groups, poll.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"

namespace bs::toolchain {

using Clock = std::chrono::steady_clock;

struct ExitInfo {
  bool exited = false;           // returned from main or called exit
  int code = 0;                  // exit code when exited
  int signal = 0;                // the signal that killed it, otherwise
  std::string describe() const;  // "exited with code 1", "killed by signal 9 (SIGKILL)"
};

// A started child. Destroying (or kill()) sends SIGKILL to its whole process group and reaps it.
class ChildProcess {
 public:
  ChildProcess() = default;
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }
  ChildProcess& operator=(ChildProcess&& o) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { kill(); }

  pid_t pid() const { return pid_; }
  bool running();   // false once it has ended (reaps it then)
  void kill();      // SIGKILL to the group, wait for it
  ExitInfo wait();  // blocks until it ends

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  ExitInfo exit_;
};

struct SpawnSpec {
  std::vector<std::string> argv;             // argv[0] is the program path
  std::vector<std::pair<int, int>> inherit;  // {fd in this process, fd number in the child}
  int output_fd = -1;                        // child's stdout and stderr go here when >= 0
  // Environment variables the child must not inherit (run_command drops LD_PRELOAD: a compiler
  // should not run with whatever a sanitizer or profiler preloaded into blockscope).
  std::vector<std::string> unset_env;
  std::filesystem::path cwd;  // the child's working folder; empty: this process's
};

Result<ChildProcess> spawn(const SpawnSpec& spec);

// Runs a program to completion with its stdout and stderr captured, killing it (and its group)
// when it outlives `time_limit_s`.
struct CommandResult {
  ExitInfo exit;
  std::string output;
  bool timed_out = false;
  double ms = 0;
};
struct CommandOptions {
  std::filesystem::path cwd;            // where it runs (cuobjdump -xelf writes its files there)
  std::size_t output_limit = 1u << 20;  // bytes of output kept (a disassembly can be tens of MB)
};
Result<CommandResult> run_command(const std::vector<std::string>& argv, double time_limit_s,
                                  const CommandOptions& options = {});

// The full path of `name` on $PATH (or `name` itself when it contains a '/' and is executable);
// empty when not found.
std::filesystem::path find_executable(std::string_view name);

// The folder of the running executable (/proc/self/exe), empty if unknown.
std::filesystem::path executable_dir();

// A program of blockscope's own that it starts (the kernel runner, the line counter): `option`
// when given, else $`env_var` when set, else `name` beside this executable, else `build_path`
// (where this build put it). `found` is empty when none of them is executable; `looked_at`
// names the places tried, for the message.
struct HelperSearch {
  std::filesystem::path found;
  std::string looked_at;  // "/opt/bs/blockscope-kernel-runner, /build/app/blockscope-kernel-runner"
};
HelperSearch find_helper(std::string_view name, const std::filesystem::path& option, const char* env_var,
                         const std::filesystem::path& build_path);

}  // namespace bs::toolchain
