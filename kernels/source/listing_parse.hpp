// Reading the compiler's text back into a listing: PTX with its `.file` / `.loc` line table, and
// the SASS nvdisasm prints with `-g` (`--print-line-info`) or `-gi` (`--print-line-info-inline`),
// each instruction with the source line it came from. Pure text in, plain data out (no tools run
// here), so every case is tested on real compiler output.
//
// Which line an instruction "is": an instruction of an inlined function has a chain of frames
// (the helper's line, then the line that called it, ...). The listing shows one file, so the
// first frame (innermost first) in `prefer_file` is the instruction's line; without one there,
// the innermost frame. That is what a learner expects: the line of *their* file the instruction
// belongs to (a user kernel's body is inlined into blockscope's generated entry point; a rung's
// body is inlined into its `__global__` wrapper in another file).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/line_profile.hpp"
#include "core/status.hpp"

namespace bs::source {

// True when two spellings name the same file: equal, or one is a trailing run of whole path
// components of the other ("kernels/labs/matmul/k3_smem_tiled.hpp" and
// "/work/blockscope/kernels/labs/matmul/k3_smem_tiled.hpp").
bool same_source_file(std::string_view a, std::string_view b);

struct SourceFrame {
  std::string file;
  int line = 0;
};

// The frame of `frames` (innermost first) an instruction is listed at: the first in
// `prefer_file`, else the innermost; {} when there are none.
SourceFrame pick_frame(const std::vector<SourceFrame>& frames, std::string_view prefer_file);

struct AsmFunction {
  std::string name;    // mangled, as the PTX or the ELF names it
  bool entry = false;  // PTX: a .entry (a kernel); SASS: unknown (false)
  std::vector<ListedInstruction> instructions;
};

// Every function of a PTX module, each instruction with its `.loc` line (the `inlined_at` frame
// when the `.loc` names a file other than `prefer_file` and its caller is in it). Directives,
// declarations, labels and braces are not instructions. Fails on text that is not PTX.
Result<std::vector<AsmFunction>> parse_ptx(std::string_view ptx, std::string_view prefer_file);

// Every function of an nvdisasm listing (`nvdisasm -c -g` or `-gi`), each instruction with its pc
// offset and source line. Fails when no function is found.
//
// A listing with life ranges (`--print-life-ranges`, `--life-range-mode count|wide|narrow`) has a
// trailing table after each instruction, `// | 6 ^ : ... |  1  | 3 ... |`, one group per register
// file named in the function's header (`// | GPR | PRED | UGPR |`; a file the function never uses
// has no group); each group starts with its count of live registers, blank for none. Those
// counts fill the instructions' live_regs / live_predicates / live_uniform. (nvdisasm prints no
// line information with life ranges, so a listing takes the two from two runs: merge_live.)
Result<std::vector<AsmFunction>> parse_nvdisasm(std::string_view text, std::string_view prefer_file);

// Copies the live counts of `ranges` (a life-range listing of the same cubin) onto the
// instructions of `functions` with the same function and pc. Returns how many it matched.
int merge_live(std::vector<AsmFunction>& functions, const std::vector<AsmFunction>& ranges);

// The instruction with the most live general registers (the first of equals); -1: none known.
struct LivePeak {
  int regs = -1;
  int index = -1;  // into the instructions
  std::string file;
  int line = 0;
};
LivePeak peak_live(const std::vector<ListedInstruction>& sass);

// The most live general registers of any instruction at each line of `file` (index = line,
// 0..lines); -1 where no instruction of that line has a count.
std::vector<int> max_live_per_line(const std::vector<ListedInstruction>& sass, std::string_view file, int lines);

// The function named `name` of `functions`, or nullptr.
const AsmFunction* find_function(const std::vector<AsmFunction>& functions, std::string_view name);

}  // namespace bs::source
