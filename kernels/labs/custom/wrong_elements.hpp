// Who wrote the wrong elements: the lab's check (lab::UserProblem::verify) names the first wrong
// elements by column and row; when the CPU simulator recorded owners, each one carries the global
// thread id that stored it, split into block and thread.
#pragma once
#include <vector>

#include "core/check.hpp"
#include "core/launch_record.hpp"
#include "labs/custom/custom_kernel.hpp"

namespace bs::custom {

// `owners` may be null (GPU runs). `grid` and `block` are the launch's, to split thread ids.
std::vector<WrongElement> wrong_elements(const Check& check, const OwnerMap* owners, Dim3 grid, Dim3 block);

// Global linear thread id -> (block, thread), x fastest, as OwnerMap counts them.
void split_thread_id(unsigned long long id, Dim3 grid, Dim3 block, Dim3& block_idx, Dim3& thread_idx);

}  // namespace bs::custom
