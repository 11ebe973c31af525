#include "shell/async_launch.hpp"

#include "platform/background_thread.hpp"

namespace bs::app {
using Clock = std::chrono::steady_clock;

AsyncLaunch::~AsyncLaunch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cancel_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

std::optional<LaunchRecord> AsyncLaunch::start(const lab::Lab& lab, Request r) {
  bool need_fork = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    need_fork = r.problem_key != fork_key_;
  }
  std::unique_ptr<lab::Lab> fresh;
  if (need_fork) {
    auto f = lab.fork();
    if (!f) {
      LaunchRecord rec;
      rec.kernel = r.kernel;
      rec.status = f.status();
      return rec;
    }
    fresh = std::move(f.value());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_) cancel_ = true;  // the new request replaces it
    if (fresh) fork_key_ = r.problem_key;
    waiting_ = std::move(r);
    if (fresh) waiting_fork_ = std::move(fresh);
    if (!worker_.joinable()) worker_ = std::thread(&AsyncLaunch::worker_loop, this);
  }
  wake_.notify_one();
  return std::nullopt;
}

void AsyncLaunch::worker_loop() {
  // The window stays live while it simulates: frames while k3 simulated 256^3 on 2 cores took a
  // median of 49 ms, up to 59 ms, with the simulator's workers at the window's own priority.
  run_below_the_window();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || waiting_.has_value(); });
    if (stop_) return;
    Request r = std::move(*waiting_);
    waiting_.reset();
    if (waiting_fork_) fork_ = std::move(waiting_fork_);
    running_ = r;
    started_ = Clock::now();
    cancel_ = false;
    lab::Lab* lab = fork_.get();
    lock.unlock();

    Finished f;
    f.request = r;
    if (!lab) {
      f.record.kernel = r.kernel;
      f.record.status = Status::failure("no copy of the lab to run on", "", "AsyncLaunch");
    } else {
      f.output.resize(lab->output_bytes());
      lab::RunOptions options = r.options;
      options.output = f.output.empty() ? nullptr : f.output.data();
      options.cancel = &cancel_;
      const auto t0 = Clock::now();
      f.record = lab->run(r.kernel, r.config, options);
      f.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
    f.cancelled = cancel_.load();

    lock.lock();
    running_.reset();
    // A cancelled run that a waiting request replaced is dropped; any other answer is kept
    // (the newest wins if the frame loop has not taken the last one yet).
    if (!(f.cancelled && waiting_)) finished_ = std::move(f);
    if (on_finished_) {
      lock.unlock();
      on_finished_();
      lock.lock();
    }
  }
}

std::optional<AsyncLaunch::Finished> AsyncLaunch::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Finished> f = std::move(finished_);
  finished_.reset();
  return f;
}

bool AsyncLaunch::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_.has_value() || waiting_.has_value();
}

std::string AsyncLaunch::running_kernel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) return running_->kernel;
  if (waiting_) return waiting_->kernel;
  return {};
}

double AsyncLaunch::running_ms() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_) return 0;
  return std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
}

void AsyncLaunch::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) cancel_ = true;
  waiting_.reset();
  waiting_fork_.reset();
}

void AsyncLaunch::drop_fork() {
  std::lock_guard<std::mutex> lock(mutex_);
  fork_key_.clear();
  waiting_.reset();  // it would run on the old problem
  waiting_fork_.reset();
  if (running_) cancel_ = true;
  else fork_.reset();
}

}  // namespace bs::app
