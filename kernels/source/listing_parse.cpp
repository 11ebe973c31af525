#include "source/listing_parse.hpp"

#include <cctype>
#include <charconv>
#include <map>
#include <utility>

namespace bs::source {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Lines of `text`, without their '\n' (and '\r').
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(at, end - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    if (end == text.size()) break;
    at = end + 1;
  }
  return out;
}

// Reads an integer at the front of `s` (after spaces); advances `s` past it.
bool read_int(std::string_view& s, long long& v) {
  s = trim(s);
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p == b) return false;
  s.remove_prefix(static_cast<std::size_t>(p - b));
  return true;
}

// Tabs become spaces, runs of spaces one space: the columns stay narrow and ImGui draws no tabs.
std::string tidy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false;
  for (char c : trim(s)) {
    const bool is_space = c == ' ' || c == '\t';
    if (is_space && space) continue;
    out += is_space ? ' ' : c;
    space = is_space;
  }
  return out;
}

// The quoted text after `from` in `s`: `"path"` -> path.
std::string quoted(std::string_view s, std::size_t from = 0) {
  const std::size_t a = s.find('"', from);
  if (a == std::string_view::npos) return {};
  const std::size_t b = s.find('"', a + 1);
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(a + 1, b - a - 1));
}

// The name of a PTX function from its header line: `.visible .entry NAME(`,
// `.func (.param .b32 func_retval0) NAME(`, `.entry NAME` (parameters on the next line).
std::string ptx_function_name(std::string_view line, std::string_view keyword) {
  std::string_view rest = line.substr(line.find(keyword) + keyword.size());
  rest = trim(rest);
  if (!rest.empty() && rest.front() == '(') {  // a return value: skip its parentheses
    const std::size_t close = rest.find(')');
    if (close == std::string_view::npos) return {};
    rest = trim(rest.substr(close + 1));
  }
  std::size_t end = 0;
  while (end < rest.size() && rest[end] != '(' && !std::isspace(static_cast<unsigned char>(rest[end])) &&
         rest[end] != ';')
    ++end;
  return std::string(rest.substr(0, end));
}

}  // namespace

bool same_source_file(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view s) {
    std::string out(s);
    for (char& c : out)
      if (c == '\\') c = '/';
    while (starts_with(out, "./")) out.erase(0, 2);
    return out;
  };
  const std::string x = norm(a), y = norm(b);
  if (x.empty() || y.empty()) return false;
  if (x == y) return true;
  const std::string& longer = x.size() > y.size() ? x : y;
  const std::string& shorter = x.size() > y.size() ? y : x;
  return longer.size() > shorter.size() && longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
         (longer[longer.size() - shorter.size() - 1] == '/' || shorter.front() == '/');
}

SourceFrame pick_frame(const std::vector<SourceFrame>& frames, std::string_view prefer_file) {
  if (frames.empty()) return {};
  if (!prefer_file.empty())
    for (const SourceFrame& f : frames)
      if (same_source_file(f.file, prefer_file)) return f;
  return frames.front();
}

