// The grayscale lab's backend-neutral half: the kernel list, the problem, planning a launch
// (grid, validation, scheme, bytes counted) and running it through the engine with the one timing
// policy and the reference check.
#include "labs/grayscale/gray_lab.hpp"

#include <algorithm>

#include "core/host_data.hpp"
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
    c.teaches = "A device-to-device copy that reads and writes as many bytes as the kernels move: the "
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
  return {lab::Setting{"layout", "source layout",
                       "planar: the lecture's R, G and B planes (3 bytes read + 1 written per pixel); rgba: "
                       "the pixels as an image sits in memory after loading (4 read + 1 written)",
                       {"planar", "rgba"}, to_string(layout_)}};
}

Status GrayLab::set_setting(std::string_view key, std::string_view value) {
  if (key != "layout") return Lab::set_setting(key, value);
  const auto l = gray_layout_from_name(value);
  if (!l) return lab::check_setting_value(settings().front(), value);
  layout_ = *l;
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
  rec.problem = width_ > 0 ? std::to_string(width_) + "x" + std::to_string(height_) + " " + to_string(layout_)
                           : "no image";
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
  if (auto sc = rung->scheme(layout_, engine_->args(engine_->own_output()))) rec.scheme = *sc;
  return rec;
}

LaunchRecord GrayLab::run(std::string_view kernel, const KernelConfig& config,
                          const lab::RunOptions& options) {
  LaunchRecord rec = plan(kernel, config);
  if (!rec.ok()) {
    rec.refused = true;
    return rec;
  }
  if (rec.kernel == kCopyId) {
    const std::size_t bytes = static_cast<std::size_t>(rec.bytes_moved / 2);
    rec.timing.clock = engine_->clock();
    rec.timing.simulated = engine_->simulated();
    if (Status s = lab::measure(
            options.timing, rec.timing, [&] { return engine_->copy_timed(bytes); },
            [&] { return engine_->flush_l2(); }, options.cancel);
        !s) {
      rec.status = s;
      return rec;
    }
    if (options.verify) rec.check = engine_->verify_copy(bytes);
    return rec;
  }
  const GrayRung& rung = *rung_of(rec.kernel);
  std::uint8_t* out = options.output ? static_cast<std::uint8_t*>(options.output) : engine_->own_output();
  const GrayArgs args = engine_->args(out);
  // The scheme of the buffers this launch really uses (a vector rung's head and tail follow
  // where the output starts).
  if (auto sc = rung.scheme(layout_, args)) rec.scheme = *sc;
  rec.timing.clock = engine_->clock();
  rec.timing.simulated = engine_->simulated();
  // A simulated launch stops between blocks once the run is cancelled (its traced one too).
  const sim::CancelScope<GrayEngine> cancellable(engine_.get(), options.cancel);
  Status timed = lab::measure(
      options.timing, rec.timing, [&] { return engine_->launch_timed(rung, layout_, rec.config, args); },
      [&] { return engine_->flush_l2(); }, options.cancel);
  if (!timed) {
    rec.status = timed;
    return rec;
  }
  if (options.trace_schedule && rung.body) {
    auto schedule = engine_->launch_traced(rung, layout_, rec.config, args);
    if (!schedule) {
      rec.status = schedule.status();
      return rec;
    }
    rec.schedule = std::move(schedule.value());
    rec.schedule_simulated = engine_->simulated();
  }
  if (options.verify) rec.check = engine_->verify(out);
  return rec;
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
      copy->rgba_ = rgba_;
      copy->reference_ = reference_;
      copy->name_ = name_;
      copy->width_ = width_;
      copy->height_ = height_;
      ++copy->generation_;
    } else if (Status s = copy->set_image(rgba_->data(), width_, height_, name_); !s) {
      return s;
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
    return Status::failure("'" + std::string(size) + "' is not an image size WxH (e.g. 8192x8192)",
                           "", "size");
  // Fresh random pixels: never time or check on zeros.
  return install_image(nullptr, fresh_seed(), static_cast<int>((*d)[0]), static_cast<int>((*d)[1]),
                       "random " + std::string(size));
}

Status GrayLab::set_image(const std::uint8_t* rgba, int width, int height, std::string name) {
  if (!rgba || width <= 0 || height <= 0)
    return Status::failure("empty image", "", "GrayLab::set_image");
  return install_image(rgba, 0, width, height, std::move(name));
}

Status GrayLab::install_image(const std::uint8_t* source, std::uint64_t seed, int width, int height, std::string name) {
  StepTimes made;
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::shared_ptr<HostVector<std::uint8_t>> rgba, planar, reference;
  try {
    rgba = std::make_shared<HostVector<std::uint8_t>>(4 * n);
    if (!engine_->makes_planar()) planar = std::make_shared<HostVector<std::uint8_t>>(3 * n);
    reference = std::make_shared<HostVector<std::uint8_t>>(n);
  } catch (const std::bad_alloc&) {
    return Status::failure("not enough host memory for a " + std::to_string(width) + " x " +
                               std::to_string(height) + " image",
                           "choose a smaller image", "GrayLab::set_image");
  }
  make_gray_problem(source, seed, n, rgba->data(), planar ? planar->data() : nullptr, reference->data());
  made.end(source ? "copy + convert on the host" : "generate + convert on the host");
  if (Status s = engine_->upload(std::move(planar), rgba, reference, width, height); !s) return s;
  made.end("upload");
  rgba_ = std::move(rgba);
  reference_ = std::move(reference);
  made_ = std::move(made);
  name_ = std::move(name);
  width_ = width;
  height_ = height;
  ++generation_;
  return Status::success();
}

Check compare_with_reference(const std::uint8_t* out, const std::uint8_t* ref, long long n,
                             long long width) {
  Check c;
  c.against = "double-precision CPU reference";
  c.measure = "max |out - ref|";
  c.limit = 1;
  c.checked = static_cast<unsigned long long>(n);
  int worst = 0;
  for (long long i = 0; i < n; ++i) {
    const int d = std::abs(static_cast<int>(out[i]) - static_cast<int>(ref[i]));
    worst = std::max(worst, d);
    if (d > 1) {
      ++c.mismatches;
      if (c.first_bad.size() < Check::kMaxBad)
        c.first_bad.push_back({i % width, i / width, static_cast<double>(out[i]),
                               static_cast<double>(ref[i])});
    }
  }
  c.worst = worst;
  c.state = c.mismatches == 0 ? Check::State::Passed : Check::State::Failed;
  return c;
}

}  // namespace bs::gray
