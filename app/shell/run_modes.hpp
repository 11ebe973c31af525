// The ways blockscope runs: a desktop window, headless (EGL, offscreen), and the bench and the
// sweep commands (no GL at all). main() parses the command line and calls one of these with the
// catalog of labs; each returns a process exit code (cli/options.hpp documents them).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cli/options.hpp"
#include "lab/bench.hpp"
#include "labs/lab_view.hpp"
#include "shell/compute_session.hpp"

namespace bs::app {
// The catalog as the command line sees it: ids, titles and each lab's own flags.
std::vector<LabFlags> lab_flags(const LabCatalog& catalog);

int run_window(const CliOptions& options, LabCatalog catalog);
int run_headless(const CliOptions& options, LabCatalog catalog);
int run_bench(const CliOptions& options, const LabCatalog& catalog);
// `blockscope sweep LAB`: sweep_mode.cpp.
int run_sweep_command(const CliOptions& options, const LabCatalog& catalog);

// What the bench and sweep commands start from: the lab they name on the backend asked for, with
// --kernel-file's kernel installed among its kernels. The lab goes before its session.
struct CommandLab {
  ComputeSession session;
  std::unique_ptr<lab::Lab> lab;
};
// The lab, or the exit code to return (the problem already printed).
std::variant<CommandLab, int> open_command_lab(const CliOptions& options, const LabCatalog& catalog);
// --kernel names a kernel of at least one of the setting combinations the command runs (the
// tensor-core rungs are kernels of `--set precision=bf16` only): 0, or kExitUsage with the
// kernels of every combination listed. `unknown_in(lab)` lists the names the lab, as its settings
// are now, does not have. The lab's settings are left as the last combination set them.
int check_kernels_named(lab::Lab& lab, const std::string& lab_id, const std::vector<lab::SettingCombo>& combos,
                        const std::function<std::vector<std::string>(const lab::Lab&)>& unknown_in);
// The ceilings of `from` that `into` does not list yet (the same name for the same problem) join it.
void add_new_ceilings(std::vector<lab::Ceiling>& into, const std::vector<lab::Ceiling>& from);
// A refusal on stderr: "blockscope: WHAT: message", then its call and code, then its hint.
void print_status(const char* what, const Status& s);
}  // namespace bs::app
