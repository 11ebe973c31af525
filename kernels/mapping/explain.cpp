#include "mapping/explain.hpp"

namespace bs::mapping {
namespace {

struct Entry {
  const char* label;
  const char* text;
};

// One row per Concept, in enum order (the test checks every row is filled).
constexpr Entry kEntries[] = {
    {"gridDim",
     "How many blocks the launch has along x, y and z. Blocks are independent: the GPU may run "
     "them in any order, on any SM, as many at once as fit."},
    {"blockDim",
     "How many threads each block has along x, y and z. The threads of a block run on the same SM "
     "and can share memory and wait for each other at __syncthreads()."},
    {"blockIdx",
     "Which block this thread belongs to. Together with threadIdx it is all a thread knows about "
     "where it is; the kernel turns the two into the data index it works on."},
    {"threadIdx",
     "This thread's position inside its block. Threads are numbered x fastest, then y, then z; "
     "that linear number decides which warp and lane the thread is."},
    {"Flat index",
     "The array index this thread's kernel computes, e.g. i = blockIdx.x * blockDim.x + "
     "threadIdx.x. "
     "The pixel is (i % width, i / width) for the 1D kernel and (x, y) for the 2D one."},
    {"Threads launched",
     "Blocks times threads per block: every thread the GPU starts, whether or not it has data to "
     "work on."},
    {"Threads working",
     "Threads whose index falls inside the data, so the kernel's bounds check lets them compute an "
     "element. Ideally equal to the number of elements."},
    {"Idle threads",
     "Threads that start but fail the bounds check and return at once. They sit in the edge "
     "blocks, "
     "because the data size is rarely a multiple of the block size. They still take warp slots."},
    {"Partial (edge) block",
     "A block with some threads past the end of the data. With a 1D grid only the last block can "
     "be partial; with a 2D grid the blocks along the right and bottom edges are."},
    {"Warp",
     "32 threads of a block with consecutive linear thread numbers. The SM issues one instruction "
     "for a whole warp at a time, so a warp is the real unit of execution."},
    {"Lane",
     "A thread's position inside its warp, 0 to 31: its linear thread number in the block modulo "
     "32."},
    {"Warps per block",
     "Threads per block divided by 32, rounded up. A block of 100 threads is 4 warps: the last one "
     "has only 4 threads but still occupies a full warp slot."},
    {"Short warps",
     "Warps with fewer than 32 threads, because the block size is not a multiple of 32. The "
     "missing "
     "lanes do nothing, but the warp costs as much as a full one."},
    {"Edge warps",
     "Warps in which some lanes pass the bounds check and others do not, because they straddle the "
     "end of the data. The warp runs both paths; the idle lanes just wait."},
    {"Registers per thread",
     "Registers the compiler gave each thread of this kernel (cudaFuncGetAttributes). Registers "
     "are the fastest storage, but an SM has a fixed number (65536), so using many means fewer "
     "threads fit at once."},
    {"Shared memory per block",
     "Fast on-chip memory the block's threads share: the kernel's static __shared__ arrays plus "
     "the "
     "dynamic amount given at launch. An SM has a fixed amount, split among its resident blocks."},
    {"Occupancy",
     "Resident warps per SM divided by the most an SM can hold. Higher occupancy gives the SM more "
     "warps to switch to while others wait for memory. It is a ceiling, not a speed: 50% can be "
     "plenty."},
    {"Active blocks per SM",
     "How many blocks of this kernel can live on one SM at the same time: the smallest of what the "
     "thread slots, registers, shared memory and the per-SM block limit each allow."},
    {"Limited by threads",
     "The SM has no more warp slots for another block (e.g. 64 warps on sm_90, 32 on sm_75). Only "
     "smaller blocks that divide the slots better can change this."},
    {"Limited by registers",
     "The SM's register file is full: each warp takes registers per thread x 32, rounded up to "
     "256. "
     "Fewer registers per thread (simpler code, __launch_bounds__) would let more blocks in."},
    {"Limited by shared memory",
     "The SM's shared memory is used up by the resident blocks (each also costs 1 KiB the runtime "
     "reserves on sm_80 and newer). Smaller tiles would let more blocks in."},
    {"Limited by blocks per SM",
     "An SM holds at most a fixed number of blocks (32 on sm_80 and sm_90, 16 on sm_75), however "
     "small they are. Tiny blocks hit this limit first and leave warp slots empty."},
    {"Waves",
     "Blocks divided by the blocks the whole GPU holds at once (SMs x active blocks per SM). 2.1 "
     "waves means two full rounds of blocks and a third round that is mostly empty."},
    {"Last wave fill",
     "How full the final round of blocks is. A nearly empty last wave is a tail: most SMs idle "
     "while a few finish, so the launch takes a whole round longer for little work."},
    {"32-byte sector",
     "The unit in which global memory is read and written. A warp's request costs one transaction "
     "per distinct sector its 32 lanes touch, however few bytes of it they use."},
    {"Coalescing",
     "When a warp's lanes access consecutive addresses, their bytes share a few sectors and the "
     "request is cheap. When lanes stride apart, each pulls in a sector of its own and most of "
     "every sector is fetched for nothing."},
    {"SM",
     "Streaming multiprocessor: one of the GPU's cores that runs blocks. %smid tells a block which "
     "SM it landed on; a block never moves to another SM."},
    {"Schedule",
     "Which SM ran each block and when, recorded by an instrumented copy of the kernel reading the "
     "SM id and the GPU's global nanosecond timer at the start and end of every block."},
    {"Simulated schedule",
     "On the CPU backend each worker thread plays one SM and runs blocks one after another. The "
     "timeline shows which worker ran each block; it illustrates the idea, not GPU timing."},
    {"Makespan",
     "From the first block's start to the last block's end: the kernel's running time as the trace "
     "saw it."},
    {"Imbalance",
     "The busiest SM's busy time divided by the average. 1.0 means every SM worked equally long; "
     "larger values mean some SMs sat idle while others finished the tail."},
    {"Cluster",
     "A thread block cluster (Hopper, sm_90): blocks launched together as a group. The hardware "
     "runs all blocks of a cluster at the same time on SMs of one GPC, and they can read and "
     "write each other's shared memory and wait at a cluster-wide barrier. Without cluster dims "
     "every block is its own cluster of one."},
    {"Max active clusters",
     "How many whole clusters of this launch fit on the GPU at once, as the GPU itself answers "
     "(cudaOccupancyMaxActiveClusters). The blocks-per-SM model multiplies per-SM room by the SM "
     "count; clusters can fit fewer, because all blocks of a cluster must find room on SMs of one "
     "GPC at the same time, and SMs left over in a GPC stay empty."},
    {"Cluster schedule",
     "Each block read its cluster from the GPU's registers (%clusterid, %cluster_ctarank) along "
     "with its SM (%smid) and times (%globaltimer). The blocks of one cluster should all have "
     "run at one moment, on SMs of one GPC. The GPC itself has no register: only the SM ids are "
     "recorded, so SMs that shared a cluster are known to be in one GPC."},
};

static_assert(sizeof(kEntries) / sizeof(kEntries[0]) == static_cast<int>(Concept::kCount),
              "every Concept needs a label and an explanation");

}  // namespace

const char* label(Concept c) {
  const int i = static_cast<int>(c);
  return i >= 0 && i < static_cast<int>(Concept::kCount) ? kEntries[i].label : "";
}

const char* explain(Concept c) {
  const int i = static_cast<int>(c);
  return i >= 0 && i < static_cast<int>(Concept::kCount) ? kEntries[i].text : "";
}

}  // namespace bs::mapping
