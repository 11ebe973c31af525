// The most-recently-used image files, and where blockscope keeps per-user state.
//
// State is plain data (RecentFiles); persistence takes explicit paths so tests can point it at a
// temporary folder. Files live in the XDG config folder, never in the working directory.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace bs {

inline constexpr std::size_t kRecentFilesCapacity = 10;

struct RecentFiles {
  std::vector<std::filesystem::path> paths;  // most recent first, at most kRecentFilesCapacity
};

// Puts `path` first (made absolute and lexically normal, so "./a.png" and "a.png" are one
// entry), removing an older copy and the entries beyond the capacity.
void remember_file(RecentFiles& recent, const std::filesystem::path& path);

// Removes `path` if present (e.g. when opening it failed because it no longer exists).
void forget_file(RecentFiles& recent, const std::filesystem::path& path);

// blockscope's per-user config folder: $XDG_CONFIG_HOME/blockscope when XDG_CONFIG_HOME is an
// absolute path (the XDG spec says to ignore relative ones), else $HOME/.config/blockscope.
// Empty when neither variable is usable. Not created here; save_recent_files() creates it, and the
// app creates it before pointing ImGui's IniFilename at config_dir() / "imgui.ini".
std::filesystem::path config_dir();
// The same rule with the variables passed in (null = unset), for tests.
std::filesystem::path config_dir_from(const char* xdg_config_home, const char* home);

// Reads the list. A missing, unreadable or garbled file is not an error: whatever valid entries
// it holds are returned (absolute paths, one per line, at most the capacity; lines starting with
// '#', blank, relative, overlong or containing control bytes are skipped).
RecentFiles load_recent_files(const std::filesystem::path& file);

// Writes the list (creating the folder), through a temporary file renamed over the old one so a
// crash never leaves half a file. Paths containing a line break cannot be stored and are skipped.
Status save_recent_files(const RecentFiles& recent, const std::filesystem::path& file);

}  // namespace bs
