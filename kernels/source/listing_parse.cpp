#include "source/listing_parse.hpp"

#include <algorithm>
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
  return longer.size() > shorter.size() &&
         longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
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
    if (line.front() == '.') continue;                                             // .reg, .shared, .pragma, ...
    if (line.back() == ':' && line.find(' ') == std::string_view::npos) continue;  // a label
    if (line.back() != ';') {  // an instruction over several lines (call's argument lists)
      partial += std::string(line) + " ";
      continue;
    }
    std::string_view text = line;
    if (text.front() == '{') text = trim(text.substr(1));  // `{ .reg .b32 r; ...` inline asm
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

namespace {

// The groups of a life-range table row: the text between its '|' (after the "//").
std::vector<std::string_view> table_fields(std::string_view row) {
  std::vector<std::string_view> out;
  std::size_t at = row.find('|');
  while (at != std::string_view::npos) {
    const std::size_t next = row.find('|', at + 1);
    if (next == std::string_view::npos) break;
    out.push_back(row.substr(at + 1, next - at - 1));
    at = next;
  }
  return out;
}

// The header row naming the register files: every group one word of capitals ("GPR", "PRED",
// "UGPR", "UPRED"). The row under it ("# 0 1 2 ...") and the rules (+----+) are not.
bool register_file_names(std::string_view row, std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (std::string_view f : table_fields(row)) {
    f = trim(f);
    if (f.empty()) return false;
    for (char c : f)
      if (!std::isupper(static_cast<unsigned char>(c))) return false;
    found.emplace_back(f);
  }
  if (found.empty()) return false;
  names = std::move(found);
  return true;
}

// The live counts of one instruction's table row, by the header's names.
void read_live_counts(std::string_view row, const std::vector<std::string>& names, ListedInstruction& ins) {
  const std::vector<std::string_view> fields = table_fields(row);
  for (std::size_t g = 0; g < fields.size() && g < names.size(); ++g) {
    std::string_view f = trim(fields[g]);
    long long n = 0;
    if (!f.empty() && !read_int(f, n)) continue;  // not a count: leave it unknown
    if (names[g] == "GPR") ins.live_regs = static_cast<int>(n);
    else if (names[g] == "PRED") ins.live_predicates = static_cast<int>(n);
    else if (names[g] == "UGPR") ins.live_uniform = static_cast<int>(n);
  }
  // A register file the function never uses has no group: none of it is live.
  if (ins.live_regs >= 0 || ins.live_predicates >= 0 || ins.live_uniform >= 0) {
    if (ins.live_regs < 0) ins.live_regs = 0;
    if (ins.live_predicates < 0) ins.live_predicates = 0;
    if (ins.live_uniform < 0) ins.live_uniform = 0;
  }
}

}  // namespace

Result<std::vector<AsmFunction>> parse_nvdisasm(std::string_view text, std::string_view prefer_file) {
  std::vector<AsmFunction> functions;
  std::vector<SourceFrame> frames;
  std::vector<std::string> register_files;  // the life-range table's groups, from its header
  bool frames_used = false;                 // an instruction took them: the next //## line starts a new chain
  for (std::string_view full : lines_of(text)) {
    const std::string_view line = trim(full);
    if (line.empty()) continue;
    // A label carries the life-range table's empty row after it: `.text.NAME:   // |    |`.
    std::string_view label = line;
    if (const std::size_t t = label.find("// |"); t != std::string_view::npos && t > 0)
      label = trim(label.substr(0, t));
    if (starts_with(label, ".text.") && label.back() == ':') {
      functions.push_back(AsmFunction{std::string(label.substr(6, label.size() - 7)), false, {}});
      frames.clear();
      frames_used = false;
      continue;
    }
    if (starts_with(line, "// |")) {  // a header row of the life-range table (before the function)
      register_file_names(line, register_files);
      continue;
    }
    if (starts_with(line, "//----")) register_files.clear();  // a new section: its own header follows
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
      if (const std::size_t at = line.find("inlined at"); at != std::string_view::npos) frames.push_back(frame_at(at));
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
    std::string_view table;
    if (const std::size_t t = body.find("// |"); t != std::string_view::npos) {
      table = body.substr(t + 2);
      body = trim(body.substr(0, t));
    }
    if (const std::size_t c = body.find("/*"); c != std::string_view::npos) body = trim(body.substr(0, c));
    if (body.empty()) continue;
    const SourceFrame chosen = pick_frame(frames, prefer_file);
    ListedInstruction ins{pc, tidy(body), chosen.file, chosen.line};
    if (!table.empty() && !register_files.empty()) read_live_counts(table, register_files, ins);
    functions.back().instructions.push_back(std::move(ins));
    frames_used = true;
  }
  if (functions.empty())
    return Status::failure("no function found in the disassembly (expected nvdisasm's .text.NAME: sections)", "",
                           "parse_nvdisasm");
  return functions;
}

int merge_live(std::vector<AsmFunction>& functions, const std::vector<AsmFunction>& ranges) {
  int matched = 0;
  for (AsmFunction& f : functions) {
    const AsmFunction* r = find_function(ranges, f.name);
    if (!r) continue;
    std::map<unsigned long long, const ListedInstruction*> at_pc;
    for (const ListedInstruction& i : r->instructions) at_pc[i.pc_offset] = &i;
    for (ListedInstruction& i : f.instructions) {
      auto it = at_pc.find(i.pc_offset);
      if (it == at_pc.end() || it->second->live_regs < 0) continue;
      i.live_regs = it->second->live_regs;
      i.live_predicates = it->second->live_predicates;
      i.live_uniform = it->second->live_uniform;
      ++matched;
    }
  }
  return matched;
}

LivePeak peak_live(const std::vector<ListedInstruction>& sass) {
  LivePeak p;
  for (std::size_t i = 0; i < sass.size(); ++i)
    if (sass[i].live_regs > p.regs) {
      p.regs = sass[i].live_regs;
      p.index = static_cast<int>(i);
      p.file = sass[i].file;
      p.line = sass[i].line;
    }
  return p;
}

std::vector<int> max_live_per_line(const std::vector<ListedInstruction>& sass, std::string_view file, int lines) {
  std::vector<int> out(static_cast<std::size_t>(std::max(lines, 0)) + 1, -1);
  for (const ListedInstruction& i : sass)
    if (i.live_regs >= 0 && i.line > 0 && i.line <= lines && same_source_file(i.file, file))
      out[static_cast<std::size_t>(i.line)] = std::max(out[static_cast<std::size_t>(i.line)], i.live_regs);
  return out;
}

}  // namespace bs::source
