// What blockscope's figures are measured in, and which group a kernel of a ladder belongs to, as
// enums: compared as values everywhere, spelled once (unit_text, group_name) where they are shown
// or written (JSON, CSV, tables).
#pragma once

namespace bs {

// A lab's throughput: memory-bound labs count bytes moved, compute-bound ones FLOPs.
enum class ThroughputUnit { GBPerS, GflopPerS };

inline const char* unit_text(ThroughputUnit u) { return u == ThroughputUnit::GflopPerS ? "GFLOP/s" : "GB/s"; }
// The same figure a thousand times larger: "TB/s", "TFLOP/s".
inline const char* unit_text_thousand(ThroughputUnit u) { return u == ThroughputUnit::GflopPerS ? "TFLOP/s" : "TB/s"; }

// Where a kernel stands in its lab's list.
enum class KernelGroup {
  Lecture,  // the lecture's own kernels
  Ladder,   // the rungs above them
  Library,  // timed anchors from a library (CUB, cuBLAS): the speed to reach
  Ceiling,  // what the hardware allows, timed in the same run (the copy)
  Custom,   // the user's own kernels (kernels/labs/custom)
};

inline const char* group_name(KernelGroup g) {
  switch (g) {
    case KernelGroup::Lecture: return "lecture";
    case KernelGroup::Ladder: return "ladder";
    case KernelGroup::Library: return "library";
    case KernelGroup::Ceiling: return "ceiling";
    case KernelGroup::Custom: return "custom";
  }
  return "?";
}

}  // namespace bs
