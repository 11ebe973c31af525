// The one way a test skips: visibly (ctest reports it as skipped, not passed) and saying why, or,
// where the machine is meant to have what the test needs, as a failure.
//
//   BS_SKIP_NO_GPU() << "no CUDA device: " << why;      a GPU test without a usable device
//   BS_SKIP_NO_GL() << "no DISPLAY";                    a GL or X test without a display/context
//   BS_SKIP() << "fonts-noto-cjk is not installed";     anything else the machine may lack
//
// BLOCKSCOPE_REQUIRE_GPU=1 (set by tests/gpu/run_on_device.sh on the GPU machine) turns every
// BS_SKIP_NO_GPU into a failure, and BLOCKSCOPE_REQUIRE_GL=1 (set by .ci/test.sh, which runs the
// suite under a virtual X display) every BS_SKIP_NO_GL: a step cannot report green without running.
// Each is a `return` from the test body or fixture SetUp, like GTEST_SKIP.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace bs::test {

// True when the environment variable is set to something other than "" or "0".
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0";
}

inline ::testing::TestPartResult::Type skip_or_fail(const char* required_by) {
  return required_by && env_flag(required_by) ? ::testing::TestPartResult::kFatalFailure
                                              : ::testing::TestPartResult::kSkip;
}

inline const char* skip_prefix(const char* required_by) {
  if (!required_by || !env_flag(required_by)) return "";
  return std::string_view(required_by) == "BLOCKSCOPE_REQUIRE_GPU"
             ? "BLOCKSCOPE_REQUIRE_GPU is set, so this GPU test must run, but: "
             : "BLOCKSCOPE_REQUIRE_GL is set, so this GL/X test must run, but: ";
}

}  // namespace bs::test

// gtest's own GTEST_SKIP() is `return GTEST_MESSAGE_(...)`; these choose the result at run time.
#define BS_SKIP_UNLESS_REQUIRED_(required_by)                                        \
  return GTEST_MESSAGE_AT_(__FILE__, __LINE__, ::bs::test::skip_prefix(required_by), \
                           ::bs::test::skip_or_fail(required_by))
#define BS_SKIP_NO_GPU() BS_SKIP_UNLESS_REQUIRED_("BLOCKSCOPE_REQUIRE_GPU")
#define BS_SKIP_NO_GL() BS_SKIP_UNLESS_REQUIRED_("BLOCKSCOPE_REQUIRE_GL")
#define BS_SKIP() BS_SKIP_UNLESS_REQUIRED_(nullptr)
