// The part of lab::Lab a test lab need not model: no thread owns an element, no warp makes a
// request, and the output downloads as nothing. The fake labs of the tests (tests/lab/fake_lab.hpp,
// tests/app/fake_lab_view.hpp) derive from it and write only what they script.
#pragma once
#include "lab/lab.hpp"

namespace bs::test {

class LabWithoutMemoryModel : public lab::Lab {
 public:
  Status download_output(void*) override { return Status::success(); }
  std::optional<mapping::ElementOwner> owner(const LaunchRecord&, long long, long long) const override {
    return std::nullopt;
  }
  std::vector<mapping::WarpAccess> warp_accesses(const LaunchRecord&, Dim3, unsigned, int) const override { return {}; }
};

}  // namespace bs::test
