// Ranking records against each other: only records that ran and were not wrong are ranked,
// within each problem and setting (records of other sizes or layouts are not compared). A record
// whose 95% interval overlaps the one ranked just before it cannot be ranked against it: their
// order is noise. Used by the results writer (report.hpp) and sweeps (sweep.hpp), which both
// include this; it includes neither.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/launch_record.hpp"

namespace bs::lab {

struct Ranked {
  std::size_t index = 0;       // into the records
  int rank = 0;                // 1 = fastest of its group
  bool ties_previous = false;  // interval overlaps the previous rank's: cannot be ranked
  bool ties_best = false;      // interval overlaps the best's: indistinguishable from the best
};
// Sorted by group, then median; records that are not ranked are absent.
std::vector<Ranked> rank_records(const std::vector<LaunchRecord>& records);

// Whether a record takes part in ranking: it ran, and its result is not wrong.
bool rankable(const LaunchRecord& r);

// What records are ranked within: the lab, the problem and its settings.
std::string rank_group(const LaunchRecord& r);

}  // namespace bs::lab
