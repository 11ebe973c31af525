// The CUDA toolkit's binary tools at work for the Source tab: cuobjdump pulls the cubins and PTX
// out of a host binary (blockscope's own executable holds its rungs' fatbins), nvdisasm
// disassembles a cubin with the source line of each instruction. The tools are found by
// toolchain/cuda_toolkit.hpp and run as child processes with a time limit (toolchain/process.hpp),
// so a hung tool costs a listing, never the app. Where a tool is missing the caller says so.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"
#include "source/listing_parse.hpp"
#include "toolchain/cuda_toolkit.hpp"

namespace bs::source {

// nvdisasm's listing of `cubin` (a file), with line info (inlined frames where this nvdisasm
// prints them), restricted to `function` when given and this nvdisasm accepts it.
Result<std::vector<AsmFunction>> disassemble_cubin(const toolchain::Toolkit& toolkit,
                                                   const std::filesystem::path& cubin, std::string_view function,
                                                   std::string_view prefer_file);

// Adds register pressure to `functions` (a listing of `cubin`): nvdisasm's life ranges
// (`--life-range-mode count`, else `--print-life-ranges`) of the same cubin, merged by function
// and pc (nvdisasm prints no line information beside life ranges, so it takes a second run).
// A failure says why there are none (an nvdisasm without life ranges, a time-out); the listing
// keeps its instructions either way.
Status add_life_ranges(const toolchain::Toolkit& toolkit, const std::filesystem::path& cubin, std::string_view function,
                       std::vector<AsmFunction>& functions);

// The cubins (ptx = false) or PTX files (ptx = true) a host binary embeds, extracted once per
// binary into a temporary folder that lives as long as this process. An empty list: there are
// none of that kind (a 90-real build embeds no PTX).
Result<std::vector<std::filesystem::path>> extract_from_binary(const toolchain::Toolkit& toolkit,
                                                               const std::filesystem::path& binary, bool ptx);

// The file of `files` whose bytes contain `needle` (".text.NAME\0" of a cubin, ".entry NAME" of
// PTX); among several, the one whose name contains `prefer` (e.g. "sm_90"). Empty: none.
std::filesystem::path file_containing(const std::vector<std::filesystem::path>& files, std::string_view needle,
                                      std::string_view prefer);

}  // namespace bs::source
