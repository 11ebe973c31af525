// The matmul lab's view: generated A and B (sizes, patterns, seed), and A, B, C and |C - ref| as
// heatmaps laid out like the product, with pan and zoom, the launch's block tiles over C, the
// hovered element's block tile, the A and B panels it reads, the thread that stores it (its
// outputs, its warp tile), the shared-memory phase, and the Memory tab (the element's warp in the
// coalesced and the uncoalesced naive mappings). On the GPU the heatmaps are written by CUDA
// straight into GL buffers (interop); on the CPU they are uploaded from the host.
//
// Section index of matmul_view.cpp (drawing the data view is matmul_view_draw.cpp):
//   1. creation, moving to another backend
//   2. the matrices (what the state names, generated when it changes)
//   3. launching and the heatmaps
//   4. the left panel (matrices, view options) and the memory tab (its shared-memory banks:
//      matmul_view_banks.cpp)
#pragma once
#include <imgui.h>

#include <array>
#include <cstdint>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gfx/gl_objects.hpp"
#include "gfx/heatmap.hpp"
#include "gfx/interop.hpp"
#include "labs/lab_view.hpp"
#include "labs/matmul/matmul_fragments.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_tiles.hpp"

namespace bs::app {

// What the user chose about the matrices and the view, as plain data (the command line fills it
// through the lab's options).
struct MatmulViewState {
  int M = 0, N = 0, K = 0;  // 0: the backend's default shape
  std::string pattern_a = "uniform", pattern_b = "uniform";
  std::uint64_t seed = 1;  // A from seed, B from seed + 1
  int phase = 0;           // the K tile the shared-memory view shows
  int k_step = 0;          // tensor-core rungs: the mma k-step (of 16) inside that K tile
  // Tensor-core rungs: "model" draws the PTX ISA layouts alone; "record" also runs the rung's
  // tagged variant once per launch shown (a worker thread) and draws the record beside the model;
  // --matmul-fragments.
  std::string fragments = "model";
  bool block_lines = true;  // block tile boundaries over C and |C - reference|
  int bank_request = 0;     // the shared-memory request the bank view shows (program order)
  // Colour C's block tiles by what ran them: "none", "block", "cluster" (the block's thread block
  // cluster) or "sm" (the SM a traced launch recorded); or C's elements by who holds them:
  // "warpgroup", "warp", "lane" or "mma" (the instruction tile); --matmul-colour.
  std::string tile_colour = "none";
};

// The Memory tab's bank grid in `width` pixels: a label column, then banks of `cell` pixels with
// the lane numbers at `digits` pixels. 32 banks a row where that keeps the digits at 0.8 em or
// more, else two bands of 16 banks, one under the other (in a narrow panel 32 cells a row made
// the digits about 6 px tall).
struct BankGridLayout {
  unsigned per_band = 32;
  float label_w = 0, cell = 0, digits = 0;
};
BankGridLayout bank_grid_layout(float width, float em, bool phases);

class MatmulView final : public LabView {
 public:
  enum Map { MapA, MapB, MapC, MapError, kMapCount };

  static Result<std::unique_ptr<LabView>> create(std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                                 ViewContext& ctx);
  ~MatmulView() override;

  lab::Lab& lab() override { return *stack_; }
  const lab::Lab& lab() const override { return *stack_; }
  Status set_lab(std::unique_ptr<lab::Lab> lab, ViewContext& ctx) override;
  bool update(ViewContext& ctx) override;
  LaunchRecord launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                      ViewContext& ctx) override;
  void draw_problem(ViewContext& ctx, ViewRequests& requests) override;
  void draw_view_options(ViewContext& ctx, ViewRequests& requests) override;
  void draw_data(const LaunchRecord& shown, bool selection_ran, ViewContext& ctx, ViewRequests& requests) override;
  // Its tabs: Memory (the inspected warp's requests, its bank recording made on a worker) and
  // Pipeline (a warp-specialized launch's recorded hand-overs, matmul_view_pipeline.cpp).
  std::vector<Tab> tabs() override;
  void draw_memory(const LaunchRecord& shown);
  void draw_pipeline(const LaunchRecord& shown);
  bool data_pending() const override { return fragment_job_.valid(); }  // the fragments' recording
  std::optional<PixelPos> draw_record(const LaunchRecord& record, int slot, ImVec2 size,
                                      std::optional<PixelPos> inspect, ViewContext& ctx) override;
  std::optional<PixelPos> inspected() const override;

