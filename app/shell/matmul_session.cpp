#include "shell/matmul_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "device/cuda_device.hpp"
#include "labs/matmul/matmul_heatmap.hpp"
#include "ui/matmul_panels.hpp"

#if BLOCKSCOPE_HAS_CUDA
#include "labs/matmul/matmul_cuda.hpp"
#else
namespace bs::matmul {
class CudaMatmulLab {};  // never created in a build without CUDA
}  // namespace bs::matmul
#endif

namespace bs::app {
namespace {

using Clock = std::chrono::steady_clock;

// Heatmap textures are at most this many texels a side: enough for a view a few hundred pixels
// wide, and 1 MiB per map at most.
constexpr int kHeatmapMaxSide = 1024;
// A launch slower than this stops "run continuously": the UI would stutter. Faster
// configurations resume it.
constexpr double kSlowRunMs = 150;  // as the grayscale lab
// Above this many elements of C, repeated runs of the same configuration are re-verified
// periodically, not every run (a download and a compare of 16M floats costs tens of ms).
constexpr double kVerifyEveryRunElements = 1 << 20;

std::string size_text(int M, int N, int K) {
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

bool is_refusal(const Status& s) {
  return s.call == "check_matmul_config" || s.call == "validate_launch" ||
         s.call == "simulate_matmul" || s.call == "check_matmul_sizes";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 1. creation
// ---------------------------------------------------------------------------------------------

MatmulSession::MatmulSession(ComputeSession& compute, AppState& state, MessageLog& messages)
    : compute_(compute), state_(state), messages_(messages) {}

MatmulSession::~MatmulSession() = default;

Result<std::unique_ptr<MatmulSession>> MatmulSession::create(ComputeSession& compute, AppState& state,
                                                             MessageLog& messages) {
  std::unique_ptr<MatmulSession> s(new MatmulSession(compute, state, messages));
  auto renderer = HeatmapRenderer::create();
  if (!renderer) return renderer.status();
  s->colours_.emplace(std::move(renderer.value()));
  if (Status l = s->build_legends(); !l) return l;
  if (compute.kind == BackendKind::Cuda) {
#if BLOCKSCOPE_HAS_CUDA
    auto lab = matmul::CudaMatmulLab::create(compute.cuda_device);
    if (!lab) return lab.status();
    s->lab_ = std::move(lab.value());
    s->peak_gflops_ = s->lab_->device_report().fp32_peak_gflops;
    s->peak_note_ = s->lab_->device_report().peak_formula;
#else
    return Status::failure("this build has no CUDA backend", "use --backend cpu", "MatmulSession::create");
#endif
  } else {
    s->peak_note_ = "no FP32 peak on the CPU simulation: it runs every thread's code one by one";
    s->cublas_note_ = "cuBLAS runs on the GPU only; here every run is checked against the "
                      "multi-threaded CPU reference";
  }
  s->apply_defaults();
  return s;
}

void MatmulSession::apply_defaults() {
  MatmulState& st = state_.matmul;
  const bool gpu = compute_.kind == BackendKind::Cuda;
  if (st.M <= 0 || st.N <= 0 || st.K <= 0) {
    // The GPU starts where the ladder is interesting (cuBLAS-sized work); the simulator where
    // every rung answers within a frame or two.
    const int n = gpu ? 4096 : 128;
    st.M = st.N = st.K = n;
  }
  if (st.kernel.empty()) {
    st.kernel = gpu ? "k7_warptile" : "k1_naive";
    // On the GPU, open on the fastest rung-7 configuration; the rest are one click away.
    if (gpu && st.config_index == 0) st.config_index = matmul::kK7FastestConfig;
  }
}

Status MatmulSession::build_legends() {
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

std::string MatmulSession::interop_mode() const {
  if (compute_.kind == BackendKind::CpuSimulation) return "CPU simulation: heatmaps uploaded from the host";
  for (const Heatmap& h : maps_)
    if (h.pixels) return h.pixels->mode_description() + " for the matmul heatmaps";
  return "no heatmaps yet";
}

std::optional<PixelPos> MatmulSession::inspected() const {
  std::optional<PixelPos> p = mouse_element_;
  if (!p) p = state_.view.pinned;
  if (!p) p = state_.view.hover;
  if (!p || !matrices_.ready || p->x < 0 || p->y < 0 || p->x >= matrices_.N || p->y >= matrices_.M)
    return std::nullopt;
  return p;
}

std::optional<float> MatmulSession::c_value(int row, int col) const {
  const std::size_t i = static_cast<std::size_t>(row) * matrices_.N + col;
  if (!has_verification_ || c_.size() != static_cast<std::size_t>(matrices_.M) * matrices_.N) return std::nullopt;
  return c_[i];
}

std::optional<float> MatmulSession::reference_value(int row, int col) const {
  const std::size_t i = static_cast<std::size_t>(row) * matrices_.N + col;
  if (i >= reference_.size()) return std::nullopt;
  return reference_[i];
}

std::optional<float> MatmulSession::a_value(int row, int col) const {
  const std::size_t i = static_cast<std::size_t>(row) * matrices_.K + col;
  if (i >= a_.size()) return std::nullopt;
  return a_[i];
}

std::optional<float> MatmulSession::b_value(int row, int col) const {
  const std::size_t i = static_cast<std::size_t>(row) * matrices_.N + col;
  if (i >= b_.size()) return std::nullopt;
  return b_[i];
}

void MatmulSession::set_display_filter(Map m, bool linear) {
  Heatmap& h = maps_[m];
  if (!h.colours || h.linear == linear) return;
  h.colours.set_filter(linear ? TextureFilter::Linear : TextureFilter::Nearest);
  h.linear = linear;
}

void MatmulSession::draw_controls() {
  if (ui::draw_matmul_controls(*this, &state_).run_once) dirty_ = true;
}

void MatmulSession::draw_view() {
  const ui::MatmulViewOutput out = ui::draw_matmul_view(*this, &state_);
  mouse_element_ = out.mouse_element;
  for (int m = 0; m < kMapCount; ++m) set_display_filter(static_cast<Map>(m), out.linear_filter[m]);
}

void MatmulSession::draw_side_panel() { ui::draw_matmul_side_panel(*this, &state_); }

// ---------------------------------------------------------------------------------------------
// 2. the matrices
// ---------------------------------------------------------------------------------------------

void MatmulSession::build_matrices(const MatrixKey& key) {
  const bool gpu = compute_.kind == BackendKind::Cuda;
  Matrices m;
  m.M = key.M, m.N = key.N, m.K = key.K, m.seed = key.seed;
  a_.clear(), b_.clear(), c_.clear(), reference_.clear();
  for (Heatmap& h : maps_) h.valid = false;
  has_verification_ = false;
  cublas_ms_ = 0;
  if (gpu) cublas_note_.clear();
  auto fail = [&](Status s) {
    m.status = std::move(s);
    matrices_ = m;
    messages_.warn("Matmul: " + matrices_.status.message, matrices_.status.hint);
  };
  if (!matmul::pattern_from_string(key.pattern_a, m.pattern_a) ||
      !matmul::pattern_from_string(key.pattern_b, m.pattern_b))
    return fail(Status::failure("unknown matrix pattern '" + key.pattern_a + "' / '" + key.pattern_b + "'",
                                "uniform, normal, small-integers, identity or structured", "matmul lab"));
  if (Status s = matmul::check_matmul_sizes(key.M, key.N, key.K); !s) return fail(s);
  const double mnk = static_cast<double>(key.M) * key.N * key.K;
  if (!gpu && mnk > static_cast<double>(matmul::kSimMaxMultiplyAdds))
    return fail(Status::failure(
        size_text(key.M, key.N, key.K) + " is " + sci(mnk) + " multiply-adds, above the CPU "
            "simulator's cap of 2^27 = 134217728 per launch",
        "the simulator runs every thread's code one by one: stay at or below 512^3 (or "
        "1024 x 1024 x 128, the MNIST layer 10000 x 10 x 784, ...), or use the CUDA backend",
        "check_matmul_sizes"));
  // Host memory: A, B, the reference and a host copy of C.
  const double host_bytes = 4.0 * (static_cast<double>(key.M) * key.K + static_cast<double>(key.K) * key.N +
                                   2.0 * key.M * key.N);
  if (const double phys = physical_memory_bytes(); phys > 0 && host_bytes > 0.5 * phys)
    return fail(Status::failure("the matrices need " + fixed(host_bytes / (1 << 20), 0) +
                                    " MiB of host memory, more than half of this machine's " +
                                    fixed(phys / (1 << 20), 0) + " MiB",
                                "choose smaller sizes", "check_matmul_sizes"));
#if BLOCKSCOPE_HAS_CUDA
  // Device memory is checked (cudaMemGetInfo) before the host generates anything.
  if (gpu)
    if (Status s = lab_->reserve(key.M, key.N, key.K); !s) return fail(s);
#endif
  a_ = matmul::generate_matrix(key.M, key.K, m.pattern_a, key.seed);
  b_ = matmul::generate_matrix(key.K, key.N, m.pattern_b, key.seed + 1);
  scale_ = matmul::error_scale(a_.data(), b_.data(), key.M, key.N, key.K);
  reference_.assign(static_cast<std::size_t>(key.M) * key.N, 0.0f);
  c_.assign(reference_.size(), 0.0f);
  if (gpu) {
#if BLOCKSCOPE_HAS_CUDA
    if (Status s = lab_->set_matrices(a_.data(), b_.data(), key.M, key.N, key.K); !s) return fail(s);
    // cuBLAS is the reference: its result for the comparisons, its time for "% of cuBLAS".
    // Fewer repeats for products that take cuBLAS itself a noticeable time (above 4096^3).
    const int repeats = mnk > 0x1p39 ? 1 : mnk > 0x1p36 ? 3 : 5;
    LaunchRecord ref = lab_->run_cublas(repeats, repeats > 1 ? 1 : 0);
    if (!ref.ok()) return fail(ref.status);
    cublas_ms_ = ref.kernel_ms();
    cublas_note_ = "cuBLAS SGEMM (FP32, tensor cores off), median of " + std::to_string(repeats) +
                   " on these matrices";
    m.reference_ms = ref.kernel_ms();
    if (Status s = lab_->download_reference(reference_.data()); !s) return fail(s);
#endif
  } else {
    const auto t0 = Clock::now();
    if (Status s = matmul::cpu_reference(a_.data(), b_.data(), reference_.data(), key.M, key.N, key.K); !s)
      return fail(s);
    m.reference_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  m.range_a = matmul::symmetric_range(a_.data(), a_.size());
  m.range_b = matmul::symmetric_range(b_.data(), b_.size());
  m.range_c = matmul::symmetric_range(reference_.data(), reference_.size());
  // The error map spans four decades up to the largest per-element tolerance verify() allows.
  double a_max = 0, b_max = 0;
  for (double v : scale_.a_row_norms) a_max = std::max(a_max, v);
  for (double v : scale_.b_col_norms) b_max = std::max(b_max, v);
  m.error_hi = std::max(1e-30, matmul::kToleranceFactor * std::sqrt(static_cast<double>(key.K)) *
                                   std::ldexp(1.0, -24) * a_max * b_max);
  m.error_lo = m.error_hi * 1e-4;
  m.ready = true;
  matrices_ = m;
  if (Status s = refresh_input_heatmaps(); !s) messages_.error(s);
  messages_.info("Matmul: generated A (" + std::to_string(key.M) + " x " + std::to_string(key.K) + ", " +
                 matmul::to_string(m.pattern_a) + ") and B (" + std::to_string(key.K) + " x " +
                 std::to_string(key.N) + ", " + matmul::to_string(m.pattern_b) + "), seed " +
                 std::to_string(key.seed));
}

// ---------------------------------------------------------------------------------------------
// 3. the configuration
// ---------------------------------------------------------------------------------------------

void MatmulSession::resolve_choice() {
  MatmulState& st = state_.matmul;
  const matmul::MatmulKernelInfo* info = matmul::find_matmul_kernel(st.kernel);
  if (!info) {
    messages_.warn("Matmul: unknown kernel '" + st.kernel + "'", "using the first rung");
    info = &matmul::matmul_kernels().front();
    st.kernel = info->id;
  }
  const int count = static_cast<int>(info->configs.size());
  if (st.config_index < 0 || st.config_index >= count) {
    messages_.warn("Matmul: " + info->id + " has no configuration " + std::to_string(st.config_index),
                   "it lists 0.." + std::to_string(count - 1) + "; using " + std::to_string(count - 1));
    st.config_index = std::clamp(st.config_index, 0, count - 1);
  }
  const matmul::MatmulConfig& listed = info->configs[static_cast<std::size_t>(st.config_index)];
  Choice c;
  c.kernel = info->kernel;
  const bool block_rung = info->kernel == matmul::MatmulKernel::Naive ||
                          info->kernel == matmul::MatmulKernel::Uncoalesced ||
                          info->kernel == matmul::MatmulKernel::SmemTiled;
  if (block_rung) c.config = matmul::make_block_config(c.kernel, st.block.value_or(listed.block));
  else c.config = st.tile ? matmul::make_config(c.kernel, *st.tile) : listed;
  c.geometry = matmul::matmul_geometry(c.kernel, c.config);
  const Matrices& m = matrices_;
  c.launch = matmul::matmul_launch_config(c.kernel, c.config, std::max(1, m.M), std::max(1, m.N), std::max(1, m.K));
  c.status = m.ready ? matmul::check_matmul_config(c.kernel, c.config, m.M, m.N, m.K, compute_.limits) : m.status;
  std::string key = info->id + "|" + c.config.label + "|" + size_text(m.M, m.N, m.K);
  choice_ = std::move(c);
  if (key != choice_key_) {
    choice_key_ = std::move(key);
    history_.clear();
    verified_for_choice_ = false;
    schedule_.clear();
    dirty_ = true;
  }
}

// ---------------------------------------------------------------------------------------------
// 4. running, verifying, timing
// ---------------------------------------------------------------------------------------------

void MatmulSession::update() {
  MatmulState& st = state_.matmul;
  apply_defaults();
  const MatrixKey want{st.M, st.N, st.K, st.pattern_a, st.pattern_b, st.seed};
  if (!(want == built_)) {
    built_ = want;
    build_matrices(want);
    choice_key_.clear();  // everything measured so far was on other matrices
  }
  resolve_choice();
  if (!matrices_.ready) return;
  const bool continuous = st.run_continuously && !paused_slow_ && last_.ok();
  if (dirty_ || continuous) run();
}

void MatmulSession::run() {
  const Matrices& m = matrices_;
  const Choice& c = choice_;
  const bool config_changed = dirty_;
  dirty_ = false;
  const bool gpu = compute_.kind == BackendKind::Cuda;
  const auto t0 = Clock::now();
  LaunchRecord rec;
  if (gpu) {
#if BLOCKSCOPE_HAS_CUDA
    rec = lab_->run(c.kernel, c.config, 1, 0);
#endif
  } else {
    sim::SimOptions options;
    options.record_schedule = config_changed;
    rec = matmul::simulate_matmul(*compute_.simulator, c.kernel, c.config, a_.data(), b_.data(), c_.data(),
                                  m.M, m.N, m.K, options);
  }
  if (!rec.ok()) {
    if (gpu && is_sticky_cuda_error(rec.status.code)) device_fault_ = rec.status;
    // Said once per configuration, not once per frame.
    if (config_changed || last_.ok()) {
      if (is_refusal(rec.status)) messages_.warn("Matmul launch refused: " + rec.status.message, rec.status.hint);
      else messages_.error(rec.status);
    }
    last_ = std::move(rec);
    return;
  }

  // Repeats of a verified configuration are re-verified on a period that grows with C: one
  // second per 4M elements (a 4096 x 4096 C every 4 s), so the check stays a small share of the
  // frames while every new configuration is still checked at once.
  const double elements = static_cast<double>(m.M) * m.N;
  const bool cheap = elements <= kVerifyEveryRunElements;
  const auto period = std::chrono::duration<double>(std::clamp(elements / (4 << 20), 1.0, 5.0));
  const bool verify_now = !gpu || config_changed || !verified_for_choice_ || cheap ||
                          Clock::now() - last_verify_ > period;
  if (verify_now) {
    const bool passed_before = has_verification_ && verification_.passed;
    Status got = Status::success();
#if BLOCKSCOPE_HAS_CUDA
    if (gpu) got = lab_->download_c(c_.data());
#endif
    if (got) {
      verification_ = matmul::verify(c_.data(), reference_.data(), m.M, m.N, scale_);
    } else {
      verification_ = {};
      verification_.tolerance = "not checked: " + got.describe();
    }
    has_verification_ = true;
    verified_for_choice_ = true;
    last_verify_ = Clock::now();
    if (!verification_.passed && (config_changed || passed_before))
      messages_.warn("Matmul: " + rec.kernel + " gave a WRONG result", verification_.summary());
    if (Status s = refresh_output_heatmaps(); !s && config_changed) messages_.error(s);
  }
  const double pipeline_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  last_pipeline_ms_ = pipeline_ms;
  // The kernel's own time decides: a once-a-second verification of a large C (a download and a
  // compare) must not stop continuous runs of a fast kernel.
  paused_slow_ = rec.kernel_ms() > kSlowRunMs;
  if (!rec.schedule.empty()) {
    schedule_ = std::move(rec.schedule);
    schedule_simulated_ = rec.schedule_simulated;
    rec.schedule.clear();
  }
  record_result(rec, pipeline_ms);
  last_good_ = rec;
  last_ = std::move(rec);
}

void MatmulSession::record_result(const LaunchRecord& rec, double pipeline_ms) {
  history_.add(rec.kernel_ms(), pipeline_ms);
  const double median = history_.kernel_summary().median;
  const bool passed = has_verification_ && verification_.passed;
  if (passed && rec.kernel_ms() > 0) {
    auto& series = gflops_by_kernel_[rec.kernel];
    series.push_back(rec.flops / (rec.kernel_ms() * 1e6));
    if (series.size() > 240) series.pop_front();
  }
  const std::string size = size_text(matrices_.M, matrices_.N, matrices_.K);
  auto row = std::find_if(results_.begin(), results_.end(), [&](const ResultRow& r) {
    return r.kernel == rec.kernel && r.config == choice_.config.label && r.size == size;
  });
  if (row == results_.end()) {
    results_.push_back({rec.kernel, choice_.config.label, size});
    row = results_.end() - 1;
  }
  row->median_ms = median;
  row->gflops = median > 0 ? rec.flops / (median * 1e6) : 0;
  row->verified = has_verification_;
  row->passed = passed;
  row->max_rel = verification_.max_rel;
  row->mismatches = verification_.mismatches;
  row->runs = history_.kernel().size();
}

bool MatmulSession::last_run_verified() const {
  return matrices_.ready && last_.ok() && has_verification_ && verification_.passed;
}

// ---------------------------------------------------------------------------------------------
// 5. heatmaps
// ---------------------------------------------------------------------------------------------

Status MatmulSession::ensure_heatmap(Map which, int rows, int cols) {
  Heatmap& h = maps_[which];
  const auto [w, ht] = matmul::heatmap_size(rows, cols, kHeatmapMaxSide);
  if (h.codes && h.width == w && h.height == ht) return Status::success();
  Heatmap next;
  auto codes = GlTexture::create_r8(w, ht);
  if (!codes) return codes.status();
  next.codes = std::move(codes.value());
  next.width = w, next.height = ht;
  if (compute_.kind == BackendKind::Cuda) {
    auto pbo = InteropPixelBuffer::create(w, ht, 1);
    if (!pbo) return pbo.status();
    if (!pbo->interop_active() && which == MapA)
      messages_.warn("Matmul heatmaps go through host memory: CUDA-GL interop is off",
                     pbo->registration_status().describe());
    next.pixels.emplace(std::move(pbo.value()));
  }
  next.host.assign(static_cast<std::size_t>(w) * ht, 0);
  h = std::move(next);
  return Status::success();
}

Status MatmulSession::fill_heatmap(Map which, const float* host, const float* host_ref, const float* device,
                                   const float* device_ref, const matmul::HeatmapSpec& wanted) {
  if (Status s = ensure_heatmap(which, wanted.rows, wanted.cols); !s) return s;
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

Status MatmulSession::refresh_input_heatmaps() {
  const Matrices& m = matrices_;
  const float* da = nullptr;
  const float* db = nullptr;
#if BLOCKSCOPE_HAS_CUDA
  if (lab_) da = lab_->device_a(), db = lab_->device_b();
#endif
  matmul::HeatmapSpec a{m.M, m.K, 0, 0, matmul::HeatmapEncoding::Values, -m.range_a, m.range_a};
  if (Status s = fill_heatmap(MapA, a_.data(), nullptr, da, nullptr, a); !s) return s;
  matmul::HeatmapSpec b{m.K, m.N, 0, 0, matmul::HeatmapEncoding::Values, -m.range_b, m.range_b};
  return fill_heatmap(MapB, b_.data(), nullptr, db, nullptr, b);
}

Status MatmulSession::refresh_output_heatmaps() {
  const Matrices& m = matrices_;
  const float* dc = nullptr;
  const float* dref = nullptr;
#if BLOCKSCOPE_HAS_CUDA
  if (lab_) dc = lab_->device_c(), dref = lab_->device_reference();
#endif
  matmul::HeatmapSpec c{m.M, m.N, 0, 0, matmul::HeatmapEncoding::Values, -m.range_c, m.range_c};
  if (Status s = fill_heatmap(MapC, c_.data(), nullptr, dc, nullptr, c); !s) return s;
  matmul::HeatmapSpec e{m.M, m.N, 0, 0, matmul::HeatmapEncoding::AbsError, static_cast<float>(m.error_lo),
                        static_cast<float>(m.error_hi)};
  return fill_heatmap(MapError, c_.data(), reference_.data(), dc, dref, e);
}

// ---------------------------------------------------------------------------------------------
// 6. headless summary
// ---------------------------------------------------------------------------------------------

std::string MatmulSession::summary_line() const {
  const Matrices& m = matrices_;
  if (!m.ready) return "matmul: no matrices: " + m.status.describe();
  const std::string what = matmul::matmul_kernel_info(choice_.kernel).id + " [" + choice_.config.label + "] on " +
                           size_text(m.M, m.N, m.K) + " (MxNxK)";
  if (!last_.ok()) return "matmul: " + what + " refused: " + last_.status.describe();
  const LaunchRecord& r = last_;
  const double median = history_.kernel_summary().median;
  std::string s = "matmul: " + what + " grid (" + std::to_string(r.config.grid.x) + ", " +
                  std::to_string(r.config.grid.y) + ", " + std::to_string(r.config.grid.z) + ") block (" +
                  std::to_string(r.config.block.x) + ", " + std::to_string(r.config.block.y) + ", " +
                  std::to_string(r.config.block.z) + ") median " + fixed(median, 4) + " ms of " +
                  std::to_string(history_.kernel().size()) + " (" + r.timing.clock + ")";
  const bool passed = has_verification_ && verification_.passed;
  const std::string against = compute_.kind == BackendKind::Cuda ? "cuBLAS" : "the CPU reference";
  if (passed) {
    s += ", " + fixed(r.flops / (median * 1e6), 1) + " GFLOP/s";
    if (cublas_ms_ > 0) s += ", " + fixed(100.0 * cublas_ms_ / median, 1) + "% of cuBLAS";
    if (peak_gflops_ > 0) s += ", " + fixed(100.0 * r.flops / (median * 1e6) / peak_gflops_, 1) + "% of FP32 peak";
    s += " | verified against " + against + " (max abs err " + sci(verification_.max_abs) + ", max rel err " +
         sci(verification_.max_rel) + ", " + std::to_string(verification_.mismatches) + " of " +
         std::to_string(verification_.checked) + " outside tolerance)";
  } else {
    s += ", GFLOP/s withheld | WRONG RESULT against " + against + ": " +
         (has_verification_ ? verification_.summary() : std::string("not verified"));
  }
  return s;
}

}  // namespace bs::app
