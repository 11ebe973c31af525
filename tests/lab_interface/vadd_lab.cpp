#include "vadd_lab.hpp"

#include <cmath>
#include <cstring>
#include <random>

#include "core/launch.hpp"
#include "lab/measure.hpp"
#include "lab/size_text.hpp"

namespace bs::test {

VaddLab::VaddLab(lab::Backend backend)
    : backend_(std::move(backend)), simulator_(std::make_unique<sim::GridSimulator>(backend_.sim_workers)) {
  lab::KernelInfo k;
  k.id = "vadd";
  k.label = "1. c[i] = a[i] + b[i]";
  k.teaches = "One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x, guarded by i < n.";
  k.file = "tests/lab_interface/vadd_lab.cpp";
  k.group = KernelGroup::Lecture;
  k.block_rank = 1;
  k.default_block = Dim3{256, 1, 1};
  k.presets = {Dim3{32, 1, 1}, Dim3{96, 1, 1}, Dim3{256, 1, 1}, Dim3{1024, 1, 1}};
  k.grid_rule = "ceil(n / (blockDim.x * blockDim.y * blockDim.z))";
  kernels_.push_back(std::move(k));
}

Result<std::unique_ptr<lab::Lab>> VaddLab::create(const lab::Backend& backend) {
  if (backend.kind != BackendKind::CpuSimulation)
    return Status::failure("the vector-add test lab runs on the CPU simulation only", "", "VaddLab::create");
  std::unique_ptr<VaddLab> l(new VaddLab(backend));
  if (Status s = l->set_random_problem("3001"); !s) return s;
  return std::unique_ptr<lab::Lab>(std::move(l));
}

lab::CatalogEntry vadd_lab_entry() {
  return {"vadd", "Vector add", &lab::create_as_lab<VaddLab>, &vadd_user_kernel_spec()};
}

lab::ProblemInfo VaddLab::problem() const {
  lab::ProblemInfo p;
  p.ready = !a_.empty();
  p.name = "vector of " + std::to_string(a_.size());
  p.summary = std::to_string(a_.size()) + " floats (4 + 4 read, 4 written per element)";
  p.width = static_cast<long long>(a_.size());
  p.height = 1;
  p.throughput_unit = ThroughputUnit::GBPerS;
  return p;
}

LaunchRecord VaddLab::plan(std::string_view kernel, const KernelConfig& config) {
  LaunchRecord rec;
  rec.lab = "vadd";
  rec.kernel = std::string(kernel);
  rec.request = config;
  rec.config_label = "block " + block_text(config.block);
  rec.problem = std::to_string(a_.size());
  rec.backend = backend_.kind;
  rec.scheme = IndexScheme::flat();
  rec.data_width = static_cast<long long>(a_.size());
  rec.data_height = 1;
  rec.bytes_moved = vadd_bytes(a_.size());
  rec.bytes_note = "4 + 4 bytes read, 4 written per element";
  rec.flops = vadd_flops(a_.size());
  if (kernel != "vadd") {
    rec.status = Status::failure("the vector-add lab has no kernel '" + std::string(kernel) + "'", "", "plan");
    return rec;
  }
  const unsigned long long threads = config.block.volume();
  const unsigned long long n = a_.size();
  rec.config.block = config.block;
  rec.config.grid = Dim3{
      static_cast<unsigned>(threads ? std::min<unsigned long long>((n + threads - 1) / threads, 0xffffffffull) : 0), 1,
      1};
  rec.status = validate_launch(rec.config, backend_.limits, nullptr);
  return rec;
}

LaunchRecord VaddLab::run(std::string_view kernel, const KernelConfig& config, const lab::RunOptions& options) {
  LaunchRecord rec = plan(kernel, config);
  float* out = options.output ? static_cast<float*>(options.output) : c_.data();
  const float* a = a_.data();
  const float* b = b_.data();
  const long long n = static_cast<long long>(a_.size());
  const LaunchConfig cfg = rec.config;
  auto body = [=](const sim::HostCtx& t) {
    const unsigned long long T = t.blockDim.x * t.blockDim.y * t.blockDim.z;
    const unsigned long long local = t.threadIdx.x + t.blockDim.x * (t.threadIdx.y + t.blockDim.y * t.threadIdx.z);
    const long long i = static_cast<long long>(t.blockIdx.x * T + local);
    if (i < n) out[i] = a[i] + b[i];
  };
  lab::RunSteps steps;
  steps.clock = "steady_clock, CPU simulation";
  steps.simulated = true;
  steps.launch = [&]() -> Result<double> {
    sim::SimOptions o;
    o.cancel = options.cancel;
    sim::SimResult r = simulator_->run(cfg, body, o);
    if (!r.status) return r.status;
    return r.elapsed_ms;
  };
  steps.traced = [&]() -> Result<std::vector<BlockTrace>> {
    sim::SimOptions o;
    o.record_schedule = true;
    sim::SimResult r = simulator_->run(cfg, body, o);
    if (!r.status) return r.status;
    return std::move(r.schedule);
  };
  steps.verify = [&] { return vadd_check(a, b, out, static_cast<std::size_t>(n)); };
  return lab::run_planned(std::move(rec), options, steps);
}

double vadd_bytes(std::size_t n) { return 12.0 * static_cast<double>(n); }
double vadd_flops(std::size_t n) { return static_cast<double>(n); }

Check vadd_check(const float* a, const float* b, const float* out, std::size_t n) {
  // The reference, another way: double-precision sums rounded once.
  Check c;
  c.against = "double-precision sum";
  c.measure = "max |c - (a + b)|";
  c.limit = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const long long i = static_cast<long long>(k);
    const double want = static_cast<float>(static_cast<double>(a[k]) + b[k]);
    const double d = std::abs(out[k] - want);
    if (!(d <= c.limit)) {
      if (c.first_bad.size() < Check::kMaxBad) c.first_bad.push_back({i, 0, out[k], want});
      ++c.mismatches;
    }
    c.worst = std::max(c.worst, std::isnan(d) ? 1e30 : d);
  }
  c.checked = static_cast<unsigned long long>(n);
  c.state = c.mismatches ? Check::State::Failed : Check::State::Passed;
  return c;
}

