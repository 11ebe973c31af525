// Where the time goes inside one launch: the GPU's stall samples gathered per SASS instruction
// and per source line (issue 22), and the kernel's text at three levels (source, PTX, SASS) with
// the source line of each instruction.
//
// Plain data, no CUPTI: kernels/sampling fills LineProfile from CUPTI PC sampling of one launch
// (CUDA build only); kernels/source fills KernelListing from the kernel's text and the toolkit's
// disassembler; the Source tab, the `lines` command's JSON and the Compare view's per-line diff
// read them. A listing or a profile that could not be made says why in `status`, with the fix.
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"

namespace bs {

// One stall reason's samples, e.g. {"long_scoreboard", 812}. Names are CUPTI's without the
// "smsp__pcsamp_warps_issue_stalled_" prefix, as ncu's source page shows them.
struct StallSamples {
  std::string reason;
  long long samples = 0;
};

// Samples of one SASS instruction (pc_offset: bytes from the function's start).
struct InstructionSamples {
  unsigned long long pc_offset = 0;
  std::string file;  // source file of the instruction (from the line table), "" when unknown
  int line = 0;      // 1-based source line, 0 when unknown
  long long samples = 0;               // all samples at this pc, every reason (selected included)
  std::vector<StallSamples> stalls;    // largest first; "selected" is the warp issuing
};

// Samples gathered onto one source line.
struct LineSamples {
  std::string file;
  int line = 0;
  long long samples = 0;
  double share_pct = 0;                // of all samples of the kernel
  std::vector<StallSamples> stalls;    // largest first
};

struct LineProfile {
  Status status;            // success: sampled; else why not (permission, CPU backend, ...)
  Status lines_status;      // sampled, but the source lines are unknown: why (the cubin's line
                            // table was not at hand); instructions then carry line 0
  bool ok() const { return status.ok(); }
  std::string kernel;       // blockscope's kernel id
  std::string function;     // the sampled function's (mangled) name
  std::string device;       // "NVIDIA H100 80GB HBM3"
  int sampling_period = 0;  // CUPTI's period exponent: a sample every 2^period cycles per SM
  long long total_samples = 0;    // collected samples (every pc of the function)
  long long dropped_samples = 0;  // samples the hardware buffer lost (CUPTI's count)
  long long launches = 0;         // launches sampled (they add up)
  double profile_ms = 0;          // wall time from start to the per-line table
  std::vector<InstructionSamples> instructions;  // by pc
  std::vector<LineSamples> lines;                // most samples first
};

// One instruction of a listing: its text and where it came from.
struct ListedInstruction {
  unsigned long long pc_offset = 0;  // SASS: bytes from the function's start; PTX: 0
  std::string text;                  // "LDG.E.128 R4, desc[UR6][R2.64] ;" / "ld.global.f32 ..."
  std::string file;                  // source file of the instruction, "" when unknown
  int line = 0;                      // 1-based source line, 0 when unknown
  // Register pressure at this SASS instruction, as nvdisasm's life ranges count it (registers
  // holding a value still to be read); -1: not known (PTX, or an nvdisasm without life ranges).
  int live_regs = -1;        // general registers (R0, R1, ...; a 64-bit pair counts two)
  int live_predicates = -1;  // predicates (P0..P6)
  int live_uniform = -1;     // uniform registers (UR0, ...), one per warp rather than per thread
};

// The kernel at three levels. Each level is independent: a missing disassembler leaves `sass`
// empty with `sass_status` saying why, and the source and PTX still show.
struct KernelListing {
  std::string kernel;         // blockscope's kernel id
  std::string source_file;    // the file the source text is, e.g. "kernels/labs/matmul/k3_smem_tiled.hpp"
  std::string source;         // its text
  Status source_status;       // no text (a library kernel, a file not embedded): why
  Status ptx_status, sass_status;
  std::vector<ListedInstruction> ptx;   // one entry per PTX instruction line, in order
  std::vector<ListedInstruction> sass;  // one entry per SASS instruction of the kernel's function
  std::string function;       // the listed function's (mangled) name, e.g. "bs_entry"
  std::string ptx_origin;     // where the PTX came from: "NVRTC 13.0, sm_90a", "cuobjdump of ..."
  std::string sass_origin;    // "nvdisasm 13.0 of NVRTC's cubin", ...
  // Life ranges: success when the SASS carries live-register counts; else why it does not (no
  // SASS, an nvdisasm that prints none), while the SASS itself still shows.
  Status live_status = Status::failure("no SASS, so no life ranges");
  double build_ms = 0;        // wall time to make this listing
};

}  // namespace bs
