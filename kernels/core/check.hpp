// Check: what verifying a launch's output against its lab's reference found. One shape for
// every lab, so the UI, bench, sweeps and exports say "correct" or "wrong" the same way and name
// the measure that decided (an error against a tolerance), and the first wrong elements, so the
// views can point at them and at the thread that wrote them.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace bs {

struct Check {
  enum class State : std::uint8_t { NotChecked, Passed, Failed };
  State state = State::NotChecked;
  std::string against;                // "double-precision CPU reference", "cuBLAS SGEMM (FP32)"
  std::string measure;                // what decides: "max |out - ref|", "worst error / its tolerance"
  double worst = 0;                   // the decisive measure over every element checked
  double limit = 0;                   // the check passes when worst <= limit (and nothing is NaN)
  unsigned long long checked = 0;     // elements compared
  unsigned long long mismatches = 0;  // elements over the limit
  struct Bad {
    long long x = 0, y = 0;  // column and row in the lab's data
    double got = 0, want = 0;
  };
  std::vector<Bad> first_bad;  // the first few (row-major order), at most kMaxBad
  std::string note;            // why not checked; or a secondary figure (relative error, ...)

  static constexpr std::size_t kMaxBad = 16;

  bool passed() const { return state == State::Passed; }
  bool failed() const { return state == State::Failed; }

  // One line: "correct: max |out - ref| 1 <= 1 over 262144" / "WRONG: 17 of 262144 over ...".
  std::string summary() const {
    char buf[256];
    switch (state) {
      case State::NotChecked: return note.empty() ? "not checked" : "not checked: " + note;
      case State::Passed:
        std::snprintf(buf, sizeof buf, "correct vs %s: %s %.3g <= %.3g over %llu elements", against.c_str(),
                      measure.c_str(), worst, limit, checked);
        return buf;
      case State::Failed:
        std::snprintf(buf, sizeof buf, "WRONG vs %s: %llu of %llu elements over the limit (%s %.3g > %.3g)",
                      against.c_str(), mismatches, checked, measure.c_str(), worst, limit);
        std::string s = buf;
        if (!first_bad.empty()) {
          std::snprintf(buf, sizeof buf, "; first at (%lld, %lld): got %.6g, want %.6g", first_bad[0].x, first_bad[0].y,
                        first_bad[0].got, first_bad[0].want);
          s += buf;
        }
        if (!note.empty()) s += "; " + note;  // e.g. who stored the first wrong element
        return s;
    }
    return {};
  }
};

}  // namespace bs
