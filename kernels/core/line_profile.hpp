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

// Exact counts of one instruction, or summed over one line, from CUPTI's SASS metrics (an
// instrumented launch of the kernel, counted, not sampled). Which of them the chip gave says
// LineProfile (sass_status, sass_has_threads, sass_has_shared); the others stay 0.
struct SassCounts {
  long long executed = 0;           // warp-level instructions executed (smsp__sass_inst_executed)
  long long thread_executed = 0;    // thread-level: active threads of those warps (predication and
                                    // divergence show as fewer than 32 per warp instruction)
  long long shared_wavefronts = 0;  // shared-memory wavefronts the LSU pipe needed ...
  long long shared_ideal = 0;       // ... and would need without bank conflicts
  // Active threads per warp-level instruction (32: every lane); 0 when none executed.
  double threads_per_warp() const {
    return executed > 0 ? static_cast<double>(thread_executed) / static_cast<double>(executed) : 0.0;
  }
  // Wavefronts per ideal wavefront: 1 conflict-free, 2 a 2-way bank conflict; 0: no shared access.
  double conflict_ratio() const {
    return shared_ideal > 0 ? static_cast<double>(shared_wavefronts) / static_cast<double>(shared_ideal) : 0.0;
  }
  SassCounts& operator+=(const SassCounts& o) {
    executed += o.executed, thread_executed += o.thread_executed;
    shared_wavefronts += o.shared_wavefronts, shared_ideal += o.shared_ideal;
    return *this;
  }
};

// Samples of one SASS instruction (pc_offset: bytes from the function's start).
struct InstructionSamples {
  unsigned long long pc_offset = 0;
  std::string file;                  // source file of the instruction (from the line table), "" when unknown
  int line = 0;                      // 1-based source line, 0 when unknown
  long long samples = 0;             // all samples at this pc, every reason (selected included)
  std::vector<StallSamples> stalls;  // largest first; "selected" is the warp issuing
  SassCounts sass;                   // counted (LineProfile::sass_status); an instruction that
                                     // ran but was never sampled is listed with samples 0
};

// Samples gathered onto one source line.
struct LineSamples {
  std::string file;
  int line = 0;
  long long samples = 0;
  double share_pct = 0;              // of all samples of the kernel
  std::vector<StallSamples> stalls;  // largest first
  SassCounts sass;                   // the line's instructions summed (LineProfile::sass_status)
  long long folded = 0;              // of `samples` (CPU line counts): executions of the
                                     // simulator's stand-ins for the warp instructions this
                                     // line calls (toolchain::kFoldMarker), folded into it
};

// How long to sample a launch: launched again until `min_samples`, `max_launches` or
// `max_seconds`, whichever comes first (one launch at least).
struct LineSampling {
  int period = 0;  // 5..31: a sample every 2^period cycles per SM; 0: CUPTI's choice
  long long min_samples = 20000;
  int max_launches = 32;
  double max_seconds = 1.0;
};

// What a LineProfile counts: the GPU's stall samples (PC sampling), or, on the CPU simulator,
// how often each line ran (every simulated thread's executions, added up).
enum class LineMeasure { StallSamples, Executions };

struct LineProfile {
  LineMeasure measure = LineMeasure::StallSamples;
  std::string measure_note;  // how it was counted, said beside the numbers ("" for stall samples)
  Status status;             // success: sampled; else why not (permission, CPU backend, ...)
  Status lines_status;       // sampled, but the source lines are unknown: why (the cubin's line
                             // table was not at hand); instructions then carry line 0
  bool ok() const { return status.ok(); }
  std::string kernel;                            // blockscope's kernel id
  std::string function;                          // the sampled function's (mangled) name
  std::string device;                            // "NVIDIA H100 80GB HBM3"
  int sampling_period = 0;                       // CUPTI's period exponent: a sample every 2^period cycles per SM
  long long total_samples = 0;                   // collected samples (every pc of the function); executions
  long long dropped_samples = 0;                 // samples the hardware buffer lost (CUPTI's count)
  long long launches = 0;                        // launches sampled (they add up)
  double profile_ms = 0;                         // wall time from start to the per-line table
  std::vector<InstructionSamples> instructions;  // by pc
  std::vector<LineSamples> lines;                // most samples first
  // CUPTI's SASS metrics of one more launch (kernels/sampling/sass_metrics.hpp): success when the
  // `sass` counts of instructions and lines are filled; else why not (an older driver, no
  // permission, a GPU without the API, not asked for), with the fix.
  Status sass_status = Status::failure("executed instructions were not counted for this profile");
  bool sass_has_threads = false;  // thread_executed is measured (the chip lists the metric)
  bool sass_has_shared = false;   // shared_wavefronts and shared_ideal are measured
  SassCounts sass_total;          // every instruction of the function
  double sass_ms = 0;             // wall time of the counting launch (patching included)
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
  std::string kernel;       // blockscope's kernel id
  std::string source_file;  // the file the source text is, e.g. "kernels/labs/matmul/k3_smem_tiled.hpp"
  std::string source;       // its text
  Status source_status;     // no text (a library kernel, a file not embedded): why
  Status ptx_status, sass_status;
  std::vector<ListedInstruction> ptx;   // one entry per PTX instruction line, in order
  std::vector<ListedInstruction> sass;  // one entry per SASS instruction of the kernel's function
  std::string function;                 // the listed function's (mangled) name, e.g. "bs_entry"
  std::string ptx_origin;               // where the PTX came from: "NVRTC 13.0, sm_90a", "cuobjdump of ..."
  std::string sass_origin;              // "nvdisasm 13.0 of NVRTC's cubin", ...
  // Life ranges: success when the SASS carries live-register counts; else why it does not (no
  // SASS, an nvdisasm that prints none), while the SASS itself still shows.
  Status live_status = Status::failure("no SASS, so no life ranges");
  double build_ms = 0;  // wall time to make this listing
};

}  // namespace bs
