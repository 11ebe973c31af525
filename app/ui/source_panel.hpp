// The Source tab's view: a kernel's CUDA source, PTX and SASS side by side (core/line_profile.hpp's
// KernelListing), each a clipped list so a 10k-line SASS stays cheap. Clicking a source line
// highlights its instructions in PTX and SASS and scrolls each to the first; clicking an
// instruction selects its source line (and the other level's instructions of that line). Given a
// LineProfile (the GPU's stall samples of the launch), the source gets a samples column (share
// and a bar), hot lines are tinted, each sampled line names its top stall reasons, and a SASS
// instruction's samples show on hover; without one the tab says why there is none.
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
  int line = 0;                  // the selected source line (1-based), 0: none
  int ptx = -1, sass = -1;       // the clicked instruction, -1: none
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
  std::vector<int> line_samples;  // per source line (index = line): index into `lines`, -1
  double max_share = 0;
  std::unordered_map<unsigned long long, int> pc_samples;  // SASS pc -> index into profile->instructions
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

}  // namespace bs::ui
