#include "toolchain/gcov.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <string>
#include <utility>

#include "toolchain/process.hpp"

namespace bs::toolchain {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct GcovFile {
  std::map<int, long long> count;
  std::map<int, std::string> text;
  long long total = 0;
  bool fold = false;  // it carries kFoldMarker: the simulator's stand-ins for warp instructions
};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The name of the function whose definition starts on this line of source, or "": a line that
// starts in its first column (the files' style for a function at namespace scope), is no
// declaration of anything else and has a name just before its first '(' with a type before it.
std::string defined_name(std::string_view src) {
  if (src.empty() || !(identifier_char(src.front()))) return {};
  for (std::string_view not_a_function : {"template", "namespace", "struct", "class", "using", "enum", "union",
                                          "static_assert", "typedef", "extern", "return"})
    if (src.substr(0, not_a_function.size()) == not_a_function &&
        (src.size() == not_a_function.size() || !identifier_char(src[not_a_function.size()])))
      return {};
  const std::size_t paren = src.find('(');
  if (paren == std::string_view::npos || src.substr(0, paren).find('=') != std::string_view::npos) return {};
  std::size_t b = paren;
  while (b > 0 && identifier_char(src[b - 1])) --b;
  if (b == paren || b == 0) return {};
  return std::string(src.substr(b, paren - b));
}

// Whether this line of source calls `name` (name( or name<...>( with no identifier before it).
bool calls(std::string_view src, std::string_view name) {
  for (std::size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + 1)) {
    const std::size_t after = at + name.size();
    if (at > 0 && identifier_char(src[at - 1])) continue;
    if (after < src.size() && (src[after] == '(' || src[after] == '<')) return true;
  }
  return false;
}

// Folds the executions of the simulator's stand-ins for warp instructions (files that carry
// kFoldMarker, e.g. tc_warp_ops.hpp's lane-by-lane mma) into the kernel lines that call them, so
// the hottest lines are the kernel's: each stand-in function's executions, its own lines' and
// those folded into it, go to the lines that call it in proportion to how often each ran (a line
// that calls it twice as often gets twice the share). A helper of another file that only the
// stand-ins call (tc_common.hpp's fragment layouts) folds the same way. The folded lines, and the
// stand-ins' lines that never ran, leave the list; the total is kept (every execution lands on exactly one line).
void fold_stand_ins(const std::map<std::string, GcovFile>& files, std::vector<LineSamples>& lines) {
  struct Site {
    const std::string* file;
    int line;
    long long count;
    std::string owner;  // the function the call is made from ("" outside every function)
  };
  struct Group {
    long long mass = 0;  // its own lines' executions, then what its callees fold into it
    bool in_fold_file = false;
    std::vector<Site> sites;  // the lines that call it and ran
    bool flows = false, pushed = false;
  };
  std::map<std::string, Group> groups;  // by name (overloads fold together)
  // owner[file][line]: the function a counted line belongs to (from its definition to the next).
  std::map<std::string, std::map<int, std::string>> owner;
  bool any_fold = false;
  for (const auto& [file, f] : files) {
    any_fold = any_fold || (f.fold && f.total > 0);
    std::string current;
    for (const auto& [lineno, src] : f.text) {
      if (std::string name = defined_name(src); !name.empty()) {
        current = name;
        groups[current].in_fold_file = groups[current].in_fold_file || f.fold;
      }
      owner[file][lineno] = current;
      if (!current.empty()) groups[current].mass += f.count.at(lineno);
    }
  }
  if (!any_fold) return;
  for (auto& [name, g] : groups)
    for (const auto& [file, f] : files)
      for (const auto& [lineno, src] : f.text) {
        const long long n = f.count.at(lineno);
        const std::string& from = owner[file][lineno];
        if (n > 0 && from != name && defined_name(src) != name && calls(src, name))
          g.sites.push_back({&file, lineno, n, from});
      }
  // Which functions fold: the stand-ins that are called, then helpers called only from folding code.
  for (auto& [name, g] : groups) g.flows = g.in_fold_file && !g.sites.empty();
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& [name, g] : groups) {
      if (g.flows || g.sites.empty()) continue;
      bool only_from_folding = true;
      for (const Site& s : g.sites) {
        auto it = groups.find(s.owner);
        only_from_folding = only_from_folding && !s.owner.empty() && it != groups.end() && it->second.flows;
      }
      if (only_from_folding) g.flows = grew = true;
    }
  }
  // Push each folding function's mass to its callers once every folding function it calls has
  // pushed into it; integer shares by the largest remainder, so no execution is lost or doubled.
  std::map<std::pair<std::string, int>, long long> folded;  // (file, line) of a kernel line
  for (bool pushed_one = true; pushed_one;) {
    pushed_one = false;
    for (auto& [name, g] : groups) {
      if (!g.flows || g.pushed) continue;
      bool ready = true;
      for (const auto& [callee_name, callee] : groups)
        if (callee.flows && !callee.pushed && callee_name != name)
          for (const Site& s : callee.sites) ready = ready && s.owner != name;
      if (!ready) continue;
      long long calls_total = 0;
      for (const Site& s : g.sites) calls_total += s.count;
      std::vector<long long> share(g.sites.size());
      long long given = 0;
      std::size_t largest = 0;
      for (std::size_t i = 0; i < g.sites.size(); ++i) {
        share[i] = static_cast<long long>(static_cast<long double>(g.mass) * g.sites[i].count / calls_total);
        given += share[i];
        if (g.sites[i].count > g.sites[largest].count) largest = i;
      }
      share[largest] += g.mass - given;
      for (std::size_t i = 0; i < g.sites.size(); ++i) {
        const Site& s = g.sites[i];
        auto it = groups.find(s.owner);
        if (!s.owner.empty() && it != groups.end() && it->second.flows) it->second.mass += share[i];
        else folded[{*s.file, s.line}] += share[i];
      }
      g.pushed = pushed_one = true;
    }
  }
  std::vector<LineSamples> kept;
  kept.reserve(lines.size());
  for (LineSamples& l : lines) {
    const std::string& from = owner[l.file][l.line];
    auto it = groups.find(from);
    if (!from.empty() && it != groups.end() && it->second.pushed) continue;
    if (l.samples == 0 && files.at(l.file).fold) continue;  // a stand-in this kernel never calls
    if (auto f = folded.find({l.file, l.line}); f != folded.end()) {
      l.folded = f->second;
      l.samples += f->second;
    }
    kept.push_back(std::move(l));
  }
  lines = std::move(kept);
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
  std::map<std::string, GcovFile> files;
  GcovFile* in = nullptr;
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
    if (!in) continue;
    if (count == "-") {
      if (rest.find(kFoldMarker) != std::string_view::npos) in->fold = true;
      continue;
    }
    int lineno = 0;
    if (std::from_chars(number.data(), number.data() + number.size(), lineno).ec != std::errc() || lineno <= 0)
      continue;
    long long executions = 0;
    if (count.find_first_of("#=") == std::string_view::npos) {
      std::string_view digits = count;
      if (!digits.empty() && digits.back() == '*') digits.remove_suffix(1);  // "12*": a block of it unrun
      if (std::from_chars(digits.data(), digits.data() + digits.size(), executions).ec != std::errc()) continue;
    }
    if (in->count.emplace(lineno, executions).second) {
      in->total += executions;
      in->text.emplace(lineno, std::string(rest));
    }
  }
  if (files.empty()) return Status::failure("gcov's text names no source file", "", "gcov", "parse");
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
  fold_stand_ins(files, lines);
  total = 0;
  for (const LineSamples& l : lines) total += l.samples;
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
