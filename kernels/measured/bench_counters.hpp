// `blockscope bench ... --counters` and sweeps with the counter columns: every result gains the
// hardware counters of its launch (or the reason there are none), written by lab/report.* into
// its JSON "counters" object (docs/counters-fields.md).
//
//   measured::BenchCounters counters(options);
//   auto records = lab::run_bench(lab, spec);
//   counters.attach(lab, records);        // one profile per record that ran
//
// One CounterSession serves the whole run; it is created at the first record that needs it. When
// counters cannot be read (the CPU backend, no permission, no CUPTI) every record carries the
// same explained Status and the run goes on: the timings are the results, the counters an extra.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "core/launch_record.hpp"
#include "counters/counters.hpp"
#include "lab/lab.hpp"

namespace bs::measured {

class BenchCounters {
 public:
  explicit BenchCounters(counters::CounterOptions options = {});
  ~BenchCounters();

  // Profiles the launch of each record of `records` that ran (on `lab`, which still holds the
  // records' problem and settings) and attaches its counters; refused and failed records are
  // left without. `progress` (may be empty) sees each record once its counters are attached.
  void attach(lab::Lab& lab, std::vector<LaunchRecord>& records,
              const std::function<void(const LaunchRecord&)>& progress = {});

  // Profiles one launch (a sweep point): the record gains its counters.
  void attach_one(lab::Lab& lab, LaunchRecord& record);

  // Why counters could not be read at all (the session could not be created), or success.
  const Status& session_problem() const { return unavailable_; }

 private:
  counters::CounterOptions options_;
  std::unique_ptr<counters::CounterSession> session_;
  int session_device_ = -1;
  Status unavailable_;
};

}  // namespace bs::measured
