// The CUDA toolkit's binary tools, found and run as child processes: cuobjdump pulls the cubins
// and PTX out of a host binary (blockscope's own executable holds its rungs' fatbins), nvdisasm
// disassembles a cubin with the source line of each instruction. Each runs with a time limit
// through the project's process helper (labs/custom/process.hpp), so a hung tool costs a
// listing, never the app. Where a tool is missing the caller says so, with what to install.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "source/listing_parse.hpp"

namespace bs::source {

struct Toolkit {
  std::filesystem::path cuobjdump, nvdisasm;  // empty: not found
  std::string searched;                       // where we looked, for the message
};

// Looks in $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit blockscope was built with,
// /usr/local/cuda/bin, then $PATH.
Toolkit find_toolkit();

// "the CUDA toolkit's nvdisasm was not found (looked in ...)" with the fix as the hint.
Status missing_tool(std::string_view tool, const Toolkit& toolkit);

// nvdisasm's listing of `cubin` (a file), with line info (inlined frames where this nvdisasm
// prints them), restricted to `function` when given and this nvdisasm accepts it.
Result<std::vector<AsmFunction>> disassemble_cubin(const Toolkit& toolkit, const std::filesystem::path& cubin,
                                                   std::string_view function, std::string_view prefer_file);

// Adds register pressure to `functions` (a listing of `cubin`): nvdisasm's life ranges
// (`--life-range-mode count`, else `--print-life-ranges`) of the same cubin, merged by function
// and pc (nvdisasm prints no line information beside life ranges, so it takes a second run).
// A failure says why there are none (an nvdisasm without life ranges, a time-out); the listing
// keeps its instructions either way.
Status add_life_ranges(const Toolkit& toolkit, const std::filesystem::path& cubin, std::string_view function,
                       std::vector<AsmFunction>& functions);

// The cubins (ptx = false) or PTX files (ptx = true) a host binary embeds, extracted once per
// binary into a temporary folder that lives as long as this process. An empty list: there are
// none of that kind (a 90-real build embeds no PTX).
Result<std::vector<std::filesystem::path>> extract_from_binary(const Toolkit& toolkit,
                                                               const std::filesystem::path& binary, bool ptx);

// The file of `files` whose bytes contain `needle` (".text.NAME\0" of a cubin, ".entry NAME" of
// PTX); among several, the one whose name contains `prefer` (e.g. "sm_90"). Empty: none.
std::filesystem::path file_containing(const std::vector<std::filesystem::path>& files, std::string_view needle,
                                      std::string_view prefer);

}  // namespace bs::source
