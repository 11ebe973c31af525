// Runs the blockscope executable the way a user or CI runs it and captures what it prints. Shared
// by the tests that drive the whole app (headless app, matmul lab headless, soak), so they all
// start it the same way and honour the same BLOCKSCOPE_EXE override.
//
// The including test defines BLOCKSCOPE_EXE (the build's path, target_compile_definitions).
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef BLOCKSCOPE_EXE
#error "define BLOCKSCOPE_EXE (the path of the blockscope executable) before including app_runner.hpp"
#endif

namespace bs::app::test {

struct RunResult {
  int exit_code = -1;  // -1 when the process could not be started or did not exit normally
  std::string output;  // stdout and stderr together
};

// Single quotes for the shell (paths in the tests never contain a quote themselves).
inline std::string quote(const std::string& s) { return "'" + s + "'"; }

// The executable under test; BLOCKSCOPE_EXE in the environment overrides the build's path (the
// GPU machine runs a bundled copy from another folder).
inline std::string executable() {
  const char* env = std::getenv("BLOCKSCOPE_EXE");
  return env && *env ? env : BLOCKSCOPE_EXE;
}

// Runs `program args` through the shell, optionally behind `env` (a command prefix such as
// "env -u DISPLAY"), and waits for it to exit.
inline RunResult run_program(const std::string& program, const std::string& args, const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : env + " ") + quote(program) + " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs blockscope itself (executable()).
inline RunResult run(const std::string& args, const std::string& env = "") {
  return run_program(executable(), args, env);
}

}  // namespace bs::app::test
