// The Source tab's view: a kernel's CUDA source, PTX and SASS side by side (core/line_profile.hpp's
// KernelListing), each a clipped list so a 10k-line SASS stays cheap. Clicking a source line
// highlights its instructions in PTX and SASS and scrolls each to the first; clicking an
// instruction selects its source line (and the other level's instructions of that line). Given a
// LineProfile (the GPU's stall samples of the launch), the source gets a samples column (share
// and a bar), hot lines are tinted, each sampled line names its top stall reasons, and a SASS
// instruction's samples show on hover; without one the tab says why there is none. Where
// nvdisasm gave life ranges, each SASS row shows its live registers (a bar against the launch's
// allocation), each source line the most of its instructions, and the header the kernel's peak.
// Plain inputs, no shell, no lab.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/launch_record.hpp"
#include "core/line_profile.hpp"

namespace bs::ui {

struct SourceViewState {
  int line = 0;             // the selected source line (1-based), 0: none
  int ptx = -1, sass = -1;  // the clicked instruction, -1: none
  bool scroll_source = false, scroll_ptx = false, scroll_sass = false;
  // The file the source column shows: "" the listing's own (the rung's file); else a file of
  // kernels/labs embedded in the binary, chosen from the profile's hot lines (an inlined helper).
  std::string file;
  std::string kernel;  // the kernel the selection belongs to: a listing of another one clears it
  // Derived from the listing, the file and the profile shown, rebuilt when one changes.
  const KernelListing* listing = nullptr;
  std::string shown_file;  // the path the source column shows (listing->source_file or `file`)
  const LineProfile* profile = nullptr;
  std::vector<std::string> source_lines;
  std::vector<LineSamples> lines;  // the samples of each line of the file shown (see rebuild)
  std::vector<int> line_samples;   // per source line (index = line): index into `lines`, -1
  double max_share = 0;
  std::unordered_map<unsigned long long, int> pc_samples;  // SASS pc -> index into profile->instructions
  std::vector<int> line_live;  // per source line of the file shown: most live registers, -1 unknown
};

struct SourceInput {
  const KernelListing* listing = nullptr;  // null: not made yet
  bool building = false;                   // the listing is being made (off the UI thread)
  const LaunchRecord* shown = nullptr;     // the launch shown: registers, spills, shared memory
  const LineProfile* profile = nullptr;    // null, or a profile whose status says why not
  std::string no_profile;                  // why there is no profile (the CPU backend, not asked yet)
  Status refusal;                          // why "Profile lines" cannot run here (success: it can)
  bool profiling = false;                  // a profile of this launch is running
  double profiling_s = 0;                  // for how long
};

// What the user did this frame (the tests read it).
struct SourceAction {
  int clicked_line = 0;  // a source line was clicked (1-based)
  int clicked_ptx = -1, clicked_sass = -1;
  bool profile = false;  // "Profile lines" was clicked
};

SourceAction draw_source_panel(const SourceInput& in, SourceViewState* state);

// The samples of each line of `file` (most first): as ncu's source page counts a file's lines,
// each with the instructions the listing's SASS places there (inlined helpers included); the
// profile's innermost lines where the listing has no SASS or `helper_file` (a file other than the
// listing's own, shown from the hot lines).
std::vector<LineSamples> lines_in_file(const KernelListing& listing, const LineProfile& profile,
                                       const std::string& file, bool helper_file);

// The path source::embedded_source knows a compiled file by: from "kernels/" on (line tables name
// files by the build machine's absolute path); the path itself where it has no "kernels/".
std::string embedded_path(const std::string& file);

// The instructions of `v` listed at `line` of `file` (indices, in order).
std::vector<int> instructions_at(const std::vector<ListedInstruction>& v, const std::string& file, int line);

// Register pressure in words: "peak 118 live registers at line 42 of k7_warptile.hpp; 128
// allocated" (`allocated` 0: not known), or why the listing has none ("" when it has no SASS).
std::string live_summary(const KernelListing& listing, unsigned allocated);

// The registers a SASS row shows its live count against: the launch's allocation when known
// (cudaFuncGetAttributes), else the listing's peak.
int live_scale(const KernelListing& listing, unsigned allocated);

// One level (PTX or SASS) of a listing as a clipped list, for the kernel editor's lower pane:
// each instruction with its source line ('*': another file than `file`), those of `line`
// highlighted, SASS rows with their live registers and a bar against `scale` (live_scale). A
// click returns the instruction's index (-1: none); `scroll` brings `line`'s first into view once.
struct InstructionListState {
  int clicked = -1;     // the instruction clicked last, drawn brighter
  bool scroll = false;  // scroll to the first instruction of the line on the next draw
};
int draw_instruction_list(const char* id, const std::vector<ListedInstruction>& v, const std::string& file, int line,
                          bool sass, int scale, InstructionListState* state);

}  // namespace bs::ui
