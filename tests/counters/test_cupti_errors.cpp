// CUPTI's result codes -> problems -> the Status the user reads. CUDA builds with CUPTI headers;
// no GPU needed.
#include <gtest/gtest.h>

#include "counters/cupti_errors.hpp"

namespace bs::counters {
namespace {

TEST(CuptiErrors, EachCauseOfIssue12MapsToItsProblem) {
  EXPECT_EQ(classify(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), CounterProblem::InsufficientPrivileges);
  EXPECT_EQ(classify(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED), CounterProblem::VirtualizedDevice);
  EXPECT_EQ(classify(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES), CounterProblem::VirtualizedDevice);
  EXPECT_EQ(classify(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), CounterProblem::AnotherProfiler);
  EXPECT_EQ(classify(CUPTI_ERROR_HARDWARE_BUSY), CounterProblem::HardwareBusy);
  EXPECT_EQ(classify(CUPTI_ERROR_NOT_SUPPORTED), CounterProblem::UnsupportedDevice);
  EXPECT_EQ(classify(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED), CounterProblem::MigSlice);
  EXPECT_EQ(classify(CUPTI_ERROR_UNKNOWN), CounterProblem::Other);
}

TEST(CuptiErrors, PermissionStatusCarriesCallCodeAndHint) {
  const Status s = status_from_cupti(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerStart");
  EXPECT_EQ(s.call, "cuptiRangeProfilerStart");
  EXPECT_EQ(s.code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_NE(s.hint.find(kProfilingDriverOption), std::string::npos) << s.hint;
}

TEST(CuptiErrors, UnnamedCodesKeepCuptisOwnWords) {
  const Status s = status_from_cupti(static_cast<CUptiResult>(4242), "cuptiX", "CUPTI's words");
  EXPECT_EQ(s.code, "CUPTI error 4242");
  EXPECT_NE(s.message.find("CUPTI's words"), std::string::npos) << s.message;
}

}  // namespace
}  // namespace bs::counters