const AsmFunction* find_function(const std::vector<AsmFunction>& functions, std::string_view name) {
  for (const AsmFunction& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

Result<std::vector<AsmFunction>> parse_ptx(std::string_view ptx, std::string_view prefer_file) {
  if (ptx.find(".version") == std::string_view::npos && ptx.find(".target") == std::string_view::npos)
    return Status::failure("this text is not PTX (no .version or .target directive)", "", "parse_ptx");
  // `.file` directives may come after the functions (NVVM puts them at the end): the frames are
  // kept as file indices and resolved once the whole module is read.
  std::map<long long, std::string> files;
  struct RawFrame {
    long long file = 0, line = 0;
  };
  std::vector<AsmFunction> functions;
  std::vector<std::vector<std::vector<RawFrame>>> raw;  // per function, per instruction
  std::vector<RawFrame> current;                        // the last .loc's frames
  std::string pending;                                  // a header seen, its body not yet open
  bool pending_entry = false;
  int depth = 0;
  std::string partial;  // the lines of an instruction not yet ended by ';'

  for (std::string_view full : lines_of(ptx)) {
    const std::string_view line = trim(full);
    if (line.empty() || starts_with(line, "//")) continue;
    if (starts_with(line, ".file")) {
      std::string_view rest = line.substr(5);
      long long index = 0;
      if (read_int(rest, index)) files[index] = quoted(rest);
      continue;
    }
    if (depth == 0) {
      const std::size_t entry = line.find(".entry");
      const std::size_t func = line.find(".func");
      if (entry != std::string_view::npos || func != std::string_view::npos) {
        pending_entry = entry != std::string_view::npos;
        pending = ptx_function_name(line, pending_entry ? ".entry" : ".func");
        if (line.back() == ';') pending.clear();  // a declaration on one line
        continue;
      }
      if (!pending.empty() && line.back() == ';') {  // a multi-line declaration ended
        pending.clear();
        continue;
      }
      if (line == "{" && !pending.empty()) {
        functions.push_back(AsmFunction{pending, pending_entry, {}});
        raw.emplace_back();
        pending.clear();
        current.clear();
        depth = 1;
      }
      continue;
    }
    // Inside a function body.
    if (line == "{" || (line.front() == '{' && line.find(';') == std::string_view::npos)) {
      ++depth;
      continue;
    }
    if (line == "}") {
      --depth;
      continue;
    }
    if (starts_with(line, ".loc")) {
      std::string_view rest = line.substr(4);
      RawFrame f;
      if (!read_int(rest, f.file) || !read_int(rest, f.line)) continue;
      current.assign(1, f);
      if (const std::size_t at = rest.find("inlined_at"); at != std::string_view::npos) {
        std::string_view caller = rest.substr(at + 10);
        RawFrame c;
        if (read_int(caller, c.file) && read_int(caller, c.line)) current.push_back(c);
      }
      continue;
    }
    if (line.front() == '.') continue;                        // .reg, .shared, .pragma, ...
    if (line.back() == ':' && line.find(' ') == std::string_view::npos) continue;  // a label
    if (line.back() != ';') {  // an instruction over several lines (call's argument lists)
      partial += std::string(line) + " ";
      continue;
    }
    std::string_view text = line;
    if (text.front() == '{') text = trim(text.substr(1));     // `{ .reg .b32 r; ...` inline asm
    functions.back().instructions.push_back(ListedInstruction{0, tidy(partial + std::string(text)), {}, 0});
    partial.clear();
    raw.back().push_back(current);
  }
  if (functions.empty() && ptx.find(".entry") != std::string_view::npos)
    return Status::failure("PTX with an .entry whose body could not be read", "", "parse_ptx");
  for (std::size_t f = 0; f < functions.size(); ++f)
    for (std::size_t i = 0; i < functions[f].instructions.size(); ++i) {
      std::vector<SourceFrame> frames;
      for (const RawFrame& r : raw[f][i]) {
        auto it = files.find(r.file);
        frames.push_back(SourceFrame{it == files.end() ? std::string() : it->second, static_cast<int>(r.line)});
      }
      const SourceFrame chosen = pick_frame(frames, prefer_file);
      functions[f].instructions[i].file = chosen.file;
      functions[f].instructions[i].line = chosen.line;
    }
  return functions;
}

Result<std::vector<AsmFunction>> parse_nvdisasm(std::string_view text, std::string_view prefer_file) {
  std::vector<AsmFunction> functions;
  std::vector<SourceFrame> frames;
  bool frames_used = false;  // an instruction took them: the next //## line starts a new chain
  for (std::string_view full : lines_of(text)) {
    const std::string_view line = trim(full);
    if (line.empty()) continue;
    if (starts_with(line, ".text.") && line.back() == ':') {
      functions.push_back(AsmFunction{std::string(line.substr(6, line.size() - 7)), false, {}});
      frames.clear();
      frames_used = false;
      continue;
    }
    if (starts_with(line, "//## File")) {
      if (frames_used) {
        frames.clear();
        frames_used = false;
      }
      // //## File "a.cu", line 12 [inlined at "b.cu", line 40]
      auto frame_at = [&](std::size_t from) {
        SourceFrame f;
        f.file = quoted(line, from);
        const std::size_t l = line.find("line", line.find('"', line.find('"', from) + 1));
        if (l != std::string_view::npos) {
          std::string_view rest = line.substr(l + 4);
          long long v = 0;
          if (read_int(rest, v)) f.line = static_cast<int>(v);
        }
        return f;
      };
      frames.push_back(frame_at(0));
      if (const std::size_t at = line.find("inlined at"); at != std::string_view::npos)
        frames.push_back(frame_at(at));
      continue;
    }
    if (!starts_with(line, "/*") || functions.empty()) continue;
    const std::size_t close = line.find("*/");
    if (close == std::string_view::npos) continue;
    const std::string_view pc_text = line.substr(2, close - 2);
    if (starts_with(pc_text, " 0x") || starts_with(pc_text, "0x")) continue;  // an encoding line
    unsigned long long pc = 0;
    auto [p, ec] = std::from_chars(pc_text.data(), pc_text.data() + pc_text.size(), pc, 16);
    if (ec != std::errc() || p != pc_text.data() + pc_text.size()) continue;
    std::string_view body = trim(line.substr(close + 2));
    if (const std::size_t c = body.find("/*"); c != std::string_view::npos) body = trim(body.substr(0, c));
    if (body.empty()) continue;
    const SourceFrame chosen = pick_frame(frames, prefer_file);
    functions.back().instructions.push_back(ListedInstruction{pc, tidy(body), chosen.file, chosen.line});
    frames_used = true;
  }
  if (functions.empty())
    return Status::failure("no function found in the disassembly (expected nvdisasm's .text.NAME: sections)", "",
                           "parse_nvdisasm");
  return functions;
}

}  // namespace bs::source
