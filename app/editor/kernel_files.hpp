// Kernel source files (.cu): reading with limits (a dropped file may be anything), saving without
// ever leaving half a file, the recent kernel files list, and which lab a source belongs to.
// No GL, no ImGui.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.hpp"
#include "lab/lab.hpp"
#include "state/recent_files.hpp"

namespace bs::editor {

inline constexpr std::size_t kMaxKernelFileBytes = 1 << 20;  // a kernel, not a library

// True for .cu and .cuh, and for the notebooks and Python files kernels are imported from
// (.ipynb, .py; labs/custom/source_import.hpp), any case: what a drop or the open dialog treats
// as kernels.
bool is_kernel_file(const std::filesystem::path& path);

// The file's text. Refuses (with the reason) a missing or unreadable file, a folder, anything
// over kMaxKernelFileBytes and anything that is not text (NUL bytes, invalid UTF-8).
Result<std::string> read_kernel_file(const std::filesystem::path& path);

// Writes through a temporary file renamed over the old one.
Status write_kernel_file(const std::filesystem::path& path, std::string_view text);

// config_dir() / "recent_kernels.txt" (empty when there is no config folder).
std::filesystem::path default_recent_kernels_path();

// --kernel-file for commands without a window (bench, sweeps): reads the file (a notebook or
// .py: its kernel named `kernel`, else the first whose form the lab takes), checks it is a
// kernel of `lab` (a lab with user kernels: labs/custom/user_kernel_lab.hpp), compiles it for the
// lab's backend and adds it to the lab's kernels. Returns its kernel id ("custom:NAME"), or a
// Status whose message is the first error at FILE:LINE:COLUMN (every diagnostic in `log`).
Result<std::string> install_kernel_file(lab::Lab& lab, const std::filesystem::path& path, double time_limit_s,
                                        std::string* log = nullptr, const std::string& kernel = {});

}  // namespace bs::editor
