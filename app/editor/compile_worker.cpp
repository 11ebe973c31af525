#include "editor/compile_worker.hpp"

namespace bs::editor {

CompileWorker::CompileWorker() : thread_([this] { loop(); }) {}

CompileWorker::~CompileWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void CompileWorker::submit(CompileJob job) {
  {
    std::lock_guard lock(mutex_);
    std::erase_if(queue_, [&](const CompileJob& j) { return j.tab == job.tab; });
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

std::vector<CompileDone> CompileWorker::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(done_, {});
}

bool CompileWorker::busy() const {
  std::lock_guard lock(mutex_);
  return running_ || !queue_.empty() || !done_.empty();
}

void CompileWorker::loop() {
  for (;;) {
    CompileJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
    }
    custom::Engine& engine = job.book->engine();
    CompileDone done;
    done.tab = job.tab;
    done.book = job.book;
    done.result = custom::compile_and_try(engine, job.request);
    std::lock_guard lock(mutex_);
    done_.push_back(std::move(done));
    running_ = false;
  }
}

}  // namespace bs::editor
