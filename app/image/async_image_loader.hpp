// Loads dropped or opened image files on one worker thread, so the UI never waits on a disk or a
// decoder, and reports progress through atomics the UI reads every frame without blocking.
//
// Policy (why it is safe to drop 1000 files at once):
//  - Files are loaded one at a time, in the order given; outcomes come out of take_finished() in
//    that same order, one outcome per file (except files dropped by cancel_all()).
//  - Only the newest `max_kept_images` successfully decoded images (default 1) wait in the
//    finished queue. When a newer one arrives, the oldest waiting image is released and its
//    outcome becomes a Status with code load_error_superseded ("superseded"): the file was
//    fine, but a later file replaced it before the caller took it. Error outcomes are small and
//    are all kept. So at most max_kept_images + 1 decoded images exist at any moment (the
//    kept ones plus the one being decoded), however many files are queued.
//  - The intended caller (the app) shows the last successful image of each take_finished()
//    batch and lists the errors. Callers that want every image (e.g. a gallery) can raise
//    max_kept_images, or pass 0 for "keep all", and take_finished() often.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/status.hpp"
#include "image/image.hpp"
#include "image/image_loader.hpp"

namespace bs {

// Status::code of an image that loaded fine but was released in favour of a later one.
inline constexpr std::string_view load_error_superseded = "superseded";

struct LoadOutcome {
  std::filesystem::path path;
  Result<Rgba8Image> image;  // the decoded image, or why there is none

  // True when the file decoded fine but a later file replaced it (not an error to show).
  bool superseded() const { return !image.ok() && image.status().code == load_error_superseded; }
};

// A consistent-enough picture of the loader for one UI frame (values come from separate atomics,
// so the counts can be one file apart; they never go backwards within a batch).
struct AsyncLoadProgress {
  std::size_t files_total = 0;  // files in the current batch (a batch starts when an enqueue
                                // finds the loader idle)
  std::size_t files_done = 0;   // finished, failed or cancelled files of that batch
  std::string current_file;     // UTF-8 name of the file being read/decoded; empty when idle
  std::uint64_t current_bytes_read = 0;
  std::uint64_t current_bytes_total = 0;
  bool busy = false;

  // 0..1 for a progress bar: whole files done plus the part of the current file read so far.
  float fraction() const;
};

class AsyncImageLoader {
 public:
  explicit AsyncImageLoader(LoadLimits limits = {}, std::size_t max_kept_images = 1);
  ~AsyncImageLoader();  // cancels what is queued and in flight, then joins the worker

  AsyncImageLoader(const AsyncImageLoader&) = delete;
  AsyncImageLoader& operator=(const AsyncImageLoader&) = delete;
  AsyncImageLoader(AsyncImageLoader&&) = delete;
  AsyncImageLoader& operator=(AsyncImageLoader&&) = delete;

  // Limits for files that start loading after this call (the app lowers max_side once it knows
  // GL_MAX_TEXTURE_SIZE).
  void set_limits(LoadLimits limits);

  // Queues files behind those already queued. Returns at once.
  void enqueue(std::vector<std::filesystem::path> paths);

  // Outcomes finished since the last call, in enqueue order (see the policy above).
  std::vector<LoadOutcome> take_finished();

  // Drops every queued file and abandons the one in flight (it stops between read chunks; a
  // decode that already started finishes and is then discarded). None of them yields an
  // outcome. Files enqueued afterwards load normally.
  void cancel_all();

  // True from enqueue() until the last queued file's outcome is in the finished queue.
  bool busy() const;

  AsyncLoadProgress progress() const;

  // Images released under the max_kept_images policy since construction.
  std::size_t superseded_count() const { return superseded_.load(std::memory_order_relaxed); }

 private:
  struct Job {
    std::filesystem::path path;
    std::uint64_t generation = 0;  // cancel_all() bumps the generation: older jobs are dropped
  };

  void run(std::stop_token stop);
  void deliver(LoadOutcome outcome);

  const std::size_t max_kept_images_;

  mutable std::mutex mutex_;  // guards everything below up to the atomics
  std::condition_variable_any wake_;
  std::deque<Job> pending_;
  std::vector<LoadOutcome> finished_;
  LoadLimits limits_;
  std::string current_file_;
  std::uint64_t generation_ = 0;

  // Monotonic counters since construction; a batch is [batch_start_, enqueued_).
  std::atomic<std::size_t> enqueued_{0};
  std::atomic<std::size_t> finished_count_{0};
  std::atomic<std::size_t> batch_start_{0};
  std::atomic<std::size_t> superseded_{0};
  std::atomic<bool> cancel_current_{false};
  FileReadProgress current_read_;

  std::jthread worker_;  // last member: starts after, and is joined before, everything above
};

}  // namespace bs
