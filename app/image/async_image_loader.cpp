#include "image/async_image_loader.hpp"

#include <algorithm>
#include <utility>

namespace bs {

float AsyncLoadProgress::fraction() const {
  if (files_total == 0) return busy ? 0.0f : 1.0f;
  double done = static_cast<double>(std::min(files_done, files_total));
  if (busy && current_bytes_total > 0 && files_done < files_total)
    done += static_cast<double>(std::min(current_bytes_read, current_bytes_total)) /
            static_cast<double>(current_bytes_total);
  return static_cast<float>(std::min(1.0, done / static_cast<double>(files_total)));
}

AsyncImageLoader::AsyncImageLoader(LoadLimits limits, std::size_t max_kept_images)
    : max_kept_images_(max_kept_images),
      limits_(std::move(limits)),
      worker_([this](std::stop_token stop) { run(std::move(stop)); }) {}

AsyncImageLoader::~AsyncImageLoader() {
  cancel_all();
  worker_.request_stop();
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void AsyncImageLoader::set_limits(LoadLimits limits) {
  std::lock_guard lock(mutex_);
  limits_ = std::move(limits);
}

void AsyncImageLoader::enqueue(std::vector<std::filesystem::path> paths) {
  if (paths.empty()) return;
  {
    std::lock_guard lock(mutex_);
    // Idle: this starts a new batch, so the progress bar counts from zero again. Idle is read
    // under the lock, where no job can be popped, so the worker cannot finish one in between.
    if (finished_count_.load() == enqueued_.load()) batch_start_.store(enqueued_.load());
    for (auto& path : paths) pending_.push_back(Job{std::move(path), generation_});
    enqueued_.fetch_add(paths.size());
  }
  wake_.notify_one();
}

std::vector<LoadOutcome> AsyncImageLoader::take_finished() {
  std::lock_guard lock(mutex_);
  std::vector<LoadOutcome> taken;
  taken.swap(finished_);
  return taken;
}

void AsyncImageLoader::cancel_all() {
  std::lock_guard lock(mutex_);
  ++generation_;
  cancel_current_.store(true);
  const std::size_t dropped = pending_.size();
  pending_.clear();
  finished_count_.fetch_add(dropped);
}

bool AsyncImageLoader::busy() const {
  // finished_count_ first: it never exceeds enqueued_, so a stale read can only say "busy".
  const std::size_t finished = finished_count_.load();
  return finished < enqueued_.load();
}

AsyncLoadProgress AsyncImageLoader::progress() const {
  AsyncLoadProgress p;
  const std::size_t start = batch_start_.load();
  const std::size_t finished = finished_count_.load();
  const std::size_t enqueued = enqueued_.load();
  p.busy = finished < enqueued;
  p.files_total = enqueued >= start ? enqueued - start : 0;
  p.files_done = std::min(finished >= start ? finished - start : 0, p.files_total);
  p.current_bytes_read = current_read_.bytes_read.load(std::memory_order_relaxed);
  p.current_bytes_total = current_read_.bytes_total.load(std::memory_order_relaxed);
  if (p.busy) {
    std::lock_guard lock(mutex_);
    p.current_file = current_file_;
  }
  return p;
}

void AsyncImageLoader::deliver(LoadOutcome outcome) {
  // Called with mutex_ held.
  if (outcome.image.ok() && max_kept_images_ > 0) {
    std::size_t kept = 0;
    for (const auto& waiting : finished_) kept += waiting.image.ok() ? 1 : 0;
    for (auto& waiting : finished_) {  // oldest first
      if (kept < max_kept_images_) break;
      if (!waiting.image.ok()) continue;
      const std::string name = waiting.image->name;
      waiting.image = Status::failure(name + " loaded, but a later file replaced it before it was shown",
                                      "load fewer files at once to see each one", "AsyncImageLoader",
                                      std::string(load_error_superseded));
      superseded_.fetch_add(1);
      --kept;
    }
  }
  finished_.push_back(std::move(outcome));
}

void AsyncImageLoader::run(std::stop_token stop) {
  while (true) {
    Job job;
    LoadLimits limits;
    {
      std::unique_lock lock(mutex_);
      if (!wake_.wait(lock, stop, [this] { return !pending_.empty(); })) return;  // stopping
      job = std::move(pending_.front());
      pending_.pop_front();
      limits = limits_;
      current_file_ = display_name(job.path);
      cancel_current_.store(false);
      current_read_.bytes_read.store(0, std::memory_order_relaxed);
      current_read_.bytes_total.store(0, std::memory_order_relaxed);
    }

    auto image = load_image_file(job.path, limits, &cancel_current_, &current_read_);

    {
      std::lock_guard lock(mutex_);
      current_file_.clear();
      // A cancel_all() since this job started drops it, whatever came out of the load.
      if (job.generation == generation_) deliver(LoadOutcome{std::move(job.path), std::move(image)});
    }
    // After the outcome is queued, so busy() == false implies take_finished() has everything.
    finished_count_.fetch_add(1);
  }
}

}  // namespace bs
