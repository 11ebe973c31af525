// blockscope as a child process in a window, for the tests that drive the real window from
// outside (tests/app/test_xdnd_drop.cpp, test_window_input.cpp): started in a folder of its
// own (its working directory and XDG_CONFIG_HOME, so the user's own settings are neither read
// nor written), output to that folder's app.log.
//
// The including test defines BLOCKSCOPE_EXE (app_runner.hpp).
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "app_runner.hpp"

extern char** environ;

namespace bs::app::test {

class AppProcess {
 public:
  using Clock = std::chrono::steady_clock;
  // Starts `blockscope args...` in `dir` (its working directory and XDG_CONFIG_HOME, so the
  // user's own settings are neither read nor written), output to dir/app.log.
  bool start(const std::filesystem::path& dir, const std::vector<std::string>& args) {
    log_ = dir / "app.log";
    ended_ = false;  // this object may start the app again after it ended
    status_ = 0;
    const std::string exe = executable();
    std::vector<std::string> argv_s{exe};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "XDG_CONFIG_HOME=", 16) != 0 && std::strncmp(*e, "BLOCKSCOPE_CONFIG_DIR=", 22) != 0)
        env_s.emplace_back(*e);
    env_s.push_back("XDG_CONFIG_HOME=" + (dir / "config").string());
    std::vector<char*> argv, envp;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string dir_s = dir.string(), log_s = log_.string();
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      const int fd = ::open(log_s.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      if (::chdir(dir_s.c_str()) != 0) ::_exit(126);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    return true;
  }

  pid_t pid() const { return pid_; }

  // Still running (reaps it if it ended; exit_code() then says how).
  bool alive() {
    if (pid_ <= 0 || ended_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      ended_ = true;
      status_ = status;
      return false;
    }
    return true;
  }

  // Waits for the process to end; false at the deadline.
  bool wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (alive()) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  std::string how_it_ended() const {
    if (!ended_) return "still running";
    if (WIFEXITED(status_)) return "exited with code " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_)) return std::string("killed by signal ") + strsignal(WTERMSIG(status_));
    return "ended";
  }
  int exit_code() const { return ended_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }

  void signal(int sig) {
    if (pid_ > 0 && !ended_) ::kill(pid_, sig);
  }

  // Waits until the kernel reports the process stopped (SIGSTOP delivered), up to 5 s.
  bool wait_stopped() {
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < deadline) {
      std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      const auto paren = text.rfind(')');
      if (paren != std::string::npos && paren + 2 < text.size() && (text[paren + 2] == 'T' || text[paren + 2] == 't'))
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  std::string log() const {
    std::ifstream in(log_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  void kill_if_running() {
    if (alive()) {
      ::kill(pid_, SIGCONT);
      ::kill(pid_, SIGKILL);
      wait_exit(std::chrono::milliseconds(5000));
    }
  }

 private:
  pid_t pid_ = -1;
  bool ended_ = false;
  int status_ = 0;
  std::filesystem::path log_;
};

}  // namespace bs::app::test
