// The editor's Compile, off the UI thread: one worker thread compiles the source and runs it
// once on the lab's data, verified (custom::compile_and_try), while the window keeps drawing and
// the last working kernel keeps running. A newer request for the same tab replaces one still
// waiting. On the GPU, the CPU build the lab replays launches on (who stores what, stray
// accesses) is not made here: the result would wait for g++ (issue 32). The lab makes it on its
// own worker after the GPU result is shown (labs/custom/cpu_findings.hpp).
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "labs/custom/user_kernels.hpp"

namespace bs::editor {

struct CompileJob {
  int tab = 0;  // which editor tab asked
  std::shared_ptr<custom::UserKernelBook> book;
  custom::TrialRequest request;
};

struct CompileDone {
  int tab = 0;
  std::shared_ptr<custom::UserKernelBook> book;
  custom::TrialResult result;
};

class CompileWorker {
 public:
  CompileWorker();
  ~CompileWorker();  // finishes the job in hand (a compile or run is bounded by its limits)
  CompileWorker(const CompileWorker&) = delete;
  CompileWorker& operator=(const CompileWorker&) = delete;

  void submit(CompileJob job);
  std::vector<CompileDone> take();
  bool busy() const;  // a job waiting, running, or finished but not yet taken

 private:
  void loop();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<CompileJob> queue_;
  std::vector<CompileDone> done_;
  bool running_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bs::editor
