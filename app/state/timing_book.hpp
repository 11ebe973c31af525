// Timings kept per configuration: one rolling history for every (lab, kernel, configuration,
// problem) that ran this session, so the statistics of the selected configuration never mix in
// another one's runs, and the others stay for comparison (the Runs tab). Plain data.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/launch_record.hpp"
#include "state/timing_history.hpp"

namespace bs::app {

struct TimingKey {
  std::string lab, kernel, config, problem;
  friend bool operator==(const TimingKey&, const TimingKey&) = default;
};

inline TimingKey key_of(const LaunchRecord& r) { return TimingKey{r.lab, r.kernel, r.config_label, r.problem}; }

struct TimingEntry {
  TimingKey key;
  TimingHistory history;
  LaunchRecord last;  // the latest run (its schedule dropped), for the check and the throughput
  std::size_t runs = 0;
};

class TimingBook {
 public:
  // Adds a run that succeeded; returns its entry.
  TimingEntry& add(const LaunchRecord& r, double pipeline_ms) {
    TimingEntry* e = find_mutable(key_of(r));
    if (!e) {
      entries_.push_back(TimingEntry{key_of(r), TimingHistory{}, {}, 0});
      e = &entries_.back();
    }
    e->history.add(r.timing.median_ms, pipeline_ms);
    e->last = r;
    e->last.schedule.clear();
    e->last.owners.reset();
    ++e->runs;
    return *e;
  }
  const TimingEntry* find(const TimingKey& k) const {
    for (const TimingEntry& e : entries_)
      if (e.key == k) return &e;
    return nullptr;
  }
  const std::vector<TimingEntry>& entries() const { return entries_; }
  // Forgets the runs of one lab (its problem changed: they were on other data).
  void forget_lab(const std::string& lab) {
    std::erase_if(entries_, [&](const TimingEntry& e) { return e.key.lab == lab; });
  }
  // Forgets one kernel's runs (a user kernel was recompiled: they measured its older source).
  void forget_kernel(const std::string& lab, const std::string& kernel) {
    std::erase_if(entries_, [&](const TimingEntry& e) { return e.key.lab == lab && e.key.kernel == kernel; });
  }
  void clear() { entries_.clear(); }

 private:
  TimingEntry* find_mutable(const TimingKey& k) {
    for (TimingEntry& e : entries_)
      if (e.key == k) return &e;
    return nullptr;
  }
  std::vector<TimingEntry> entries_;
};

}  // namespace bs::app