  // This frame's draw records of the tensor-core operands (the hover reads them, tests too): the
  // A and B cells marked for the inspected element's lane, each with its element of the lane's
  // fragment (A: 0..7 in a0..a3, B: 0..3 in b0..b1, two a register), and the note beside B.
  struct FedMark {
    ImVec2 p0, p1;  // on screen
    bool a_side = true;
    int element = 0;
    long long row = 0, col = 0;  // in A (M x K) or B (K x N)
    unsigned lane = 0;
  };
  const std::vector<FedMark>& fed_marks() const { return fed_marks_; }
  const std::optional<std::pair<ImVec2, ImVec2>>& fed_note() const { return fed_note_; }
  ViewState& view_state() override { return view_; }
  void zoom_by(float factor) override;
  bool show_result(const LaunchRecord& record, const std::vector<std::uint8_t>& output, ViewContext& ctx) override;
  std::map<std::string, std::string> option_values() const override;
  void reset_options() override { state_ = MatmulViewState{}; }
  Status write_output_png(const std::filesystem::path& path) override;
  std::vector<std::uint8_t> read_output(int* width, int* height) override;
  std::string interop_mode() const override;

  // The options only this lab reads (--matmul-size, ...), for the catalog.
  static std::vector<LabOption> options();

 private:
  struct Heatmap {
    GlTexture codes;    // R8, one heatmap code per texel (kernels/labs/matmul/matmul_heatmap.hpp)
    GlTexture colours;  // RGBA8, the codes through shaders/heatmap.frag; what ImGui shows
    std::optional<InteropPixelBuffer> pixels;  // CUDA backend: CUDA writes the codes here
    std::vector<std::uint8_t> host;            // CPU backend and the host-copy fallback
    int width = 0, height = 0;
    bool valid = false;   // holds the current data
    bool linear = false;  // texture filter now set (minified views use linear)
  };
  struct Ranges {
    float a = 1, b = 1, c = 1;          // +- of the value colour maps
    double error_lo = 0, error_hi = 0;  // the error map's log range
  };

  MatmulView() = default;
  matmul::MatrixSpec wanted_spec() const;
  void build_matrices(const matmul::MatrixSpec& spec, ViewContext& ctx);
  Status ensure_heatmap(Map m, int rows, int cols, ViewContext& ctx);
  Status fill_heatmap(Map m, const float* host, const float* host_ref, const float* device, const float* device_ref,
                      const matmul::HeatmapSpec& spec, ViewContext& ctx);
  Status refresh_input_heatmaps(ViewContext& ctx);
  Status refresh_output_heatmaps(ViewContext& ctx);
  Status build_legends();
  void set_display_filter(Map m, bool linear);
  std::optional<float> c_value(long long row, long long col) const;
  // The C tile geometry of a launch: the ladder's own, or for a user kernel the one its record's
  // mapping implies (2D: one element per thread); nullopt when neither says.
  std::optional<matmul::MatmulGeometry> geometry_of(const LaunchRecord& shown) const;
  // matmul_view_draw.cpp
  void draw_heatmaps(const LaunchRecord& shown, bool selection_ran);
  void draw_toolbar(const LaunchRecord& shown);
  void draw_legend(ImDrawList* dl, ImVec2 p0, float em);
  // The block tiles of C coloured by state_.tile_colour, and the line saying where the colours
  // come from (matmul_view_draw.cpp).
  void draw_tile_colours(ImDrawList* dl, const LaunchRecord& shown, ImVec2 c0, ImVec2 c1);
  void draw_inspector_text(const LaunchRecord& shown, long long row, long long col, bool pinned);
  // matmul_view_fragments.cpp: the tensor-core hierarchy (hover lines, fed fragments, colours by
  // warpgroup, warp, lane or mma tile), from the model with the record beside it.
  struct RecordedFragment {
    unsigned thread = 0;  // linear thread in the block
    int reg = -1;
    std::string where;  // "on the GPU", "by the simulator"
  };
  bool fragment_colouring() const;
  bool layout_only(const LaunchRecord& shown) const;
  int shown_k_step(const matmul::MatmulGeometry& g) const;
  std::optional<matmul::FragmentHierarchy> hierarchy_of(const LaunchRecord& shown, long long row, long long col) const;
  std::optional<RecordedFragment> recorded_fragment(const LaunchRecord& shown, long long row, long long col) const;
  // T2 with "record" on: what the record says the lane holding `h`'s element fed into its
  // instruction (ldmatrix), beside the model's `model`; null where there is no operand record.
  std::optional<matmul::RecordedFeed> recorded_operands(const LaunchRecord& shown, const matmul::FragmentHierarchy& h,
                                                        const matmul::FedOperands& model, bool* on_gpu) const;
  bool draw_fragment_text(const LaunchRecord& shown, long long row, long long col);
  void draw_fed_fragments(ImDrawList* dl, const LaunchRecord& shown, long long row, long long col, ImVec2 a0, ImVec2 a1,
                          ImVec2 b0, ImVec2 b1, ImVec2 c0, ImVec2 c1);
  void draw_fragment_colours(ImDrawList* dl, const LaunchRecord& shown, ImVec2 c0, ImVec2 c1);
  // The tagged launch of the launch shown (state_.fragments == "record"): started on a worker
  // thread, polled each frame; the record and its comparison with the model once done.
  struct FragmentResult {
    std::shared_ptr<const matmul::FragmentRecord> record;
    matmul::FragmentComparison comparison;
    Status status;
  };
  std::string fragment_key(const LaunchRecord& shown) const;
  void poll_fragment_record(const LaunchRecord& shown);
  const FragmentResult* fragment_result(const LaunchRecord& shown) const;
  void wait_fragment_job();
  void note_view_cost(double ms);
  void report_view_cost() const;
  // matmul_view_banks.cpp: the Memory tab's shared-memory banks
  void draw_banks(const LaunchRecord& shown, Dim3 block, unsigned warp);
  void draw_swizzle_maps(const matmul::SwizzleMap& map);
  // The request selector and the banks x wavefronts grid of banks_.recorded (with the model where
  // there is one); false when there is nothing to draw.
  bool draw_bank_requests(bool with_model);
  void draw_user_banks(const LaunchRecord& shown, Dim3 block, unsigned warp);
  struct BankCache {
    std::string key;  // launch, block, warp, problem: what the requests below belong to
    Status status;    // why there is no recording
    std::vector<SharedRequest> recorded, modelled, unswizzled;
    std::string note;  // user kernels: how it was recorded, the __shared__ arrays
    // The built-in rungs' recording, running on a worker (MatmulLab::shared_replay_job) until
    // `recorded` is filled; `since` when it started.
    std::future<Result<std::vector<SharedRequest>>> job;
    std::chrono::steady_clock::time_point since;
  };
  static constexpr unsigned kBankRequestsRecorded = 4096;
  // Recordings started for a block or warp no longer shown: kept until they finish (a future of
  // std::async would otherwise wait for its job in its destructor, on the UI thread).
  std::vector<std::future<Result<std::vector<SharedRequest>>>> abandoned_bank_jobs_;
  void take_bank_job(bool wait_briefly);

