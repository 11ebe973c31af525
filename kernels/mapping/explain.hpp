// Plain-words explanations of every figure the mapping views show, for tooltips. Kept here, next
// to the arithmetic they describe, so a change in one is seen next to the other.
#pragma once

namespace bs::mapping {

enum class Concept {
  GridDim,
  BlockDim,
  BlockIdx,
  ThreadIdx,
  FlatIndex,
  ThreadsLaunched,
  ThreadsWorking,
  IdleThreads,
  PartialBlock,
  Warp,
  Lane,
  WarpsPerBlock,
  ShortWarps,
  EdgeWarps,
  RegistersPerThread,
  SharedMemoryPerBlock,
  Occupancy,
  ActiveBlocksPerSm,
  LimiterThreads,
  LimiterRegisters,
  LimiterSharedMemory,
  LimiterBlocksPerSm,
  Waves,
  LastWaveFill,
  Sector,
  Coalescing,
  SmId,
  Schedule,
  SimulatedSchedule,
  Makespan,
  Imbalance,
  Cluster,
  MaxActiveClusters,
  ClusterSchedule,
  kCount,  // not a concept: the number of them
};

// A short label ("Idle threads") and a few plain sentences for the tooltip.
const char* label(Concept c);
const char* explain(Concept c);

}  // namespace bs::mapping
