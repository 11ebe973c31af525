// Verifying a user kernel's output against the lab's reference, and naming who wrote each wrong
// element: the check is the lab's own (gray: within 1 grey level of the double-precision
// reference, since a float or FMA-contracted formula truncates to the neighbouring level where
// the exact value lies next to an integer; matmul: matmul::verify's documented tolerance), and
// when the CPU simulator recorded owners, each wrong element carries the global thread id that
// stored it, split into block and thread.
#pragma once
#include <cstdint>
#include <vector>

#include "core/check.hpp"
#include "core/launch_record.hpp"
#include "labs/custom/custom_kernel.hpp"
#include "labs/custom/problem.hpp"

namespace bs::custom {

struct Verdict {
  Check check;
  std::vector<WrongElement> wrong;  // at most Check::kMaxBad, row-major order
};

// `owners` may be null (GPU runs). `grid` and `block` are the launch's, to split thread ids.
Verdict verify_output(const Problem::Data& problem, const std::uint8_t* out, const OwnerMap* owners,
                      Dim3 grid, Dim3 block);

// Global linear thread id -> (block, thread), x fastest, as OwnerMap counts them.
void split_thread_id(unsigned long long id, Dim3 grid, Dim3 block, Dim3& block_idx, Dim3& thread_idx);

}  // namespace bs::custom
