#include "labs/matmul/matmul_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "device/nvtx_range.hpp"
#include "lab/size_text.hpp"
#include "mapping/explain.hpp"
#include "platform/png.hpp"
#include "ui/layout.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

// Heatmap textures are at most this many texels a side: enough for a view a few hundred pixels
// wide, and 1 MiB per map at most.
constexpr int kHeatmapMaxSide = 1024;

// The CPU simulator's cost per multiply-add on a 2-core machine (the window, Xvfb), for the
// warning before a large preset: k1 (no barriers) took 23 ms at 256^3, about 1.4 ns per
// multiply-add; k3 (a barrier every 8 multiply-adds: every thread of a block is a fiber switched
// at each one) took about 50 s at 512^3, about 270 times more. The other tiled rungs do more
// work between barriers and fall in between (k7: 225 ms at 512^3).
constexpr double kSimNsPerMultiplyAdd = 1.5;
constexpr double kSimBarrierSlowdown = 270;

// A flag taking one whole number from 0 to `max`; `what` names it in the refusal.
LabOption number_option(const char* flag, const char* value_name, const char* help, long long max, const char* what) {
  return {flag, value_name, help, [=](const std::string& v) {
            if (lab::parse_dims(v, 1, 1, max)) return Status::success();
            return Status::failure(std::string(flag) + " takes " + what + ", not '" + v + "'");
          }};
}

