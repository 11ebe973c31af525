// The C ABI between blockscope-kernel-runner and a user's kernel compiled for the CPU simulator.
//
// This file is compiled twice: into the runner (runner/runner_cpu.cpp includes it) and, as text,
// at the top of every CPU translation unit blockscope generates (codegen.cpp puts it there before
// cpu_prelude.h). Plain C structs only, no headers: the generated unit must compile in a fraction
// of a second on a 2-core machine.
//
// The generated shared object exports
//   int  bs_abi_version(void);                      == BS_CUSTOM_ABI_VERSION
//   void bs_cpu_thread(const bs_thread_ctx*, const bs_launch_args*);   one thread of the kernel
//   void* bs_tls_touch(void);                       makes this thread's TLS block exist (__shared__)
#ifndef BS_CUSTOM_ABI_H
#define BS_CUSTOM_ABI_H

#define BS_CUSTOM_ABI_VERSION 2  // 2: warp barrier, warp exchange, fail
#define BS_CUSTOM_MAX_BUFFERS 4
#define BS_CUSTOM_MAX_INTS 4
// Bytes of a warp's exchange area (warp_exchange): lane slots, then room for a WMMA tile pair.
#define BS_WARP_EXCHANGE_BYTES 2048

// Access kinds an out-of-bounds report can name.
#define BS_ACCESS_UNKNOWN 0  // through an input pointer: a read or a write, the view cannot tell
#define BS_ACCESS_READ 1
#define BS_ACCESS_WRITE 2

struct bs_u3 {
  unsigned x, y, z;
};

// What one simulated thread sees: CUDA's four built-ins, its global linear id (the owner id of
// IndexScheme::Recorded) and the runner's own context for the barrier.
struct bs_thread_ctx {
  struct bs_u3 blockIdx, threadIdx, blockDim, gridDim;
  unsigned long long global_thread;  // linear block * threads per block + linear thread in block
  void* host;                        // the runner's bs::sim::HostCtx (barrier), opaque here
};

// One pointer argument of the kernel.
struct bs_buffer {
  void* data;
  long long count;   // elements
  unsigned* owners;  // outputs only, or 0: owners[i] = global_thread of the last store to [i]
};

struct bs_launch_args {
  struct bs_buffer buffers[BS_CUSTOM_MAX_BUFFERS];
  int ints[BS_CUSTOM_MAX_INTS];
  // __syncthreads(): the simulator's barrier for the calling thread's block.
  void (*barrier)(void* host);
  // Records the first bad access of the launch and stops it (throws a C++ exception the runner
  // catches; the unit is compiled with exceptions, so the kernel's frames unwind cleanly).
  void (*out_of_bounds)(const struct bs_thread_ctx* ctx, int buffer, long long index,
                        long long count, int access);
  // __syncwarp(mask): the simulator's warp barrier (the lanes of the caller's warp named in mask).
  void (*warp_sync)(void* host, unsigned mask);
  // Warp `warp`'s exchange area in the calling block (BS_WARP_EXCHANGE_BYTES), outside the unit's
  // TLS so it never counts as the kernel's __shared__: warp collectives write own slot, warp_sync,
  // read, warp_sync.
  unsigned char* (*warp_exchange)(void* host, unsigned warp);
  // Stops the launch with a message (a misuse the simulator can name: a wmma ldm that is not a
  // multiple of 8, a tile size cooperative_groups does not have). Throws, as out_of_bounds does.
  void (*fail)(const struct bs_thread_ctx* ctx, const char* message);
};

#endif
