#include "shell/frame_phases.hpp"

#include <algorithm>
#include <cstdio>

#include "core/median.hpp"

namespace bs::app {

const char* FramePhases::name(Phase p) {
  switch (p) {
    case kInput: return "input";
    case kResults: return "results";
    case kLaunch: return "launch";
    case kUi: return "ui";
    case kGl: return "gl";
    case kPresent: return "present";
    case kPhaseCount: break;
  }
  return "?";
}

void FramePhases::begin_frame(Clock::time_point now) {
  // The frame before ends here: what it spent is kept (the time between frames, asleep in the
  // event loop, is no phase of either).
  if (open_) {
    last_ = current_;
    ++frames_;
    if (frames_ > 1) {  // the first frame compiles shaders and opens the lab: not a frame's cost
      double total = 0;
      for (int p = 0; p < kPhaseCount; ++p) {
        total += current_[p];
        if (kept_[p].size() < kKeep) kept_[p].push_back(current_[p]);
      }
      if (kept_[kPhaseCount].size() < kKeep) kept_[kPhaseCount].push_back(total);
      if (!current_steps_.empty()) ++launches_;
      for (const auto& [name, ms] : current_steps_) {
        auto it = std::find_if(kept_steps_.begin(), kept_steps_.end(), [&](const auto& k) { return k.first == name; });
        if (it == kept_steps_.end()) it = kept_steps_.insert(kept_steps_.end(), {name, {}});
        if (it->second.size() < kKeep) it->second.push_back(ms);
      }
    }
  }
  current_steps_.clear();
  current_.fill(0);
  mark_ = now;
  open_ = true;
}

void FramePhases::end_phase(Phase p, Clock::time_point now) {
  if (!open_ || p < 0 || p >= kPhaseCount) return;
  current_[p] += std::chrono::duration<double, std::milli>(now - mark_).count();
  mark_ = now;
}

void FramePhases::launch_steps(const std::vector<std::pair<std::string, double>>& steps_s) {
  for (const auto& [name, s] : steps_s) current_steps_.emplace_back(name, s * 1000);
}

std::string FramePhases::launch_summary() const {
  if (kept_steps_.empty()) return {};
  std::string out;
  char buf[96];
  for (const auto& [name, ms] : kept_steps_) {
    std::snprintf(buf, sizeof buf, "%s%s %.3f", out.empty() ? "" : " | ", name.c_str(), median_of(ms));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, " ms (medians over %zu launches)", launches_);
  return out + buf;
}

double FramePhases::last_total_ms() const {
  double t = 0;
  for (double ms : last_) t += ms;
  return t;
}

std::string FramePhases::summary() const {
  const std::size_t n = kept_[kPhaseCount].size();
  if (n == 0) return {};
  std::string out;
  char buf[64];
  for (int p = 0; p < kPhaseCount; ++p) {
    std::snprintf(buf, sizeof buf, "%s %.2f | ", name(static_cast<Phase>(p)), median_of(kept_[p]));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "frame %.2f ms (median of %zu frames)", median_of(kept_[kPhaseCount]), n);
  return out + buf;
}

}  // namespace bs::app
