#include "toolchain/gcov.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>

#include "toolchain/process.hpp"

namespace bs::toolchain {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::filesystem::path gcov_for(const HostCompiler& compiler) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(compiler.path, ec);
  if (ec) real = compiler.path;
  std::vector<std::filesystem::path> tries;
  const std::string name = real.filename().string();
  if (const auto at = name.rfind("g++"); at != std::string::npos) {
    std::string g = name;
    g.replace(at, 3, "gcov");
    tries.push_back(real.parent_path() / g);
  }
  tries.push_back(compiler.path.parent_path() / "gcov");
  for (const auto& t : tries)
    if (std::filesystem::exists(t, ec)) return t;
  return find_executable("gcov");
}

Result<std::vector<LineSamples>> parse_gcov_sources(std::string_view text) {
  struct FileLines {
    std::map<int, long long> count;  // first listing of each line
    long long total = 0;
  };
  std::map<std::string, FileLines> files;
  FileLines* in = nullptr;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // "  count:  lineno:source"
    const std::size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    const std::size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view count = trim(line.substr(0, c1));
    const std::string_view number = trim(line.substr(c1 + 1, c2 - c1 - 1));
    const std::string_view rest = line.substr(c2 + 1);
    if (number == "0") {
      if (rest.substr(0, 7) == "Source:") in = &files[std::string(rest.substr(7))];
      continue;
    }
    if (!in || count == "-") continue;
    int lineno = 0;
    if (std::from_chars(number.data(), number.data() + number.size(), lineno).ec != std::errc() || lineno <= 0)
      continue;
    long long executions = 0;
    if (count.find_first_of("#=") == std::string_view::npos) {
      std::string_view digits = count;
      if (!digits.empty() && digits.back() == '*') digits.remove_suffix(1);  // "12*": a block of it unrun
      if (std::from_chars(digits.data(), digits.data() + digits.size(), executions).ec != std::errc()) continue;
    }
    if (in->count.emplace(lineno, executions).second) in->total += executions;
  }
  if (files.empty())
    return Status::failure("gcov's text names no source file", "", "gcov", "parse");
  std::vector<LineSamples> lines;
  long long total = 0;
  for (const auto& [file, f] : files) {
    if (f.total == 0) continue;  // a header the unit includes, none of whose code ran
    total += f.total;
    for (const auto& [lineno, n] : f.count) {
      LineSamples l;
      l.file = file;
      l.line = lineno;
      l.samples = n;
      lines.push_back(std::move(l));
    }
  }
  for (LineSamples& l : lines)
    l.share_pct = total > 0 ? 100.0 * static_cast<double>(l.samples) / static_cast<double>(total) : 0;
  std::stable_sort(lines.begin(), lines.end(),
                   [](const LineSamples& a, const LineSamples& b) { return a.samples > b.samples; });
  return lines;
}

Result<std::vector<LineSamples>> parse_gcov_text(std::string_view text, std::string_view file) {
  auto all = parse_gcov_sources(text);
  if (!all) return all.status();
  std::vector<LineSamples> lines;
  for (LineSamples& l : *all) {
    const std::string_view src = l.file;
    const bool match = src == file || (src.size() > file.size() && src.substr(src.size() - file.size()) == file &&
                                       src[src.size() - file.size() - 1] == '/');
    if (match) {
      l.file = std::string(file);
      lines.push_back(std::move(l));
    }
  }
  if (lines.empty()) return Status::failure("gcov said nothing of " + std::string(file), "", "gcov", "parse");
  long long total = 0;
  for (const LineSamples& l : lines) total += l.samples;
  for (LineSamples& l : lines)
    l.share_pct = total > 0 ? 100.0 * static_cast<double>(l.samples) / static_cast<double>(total) : 0;
  return lines;  // most first, as parse_gcov_sources sorts them
}

}  // namespace bs::toolchain
