// The grayscale lab's backend-neutral half: the kernel list, the problem, planning a launch
// (grid, validation, scheme, bytes counted) and running it through the engine with the one timing
// policy and the reference check.
#include "labs/grayscale/gray_lab.hpp"

#include <algorithm>
#include <cstring>

#include "core/host_data.hpp"
#include "core/parallel.hpp"
#include "lab/catalog.hpp"
#include "lab/measure.hpp"
#include "lab/size_text.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_engine.hpp"
#include "simulator/cancellable.hpp"

namespace bs::gray {
namespace {

constexpr std::string_view kCopyId = "copy";

// The rungs this backend runs (a body for the simulator; a CUDA build for the GPU), then the copy.
std::vector<lab::KernelInfo> build_kernel_list(const std::vector<GrayRung>& ladder, bool gpu) {
  std::vector<lab::KernelInfo> out;
  for (const GrayRung& r : ladder)
    if (gpu ? r.kernel.has_value() : r.body) out.push_back(r.info);
  if (gpu) {
    // The ceiling, in the same run and on the same problem: what moving these bytes costs with
    // no arithmetic at all.
    lab::KernelInfo c;
    c.id = std::string(kCopyId);
    c.label = "copy (ceiling: cudaMemcpy D2D)";
    c.teaches =
        "A device-to-device copy that reads and writes as many bytes as the kernels move: the "
        "memory system's ceiling for this problem, measured beside them.";
    c.file = "kernels/labs/grayscale/gray_engine_cuda.cu";
    c.group = KernelGroup::Ceiling;
    c.style = lab::ConfigStyle::Compiled;
    c.configs.push_back({"cudaMemcpyAsync", Dim3{0, 0, 0}});
    c.grid_rule = "the driver's copy engine or copy kernel";
    c.timed_only = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

GrayLab::GrayLab(lab::Backend backend, std::unique_ptr<GrayEngine> engine, std::vector<GrayRung> ladder)
    : backend_(std::move(backend)),
      engine_(std::move(engine)),
      ladder_(std::move(ladder)),
      kernels_(build_kernel_list(ladder_, backend_.kind == BackendKind::Cuda)) {}

GrayLab::~GrayLab() = default;

Result<std::unique_ptr<GrayLab>> GrayLab::create(const lab::Backend& backend, std::vector<GrayRung> ladder) {
  auto engine = lab::make_engine(backend, make_cuda_engine, make_cpu_engine);
  if (!engine) return engine.status();
  return std::unique_ptr<GrayLab>(new GrayLab(backend, std::move(engine.value()), std::move(ladder)));
}

const GrayRung* GrayLab::rung_of(std::string_view kernel) const {
  return find_kernel(kernel) ? find_gray_rung(ladder_, kernel) : nullptr;
}

lab::ProblemInfo GrayLab::problem() const {
  lab::ProblemInfo p;
  p.throughput_unit = ThroughputUnit::GBPerS;
  if (width_ <= 0) {
    p.status = Status::failure("no image loaded", "drop an image on the window", "gray lab");
    return p;
  }
  p.ready = true;
  p.made = made_;
  p.name = name_;
  p.width = width_;
  p.height = height_;
  p.summary = name_ + ", " + std::to_string(width_) + " x " + std::to_string(height_) + ", " +
              (layout_ == GrayLayout::Planar ? "planar RGB" : "RGBA") + " (" + gray_bytes_note(layout_) + ")";
  if (backend_.copy_gbs > 0)
    p.ceilings.push_back({"device-to-device copy", backend_.copy_gbs, ThroughputUnit::GBPerS, backend_.copy_note,
                          /*problem: measured once, bounds every image*/ ""});
  return p;
}

std::vector<lab::Setting> GrayLab::settings() const {
  return {lab::Setting{"layout",
                       "source layout",
                       "planar: the lecture's R, G and B planes (3 bytes read + 1 written per pixel); rgba: "
                       "the pixels as an image sits in memory after loading (4 read + 1 written)",
                       {"planar", "rgba"},
                       to_string(layout_)}};
}

Status GrayLab::set_setting(std::string_view key, std::string_view value) {
  if (key != "layout") return Lab::set_setting(key, value);
  const auto l = gray_layout_from_name(value);
  if (!l) return lab::check_setting_value(settings().front(), value);
  return set_layout(*l);
}

Status GrayLab::set_layout(GrayLayout layout) {
  // The simulation reads the image where it is kept: planar RGB always, RGBA only while chosen.
  if (width_ > 0 && planar_ && (layout == GrayLayout::Rgba) != (rgba_ != nullptr)) {
    SharedBytes rgba;
    if (layout == GrayLayout::Rgba) {
      try {
        auto made = std::make_shared<HostVector<std::uint8_t>>(4 * static_cast<std::size_t>(width_) * height_);
        copy_rgba(made->data());
        rgba = std::move(made);
      } catch (const std::bad_alloc&) {
        return Status::failure("not enough host memory for the image's RGBA copy", "stay with planar",
                               "GrayLab::set_layout");
      }
    }
    if (Status s = engine_->upload(planar_, rgba, nullptr, width_, height_); !s) return s;
    rgba_ = std::move(rgba);
  }
  layout_ = layout;
  return Status::success();
}

LaunchRecord GrayLab::plan(std::string_view kernel, const KernelConfig& config) {
  LaunchRecord rec;
  rec.lab = std::string(id());
  rec.kernel = std::string(kernel);
  rec.request = config;
  rec.backend = backend_.kind;
  rec.data_width = width_;
  rec.data_height = height_;
  rec.problem =
      width_ > 0 ? std::to_string(width_) + "x" + std::to_string(height_) + " " + to_string(layout_) : "no image";
  rec.config_label = "block " + block_text(config.block);
  rec.settings = setting_values();
  if (kernel == kCopyId && find_kernel(kernel)) {
    rec.config_label = "cudaMemcpyAsync";
    rec.bytes_moved = gray_bytes_moved(layout_, width_, height_);
    rec.bytes_note = "copy: half the layout's bytes read and as many written (" + gray_bytes_note(layout_) + ")";
    rec.scheme = IndexScheme::tiled(0, 0);
    if (width_ <= 0) rec.status = Status::failure("no image loaded", "drop an image on the window", "GrayLab::plan");
    return rec;
  }
  const GrayRung* rung = rung_of(kernel);
  if (!rung) {
    rec.status = Status::failure("the grayscale lab has no kernel '" + std::string(kernel) + "'" +
                                     (find_gray_rung(ladder_, kernel) ? " on " + backend_.label : std::string()),
                                 "pick one of the kernel list", "GrayLab::plan");
    return rec;
  }
  const GrayCounts counts = rung->counts(layout_, width_, height_);
  rec.bytes_moved = counts.bytes_moved;
  rec.bytes_note = counts.bytes_note;
  rec.flops = counts.flops;
  if (width_ <= 0) {
    rec.status = Status::failure("no image loaded", "drop an image on the window", "GrayLab::plan");
    return rec;
  }
  if (rung->info.timed_only) {  // a library anchor: its own grid, nothing of ours to draw
    rec.config_label = rung->info.configs.empty() ? rec.config_label : rung->info.configs.front().label;
    rec.scheme = IndexScheme::tiled(0, 0);
    return rec;
  }
  auto attrs = engine_->attributes(*rung, layout_, &rec.attributes_measured);
  if (!attrs) {
    rec.status = attrs.status();
    return rec;
  }
  rec.attributes = attrs.value();
  rec.config = rung->launch_config(layout_, config.block, width_, height_, backend_.limits, rec.attributes);
  if (config.fixed_grid()) {
    if (!rung->info.fixed_grid_allowed) {
      rec.status = Status::failure(
          rung->info.id + " computes its grid from the image (" + rung->info.grid_rule + "); a fixed grid " +
              to_string(config.grid) + " would leave pixels uncomputed or compute them twice",
          "use the grid-stride kernel for a fixed grid, or leave the grid to the kernel's rule", "check_gray_launch");
      return rec;
    }
    rec.config.grid = config.grid;
  }
  rec.status = check_gray_rung_launch(*rung, layout_, rec.config, width_, height_, backend_.limits,
                                      rec.attributes_measured ? &rec.attributes : nullptr);
  // Every output is 256-byte aligned (cudaMalloc, HostVector), as a null one is: the plan's scheme
  // needs no output made.
  if (auto sc = rung->scheme(layout_, engine_->args(nullptr))) rec.scheme = *sc;
  return rec;
}

LaunchRecord GrayLab::run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) {
  StepTimes planned;
  LaunchRecord rec = plan(kernel, config);
  planned.end("plan");
  rec.steps = planned;
  if (!rec.ok()) return lab::run_planned(std::move(rec), options, {});
  lab::RunSteps steps;
  steps.clock = engine_->clock();
  steps.simulated = engine_->simulated();
  steps.flush_l2 = [&] { return engine_->flush_l2(); };
  if (rec.kernel == kCopyId) {
    const std::size_t bytes = static_cast<std::size_t>(rec.bytes_moved / 2);
    steps.launch = [&, bytes] { return engine_->copy_timed(bytes); };
    steps.verify = [&, bytes] { return engine_->verify_copy(bytes); };
    return lab::run_planned(std::move(rec), options, steps);
  }
  const GrayRung& rung = *rung_of(rec.kernel);
  std::uint8_t* out = options.output ? static_cast<std::uint8_t*>(options.output) : engine_->own_output();
  if (!out) {
    rec.status = Status::failure(
        "not enough memory for the " + std::to_string(width_) + " x " + std::to_string(height_) + " output",
        "choose a smaller image", "GrayLab::run");
    return rec;
  }
  const GrayArgs args = engine_->args(out);
  // The scheme of the buffers this launch really uses (a vector rung's head and tail follow
  // where the output starts).
  if (auto sc = rung.scheme(layout_, args)) rec.scheme = *sc;
  const LaunchConfig launched = rec.config;
  steps.launch = [&] { return engine_->launch_timed(rung, layout_, launched, args); };
  if (rung.body) steps.traced = [&] { return engine_->launch_traced(rung, layout_, launched, args); };
  steps.verify = [&] { return engine_->verify(out); };
  // A simulated launch stops between blocks once the run is cancelled (its traced one too).
  const sim::CancelScope<GrayEngine> cancellable(engine_.get(), options.cancel);
  return lab::run_planned(std::move(rec), options, steps);
}

Status GrayLab::download_output(void* host) {
  if (width_ <= 0) return Status::failure("no image loaded", "", "GrayLab::download_output");
  return engine_->download(static_cast<std::uint8_t*>(host));
}

// The inspector's, the overlay's and the Memory tab's questions go to the rung that ran (the
// record names it); a record of no rung of ours (the copy) gets the defaults, which answer from
// its scheme.
std::optional<mapping::ElementOwner> GrayLab::owner(const LaunchRecord& r, long long x, long long y) const {
  const GrayRung* rung = find_gray_rung(ladder_, r.kernel);
  return rung ? rung->owner(r, x, y) : mapping::owner_of(r.scheme, r.config, r.data_width, r.data_height, x, y);
}

std::vector<mapping::WarpAccess> GrayLab::warp_accesses(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                        int step) const {
  // The layout this launch read (its record's settings), not the one selected now.
  GrayLayout layout = GrayLayout::Planar;
  for (const auto& [k, v] : r.settings)
    if (k == "layout")
      if (auto l = gray_layout_from_name(v)) layout = *l;
  const GrayRung* rung = find_gray_rung(ladder_, r.kernel);
  return rung ? rung->warp_accesses(r, layout, block, warp, step) : gray_warp_accesses(r, layout, block, warp, step);
}

Result<std::unique_ptr<lab::Lab>> GrayLab::fork() const {
  auto engine = engine_->clone();
  if (!engine) return engine.status();
  std::unique_ptr<GrayLab> copy(new GrayLab(backend_, std::move(engine.value()), ladder_));
  copy->layout_ = layout_;
  if (width_ > 0) {
    // The same image without another copy of it where the engine can share (the CPU simulation);
    // else uploaded again (the GPU: the fork's own device buffers).
    if (auto shared = engine_->fork_sharing_inputs()) {
      copy->engine_ = std::move(shared.value());
      copy->planar_ = planar_;
      copy->alpha_ = alpha_;
      copy->rgba_ = rgba_;
      copy->name_ = name_;
      copy->width_ = width_;
      copy->height_ = height_;
      ++copy->generation_;
    } else {
      try {
        HostVector<std::uint8_t> rgba(4 * static_cast<std::size_t>(width_) * height_);
        copy_rgba(rgba.data());
        if (Status s = copy->set_image(rgba.data(), width_, height_, name_); !s) return s;
      } catch (const std::bad_alloc&) {
        return Status::failure("not enough host memory to copy the image for a second run", "choose a smaller image",
                               "GrayLab::fork");
      }
    }
  }
  return std::unique_ptr<lab::Lab>(std::move(copy));
}

std::optional<lab::BlockSuggestion> GrayLab::suggested_block(std::string_view kernel) {
  const GrayRung* rung = rung_of(kernel);
  if (!rung || !rung->body) return std::nullopt;
  auto s = engine_->suggested_block(*rung, layout_);
  if (!s || s->second <= 0) return std::nullopt;
  lab::BlockSuggestion out;
  out.min_grid = static_cast<unsigned>(s->first);
  out.threads = static_cast<unsigned>(s->second);
  out.source = "cudaOccupancyMaxPotentialBlockSize (" + std::string(kernel) + ", " + to_string(layout_) +
               ", no dynamic shared memory)";
  return out;
}

Status GrayLab::set_random_problem(std::string_view size) {
  auto d = lab::parse_dims(size, 2, 2, 1 << 20);
  if (!d || (*d)[0] < 1 || (*d)[1] < 1)
    return Status::failure("'" + std::string(size) + "' is not an image size WxH (e.g. 8192x8192)", "", "size");
  // Fresh random pixels: never time or check on zeros.
  return install_image(nullptr, fresh_seed(), static_cast<int>((*d)[0]), static_cast<int>((*d)[1]),
                       "random " + std::string(size));
}

Status GrayLab::set_image(const std::uint8_t* rgba, int width, int height, std::string name) {
  if (!rgba || width <= 0 || height <= 0) return Status::failure("empty image", "", "GrayLab::set_image");
  return install_image(rgba, 0, width, height, std::move(name));
}

Status GrayLab::install_image(const std::uint8_t* source, std::uint64_t seed, int width, int height, std::string name) {
  StepTimes made;
  const std::size_t n = static_cast<std::size_t>(width) * height;
  // The image once, in the form the engine reads: RGBA where it makes planar RGB itself (the GPU;
  // the reference only until the engine has copied it), else planar RGB, the alpha bytes of an
  // image that is not opaque, and RGBA only while that layout is chosen.
  const bool takes_rgba = engine_->makes_planar();
  std::shared_ptr<HostVector<std::uint8_t>> rgba, planar, alpha, reference;
  try {
    if (takes_rgba || layout_ == GrayLayout::Rgba) rgba = std::make_shared<HostVector<std::uint8_t>>(4 * n);
    if (takes_rgba) reference = std::make_shared<HostVector<std::uint8_t>>(n);
    if (!takes_rgba) planar = std::make_shared<HostVector<std::uint8_t>>(3 * n);
    if (!takes_rgba && (!source || has_transparency(source, n))) alpha = std::make_shared<HostVector<std::uint8_t>>(n);
  } catch (const std::bad_alloc&) {
    return Status::failure(
        "not enough host memory for a " + std::to_string(width) + " x " + std::to_string(height) + " image",
        "choose a smaller image", "GrayLab::set_image");
  }
  make_gray_problem(source, seed, n,
                    GrayBuffers{rgba ? rgba->data() : nullptr, planar ? planar->data() : nullptr,
                                alpha ? alpha->data() : nullptr, reference ? reference->data() : nullptr});
  made.end(source ? "copy + convert on the host" : "generate + convert on the host");
  if (Status s = engine_->upload(planar, rgba, std::move(reference), width, height); !s) return s;
  made.end("upload");
  planar_ = std::move(planar);
  alpha_ = std::move(alpha);
  rgba_ = std::move(rgba);
  made_ = std::move(made);
  name_ = std::move(name);
  width_ = width;
  height_ = height;
  ++generation_;
  return Status::success();
}

std::array<std::uint8_t, 4> GrayLab::pixel(long long x, long long y) const {
  const std::size_t n = static_cast<std::size_t>(width_) * height_, i = static_cast<std::size_t>(y) * width_ + x;
  if (rgba_) return {(*rgba_)[4 * i], (*rgba_)[4 * i + 1], (*rgba_)[4 * i + 2], (*rgba_)[4 * i + 3]};
  const std::uint8_t* p = planar_->data();
  return {p[i], p[i + n], p[i + 2 * n], alpha_ ? (*alpha_)[i] : std::uint8_t{255}};
}

std::uint8_t GrayLab::reference_at(long long x, long long y) const {
  const auto p = pixel(x, y);
  return gray_reference_of(p[0], p[1], p[2]);
}

void GrayLab::sample_rgba(long long x0, long long y0, int step, int w, int h, std::uint8_t* out) const {
  if (width_ <= 0 || w <= 0 || h <= 0) return;
  parallel_chunks(static_cast<unsigned long long>(h), 16, [&](std::size_t r0, std::size_t r1) {
    for (std::size_t r = r0; r < r1; ++r) {
      const long long y = std::clamp<long long>(y0 + static_cast<long long>(r) * step, 0, height_ - 1);
      std::uint8_t* dst = out + 4 * r * static_cast<std::size_t>(w);
      for (int c = 0; c < w; ++c) {
        const long long x = std::clamp<long long>(x0 + static_cast<long long>(c) * step, 0, width_ - 1);
        const auto p = pixel(x, y);
        std::memcpy(dst + 4 * c, p.data(), 4);
      }
    }
  });
}

void GrayLab::copy_rgba(std::uint8_t* out) const {
  const std::size_t n = static_cast<std::size_t>(width_) * height_;
  if (rgba_) std::memcpy(out, rgba_->data(), 4 * n);
  else if (planar_) rgba_from_planar(planar_->data(), alpha_ ? alpha_->data() : nullptr, n, out);
}

void GrayLab::copy_planar(std::uint8_t* out) const {
  const std::size_t n = static_cast<std::size_t>(width_) * height_;
  if (planar_) std::memcpy(out, planar_->data(), 3 * n);
  else if (rgba_) rgba_to_planar_rgb(rgba_->data(), width_, height_, out);
}

namespace {

// out against ref(i) for i in [0, n), in parallel chunks merged in order: the measure, the
// count, and the first wrong pixels in row-major order.
template <class Ref>
Check compare_gray(const std::uint8_t* out, long long n, long long width, const Ref& ref) {
  Check c;
  c.against = "double-precision CPU reference";
  c.measure = "max |out - ref|";
  c.limit = 1;
  c.checked = static_cast<unsigned long long>(n);
  constexpr unsigned long long kChunk = 1ull << 18;
  const unsigned long long tasks = (static_cast<unsigned long long>(n) + kChunk - 1) / kChunk;
  struct Part {
    int worst = 0;
    unsigned long long mismatches = 0;
    std::vector<Check::Bad> bad;
  };
  std::vector<Part> parts(tasks);
  parallel_tasks(worker_count(0, tasks), tasks, [&](unsigned long long t) {
    Part& p = parts[t];
    const long long end = std::min<long long>(n, static_cast<long long>((t + 1) * kChunk));
    for (long long i = static_cast<long long>(t * kChunk); i < end; ++i) {
      const int want = ref(i), d = std::abs(static_cast<int>(out[i]) - want);
      p.worst = std::max(p.worst, d);
      if (d > 1) {
        ++p.mismatches;
        if (p.bad.size() < Check::kMaxBad)
          p.bad.push_back({i % width, i / width, static_cast<double>(out[i]), static_cast<double>(want)});
      }
    }
  });
  int worst = 0;
  for (const Part& p : parts) {
    worst = std::max(worst, p.worst);
    c.mismatches += p.mismatches;
    for (const Check::Bad& b : p.bad)
      if (c.first_bad.size() < Check::kMaxBad) c.first_bad.push_back(b);
  }
  c.worst = worst;
  c.state = c.mismatches == 0 ? Check::State::Passed : Check::State::Failed;
  return c;
}

}  // namespace

Check compare_with_reference(const std::uint8_t* out, const std::uint8_t* ref, long long n, long long width) {
  return compare_gray(out, n, width, [ref](long long i) { return static_cast<int>(ref[i]); });
}

Check compare_with_planar_reference(const std::uint8_t* out, const std::uint8_t* planar, long long n, long long width) {
  const std::uint8_t *r = planar, *g = planar + n, *b = planar + 2 * n;
  return compare_gray(out, n, width,
                      [=](long long i) { return static_cast<int>(gray_reference_of(r[i], g[i], b[i])); });
}

}  // namespace bs::gray