std::string size_text(int M, int N, int K) {
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. creation
// ---------------------------------------------------------------------------------------------

std::vector<LabOption> MatmulView::options() {
  std::vector<LabOption> o;
  o.push_back({"--matmul-size", "MxNxK",
               "C (M x N) = A (M x K) * B (K x N); default 4096^3 on a GPU, 128^3 on the CPU "
               "simulation (which takes M*N*K <= 2^27)",
               [](const std::string& v) {
                 auto d = lab::parse_dims(v, 3, 3);
                 if (!d || (*d)[0] < 1 || (*d)[1] < 1 || (*d)[2] < 1)
                   return Status::failure(
                       "--matmul-size takes MxNxK, e.g. 512x512x512 (C is M x N, K "
                       "is the inner size), not '" +
                       v + "'");
                 return Status::success();
               }});
  o.push_back(
      {"--matmul-pattern", "P", "uniform, normal, small-integers, identity or structured", [](const std::string& v) {
         matmul::Pattern p;
         if (!matmul::pattern_from_string(v, p))
           return Status::failure(
               "--matmul-pattern takes uniform, normal, small-integers, "
               "identity or structured, not '" +
               v + "'");
         return Status::success();
       }});
  o.push_back(number_option("--matmul-seed", "S", "A from S, B from S + 1 (default 1)", 4'000'000'000LL,
                            "a non-negative integer"));
  o.push_back(number_option("--matmul-bank-request", "I",
                            "the shared-memory request the Memory tab's bank view shows (from 0, program order)",
                            100'000'000, "a request index from 0"));
  o.push_back(number_option("--matmul-phase", "P", "the shared-memory phase (K tile) to show", 1'000'000,
                            "a K-tile index from 0"));
  o.push_back({"--matmul-fragments", "F",
               "tensor-core rungs: model (the PTX ISA layouts) or record (also run the rung's tagged "
               "variant once and draw what the GPU or the simulator recorded beside the model)",
               [](const std::string& v) {
                 if (v == "model" || v == "record") return Status::success();
                 return Status::failure("--matmul-fragments takes model or record, not '" + v + "'");
               }});
  o.push_back({"--matmul-pipeline-trace", "FILE",
               "show the pipeline trace FILE in the Pipeline tab (written by a pipeline-traced launch: "
               "tests/matmul/test_pipeline_gpu with BS_PIPELINE_TRACE_DIR) instead of recording one",
               [](const std::string& v) {
                 if (v.empty()) return Status::failure("--matmul-pipeline-trace takes a file name");
                 return Status::success();
               }});
  o.push_back({"--matmul-colour", "C",
               "colour C's block tiles by: none, block, cluster (thread block cluster) or sm (the "
               "SM a traced launch recorded); or its elements by warpgroup, warp, lane or mma (the "
               "tensor-core instruction tile)",
               [](const std::string& v) {
                 for (const char* c : {"none", "block", "cluster", "sm", "warpgroup", "warp", "lane", "mma"})
                   if (v == c) return Status::success();
                 return Status::failure(
                     "--matmul-colour takes none, block, cluster, sm, warpgroup, warp, lane or mma, not '" + v + "'");
               }});
  return o;
}

Result<std::unique_ptr<LabView>> MatmulView::create(std::unique_ptr<lab::Lab> lab, const LabViewSetup& setup,
                                                    ViewContext&) {
  std::unique_ptr<MatmulView> v(new MatmulView());
  // The lab may be wrapped (the user's kernels added to it): the view draws the matmul lab
  // inside and runs everything through the whole stack.
  auto* mm = lab::layer<matmul::MatmulLab>(*lab);
  if (!mm) return Status::failure("the matmul view needs the matmul lab", "", "MatmulView::create");
  v->stack_ = std::move(lab);
  v->lab_ = mm;
  auto renderer = HeatmapRenderer::create();
  if (!renderer) return renderer.status();
  v->colours_.emplace(std::move(renderer.value()));
  if (Status l = v->build_legends(); !l) return l;
  v->view_ = setup.view;
  auto opt = [&](const char* flag) -> const std::string* {
    auto it = setup.options.find(flag);
    return it == setup.options.end() ? nullptr : &it->second;
  };
  if (const std::string* s = opt("--matmul-size")) {
    if (auto d = lab::parse_dims(*s, 3, 3)) {
      v->state_.M = static_cast<int>((*d)[0]);
      v->state_.N = static_cast<int>((*d)[1]);
      v->state_.K = static_cast<int>((*d)[2]);
    }
  }
  if (const std::string* s = opt("--matmul-pattern")) v->state_.pattern_a = v->state_.pattern_b = *s;
  if (const std::string* s = opt("--matmul-seed"))
    if (auto d = lab::parse_dims(*s, 1, 1, 4'000'000'000LL)) v->state_.seed = static_cast<std::uint64_t>((*d)[0]);
  if (const std::string* s = opt("--matmul-bank-request"))
    if (auto d = lab::parse_dims(*s, 1, 1, 100'000'000)) v->state_.bank_request = static_cast<int>((*d)[0]);
  if (const std::string* s = opt("--matmul-colour")) v->state_.tile_colour = *s;
  if (const std::string* s = opt("--matmul-fragments")) v->state_.fragments = *s;
  if (const std::string* s = opt("--matmul-pipeline-trace")) v->pipeline_file_ = *s;
  if (const std::string* s = opt("--matmul-phase"))
    if (auto d = lab::parse_dims(*s, 1, 1, 1'000'000)) v->state_.phase = static_cast<int>((*d)[0]);
  return std::unique_ptr<LabView>(std::move(v));
}

MatmulView::~MatmulView() {
  wait_fragment_job();  // it reads the lab
  report_view_cost();
}

Status MatmulView::set_lab(std::unique_ptr<lab::Lab> lab, ViewContext&) {
  auto* mm = lab::layer<matmul::MatmulLab>(*lab);
  if (!mm) return Status::failure("the matmul view needs the matmul lab", "", "MatmulView::set_lab");
  for (Heatmap& h : maps_) h = Heatmap{};  // their CUDA-registered buffers belong to the old backend
  wait_fragment_job();                     // a tagged launch reads the old lab
  fragment_result_.reset(), fragment_result_key_.clear();
  stack_ = std::move(lab);
  lab_ = mm;
  built_once_ = false;  // the next update() builds the matrices on the new backend
  have_output_ = false;
  return Status::success();
}

Status MatmulView::build_legends() {
  std::vector<std::uint8_t> codes(256);
  for (int i = 0; i < 256; ++i) codes[i] = static_cast<std::uint8_t>(i);
  auto tex = GlTexture::create_r8(256, 1, codes.data());
  if (!tex) return tex.status();
  if (Status s = colours_->colourize(tex.value(), HeatmapColourMap::Values, &legend_values_); !s) return s;
  if (Status s = colours_->colourize(tex.value(), HeatmapColourMap::Errors, &legend_errors_); !s) return s;
  legend_values_.set_filter(TextureFilter::Nearest);
  legend_errors_.set_filter(TextureFilter::Nearest);
  return Status::success();
}

std::string MatmulView::interop_mode() const {
  if (lab_->backend().kind == BackendKind::CpuSimulation) return "CPU simulation: heatmaps uploaded from the host";
  for (const Heatmap& h : maps_)
    if (h.pixels) return h.pixels->mode_description() + " for the matmul heatmaps";
  return "no heatmaps yet";
}

std::optional<PixelPos> MatmulView::inspected() const {
  std::optional<PixelPos> p = mouse_element_;
  if (!p) p = view_.pinned;
  if (!p) p = view_.hover;
  const auto& s = lab_->spec();
  if (!p || !lab_->ready() || p->x < 0 || p->y < 0 || p->x >= s.N || p->y >= s.M) return std::nullopt;
  return p;
}

std::optional<float> MatmulView::c_value(long long row, long long col) const {
  const auto& s = lab_->spec();
  const std::size_t i = static_cast<std::size_t>(row) * s.N + static_cast<std::size_t>(col);
  if (!have_output_ || i >= c_host_.size()) return std::nullopt;
  return c_host_[i];
}

std::optional<matmul::MatmulGeometry> MatmulView::geometry_of(const LaunchRecord& shown) const {
  if (const auto what = lab_->resolve(shown.kernel, shown.request))
    return matmul::matmul_geometry(what->first, what->second);
  // A user kernel (a lab wrapping this one): its record's mapping, one element per thread.
  matmul::MatmulGeometry g;
  if (shown.scheme.kind == IndexScheme::Kind::Grid2D) {
    g.block_rows = static_cast<int>(shown.config.block.y);
    g.block_cols = static_cast<int>(shown.config.block.x);
    return g;
  }
  if (shown.scheme.kind == IndexScheme::Kind::Grid2DTransposed) {
    g.block_rows = static_cast<int>(shown.config.block.x);
    g.block_cols = static_cast<int>(shown.config.block.y);
    g.x_walks_rows = true;
    return g;
  }
  return std::nullopt;
}

void MatmulView::set_display_filter(Map m, bool linear) {
  Heatmap& h = maps_[m];
  if (!h.colours || h.linear == linear) return;
  h.colours.set_filter(linear ? TextureFilter::Linear : TextureFilter::Nearest);
  h.linear = linear;
}

// ---------------------------------------------------------------------------------------------
// 2. the matrices
// ---------------------------------------------------------------------------------------------

matmul::MatrixSpec MatmulView::wanted_spec() const {
  matmul::MatrixSpec s;
  const bool gpu = lab_->backend().kind == BackendKind::Cuda;
  // The GPU starts where the ladder is interesting (cuBLAS-sized work); the simulator where
  // every rung answers within a frame or two.
  const int n = gpu ? 4096 : 128;
  s.M = state_.M > 0 ? state_.M : n;
  s.N = state_.N > 0 ? state_.N : n;
  s.K = state_.K > 0 ? state_.K : n;
  matmul::pattern_from_string(state_.pattern_a, s.a);
  matmul::pattern_from_string(state_.pattern_b, s.b);
  s.seed = state_.seed;
  return s;
}

bool MatmulView::update(ViewContext& ctx) {
  const matmul::MatrixSpec want = wanted_spec();
  if (built_once_ && want == built_) return false;
  // A size the lab would refuse (zero, too large for the simulator) is refused here, before the
  // matrices go: the matrices and the last launch that ran stay, as a bad image leaves the
  // grayscale lab's image and launch as they were.
  if (built_once_ && lab_->ready()) {
    Status s = matmul::check_matmul_sizes(want.M, want.N, want.K);
    const double mnk = static_cast<double>(want.M) * want.N * want.K;
    if (s && lab_->backend().kind == BackendKind::CpuSimulation &&
        mnk > static_cast<double>(matmul::kSimMaxMultiplyAdds))
      s = Status::failure(size_text(want.M, want.N, want.K) + " is above the CPU simulator's cap of 2^27 multiply-adds",
                          "stay at or below 512^3 (or 1024 x 1024 x 128, ...), or use the CUDA backend", "matmul size");
    if (!s) {
      ctx.messages.warn("Matmul: size refused: " + s.message + "; the " + size_text(built_.M, built_.N, built_.K) +
                            " matrices and their last launch stay",
                        s.hint);
      state_.M = built_.M, state_.N = built_.N, state_.K = built_.K;
      state_.pattern_a = matmul::to_string(built_.a), state_.pattern_b = matmul::to_string(built_.b);
      state_.seed = built_.seed;
      return false;
    }
  }
  build_matrices(want, ctx);
  return true;
}

void MatmulView::build_matrices(const matmul::MatrixSpec& spec, ViewContext& ctx) {
  built_ = spec;
  built_once_ = true;
  have_output_ = false;
  c_host_.clear();
  for (Heatmap& h : maps_) h.valid = false;
  if (Status s = lab_->set_matrices(spec); !s) {
    ctx.messages.warn("Matmul: " + s.message, s.hint);
    return;
  }
  const auto& a = lab_->a();
  const auto& b = lab_->b();
  const auto& ref = lab_->reference();
  ranges_.a = matmul::symmetric_range(a.data(), a.size());
  ranges_.b = matmul::symmetric_range(b.data(), b.size());
  ranges_.c = matmul::symmetric_range(ref.data(), ref.size());
  // The error map spans four decades up to the largest per-element tolerance verify() allows.
  double a_max = 0, b_max = 0;
  for (double v : lab_->error_scale().a_row_norms) a_max = std::max(a_max, v);
  for (double v : lab_->error_scale().b_col_norms) b_max = std::max(b_max, v);
  ranges_.error_hi = std::max(
      1e-30, matmul::kToleranceFactor * std::sqrt(static_cast<double>(spec.K)) * std::ldexp(1.0, -24) * a_max * b_max);
  ranges_.error_lo = ranges_.error_hi * 1e-4;
  if (Status s = refresh_input_heatmaps(ctx); !s) ctx.messages.error(s);
  ctx.messages.info("Matmul: generated A (" + std::to_string(spec.M) + " x " + std::to_string(spec.K) + ", " +
                    matmul::to_string(spec.a) + ") and B (" + std::to_string(spec.K) + " x " + std::to_string(spec.N) +
                    ", " + matmul::to_string(spec.b) + "), seed " + std::to_string(spec.seed) +
                    "; reference: " + lab_->reference_note());
}

// ---------------------------------------------------------------------------------------------
// 3. launching and the heatmaps
// ---------------------------------------------------------------------------------------------

LaunchRecord MatmulView::launch(const std::string& kernel, const KernelConfig& config, const lab::RunOptions& options,
                                ViewContext& ctx) {
  lab::RunOptions opt = options;
  // On the GPU the heatmaps read C from the lab's own device buffer: say so, so a kernel of a
  // wrapping lab (the user's, whose result arrives from its own process) writes it there too.
  if (!opt.output && lab_->backend().kind == BackendKind::Cuda) opt.output = lab_->device_output();
  LaunchRecord rec;
  {
    NvtxRange range("launch " + kernel);  // blockscope's phases, named for Nsight Systems
    rec = stack_->run(kernel, config, opt);
  }
  if (!rec.ok() || !options.verify) return rec;
  // A verified run refreshes C and the error map (and, on the CPU, the host copy of C the
  // inspector reads).
  if (lab_->backend().kind == BackendKind::CpuSimulation) {
    c_host_.resize(lab_->output_bytes() / sizeof(float));
    if (Status s = stack_->download_output(c_host_.data()); !s) ctx.messages.error(s);
  }
  have_output_ = true;
  output_passed_ = rec.check.passed();
  NvtxRange range("heatmaps (map, draw, unmap)");
  if (Status s = refresh_output_heatmaps(ctx); !s) ctx.messages.error(s);
  return rec;
}

// A run a worker thread made on a fork of this lab (CPU simulation): C in host memory.
bool MatmulView::show_result(const LaunchRecord& rec, const std::vector<std::uint8_t>& output, ViewContext& ctx) {
  if (lab_->backend().kind != BackendKind::CpuSimulation || output.size() != lab_->output_bytes()) return false;
  if (!rec.check.passed() && !rec.check.failed()) return true;  // an unverified repeat: C is unchanged
  c_host_.resize(output.size() / sizeof(float));
  std::memcpy(c_host_.data(), output.data(), output.size());
  have_output_ = true;
  output_passed_ = rec.check.passed();
  if (Status s = refresh_output_heatmaps(ctx); !s) ctx.messages.error(s);
  return true;
}

void MatmulView::zoom_by(float factor) {
  if (view_.zoom <= 0) view_.center_x = view_.center_y = 0.5f;
  const float zoom = std::clamp(std::max(1.0f, view_.zoom) * factor, 1.0f, 64.0f);
  view_.zoom = zoom <= 1.0f ? 0 : zoom;
}

std::map<std::string, std::string> MatmulView::option_values() const {
  std::map<std::string, std::string> o;
  if (state_.M > 0 && state_.N > 0 && state_.K > 0) o["--matmul-size"] = size_text(state_.M, state_.N, state_.K);
  if (state_.pattern_a == state_.pattern_b) o["--matmul-pattern"] = state_.pattern_a;
  o["--matmul-seed"] = std::to_string(state_.seed);
  o["--matmul-colour"] = state_.tile_colour;
  o["--matmul-fragments"] = state_.fragments;
  return o;
}

Status MatmulView::ensure_heatmap(Map which, int rows, int cols, ViewContext& ctx) {
  Heatmap& h = maps_[which];
  const auto [w, ht] = matmul::heatmap_size(rows, cols, kHeatmapMaxSide);
  if (h.codes && h.width == w && h.height == ht) return Status::success();
  Heatmap next;
  auto codes = GlTexture::create_r8(w, ht);
  if (!codes) return codes.status();
  next.codes = std::move(codes.value());
  next.width = w, next.height = ht;
  if (lab_->backend().kind == BackendKind::Cuda) {
    auto pbo = InteropPixelBuffer::create(w, ht, 1);
    if (!pbo) return pbo.status();
    if (!pbo->interop_active() && which == MapA)
      ctx.messages.warn("Matmul heatmaps go through host memory: CUDA-GL interop is off",
                        pbo->registration_status().describe());
    next.pixels.emplace(std::move(pbo.value()));
  }
  next.host.assign(static_cast<std::size_t>(w) * ht, 0);
  h = std::move(next);
  return Status::success();
}

Status MatmulView::fill_heatmap(Map which, const float* host, const float* host_ref, const float* device,
                                const float* device_ref, const matmul::HeatmapSpec& wanted, ViewContext& ctx) {
  if (Status s = ensure_heatmap(which, wanted.rows, wanted.cols, ctx); !s) return s;
  Heatmap& h = maps_[which];
  matmul::HeatmapSpec spec = wanted;
  spec.out_w = h.width;
  spec.out_h = h.height;
  h.valid = false;
#if BLOCKSCOPE_HAS_CUDA
  if (device && h.pixels && h.pixels->interop_active()) {
    // Zero-copy: the kernel writes the codes into the GL buffer CUDA mapped for it.
    auto ptr = h.pixels->map();
    if (!ptr) return ptr.status();
    Status filled = matmul::fill_heatmap_device(device, device_ref, spec, static_cast<std::uint8_t*>(ptr.value()));
    Status unmapped = h.pixels->unmap();
    if (!filled) return filled;
    if (!unmapped) return unmapped;
    if (Status s = h.pixels->upload_to(h.codes); !s) return s;
  } else
#endif
  {
    (void)device, (void)device_ref;
    std::vector<float> downloaded;
    if (!host && lab_->backend().kind == BackendKind::Cuda && which >= MapC) {
      // The host-copy fallback: C comes back to the host for its heatmap.
      downloaded.resize(lab_->output_bytes() / sizeof(float));
      if (Status s = stack_->download_output(downloaded.data()); !s) return s;
      host = downloaded.data();
    }
    if (!host) return Status::failure("no host copy of the matrix for its heatmap", "", "fill_heatmap");
    if (Status s = matmul::fill_heatmap_host(host, host_ref, spec, h.host.data()); !s) return s;
    if (Status s = h.codes.upload(h.host.data()); !s) return s;
  }
  const HeatmapColourMap map = which == MapError ? HeatmapColourMap::Errors : HeatmapColourMap::Values;
  if (Status s = colours_->colourize(h.codes, map, &h.colours); !s) return s;
  h.linear = false;  // a new colour texture starts with nearest filtering
  h.valid = true;
  return Status::success();
}

Status MatmulView::refresh_input_heatmaps(ViewContext& ctx) {
  const auto& s = lab_->spec();
  matmul::HeatmapSpec a{s.M, s.K, 0, 0, matmul::HeatmapEncoding::Values, -ranges_.a, ranges_.a};
  if (Status st = fill_heatmap(MapA, lab_->a().data(), nullptr, lab_->device_a(), nullptr, a, ctx); !st) return st;
  matmul::HeatmapSpec b{s.K, s.N, 0, 0, matmul::HeatmapEncoding::Values, -ranges_.b, ranges_.b};
  return fill_heatmap(MapB, lab_->b().data(), nullptr, lab_->device_b(), nullptr, b, ctx);
}

Status MatmulView::refresh_output_heatmaps(ViewContext& ctx) {
  const auto& s = lab_->spec();
  const float* host_c = c_host_.empty() ? nullptr : c_host_.data();
  matmul::HeatmapSpec c{s.M, s.N, 0, 0, matmul::HeatmapEncoding::Values, -ranges_.c, ranges_.c};
  if (Status st = fill_heatmap(MapC, host_c, nullptr, lab_->device_output(), nullptr, c, ctx); !st) return st;
  matmul::HeatmapSpec e{s.M,
                        s.N,
                        0,
                        0,
                        matmul::HeatmapEncoding::AbsError,
                        static_cast<float>(ranges_.error_lo),
                        static_cast<float>(ranges_.error_hi)};
  return fill_heatmap(MapError, host_c, lab_->reference().data(), lab_->device_output(), lab_->device_reference(), e,
                      ctx);
}

// ---------------------------------------------------------------------------------------------
// 4. the left panel and the memory tab
// ---------------------------------------------------------------------------------------------

void MatmulView::draw_problem(ViewContext&, ViewRequests& requests) {
  const float em = ImGui::GetFontSize();
  const bool cpu = lab_->backend().kind == BackendKind::CpuSimulation;
  MatmulViewState& st = state_;
  ui::wrapped_text(ui::kDimColour, "%s",
                   lab_->precision() == matmul::Precision::Bf16
                       ? "C (M x N) = A (M x K) * B (K x N), A and B in BF16, C in FP32"
                       : "C (M x N) = A (M x K) * B (K x N), FP32, row-major");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##preset", "Presets...")) {
    for (const auto& p : matmul::matmul_presets()) {
      const double work = static_cast<double>(p.M) * p.N * p.K;
      const bool too_big = cpu && work > static_cast<double>(matmul::kSimMaxMultiplyAdds);
      // On the CPU simulation, what one launch will cost, said before it is chosen: from the
      // naive rungs' to k3's (the slowest to simulate).
      const double plain_s = work * kSimNsPerMultiplyAdd * 1e-9, barrier_s = plain_s * kSimBarrierSlowdown;
      const bool slow = cpu && !too_big && barrier_s > 30;
      if (too_big) ImGui::BeginDisabled();
      if (slow) ImGui::PushStyleColor(ImGuiCol_Text, ui::kWarnColour);
      const std::string label =
          p.name + (slow ? "  (up to " + ui::sig(barrier_s / 60, 2) + " min a launch on the CPU)" : "");
      if (ImGui::Selectable(label.c_str())) {
        st.M = p.M, st.N = p.N, st.K = p.K;
        st.pattern_a = matmul::to_string(p.a_pattern);
        st.pattern_b = matmul::to_string(p.b_pattern);
      }
      if (slow) ImGui::PopStyleColor();
      if (too_big) ImGui::EndDisabled();
      if (too_big) ui::item_tooltip("Above the CPU simulator's cap (2^27 multiply-adds per launch).");
      else if (cpu)
        ui::item_tooltip(("On the CPU simulation one launch takes about " + ui::sig(plain_s, 2) +
                          " s for the naive "
                          "rungs (k1, k2) and up to about " +
                          ui::sig(barrier_s, 2) +
                          " s for k3, whose small tiles "
                          "synchronise every 8 multiply-adds (each barrier switches every thread of the block)." +
                          (slow ? " The window stays live, and Cancel (or Escape) stops a launch." : ""))
                             .c_str());
    }
    ImGui::EndCombo();
  }
  // M, N and K as three fields staged together, as the blockDim fields are: Tab keeps what was
  // typed and moves to the next field; the size applies when the keyboard leaves the three
  // (Enter, a click elsewhere, Tab out of K), so "257 Tab 129 Tab 65 Enter" is 257 x 129 x 65
  // and the matrices are made once.
  const matmul::MatrixSpec current = wanted_spec();
  if (!size_staging_) size_staged_ = {current.M, current.N, current.K};
  bool any_active = false, edited = false;
  const float field_w = std::max(em * 3.0f, (ImGui::GetContentRegionAvail().x - em * 3.6f) / 3.0f);
  const char* names[3] = {"##M", "##N", "##K"};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine(0, em * 0.3f);
    ImGui::SetNextItemWidth(field_w);
    ImGui::InputInt(names[i], &size_staged_[i], 0, 0);
    any_active |= ImGui::IsItemActive();
    edited |= ImGui::IsItemDeactivatedAfterEdit();
  }
  ImGui::SameLine(0, em * 0.3f);
  ImGui::TextUnformatted("M N K");
  ui::item_tooltip(
      "Type M, N and K (Tab moves to the next) and press Enter. Any size from 1 up: sizes that do not "
      "fit (device or host memory, the simulator's cap) are refused with the reason, and the "
      "matrices shown stay.");
  size_edited_ = size_edited_ || edited;
  // Applied once none of the three has had the keyboard for a whole frame (Tab between them
  // leaves a frame with none active).
  if (size_edited_ && !any_active && !size_active_last_frame_) {
    st.M = std::max(0, size_staged_[0]), st.N = std::max(0, size_staged_[1]), st.K = std::max(0, size_staged_[2]);
    size_edited_ = false;
  }
  size_active_last_frame_ = any_active;
  size_staging_ = any_active || size_edited_;
  if (cpu) ImGui::TextColored(ui::kDimColour, "CPU simulation: M*N*K <= 2^27 (512^3)");
  const char* patterns[] = {"uniform", "normal", "small-integers", "identity", "structured"};
  auto pattern_combo = [&](const char* label, std::string& value) {
    int cur = 0;
    for (int i = 0; i < 5; ++i)
      if (value == patterns[i]) cur = i;
    ImGui::SetNextItemWidth(em * 7.5f);
    if (ImGui::Combo(label, &cur, patterns, 5)) value = patterns[cur];
  };
  pattern_combo("A##pa", st.pattern_a);
  ui::item_tooltip(
      "uniform [-1, 1); normal; small integers in [-4, 4] (exact products); identity; "
      "structured ((3i + 5j) mod 17 - 8) / 8, which makes a misread index show as a stripe.");
  ImGui::SameLine();
  pattern_combo("B##pb", st.pattern_b);
  int seed = static_cast<int>(st.seed);
  ImGui::SetNextItemWidth(em * 7.5f);
  if (ImGui::InputInt("seed", &seed, 1, 10, ImGuiInputTextFlags_EnterReturnsTrue) || seed != static_cast<int>(st.seed))
    st.seed = static_cast<std::uint64_t>(std::max(0, seed));
  if (!lab_->ready()) {
    ui::status_text(lab_->status());
  } else {
    const auto& m = lab_->spec();
    const double mb = matmul::matmul_compulsory_bytes(m.M, m.N, m.K, lab_->precision()) / (1 << 20);
    ui::wrapped_text(ui::kDimColour, "%s GFLOP per product, %s MiB of A, B, C; reference %s in %s",
                     ui::sig(2.0 * m.M * m.N * m.K * 1e-9).c_str(), ui::sig(mb).c_str(), lab_->reference_note().c_str(),
                     ui::ms_text(lab_->reference_ms()).c_str());
  }
  (void)requests;
}

void MatmulView::draw_view_options(ViewContext&, ViewRequests&) {
  ImGui::Checkbox("block tiles", &state_.block_lines);
  ui::item_tooltip("Lines between the blocks' tiles of C: each block computes one tile.");
  ImGui::TextUnformatted("colour tiles by");
  struct Choice {
    const char* value;
    const char* label;
    const char* tip;
  };
  static constexpr Choice kChoices[] = {
      {"none", "none", "The heatmap of C alone."},
      {"block", "block", "Each block's tile of C in its own colour (persistent rungs: every tile a block computed)."},
      {"cluster", "cluster",
       "Tiles whose blocks belong to one thread block cluster share a colour: the cluster the block "
       "recorded on the GPU (%clusterid) when the launch was traced, else the model from blockIdx "
       "and the cluster dims. Without clusters every block is its own cluster."},
      {"sm", "SM",
       "Tiles coloured by the SM that ran their block (%smid), from a traced launch: tick "
       "'Record the block schedule'."},
      {"warpgroup", "warpgroup", "Elements of C by the warpgroup (4 warps, one wgmma) that holds them: T3..T6."},
      {"warp", "warp", "Elements of C by the warp whose lanes hold them in their accumulators."},
      {"lane", "lane", "Elements of C by the lane that holds them: the mma fragment layout (zoom in to see it)."},
      {"mma", "mma tile",
       "Elements of C by the tensor-core instruction tile that produces them: 16 x 8 "
       "(mma.m16n8k16, T1/T2) or 64 x N (wgmma, T3..T6)."},
  };
  for (const Choice& c : kChoices) {
    if (&c == &kChoices[4]) ImGui::TextUnformatted("colour elements by");  // the tensor-core levels
    ui::same_line_if_fits(ui::radio_width(c.label));                       // the row wraps in a narrow panel
    if (ImGui::RadioButton(c.label, state_.tile_colour == c.value)) state_.tile_colour = c.value;
    ui::item_tooltip(c.tip);
  }
  bool record = state_.fragments == "record";
  if (ImGui::Checkbox("record fragment tags", &record)) state_.fragments = record ? "record" : "model";
  ui::item_tooltip(
      "Tensor-core rungs: run the rung's tagged variant once for the launch shown (on a "
      "worker thread: the GPU for T1..T6, the simulator for T1 and T2) and draw who held "
      "each element of C as recorded, beside the PTX ISA model; where they differ, the "
      "view says so.");
  const bool fit = view_.zoom <= 0;
  if (fit) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.30f, 0.50f, 0.30f, 1));
  if (ImGui::Button("Fit")) view_.zoom = 0, view_.center_x = view_.center_y = -1;
  if (fit) ImGui::PopStyleColor();
  ImGui::SameLine();
  if (view_.zoom > 0) ImGui::TextColored(ui::kDimColour, "zoom %.2fx (wheel), drag to pan", view_.zoom);
  else ImGui::TextColored(ui::kDimColour, "zoom: fit (wheel zooms, drag pans)");
  if (view_.pinned) {
    ImGui::Text("pinned C[%lld][%lld]", view_.pinned->y, view_.pinned->x);
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) view_.pinned.reset();
  }
}

