#include "labs/custom/cpu_findings.hpp"

#include <algorithm>
#include <chrono>
#include <span>

#include "labs/custom/user_kernel_lab.hpp"

namespace bs::custom {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

CpuFindings find_on_cpu(UserKernelBook& book, const UserKernel& k, const Problem& problem, const LaunchConfig& launched,
                        unsigned workers, double time_limit_s) {
  CpuFindings d;
  const auto t0 = Clock::now();
  // Exactly this source: the book may hold a newer one by now (the user edited again).
  std::shared_ptr<CustomKernel> cpu = book.stored_build(k.id, Target::Cpu);
  if (!cpu || cpu->source() != k.source) {
    CompileOptions options;
    options.kernel_name = k.name;
    CompileResult c = book.engine().compile(k.source, std::span<const lab::UserForm>(&k.form, 1), Target::Cpu, options);
    d.build_ms = ms_since(t0);
    if (!c.ok()) {
      d.note = "the CPU build (for owners) failed: " + first_error(c, k.origin.empty() ? "kernel.cu" : k.origin);
      return d;
    }
    cpu = c.kernel;
    book.add_build(k.id, cpu);
  } else {
    d.build_ms = ms_since(t0);
  }
  RunRequest req;
  req.block = launched.block;
  req.grid = GridRule::fixed_grid(launched.grid);  // exactly the GPU's grid, whatever the rule
  req.timed = false;                               // one launch, the observing one: its owners, no time
  req.trace = false;
  req.verify = false;
  req.record_owners = true;
  req.workers = workers;
  req.time_limit_s = std::min(1.0, time_limit_s);
  const auto t1 = Clock::now();
  RunOutcome r = cpu->run(problem, req);
  d.replay_ms = ms_since(t1);
  if (r.out_of_bounds) {
    d.out_of_bounds = r.out_of_bounds;
    d.note = "the CPU simulator's replay of this launch stopped: " + r.out_of_bounds->describe();
  } else if (!r.record.ok() || !r.record.owners) {
    d.note = "the CPU simulator's replay for owners did not finish: " + r.record.status.message;
  } else if (auto s = closed_form_scheme(r.record.config, *r.record.owners)) {
    d.scheme = *s;
    d.note = "owners from the CPU simulator's run of the same source: " + describe(*s);
  } else {
    d.note = "the CPU simulator's run of the same source shows no closed-form mapping";
  }
  return d;
}

CpuFindingsWorker::~CpuFindingsWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CpuFindingsWorker::submit(std::string key, Job job) {
  {
    std::lock_guard lock(mutex_);
    if (running_ == key) return;
    if (std::any_of(queue_.begin(), queue_.end(), [&](const auto& q) { return q.first == key; })) return;
    queue_.emplace_back(std::move(key), std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  wake_.notify_one();
}

bool CpuFindingsWorker::pending(const std::string& key) const {
  std::lock_guard lock(mutex_);
  if (key.empty()) return !running_.empty() || !queue_.empty();
  return running_ == key || std::any_of(queue_.begin(), queue_.end(), [&](const auto& q) { return q.first == key; });
}

bool CpuFindingsWorker::busy() const {
  std::lock_guard lock(mutex_);
  return !running_.empty() || !queue_.empty() || !done_.empty();
}

std::vector<std::pair<std::string, CpuFindings>> CpuFindingsWorker::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(done_, {});
}

void CpuFindingsWorker::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return stop_ || (running_.empty() && queue_.empty()); });
}

void CpuFindingsWorker::loop() {
  for (;;) {
    std::pair<std::string, Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = job.first;
    }
    CpuFindings found = job.second();
    {
      std::lock_guard lock(mutex_);
      done_.emplace_back(std::move(job.first), std::move(found));
      running_.clear();
    }
    idle_.notify_all();
  }
}

}  // namespace bs::custom
