// The grayscale lab's backend-neutral half: the kernel list, the problem, planning a launch
// (grid, validation, scheme, bytes counted) and running it through the engine with the one timing
// policy and the reference check.
#include "labs/grayscale/gray_lab.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include "lab/measure.hpp"
#include "lab/size_text.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_engine.hpp"

namespace bs::gray {
namespace {

std::vector<lab::KernelInfo> build_kernel_list() {
  std::vector<lab::KernelInfo> out;
  for (const GrayKernelInfo& k : gray_kernels()) {
    lab::KernelInfo i;
    i.id = std::string(k.name);
    i.label = std::string(k.label);
    i.teaches = std::string(k.teaches);
    i.file = std::string(k.file);
    i.group = "lecture";
    i.style = lab::ConfigStyle::FreeBlock;
    i.block_rank = k.id == GrayKernel::Flat1D ? 1 : 2;
    i.default_block = k.default_block;
    i.presets = gray_block_presets(k.id);
    i.grid_rule = std::string(k.grid_rule);
    out.push_back(std::move(i));
  }
  return out;
}

IndexScheme scheme_of(GrayKernel k) {
  return k == GrayKernel::Flat1D ? IndexScheme::flat() : IndexScheme::grid2d();
}

std::string dims_text(const Dim3& b) { return block_text(b); }

}  // namespace

GrayLab::GrayLab(lab::Backend backend, std::unique_ptr<GrayEngine> engine)
    : backend_(std::move(backend)), engine_(std::move(engine)), kernels_(build_kernel_list()) {}

GrayLab::~GrayLab() = default;

Result<std::unique_ptr<GrayLab>> GrayLab::create(const lab::Backend& backend) {
  std::unique_ptr<GrayEngine> engine;
  if (backend.kind == BackendKind::Cuda) {
    auto e = make_cuda_engine(backend);
    if (!e) return e.status();
    engine = std::move(e.value());
  } else {
    engine = make_cpu_engine(backend);
  }
  return std::unique_ptr<GrayLab>(new GrayLab(backend, std::move(engine)));
}

lab::ProblemInfo GrayLab::problem() const {
  lab::ProblemInfo p;
  p.throughput_unit = "GB/s";
  if (width_ <= 0) {
    p.status = Status::failure("no image loaded", "drop an image on the window", "gray lab");
    return p;
  }
  p.ready = true;
  p.name = name_;
  p.width = width_;
  p.height = height_;
  p.summary = name_ + ", " + std::to_string(width_) + " x " + std::to_string(height_) +
              ", planar RGB (3 bytes read + 1 written per pixel)";
  if (backend_.copy_gbs > 0)
    p.ceilings.push_back({"device-to-device copy", backend_.copy_gbs, "GB/s", backend_.copy_note});
  return p;
}

LaunchRecord GrayLab::plan(std::string_view kernel, const KernelConfig& config) {
  LaunchRecord rec;
  rec.lab = std::string(id());
  rec.kernel = std::string(kernel);
  rec.request = config;
  rec.backend = backend_.kind;
  rec.data_width = width_;
  rec.data_height = height_;
  rec.problem = width_ > 0 ? std::to_string(width_) + "x" + std::to_string(height_) : "no image";
  rec.config_label = "block " + dims_text(config.block);
  const auto k = gray_kernel_from_key(kernel);
  if (!k) {
    rec.status = Status::failure("the grayscale lab has no kernel '" + std::string(kernel) + "'",
                                 "pick one of the kernel list", "GrayLab::plan");
    return rec;
  }
  rec.kernel = std::string(info(*k).name);
  rec.scheme = scheme_of(*k);
  rec.attributes = engine_->attributes(*k, &rec.attributes_measured);
  rec.config = gray_launch_config(*k, config.block, width_, height_);
  if (config.fixed_grid()) {
    rec.status = Status::failure(
        "the lecture's kernels compute their grid from the image (" +
            std::string(info(*k).grid_rule) + "); a fixed grid " + to_string(config.grid) +
            " would leave pixels uncomputed or compute them twice",
        "leave the grid to the kernel's rule", "check_gray_launch");
    return rec;
  }
  rec.status = check_gray_launch(*k, rec.config, width_, height_, backend_.limits,
                                 backend_.kind == BackendKind::Cuda ? &rec.attributes : nullptr);
  const double n = static_cast<double>(width_) * height_;
  rec.bytes_moved = kBytesPerPixel * n;
  rec.bytes_note = "3 bytes read (planar R, G, B) + 1 byte written per pixel";
  rec.flops = 5.0 * n;  // 2 FMAs and a multiply per pixel
  return rec;
}

LaunchRecord GrayLab::run(std::string_view kernel, const KernelConfig& config,
                          const lab::RunOptions& options) {
  LaunchRecord rec = plan(kernel, config);
  if (!rec.ok()) {
    rec.refused = true;
    return rec;
  }
  const GrayKernel k = *gray_kernel_from_key(rec.kernel);
  std::uint8_t* out = options.output ? static_cast<std::uint8_t*>(options.output)
                                     : engine_->own_output();
  rec.timing.clock = engine_->clock();
  rec.timing.simulated = engine_->simulated();
  Status timed = lab::measure(
      options.timing, rec.timing, [&] { return engine_->launch_timed(k, rec.config, out); },
      [&] { return engine_->flush_l2(); }, options.cancel);
  if (!timed) {
    rec.status = timed;
    return rec;
  }
  if (options.trace_schedule) {
    auto schedule = engine_->launch_traced(k, rec.config, out);
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

std::optional<mapping::ElementOwner> GrayLab::owner(const LaunchRecord& r, long long x,
                                                    long long y) const {
  return mapping::owner_of(r.scheme, r.config, r.data_width, r.data_height, x, y);
}

std::vector<mapping::WarpAccess> GrayLab::warp_accesses(const LaunchRecord& r, Dim3 block,
                                                        unsigned warp, int step) const {
  using mapping::kNoAccess;
  using mapping::kWarpSize;
  std::vector<mapping::WarpAccess> out;
  const long long n = r.data_width * r.data_height;
  if (r.scheme.kind == IndexScheme::Kind::Flat) {
    // Every lane's chunk of this pass (step) and its first slot; vector accesses move
    // `vector` bytes per lane per plane.
    const auto lanes = mapping::flat_lane_chunks(r.scheme, r.config, r.data_width, r.data_height,
                                                 block, warp, step, 0);
    const unsigned bytes = std::max(1u, r.scheme.vector);
    bool any = false;
    auto offsets = [&](long long plane) {
      std::vector<long long> a(kWarpSize, kNoAccess);
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (lanes[l].count > 0) {
          a[l] = plane * n + lanes[l].first;
          any = true;
        }
      return a;
    };
    auto r_plane = offsets(0), g_plane = offsets(1), b_plane = offsets(2), o = offsets(0);
    if (!any) return out;
    out.push_back(mapping::make_warp_access("read R  x[i]", "planar_rgb", false, bytes, r_plane));
    out.push_back(mapping::make_warp_access("read G  x[i + n]", "planar_rgb", false, bytes, g_plane));
    out.push_back(mapping::make_warp_access("read B  x[i + 2n]", "planar_rgb", false, bytes, b_plane));
    out.push_back(mapping::make_warp_access("write   out[i]", "out", true, bytes, o));
    return out;
  }
  const auto lanes =
      mapping::warp_lanes(r.scheme, r.config, r.data_width, r.data_height, block, warp);
  if (!lanes[0]) return out;
  auto offsets = [&](long long plane) {
    std::vector<long long> a(kWarpSize, kNoAccess);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (lanes[l] && lanes[l]->in_range) a[l] = plane * n + lanes[l]->y * r.data_width + lanes[l]->x;
    return a;
  };
  out.push_back(mapping::make_warp_access("read R  x[i]", "planar_rgb", false, 1, offsets(0)));
  out.push_back(mapping::make_warp_access("read G  x[i + n]", "planar_rgb", false, 1, offsets(1)));
  out.push_back(mapping::make_warp_access("read B  x[i + 2n]", "planar_rgb", false, 1, offsets(2)));
  out.push_back(mapping::make_warp_access("write   out[i]", "out", true, 1, offsets(0)));
  return out;
}

Result<std::unique_ptr<lab::Lab>> GrayLab::fork() const {
  auto engine = engine_->clone();
  if (!engine) return engine.status();
  std::unique_ptr<GrayLab> copy(new GrayLab(backend_, std::move(engine.value())));
  if (width_ > 0)
    if (Status s = copy->set_image(rgba_.data(), width_, height_, name_); !s) return s;
  return std::unique_ptr<lab::Lab>(std::move(copy));
}

Status GrayLab::set_random_problem(std::string_view size) {
  auto d = lab::parse_dims(size, 2, 2, 1 << 20);
  if (!d || (*d)[0] < 1 || (*d)[1] < 1)
    return Status::failure("'" + std::string(size) + "' is not an image size WxH (e.g. 8192x8192)",
                           "", "size");
  const int w = static_cast<int>((*d)[0]), h = static_cast<int>((*d)[1]);
  std::vector<std::uint8_t> rgba;
  try {
    rgba.resize(static_cast<std::size_t>(w) * h * 4);
  } catch (const std::bad_alloc&) {
    return Status::failure("not enough host memory for a " + std::string(size) + " image", "", "size");
  }
  // Fresh random pixels: never time or check on zeros.
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t i = 0; i < rgba.size(); i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(rgba.data() + i, &v, std::min<std::size_t>(8, rgba.size() - i));
  }
  return set_image(rgba.data(), w, h, "random " + std::string(size));
}

Status GrayLab::set_image(const std::uint8_t* rgba, int width, int height, std::string name) {
  if (!rgba || width <= 0 || height <= 0)
    return Status::failure("empty image", "", "GrayLab::set_image");
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::vector<std::uint8_t> copy, planar, reference;
  try {
    copy.assign(rgba, rgba + 4 * n);
    planar.resize(3 * n);
    reference.resize(n);
  } catch (const std::bad_alloc&) {
    return Status::failure("not enough host memory for a " + std::to_string(width) + " x " +
                               std::to_string(height) + " image",
                           "choose a smaller image", "GrayLab::set_image");
  }
  rgba_to_planar_rgb(rgba, width, height, planar.data());
  gray_reference(rgba, width, height, reference.data());
  if (Status s = engine_->upload(planar, reference, width, height); !s) return s;
  rgba_ = std::move(copy);
  reference_ = std::move(reference);
  name_ = std::move(name);
  width_ = width;
  height_ = height;
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