  std::unique_ptr<lab::Lab> stack_;   // the lab as the shell sees it (possibly wrapped)
  matmul::MatmulLab* lab_ = nullptr;  // the matmul lab inside it: matrices, reference, geometry
  MatmulViewState state_;
  ViewState view_;
  matmul::MatrixSpec built_;
  bool built_once_ = false;
  Ranges ranges_;
  std::vector<float> c_host_;  // C on the host (CPU backend; the GPU keeps C on the device)
  bool have_output_ = false;
  bool output_passed_ = false;
  std::optional<HeatmapRenderer> colours_;
  Heatmap maps_[kMapCount];
  GlTexture legend_values_, legend_errors_;
  std::optional<PixelPos> mouse_element_;
  // Where this frame's note beside B went (the pinned card keeps clear of it): min and max.
  std::optional<std::pair<ImVec2, ImVec2>> fed_note_;
  std::vector<FedMark> fed_marks_;
  BankCache banks_;
  // The tile colours of the launch shown, kept while the launch and the choice stay the same.
  struct TileColours {
    std::string key;  // what they were computed for
    matmul::CTiles tiles;
    std::vector<std::uint64_t> keys;
    bool recorded = false;
    Status status;
  };
  TileColours tile_colours_;
  // The element colours of the launch shown: one block's keys and their repeating texture.
  struct FragmentColours {
    std::string key;
    matmul::FragmentKeys keys;
    GlTexture texture;
    Status status;
  };
  FragmentColours fragment_colours_;
  std::vector<double> view_costs_;  // the data view's CPU time per frame (ms)
  std::string fragment_job_key_, fragment_result_key_;
  std::future<FragmentResult> fragment_job_;
  std::optional<FragmentResult> fragment_result_;
  // The Pipeline tab (matmul_view_pipeline.cpp): a recording of the shown T4..T6 launch, or the
  // file --matmul-pipeline-trace names; and the time axis shown.
  struct PipelineCache {
    std::string key;  // what it was recorded for (launch and problem), or the file
    Status status;    // why there is none
    std::optional<matmul::PipelineRaw> raw;
    std::optional<matmul::PipelineAnalysis> analysis;
    std::optional<Check> check;                           // the recorded launch's verification (none for a file)
    std::optional<matmul::MatmulLab::PipelineCost> cost;  // traced against plain (none for a file)
    Status cost_status;                                   // why there is no cost
  };
  PipelineCache pipeline_;
  std::string pipeline_file_;
  double pipeline_t0_ = 0, pipeline_t1_ = 0;  // ns shown; t1 <= t0: the whole recording
  float pipeline_scroll_ = 0;
  std::string pipeline_key(const LaunchRecord& shown) const;
  void record_pipeline(const LaunchRecord& shown);
  void draw_pipeline_summary() const;
  void draw_pipeline_timeline();
  // The M N K fields being typed (draw_problem): applied together when the keyboard leaves them.
  std::array<int, 3> size_staged_{0, 0, 0};
  bool size_staging_ = false, size_edited_ = false, size_active_last_frame_ = false;
};

}  // namespace bs::app
