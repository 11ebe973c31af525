// The matmul lab inside the app: generated A and B, the kernel ladder run on the CUDA lab or the
// CPU grid simulator, every run verified, timings against cuBLAS and the FP32 peak, and the
// matrices as heatmaps in GL textures (filled by CUDA through interop on the GPU).
//
// The App creates one the first time the Matmul lab opens and calls, every frame while the lab
// is shown: update() (rebuilds matrices or reruns the kernel when AppState::matmul changed, or
// continuously), then draw_controls(), draw_view() and draw_side_panel(), which hand this
// session (read-only) and the AppState to the panels in ui/matmul_*.cpp. The UI never calls
// CUDA: everything GPU goes through kernels/matmul (CudaMatmulLab, fill_heatmap_device).
//
// Section index of matmul_session.cpp:
//   1. creation (heatmap renderer, CUDA lab, defaults, colour-bar legends)
//   2. the matrices (sizes refused before anything is allocated, reference, ranges)
//   3. the configuration (what the state names, and check_matmul_config's verdict)
//   4. running, verifying, timing
//   5. heatmaps (CUDA through interop, or the host)
//   6. headless summary
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/launch_record.hpp"
#include "gfx/gl_objects.hpp"
#include "gfx/heatmap.hpp"
#include "gfx/interop.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "shell/compute_session.hpp"
#include "shell/timing_history.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"

namespace bs::matmul {
class CudaMatmulLab;
}

namespace bs::app {

class MatmulSession {
 public:
  // The heatmaps shown in the view.
  enum Map { MapA, MapB, MapC, MapError, kMapCount };

  struct Heatmap {
    GlTexture codes;    // R8, one heatmap code per texel (kernels/labs/matmul/matmul_heatmap.hpp)
    GlTexture colours;  // RGBA8, the codes through shaders/heatmap.frag; what ImGui shows
    std::optional<InteropPixelBuffer> pixels;  // CUDA backend: CUDA writes the codes here
    std::vector<std::uint8_t> host;            // CPU backend and the host-copy fallback
    int width = 0, height = 0;
    bool valid = false;  // holds the current data
    bool linear = false; // texture filter now set (minified views use linear)
  };

  struct Matrices {
    int M = 0, N = 0, K = 0;
    matmul::Pattern pattern_a = matmul::Pattern::Uniform, pattern_b = matmul::Pattern::Uniform;
    std::uint64_t seed = 1;
    bool ready = false;
    Status status;          // why there are no matrices (size refused, memory)
    float range_a = 1, range_b = 1, range_c = 1;  // +- of the value colour maps
    double error_lo = 0, error_hi = 0;            // the error map's log range
    double reference_ms = 0;                      // CPU reference or cuBLAS (median)
  };

  struct Choice {
    matmul::MatmulKernel kernel = matmul::MatmulKernel::Naive;
    matmul::MatmulConfig config;
    matmul::MatmulGeometry geometry;
    LaunchConfig launch;    // matmul_launch_config: the grid and block it launches with
    Status status;          // check_matmul_config's verdict for these sizes and this device
  };

  // One configuration tried this session, for the ladder table.
  struct ResultRow {
    std::string kernel, config, size;
    double median_ms = 0, gflops = 0;
    bool verified = false, passed = false;
    double max_rel = 0;
    std::size_t mismatches = 0;
    std::size_t runs = 0;
  };

  // The GL context must be current. Fails when the heatmap shaders do not build or (CUDA
  // backend) the CUDA matmul lab cannot start.
  static Result<std::unique_ptr<MatmulSession>> create(ComputeSession& compute, AppState& state,
                                                       MessageLog& messages);
  ~MatmulSession();
  MatmulSession(const MatmulSession&) = delete;
  MatmulSession& operator=(const MatmulSession&) = delete;

  void update();
  void draw_controls();
  void draw_view();
  void draw_side_panel();

  // Headless output.
  std::string interop_mode() const;
  // "matmul: k7_warptile BM=... on 512x512x512: grid (..) block (..) 1.2 ms (timer) 220 GFLOP/s,
  //  91% of cuBLAS; verified: PASS ..." or why there is no such line.
  std::string summary_line() const;
  // The last attempt ran and its result passed verification.
  bool last_run_verified() const;
  // A sticky CUDA error from the last run (the context is unusable): the App moves to the CPU.
  std::optional<Status> take_device_fault() { return std::exchange(device_fault_, std::nullopt); }