std::vector<Tab> MatmulView::tabs() {
  Tab memory{.panel = Panel::Memory, .draw = [this](TabContext& c) { draw_memory(c.shown); }, .needs_launch = true};
  memory.background_s = [this] { return banks_.job.valid() ? 0.25 : 0.0; };
  // A recording loaded from a file shows before any launch ran; else the tab says why none records.
  Tab pipeline{.panel = Panel::Pipeline, .draw = [this](TabContext& c) { draw_pipeline(c.shown); }};
  return {std::move(memory), std::move(pipeline)};
}

void MatmulView::draw_memory(const LaunchRecord& shown) {
  const auto inspected_element = inspected();
  if (!lab_->ready() || !inspected_element) {
    ImGui::TextColored(ui::kDimColour, "Hover an element of C (or pin one) to see its warp's requests.");
    return;
  }
  const auto& m = lab_->spec();
  const auto owner = stack_->owner(shown, inspected_element->x, inspected_element->y);
  const auto geometry = geometry_of(shown);
  const int k_step = geometry ? geometry->k_step : 0;
  const int k = std::clamp(k_step > 0 ? state_.phase * k_step : 0, 0, m.K - 1);
  ImGui::Text("C[%lld][%lld], step k = %d", inspected_element->y, inspected_element->x, k);
  ui::help_marker(mapping::explain(mapping::Concept::Coalescing));
  ui::wrapped_text(ui::kDimColour, "each cell is a lane; colour = the 32-byte sector it touches");
  // This launch's own requests where the lab can say them (rungs 1-3).
  if (owner) {
    const auto accesses = stack_->warp_accesses(shown, owner->thread.block, owner->thread.warp_in_block, k);
    ImGui::Separator();
    ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s, %s: warp %u of block (%u, %u)", shown.kernel.c_str(),
                       shown.config_label.c_str(), owner->thread.warp_in_block, owner->thread.block.x,
                       owner->thread.block.y);
    if (accesses.empty()) {
      ui::wrapped_text(ui::kDimColour,
                       "this rung stages A and B through shared memory in tile-shaped "
                       "loads; the comparison below shows the naive mappings");
    }
    unsigned total = 0, ideal = 0;
    for (const auto& a : accesses) {
      ui::draw_warp_request(a);
      total += a.sectors, ideal += a.ideal_sectors;
    }
    if (!accesses.empty())
      ImGui::TextColored(total > ideal ? ui::kWarnColour : ui::kOkColour, "%u sectors for this step (ideal %u)", total,
                         ideal);
    draw_banks(shown, owner->thread.block, owner->thread.warp_in_block);
  }
  // The lecture's lesson side by side: the same element in the coalesced and uncoalesced mapping
  // (the rungs that take any block: their threads read A and B themselves).
  const Dim3 block{16, 16, 1};
  for (const matmul::MatmulKernelInfo& rung : matmul::matmul_kernels(matmul::Precision::Fp32)) {
    if (!rung.any_block || shown.kernel == rung.id) continue;
    const char* id = rung.id.c_str();
    KernelConfig cfg;
    cfg.block = block;
    LaunchRecord plan = stack_->plan(id, cfg);
    if (!plan.ok()) continue;
    auto o = stack_->owner(plan, inspected_element->x, inspected_element->y);
    if (!o) continue;
    ImGui::Separator();
    ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s with 16 x 16 blocks: warp %u of block (%u, %u)", id,
                       o->thread.warp_in_block, o->thread.block.x, o->thread.block.y);
    unsigned total = 0, ideal = 0;
    for (const auto& a : stack_->warp_accesses(plan, o->thread.block, o->thread.warp_in_block, k)) {
      ui::draw_warp_request(a);
      total += a.sectors, ideal += a.ideal_sectors;
    }
    ImGui::TextColored(total > ideal ? ui::kWarnColour : ui::kOkColour, "%u sectors for this step (ideal %u)", total,
                       ideal);
  }
}

std::vector<std::uint8_t> MatmulView::read_output(int* width, int* height) {
  const Heatmap& h = maps_[MapC];
  if (!h.valid || !h.colours) return {};
  *width = h.width;
  *height = h.height;
  return read_texture_rgba8(h.colours);
}

Status MatmulView::write_output_png(const std::filesystem::path& path) {
  const Heatmap& h = maps_[MapC];
  if (!h.valid || !h.colours) return Status::failure("no C heatmap yet: nothing ran", "", "--output");
  std::vector<std::uint8_t> rgba = read_texture_rgba8(h.colours);
  return write_png(path, h.width, h.height, 4, rgba.data());
}

}  // namespace bs::app
