// gcov, GCC's coverage reader: finding the one that belongs to a compiler, and reading its
// annotated text (gcov -t) into executions per source line. The one reader of that text: the
// rungs' line counter (linecount/) and the user's kernels' counted launch (labs/custom/) both
// call it.
//
//   auto all = parse_gcov_sources(text);              // every file that ran, most-run line first
//   auto mine = parse_gcov_text(text, "kernel.cu");   // one file's lines, shares of that file
#pragma once
#include <filesystem>
#include <string_view>
#include <vector>

#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "toolchain/host_compiler.hpp"

namespace bs::toolchain {

// The gcov that belongs to `compiler` (gcov reads only its own GCC's files): g++-12 -> gcov-12
// beside it, else gcov beside it, else gcov on PATH; empty when there is none.
std::filesystem::path gcov_for(const HostCompiler& compiler);

// A file whose text carries this marker (in a comment) holds the simulator's stand-ins for warp
// instructions (tc_warp_ops.hpp: mma.sync, ldmatrix, wmma done lane by lane): on the GPU each call
// is one instruction, so its executions are the calling line's, and counting them as lines of
// their own would rank the emulation above the learner's kernel.
inline constexpr std::string_view kFoldMarker = "linecount: fold into the calling line";

// gcov's annotated text (gcov -t) of several sources: the executions of each line of every file
// that ran at all ("#####" is 0, lines gcov marks "-" have no code and are left out), most first,
// share_pct of the whole. Only the first listing of a line counts (gcov may list a template's
// lines again per instantiation). The functions of files marked with kFoldMarker (and helpers
// only they call) are folded into the lines that call them, in proportion to how often each
// calling line ran: those lines' `folded` says how much of their count is the stand-ins'.
Result<std::vector<LineSamples>> parse_gcov_sources(std::string_view text);

// The same text, the lines of `file` only (a source whose path ends in "/file" is it), named
// `file`, most first, share_pct of that file's total.
Result<std::vector<LineSamples>> parse_gcov_text(std::string_view text, std::string_view file);

}  // namespace bs::toolchain
