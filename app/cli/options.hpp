// The command line: window mode, headless mode and the bench. Every flag maps onto AppState
// (see state/app_state.hpp), so a headless screenshot can show any state the window can. Flags
// that only one lab reads (--matmul-size, ...) come from that lab's catalog entry as
// ExtraOptions; the parser checks them with the lab's own check and keeps their values.
//
// The order of flags never matters: the kernel and the configuration asked for are applied when
// the lab opens, the kernel first.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "state/app_state.hpp"

namespace bs::app {

enum class BackendChoice { Auto, Cuda, Cpu };

// Exit codes, documented in --help.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,    // a run failed: an image did not load, a launch was refused, failed or wrong
  kExitUsage = 2,      // bad command line
  kExitNoDisplay = 3,  // window mode with no display: use --headless
  kExitNoBackend = 4,  // --backend cuda without a usable CUDA device
};

// A flag one lab reads (its catalog entry lists them).
struct ExtraOption {
  std::string flag;                                       // "--matmul-size"
  std::string value_name;                                 // "MxNxK"
  std::string help;                                       // one line for --help
  std::function<Status(const std::string& value)> check;  // refuses a bad value with the reason
};

// The labs the command line knows: ids for --lab and bench, and their extra flags.
struct LabFlags {
  std::string id;     // "gray"
  std::string title;  // "Grayscale"
  std::vector<ExtraOption> options;
};

// `blockscope bench` and `blockscope sweep` share their flags; `sweep` marks the second.
struct BenchOptions {
  std::string lab;                   // a lab id
  std::vector<std::string> sizes;    // in the lab's size syntax; empty: the lab's defaults
  std::vector<Dim3> blocks;          // free-blockDim kernels; empty: each kernel's presets
  std::vector<std::string> kernels;  // empty (or "all"): every kernel of the lab
  int repeats = 20;
  int warmup = 3;
  bool flush_l2 = true;
  std::string json_path;  // empty: JSON to stdout after the table
  std::string csv_path;
  bool counters = false;  // --counters: each result gains its hardware counters
  bool lines = false;     // --lines: each result gains its stall samples per line
  // `blockscope sweep` only (lab/sweep.hpp).
  bool sweep = false;
  std::string block_list = "all";  // --blocks all|LIST (free-blockDim kernels)
  bool repeats_given = false;      // --repeats N: at least N timed repeats per point
  bool warmup_given = false;
  double point_budget_ms = 0;  // --point-budget MS; 0: the backend's default
  double target_ci = 0;        // --target-ci F; 0: the backend's default (1%)
};

struct CliOptions {
  bool help = false;
  bool version = false;
  bool headless = false;
  int frames = 3;
  int width = 1600, height = 1000;
  BackendChoice backend = BackendChoice::Auto;
  int cuda_device = -1;             // -1: the one driving the GL context
  std::vector<std::string> images;  // first one shown; more are loaded in order
  std::string screenshot_path;
  std::string output_path;  // the lab's result as a PNG (--output, or --gray-out)
  std::string schedule_json_path;
  std::string status_file_path;       // --status-file: the app's state as JSON, for scripts
  bool profile = false;               // --profile: profile the first launch (Measured tab)
  bool source_tab = false;            // --source: show the centre's Source tab
  int source_line = 0;                // --source-line N: and select line N of the kernel's source
  bool profile_lines = false;         // --profile-lines: sample the first launch's stalls per line
  std::optional<Dim3> compare_block;  // --compare-block B: then the same with blockDim B, both pinned
  std::string cupti_library;          // --cupti FILE: this libcupti (empty: search)
  std::string config_dir;             // --config-dir: where settings live (state/user_settings.hpp)
  bool sweep = false;                 // window and --headless: run a sweep once the lab is open
  std::string json_path, csv_path;    // --headless: export the sweep (or the launch) there
  std::string kernel_file;            // --kernel-file: a user kernel (.cu) to compile, run, verify
  double kernel_time_limit_s = 2.0;   // --kernel-time-limit: user kernels' launches stop after this
  std::optional<BenchOptions> bench;
  // --set KEY=V[,V...], in order: the window takes one value (also in state.lab_settings);
  // bench runs every combination.
  std::vector<std::pair<std::string, std::vector<std::string>>> settings;
  AppState state;
};

// Parses argv; a Status explains the first bad argument. `labs`: the catalog's ids and flags.
Result<CliOptions> parse_command_line(const std::vector<std::string>& args, const std::vector<LabFlags>& labs);
std::string help_text(const std::vector<LabFlags>& labs);
// The help of `blockscope bench` (sweep: `blockscope sweep`) alone: `bench gray --help`.
std::string command_help_text(bool sweep, const std::vector<LabFlags>& labs);

Result<Dim3> parse_block(const std::string& text);      // "256", "16x16", "8x8x4"
Result<PixelPos> parse_pixel(const std::string& text);  // "X,Y"

}  // namespace bs::app
