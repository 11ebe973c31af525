#include "shell/frame_pacer.hpp"

#include <algorithm>

namespace bs::app {

void FramePacer::drew(Clock::time_point now, bool active) {
  last_frame_ = now;
  if (active) {
    last_active_ = now;
    settle_frames_left_ = kSettleFrames;
  } else if (settle_frames_left_ > 0) {
    --settle_frames_left_;
  }
}

double FramePacer::wait_s(const Needs& needs, Clock::time_point now) const {
  if (needs.input_pending) return 0;
  const double since_frame = std::chrono::duration<double>(now - last_frame_).count();
  const double since_active = std::chrono::duration<double>(now - last_active_).count();
  if (settle_frames_left_ > 0 || since_active < kSettleS) return 0;
  if (needs.every_frame) return std::max(0.0, 1.0 / kMaxFps - since_frame);
  double wait = kIdleS - since_frame;
  if (needs.progress_period_s > 0) wait = std::min(wait, needs.progress_period_s - since_frame);
  if (needs.deadline_s >= 0) wait = std::min(wait, needs.deadline_s);
  return std::max(0.0, wait);
}

}  // namespace bs::app