Status VaddLab::download_output(void* host) {
  std::memcpy(host, c_.data(), output_bytes());
  return Status::success();
}

std::optional<mapping::ElementOwner> VaddLab::owner(const LaunchRecord& r, long long x, long long y) const {
  return mapping::owner_of(r.scheme, r.config, r.data_width, r.data_height, x, y);
}

std::vector<mapping::WarpAccess> VaddLab::warp_accesses(const LaunchRecord& r, Dim3 block, unsigned warp,
                                                        int step) const {
  std::vector<mapping::WarpAccess> out;
  const auto lanes = mapping::flat_lane_chunks(r.scheme, r.config, r.data_width, r.data_height, block, warp, step, 0);
  std::vector<long long> at(mapping::kWarpSize, mapping::kNoAccess);
  bool any = false;
  for (unsigned l = 0; l < mapping::kWarpSize; ++l)
    if (lanes[l].count > 0) at[l] = 4 * lanes[l].first, any = true;
  if (!any) return out;
  out.push_back(mapping::make_warp_access("read a[i]", "a", false, 4, at));
  out.push_back(mapping::make_warp_access("read b[i]", "b", false, 4, at));
  out.push_back(mapping::make_warp_access("write c[i]", "c", true, 4, at));
  return out;
}

Result<std::unique_ptr<lab::Lab>> VaddLab::fork() const {
  std::unique_ptr<VaddLab> l(new VaddLab(backend_));
  l->a_ = a_;
  l->b_ = b_;
  l->c_.assign(c_.size(), 0.0f);
  l->generation_ = generation_;
  return std::unique_ptr<lab::Lab>(std::move(l));
}

Status VaddLab::set_random_problem(std::string_view size) {
  auto d = lab::parse_dims(size, 1, 1, 1LL << 28);
  if (!d || (*d)[0] < 1) return Status::failure("'" + std::string(size) + "' is not a vector length N", "", "size");
  const std::size_t n = static_cast<std::size_t>((*d)[0]);
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  a_.resize(n);
  b_.resize(n);
  for (auto& v : a_) v = u(rng);
  for (auto& v : b_) v = u(rng);
  c_.assign(n, std::nanf(""));
  ++generation_;
  return Status::success();
}

}  // namespace bs::test
