// CUptiResult -> CounterProblem -> Status. CUDA build only (needs CUPTI's header).
#pragma once
#include <cupti_result.h>

#include <string>

#include "counters/counter_errors.hpp"

namespace bs::counters {

CounterProblem classify(CUptiResult r);

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", or "CUPTI error <n>" for codes not named here.
std::string cupti_error_name(CUptiResult r);

// The Status for a failed CUPTI call. `description` is CUPTI's own text for the code
// (cuptiGetResultString), appended to the message for the codes blockscope has no words for.
Status status_from_cupti(CUptiResult r, const std::string& call, const std::string& description = {});

}  // namespace bs::counters
