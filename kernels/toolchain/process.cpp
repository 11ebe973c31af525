#include "toolchain/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace bs::toolchain {
namespace {

const char* signal_meaning(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault: a read or write outside the process's memory";
    case SIGBUS: return "SIGBUS, a bad memory access";
    case SIGFPE: return "SIGFPE, an arithmetic fault such as an integer division by zero";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGABRT: return "SIGABRT, the process aborted";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return nullptr;
  }
}

ExitInfo from_status(int status) {
  ExitInfo e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  }
  return e;
}

// A pipe whose both ends close on exec (the child gets the write end through dup2).
bool cloexec_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0; }

}  // namespace

std::string ExitInfo::describe() const {
  if (exited) return "exited with code " + std::to_string(code);
  std::string s = "killed by signal " + std::to_string(signal);
  if (const char* m = signal_meaning(signal)) s += std::string(" (") + m + ")";
  return s;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    kill();
    pid_ = std::exchange(o.pid_, -1);
    reaped_ = std::exchange(o.reaped_, false);
    exit_ = o.exit_;
  }
  return *this;
}

bool ChildProcess::running() {
  if (pid_ <= 0 || reaped_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  if (r == pid_) {
    exit_ = from_status(status);
    reaped_ = true;
  } else {
    reaped_ = true;  // ECHILD: someone else reaped it; it is gone either way
  }
  ::kill(-pid_, SIGKILL);  // anything it left behind in its group
  return false;
}

void ChildProcess::kill() {
  if (pid_ <= 0) return;
  if (!reaped_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    wait();
  }
  pid_ = -1;
}

ExitInfo ChildProcess::wait() {
  if (pid_ <= 0 || reaped_) return exit_;
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid_, &status, 0);
    if (r == pid_) {
      exit_ = from_status(status);
      break;
    }
    if (r < 0 && errno != EINTR) break;
  }
  reaped_ = true;
  ::kill(-pid_, SIGKILL);
  return exit_;
}

Result<ChildProcess> spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) return Status::failure("nothing to start", "", "spawn");
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // Its own process group, so one kill reaches the compiler's or runner's children too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  // Move inherited fds out of the way of their target numbers first, then dup2 into place
  // (dup2 clears close-on-exec on the new descriptor).
  std::vector<int> temps;
  for (const auto& [from, to] : spec.inherit) {
    const int tmp = fcntl(from, F_DUPFD_CLOEXEC, 100);
    temps.push_back(tmp);
    posix_spawn_file_actions_adddup2(&actions, tmp, to);
  }
  if (spec.output_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, spec.output_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, spec.output_fd, 2);
  }
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (char** e = environ; *e; ++e) {
    bool keep = true;
    for (const std::string& name : spec.unset_env)
      if (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=') keep = false;
    if (keep) env.push_back(*e);
  }
  env.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int t : temps)
    if (t >= 0) close(t);
  if (rc != 0)
    return Status::failure("cannot start " + spec.argv[0] + ": " + strerror(rc), "", "posix_spawn",
                           strerrorname_np(rc) ? strerrorname_np(rc) : "");
  return ChildProcess(pid);
}

Result<CommandResult> run_command(const std::vector<std::string>& argv, double time_limit_s,
                                  const CommandOptions& options) {
  int fds[2];
  if (!cloexec_pipe(fds)) return Status::failure("cannot create a pipe", "", "pipe2");
  const auto t0 = Clock::now();
  SpawnSpec spec;
  spec.argv = argv;
  spec.output_fd = fds[1];
  spec.unset_env = {"LD_PRELOAD"};
  spec.cwd = options.cwd;
  auto child = spawn(spec);
  close(fds[1]);
  if (!child) {
    close(fds[0]);
    return child.status();
  }
  CommandResult result;
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit_s));
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      if (result.output.size() < options.output_limit) result.output.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EOF: the program (and everything holding the pipe) is done writing
  }
  close(fds[0]);
  if (result.timed_out) child->kill();
  result.exit = child->wait();
  result.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return result;
}

std::filesystem::path find_executable(std::string_view name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string_view::npos) {
    const std::string p(name);
    return access(p.c_str(), X_OK) == 0 ? std::filesystem::path(p) : std::filesystem::path();
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty()) {
      const std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return {};
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

HelperSearch find_helper(std::string_view name, const std::filesystem::path& option, const char* env_var,
                         const std::filesystem::path& build_path) {
  HelperSearch s;
  auto usable = [&](const std::filesystem::path& p) {
    if (p.empty()) return false;
    s.looked_at += (s.looked_at.empty() ? "" : ", ") + p.string();
    if (access(p.c_str(), X_OK) != 0) return false;
    s.found = p;
    return true;
  };
  const char* env = std::getenv(env_var);
  if (!option.empty()) {
    usable(option);
  } else if (env && *env) {
    usable(env);
  } else if (const std::filesystem::path here = executable_dir(); here.empty() || !usable(here / name)) {
    usable(build_path);
  }
  return s;
}

}  // namespace bs::toolchain