  // ---- read by the panels ----
  BackendKind backend() const { return compute_.kind; }
  const DeviceLimits& limits() const { return compute_.limits; }
  const std::string& device_label() const { return compute_.label; }
  const Matrices& matrices() const { return matrices_; }
  const Choice& choice() const { return choice_; }
  const LaunchRecord& last_launch() const { return last_; }
  const LaunchRecord& last_good_launch() const { return last_good_; }
  const matmul::Verification& verification() const { return verification_; }
  bool has_verification() const { return has_verification_; }
  const TimingHistory& history() const { return history_; }  // this configuration
  // GFLOP/s of every verified run, per kernel id, across configuration edits.
  const std::map<std::string, std::deque<double>>& gflops_history() const { return gflops_by_kernel_; }
  const std::vector<ResultRow>& results() const { return results_; }
  double cublas_ms() const { return cublas_ms_; }
  const std::string& cublas_note() const { return cublas_note_; }
  double peak_gflops() const { return peak_gflops_; }
  const std::string& peak_note() const { return peak_note_; }
  const Heatmap& heatmap(Map m) const { return maps_[m]; }
  GLuint legend_texture(HeatmapColourMap map) const {
    return map == HeatmapColourMap::Values ? legend_values_.id() : legend_errors_.id();
  }
  const std::vector<BlockTrace>& schedule() const { return schedule_; }
  bool schedule_simulated() const { return schedule_simulated_; }
  bool paused_slow() const { return paused_slow_; }
  double last_pipeline_ms() const { return last_pipeline_ms_; }
  // The element of C the views inspect: the mouse, else the pinned one, else --hover; inside C.
  std::optional<PixelPos> inspected() const;
  // The value of C, the reference and the inputs' norms are on the host only on the CPU
  // backend (the GPU keeps C on the device); nullopt where unknown.
  std::optional<float> c_value(int row, int col) const;
  std::optional<float> reference_value(int row, int col) const;
  std::optional<float> a_value(int row, int col) const;
  std::optional<float> b_value(int row, int col) const;

  // Filters of the displayed textures follow the on-screen scale (crisp when magnified).
  void set_display_filter(Map m, bool linear);

 private:
  MatmulSession(ComputeSession& compute, AppState& state, MessageLog& messages);

  struct MatrixKey {
    int M = -1, N = -1, K = -1;
    std::string pattern_a, pattern_b;
    std::uint64_t seed = 0;
    friend bool operator==(const MatrixKey&, const MatrixKey&) = default;
  };

  void apply_defaults();
  void build_matrices(const MatrixKey& key);
  void resolve_choice();
  void run();
  void record_result(const LaunchRecord& rec, double pipeline_ms);
  Status ensure_heatmap(Map m, int rows, int cols);
  Status fill_heatmap(Map m, const float* host, const float* host_ref, const float* device,
                      const float* device_ref, const matmul::HeatmapSpec& spec);
  Status refresh_input_heatmaps();
  Status refresh_output_heatmaps();
  Status build_legends();

  ComputeSession& compute_;
  AppState& state_;
  MessageLog& messages_;
  std::optional<HeatmapRenderer> colours_;
  std::unique_ptr<matmul::CudaMatmulLab> lab_;  // CUDA backend only

  MatrixKey built_;
  Matrices matrices_;
  std::vector<float> a_, b_, c_, reference_;  // host copies (c_ on the CPU backend only)
  matmul::ErrorScale scale_;

  Choice choice_;
  std::string choice_key_;
  bool dirty_ = true;
  bool verified_for_choice_ = false;
  bool paused_slow_ = false;
  std::chrono::steady_clock::time_point last_verify_;

  LaunchRecord last_, last_good_;
  matmul::Verification verification_;
  bool has_verification_ = false;
  TimingHistory history_;
  std::map<std::string, std::deque<double>> gflops_by_kernel_;
  std::vector<ResultRow> results_;
  double last_pipeline_ms_ = 0;
  std::vector<BlockTrace> schedule_;
  bool schedule_simulated_ = false;

  double cublas_ms_ = 0;
  std::string cublas_note_;
  double peak_gflops_ = 0;
  std::string peak_note_;

  Heatmap maps_[kMapCount];
  GlTexture legend_values_, legend_errors_;
  std::optional<PixelPos> mouse_element_;
  std::optional<Status> device_fault_;
};

}  // namespace bs::app
