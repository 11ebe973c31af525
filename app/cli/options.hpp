// The command line: window mode, headless mode and the benchmarks. Every flag maps onto AppState
// (see state/app_state.hpp), so a headless screenshot can show any state the window can.
#pragma once
#include <array>
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
  kExitFailure = 1,       // a run failed: an image did not load, a screenshot was not written
  kExitUsage = 2,         // bad command line
  kExitNoDisplay = 3,     // window mode with no display: use --headless
  kExitNoBackend = 4,     // --backend cuda without a usable CUDA device
};

struct BenchOptions {
  std::string what;                      // "gray" or "matmul"
  std::vector<std::pair<int, int>> gray_sizes;            // WxH
  std::vector<std::array<int, 3>> matmul_sizes;           // MxNxK
  std::vector<Dim3> blocks;
  std::vector<std::string> kernels;      // empty: all
  int repeats = 20;
  int warmup = 3;
  std::string json_path;                 // empty: JSON to stdout after the table
};

// `blockscope soak`: thousands of relaunches through the headless app (shell/soak_mode.hpp).
struct SoakOptions {
  int launches = 3000;
  double seconds = 0;                    // > 0: stop earlier once this much time has passed
  std::optional<unsigned long long> seed;  // none: a fresh one, printed for reproduction
  long long leak_bytes_per_launch = 0;   // testing: hold this much more memory per launch
};

struct CliOptions {
  bool help = false;
  bool version = false;
  bool headless = false;
  int frames = 3;
  int width = 1600, height = 1000;
  BackendChoice backend = BackendChoice::Auto;
  int cuda_device = -1;                  // -1: the one driving the GL context
  std::vector<std::string> images;       // first one shown; more are loaded in order
  std::string screenshot_path;
  std::string gray_out_path;
  std::string schedule_json_path;
  std::string status_file_path;          // --status-file: the app's state as JSON, for scripts
  std::optional<BenchOptions> bench;
  std::optional<SoakOptions> soak;
  int inject_fault_at_frame = -1;        // testing: make the GPU fault at this frame
  AppState state;
};

// Parses argv; a Status explains the first bad argument.
Result<CliOptions> parse_command_line(const std::vector<std::string>& args);
std::string help_text();

Result<Dim3> parse_block(const std::string& text);          // "256", "16x16", "8x8x4"
Result<PixelPos> parse_pixel(const std::string& text);      // "X,Y"

}  // namespace bs::app
