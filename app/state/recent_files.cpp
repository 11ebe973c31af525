#include "state/recent_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>

#include "state/settings_file.hpp"

namespace bs {
namespace {

constexpr std::string_view kHeader = "# blockscope recent files, most recent first";
constexpr std::size_t kMaxLineBytes = 4096;        // PATH_MAX on Linux
constexpr std::size_t kMaxFileBytes = 256 * 1024;  // never read a huge garbled file whole

std::string to_utf8(const std::filesystem::path& path) {
  const std::u8string text = path.u8string();
  return std::string(text.begin(), text.end());
}

std::filesystem::path from_utf8(const std::string& text) {
  return std::filesystem::path(std::u8string(text.begin(), text.end()));
}

std::filesystem::path normalised(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) absolute = path;
  return absolute.lexically_normal();
}

bool storable(const std::string& line) {
  if (line.empty() || line.size() > kMaxLineBytes || line.front() != '/') return false;
  return std::none_of(line.begin(), line.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

}  // namespace

void remember_file(RecentFiles& recent, const std::filesystem::path& path) {
  const std::filesystem::path entry = normalised(path);
  std::erase(recent.paths, entry);
  recent.paths.insert(recent.paths.begin(), entry);
  if (recent.paths.size() > kRecentFilesCapacity) recent.paths.resize(kRecentFilesCapacity);
}

void forget_file(RecentFiles& recent, const std::filesystem::path& path) { std::erase(recent.paths, normalised(path)); }

std::filesystem::path config_dir_from(const char* xdg_config_home, const char* home) {
  if (xdg_config_home && xdg_config_home[0] == '/') return std::filesystem::path(xdg_config_home) / "blockscope";
  if (home && home[0] == '/') return std::filesystem::path(home) / ".config" / "blockscope";
  return {};
}

std::filesystem::path config_dir() { return config_dir_from(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME")); }

RecentFiles load_recent_files(const std::filesystem::path& file) {
  RecentFiles recent;
  std::ifstream in(file, std::ios::binary);
  if (!in) return recent;
  std::string text(kMaxFileBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));

  std::size_t start = 0;
  while (start < text.size() && recent.paths.size() < kRecentFilesCapacity) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // edited on Windows
    if (!storable(line)) continue;                              // comments ('#') and garbage are skipped alike
    const std::filesystem::path entry = from_utf8(line).lexically_normal();
    if (std::find(recent.paths.begin(), recent.paths.end(), entry) == recent.paths.end()) recent.paths.push_back(entry);
  }
  return recent;
}

Status save_recent_files(const RecentFiles& recent, const std::filesystem::path& file) {
  std::string text = std::string(kHeader) + '\n';
  std::size_t written = 0;
  for (const auto& path : recent.paths) {
    if (written == kRecentFilesCapacity) break;
    const std::string line = to_utf8(path);
    if (!storable(line)) continue;
    text += line + '\n';
    ++written;
  }
  return app::write_settings_file(file, text);
}

}  // namespace bs
