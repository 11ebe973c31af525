#include "labs/custom/runner_client.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifndef BS_RUNNER_BUILD_PATH
#define BS_RUNNER_BUILD_PATH ""
#endif

namespace bs::custom {

namespace {
constexpr const char* kRunnerName = "blockscope-kernel-runner";

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}
}  // namespace

Result<std::filesystem::path> find_runner(const std::filesystem::path& option) {
  const auto s = toolchain::find_helper(kRunnerName, option, "BLOCKSCOPE_KERNEL_RUNNER", BS_RUNNER_BUILD_PATH);
  if (!s.found.empty()) return s.found;
  return Status::failure(
      std::string("user kernels cannot run: ") + kRunnerName + " was not found (looked at " + s.looked_at + ")",
      "install it next to blockscope, or set BLOCKSCOPE_KERNEL_RUNNER to its path", "find_runner", "no_runner");
}

Result<std::unique_ptr<RunnerProcess>> RunnerProcess::start(const std::filesystem::path& exe, wire::Backend backend,
                                                            int cuda_device) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Status::failure("cannot create a socket for the kernel runner", "", "socketpair");
  toolchain::SpawnSpec spec;
  constexpr int kChildSocket = 3;
  spec.argv = {exe.string(), "--socket=" + std::to_string(kChildSocket),
               std::string("--backend=") + (backend == wire::Backend::Gpu ? "gpu" : "cpu"),
               "--device=" + std::to_string(cuda_device), "--parent=" + std::to_string(getpid())};
  spec.inherit = {{sv[1], kChildSocket}};
  auto child = toolchain::spawn(spec);
  close(sv[1]);
  if (!child) {
    close(sv[0]);
    return child.status();
  }
  return std::unique_ptr<RunnerProcess>(new RunnerProcess(std::move(*child), sv[0], backend, exe));
}

RunnerProcess::~RunnerProcess() {
  if (socket_ >= 0) close(socket_);  // the runner sees EOF and exits; kill() makes sure
  child_.kill();
}

bool RunnerProcess::alive() { return child_.running(); }

void RunnerProcess::kill() { child_.kill(); }

Result<wire::Frame> RunnerProcess::call(wire::Msg request, const std::string& payload, wire::Msg answer,
                                        double step_limit_s, const std::vector<int>& fds) {
  if (!info_ && request != wire::Msg::Hello)
    if (auto i = info(std::max(step_limit_s, 10.0)); !i) return i.status();
  return exchange(request, payload, answer, step_limit_s, fds);
}

Result<wire::Frame> RunnerProcess::exchange(wire::Msg request, const std::string& payload, wire::Msg answer,
                                            double step_limit_s, const std::vector<int>& fds) {
  auto died = [&](const std::string& doing) {
    const toolchain::ExitInfo e = child_.wait();
    return Status::failure("the kernel runner died " + doing + ": it " + e.describe(), "", wire::to_string(request),
                           "died");
  };
  if (!child_.running()) return died("before the request");
  if (Status s = wire::send(socket_, request, payload, fds); !s) return died("(it stopped reading)");
  auto frame = wire::receive(socket_, after(step_limit_s));
  if (!frame) {
    if (frame.status().code == "timeout") {
      child_.kill();
      return Status::failure("no answer within " + std::to_string(step_limit_s) + " s", "", wire::to_string(request),
                             "timeout");
    }
    return died("while working");
  }
  if (frame->type != answer) {
    child_.kill();
    return Status::failure(
        std::string("the kernel runner answered ") + wire::to_string(frame->type) + " to " + wire::to_string(request),
        "", wire::to_string(request), "protocol");
  }
  return frame;
}

Result<wire::Info> RunnerProcess::info(double limit_s) {
  if (info_) return *info_;
  wire::Writer hello;
  hello.pod(wire::kProtocolVersion);
  auto f = exchange(wire::Msg::Hello, hello.bytes(), wire::Msg::Info, limit_s, {});
  if (!f) return f.status();
  wire::Info i;
  const bool decoded = wire::decode(f->payload, i);
  // The version is the answer's first field in every protocol version, so it is read even from
  // an answer that does not decode as this version's Info. Runners from before versioning answer
  // 0 or 1 there (their first field was the backend).
  std::uint32_t theirs = 0;
  if (f->payload.size() >= sizeof theirs) std::memcpy(&theirs, f->payload.data(), sizeof theirs);
  if (theirs != wire::kProtocolVersion) {
    child_.kill();
    const std::string v = theirs <= 1 ? "1 (or older)" : std::to_string(theirs);
    return Status::failure("the kernel runner " + exe_.string() + " speaks protocol version " + v +
                               ", this blockscope speaks version " + std::to_string(wire::kProtocolVersion),
                           "a stale blockscope-kernel-runner: install the one built with this blockscope next to it, "
                           "or point BLOCKSCOPE_KERNEL_RUNNER at it",
                           "Hello", "protocol_version");
  }
  if (!decoded) {
    child_.kill();
    return Status::failure("the kernel runner sent a malformed Info", "", "Hello", "protocol");
  }
  info_ = std::make_unique<wire::Info>(i);
  return i;
}

}  // namespace bs::custom
