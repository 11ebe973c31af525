#include "measured/counter_worker.hpp"

#include <utility>

#include "measured/profile_launch.hpp"
#include "measured/profile_lines.hpp"

namespace bs::measured {

CounterWorker::CounterWorker(counters::CounterOptions options) : options_(std::move(options)) {}

CounterWorker::~CounterWorker() {
  if (thread_.joinable()) thread_.join();
}

void CounterWorker::join_if_done() {
  if (thread_.joinable() && !busy()) thread_.join();
}

Status CounterWorker::start(Job job, const Fork& fork) {
  if (busy()) return Status::failure("a profile is already running", "wait for it to finish", "CounterWorker::start");
  join_if_done();
  if (!copy_ || copy_key_ != job.key) {
    copy_.reset();  // one copy at a time: the old one's GPU memory goes first
    copy_key_.clear();
    auto made = fork();
    if (!made) return made.status();
    copy_ = std::move(made.value());
    copy_key_ = job.key;
  }
  {
    std::lock_guard lock(mutex_);
    finished_.reset();
    stage_ = "starting";
    kernel_ = job.kernel;
    started_ = std::chrono::steady_clock::now();
  }
  passes_done_ = 0;
  passes_total_ = session_ ? session_->passes_per_profile() : 0;
  busy_.store(true, std::memory_order_release);
  thread_ = std::thread(&CounterWorker::run, this, std::move(job));
  return Status::success();
}

void CounterWorker::set_sampler(std::shared_ptr<sampling::PcSampler> sampler, Status problem) {
  sampler_ = std::move(sampler);
  sampler_problem_ = std::move(problem);
}

void CounterWorker::run(Job job) {
  LaunchRecord rec = job.model;
  auto stage = [&](const char* now) {
    std::lock_guard lock(mutex_);
    stage_ = now;
  };
  auto done = [&] {
    std::lock_guard lock(mutex_);
    finished_ = std::move(rec);
    stage_.clear();
    busy_.store(false, std::memory_order_release);
  };
  if (job.what == What::Lines) {
    auto finish_lines = [&](LineProfile p) {
      rec.lines = std::make_shared<const LineProfile>(std::move(p));
      done();
    };
    if (Status s = lines_refusal(*copy_, job.kernel); !s) return finish_lines(lines_unavailable(s, job.kernel));
    stage("sampling");
    auto p = profile_lines(*copy_, job.kernel, job.config, sampling::SamplerHandle{sampler_, sampler_problem_});
    return finish_lines(p ? std::move(p).value() : lines_unavailable(p.status(), job.kernel));
  }
  auto finish = [&](LaunchCounters c) {
    rec.counters = std::make_shared<const LaunchCounters>(std::move(c));
    done();
  };
  if (Status s = profile_refusal(*copy_, job.kernel); !s) return finish(unavailable(s));
  const int device = copy_->backend().cuda_device;
  if (!session_ || session_device_ != device) {
    session_.reset();
    stage("loading CUPTI");
    auto created = counters::CounterSession::create(device, options_);
    if (!created) return finish(unavailable(created.status()));
    session_ = std::move(created.value());
    session_device_ = device;
  }
  passes_total_ = session_->passes_per_profile();
  stage("profiling");
  auto c = profile_launch(*copy_, job.kernel, job.config, *session_, &job.model, &passes_done_);
  finish(c ? std::move(c.value()) : unavailable(c.status()));
}

CounterWorker::Progress CounterWorker::progress() const {
  Progress p;
  p.busy = busy();
  p.passes_done = passes_done_.load(std::memory_order_relaxed);
  p.passes_total = passes_total_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  p.stage = stage_;
  p.kernel = kernel_;
  if (p.busy) p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return p;
}

std::optional<LaunchRecord> CounterWorker::take_finished() {
  std::lock_guard lock(mutex_);
  std::optional<LaunchRecord> out = std::move(finished_);
  finished_.reset();
  return out;
}

void CounterWorker::release_session() {
  if (busy()) return;
  join_if_done();
  session_.reset();
  session_device_ = -1;
}

void CounterWorker::drop_lab_copy() {
  if (busy()) return;
  join_if_done();
  copy_.reset();
  copy_key_.clear();
}

}  // namespace bs::measured
