// blockscope's side of a kernel runner process (runner/runner_main.cpp): start it, ask, wait for
// the answer under a time limit, and kill it when the limit passes or it dies.
//
// The time limit is per step, and a step is one request: a compile, a load, or one launch (the
// parent's timing loop sends one Launch per warm-up and repeat), so the limit bounds one launch.
//
// The first request to a runner is the Hello handshake (protocol.hpp): a runner that speaks
// another protocol version is refused with a Status naming both versions and where it was
// found, and killed.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "labs/custom/messages.hpp"
#include "toolchain/process.hpp"

namespace bs::custom {

class RunnerProcess {
 public:
  static Result<std::unique_ptr<RunnerProcess>> start(const std::filesystem::path& exe, wire::Backend backend,
                                                      int cuda_device);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // Sends `request` and returns its answer, of type `answer`. On failure the Status code is
  // "timeout" (the runner was killed: it did not answer within `step_limit_s`), "died" (it ended;
  // the message says how, e.g. "killed by signal 11 (SIGSEGV, ...)") or "protocol" (a runner of
  // another protocol version, or a malformed answer).
  Result<wire::Frame> call(wire::Msg request, const std::string& payload, wire::Msg answer, double step_limit_s,
                           const std::vector<int>& fds = {});

  bool alive();
  void kill();
  pid_t pid() const { return child_.pid(); }
  wire::Backend backend() const { return backend_; }

  // Cached answer to Hello (the runner's device and NVRTC); asks once, and refuses a runner of
  // another protocol version.
  Result<wire::Info> info(double limit_s);

 private:
  RunnerProcess(toolchain::ChildProcess child, int socket, wire::Backend backend, std::filesystem::path exe)
      : child_(std::move(child)), socket_(socket), backend_(backend), exe_(std::move(exe)) {}
  Result<wire::Frame> exchange(wire::Msg request, const std::string& payload, wire::Msg answer, double step_limit_s,
                               const std::vector<int>& fds);
  toolchain::ChildProcess child_;
  int socket_ = -1;
  wire::Backend backend_;
  std::filesystem::path exe_;
  std::unique_ptr<wire::Info> info_;
};

// Where blockscope-kernel-runner is: `option` when set, else $BLOCKSCOPE_KERNEL_RUNNER, else next
// to this executable, else where this build put it. Empty with a Status saying where it looked.
Result<std::filesystem::path> find_runner(const std::filesystem::path& option);

}  // namespace bs::custom
