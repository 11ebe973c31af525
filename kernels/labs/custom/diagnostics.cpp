#include "labs/custom/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace bs::custom {
namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == s.size()) break;
    start = end + 1;
  }
  return lines;
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool severity_from(std::string_view word, Diagnostic::Severity& s) {
  if (word == "error" || word == "fatal error" || word == "catastrophic error") {
    s = Diagnostic::Severity::Error;
    return true;
  }
  if (word == "warning") {
    s = Diagnostic::Severity::Warning;
    return true;
  }
  if (word == "note" || word == "remark") {
    s = Diagnostic::Severity::Note;
    return true;
  }
  return false;
}

// A diagnostic about blockscope's own generated code, placed at the kernel's signature.
Diagnostic generated_code_diagnostic(Diagnostic::Severity sev, std::string_view file, int line,
                                     std::string_view message, std::string_view origin, Anchor anchor) {
  return {.line = anchor.line,
          .column = anchor.column,
          .severity = sev,
          .message = std::string(message) + " [in blockscope's " +
                     (file == "blockscope-entry" ? std::string("launcher that calls your kernel") : std::string(file)) +
                     ", line " + std::to_string(line) + "]",
          .origin = std::string(origin)};
}

}  // namespace

const char* to_string(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::Error: return "error";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Note: return "note";
  }
  return "?";
}

std::string describe(const Diagnostic& d, std::string_view file) {
  std::string s(file);
  if (d.line > 0) {
    s += ":" + std::to_string(d.line);
    if (d.column > 0) s += ":" + std::to_string(d.column);
  }
  s += ": ";
  s += to_string(d.severity);
  s += ": ";
  s += d.message;
  if (!d.origin.empty()) s += " (" + d.origin + ")";
  return s;
}

void ColumnMap::add_edit(int line, int column, int old_length, int new_length) {
  edits_.push_back({line, column, old_length, new_length});
  std::sort(edits_.begin(), edits_.end(),
            [](const Edit& a, const Edit& b) { return a.line != b.line ? a.line < b.line : a.column < b.column; });
}

int ColumnMap::to_user(int line, int generated_column) const {
  // Walk the line's edits in order, in generated coordinates.
  int shift = 0;  // generated - user, for columns after the edits passed so far
  for (const Edit& e : edits_) {
    if (e.line != line) continue;
    const int gen_begin = e.column + shift;
    const int gen_end = gen_begin + e.new_length;  // one past the replacement
    if (generated_column < gen_begin) break;
    if (generated_column < gen_end) return e.column;  // inside the replaced text
    shift += e.new_length - e.old_length;
  }
  return std::max(1, generated_column - shift);
}

namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

}  // namespace

// The CPU prelude's names as the user wrote them (threadIdx is `bs_tls_ctx->threadIdx` of type
// bs_u3 there), and GCC's typographic quotes as ASCII (the app's font has no glyph for them).
std::string tidy_host_message(std::string_view message) {
  std::string s(message);
  replace_all(s, "bs_tls_ctx->", "");
  replace_all(s, "bs_thread_ctx::", "");
  replace_all(s, "bs_u3::", "");
  replace_all(s, "bs_u3", "uint3");
  replace_all(s, "\xE2\x80\x98", "'");
  replace_all(s, "\xE2\x80\x99", "'");
  return s;
}

std::vector<Diagnostic> parse_host_compiler_log(std::string_view log, std::string_view origin, const ColumnMap& columns,
                                                Anchor anchor) {
  std::vector<Diagnostic> out;
  for (std::string_view line : split_lines(log)) {
    // file:line:col: severity: message   (col may be missing: file:line: severity: message)
    const std::size_t c1 = line.find(':');
    if (c1 == std::string_view::npos || c1 == 0) continue;
    const std::string_view file = line.substr(0, c1);
    std::string_view rest = line.substr(c1 + 1);
    std::size_t c2 = rest.find(':');
    if (c2 == std::string_view::npos) continue;
    int lineno = 0, col = 0;
    if (!parse_int(rest.substr(0, c2), lineno)) continue;
    rest = rest.substr(c2 + 1);
    std::size_t c3 = rest.find(':');
    if (c3 == std::string_view::npos) continue;
    if (parse_int(rest.substr(0, c3), col)) rest = rest.substr(c3 + 1);
    rest = trim(rest);
    const std::size_t c4 = rest.find(':');
    if (c4 == std::string_view::npos) continue;
    Diagnostic::Severity sev;
    if (!severity_from(trim(rest.substr(0, c4)), sev)) continue;
    const std::string_view message = trim(rest.substr(c4 + 1));
    if (file == kUserFile) {
      out.push_back({.line = lineno,
                     .column = col > 0 ? columns.to_user(lineno, col) : 0,
                     .severity = sev,
                     .message = tidy_host_message(message),
                     .origin = std::string(origin)});
    } else if (sev != Diagnostic::Severity::Note) {
      out.push_back(generated_code_diagnostic(sev, file, lineno, message, origin, anchor));
    }
  }
  // The log had something but no line of it parsed (a crash, a driver message): keep it whole.
  if (out.empty() && !trim(log).empty() && log.find("error") != std::string_view::npos) {
    out.push_back({.line = anchor.line,
                   .column = anchor.column,
                   .message = std::string(trim(log)),
                   .origin = std::string(origin)});
  }
  return out;
}

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, Anchor anchor) {
  std::vector<Diagnostic> out;
  const std::vector<std::string_view> lines = split_lines(log);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    // file(line): severity[ #123-D]: message
    const std::size_t open = line.find('(');
    if (open == std::string_view::npos || open == 0) continue;
    const std::size_t close = line.find("): ", open);
    if (close == std::string_view::npos) continue;
    int lineno = 0;
    if (!parse_int(line.substr(open + 1, close - open - 1), lineno)) continue;
    const std::string_view file = line.substr(0, open);
    std::string_view rest = line.substr(close + 3);
    const std::size_t colon = rest.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string_view word = rest.substr(0, colon);
    if (const std::size_t hash = word.find(" #"); hash != std::string_view::npos)
      word = word.substr(0, hash);  // "warning #177-D"
    Diagnostic::Severity sev;
    if (!severity_from(word, sev)) continue;
    const std::string_view message = trim(rest.substr(colon + 2));
    int col = 0;
    // NVRTC echoes the source line indented by 2 and puts a caret under the column.
    if (i + 2 < lines.size()) {
      const std::string_view caret = lines[i + 2];
      const std::size_t at = caret.find('^');
      if (at != std::string_view::npos && trim(caret) == "^") {
        col = static_cast<int>(at) - 1;  // 2 spaces of indent, 1-based
        if (col < 1) col = 1;
        i += 2;
      }
    }
    if (file == kUserFile) {
      out.push_back(
          {.line = lineno, .column = col, .severity = sev, .message = std::string(message), .origin = "NVRTC"});
    } else if (sev != Diagnostic::Severity::Note && file.rfind("blockscope-", 0) != 0) {
      // In a header the user included (cub, libcu++, ...): at the user's line that instantiated
      // it, from NVRTC's "detected during ... at line N of kernel.cu" (the last such line, the
      // user's own call), else at the kernel's signature.
      int user_line = 0;
      for (std::size_t j = i + 1; j < lines.size(); ++j) {
        const std::string_view next = lines[j];
        if (next.find("): error") != std::string_view::npos || next.find("): warning") != std::string_view::npos ||
            next.find("): catastrophic error") != std::string_view::npos)
          break;
        const std::string of_user = " of " + std::string(kUserFile);
        const std::size_t at = next.find(" at line ");
        if (at == std::string_view::npos || next.substr(next.size() - std::min(next.size(), of_user.size())) != of_user)
          continue;
        int n = 0;
        const std::size_t from = at + 9, to = next.size() - of_user.size();
        if (to > from && parse_int(next.substr(from, to - from), n)) user_line = n;
      }
      out.push_back({.line = user_line > 0 ? user_line : anchor.line,
                     .column = user_line > 0 ? 0 : anchor.column,
                     .severity = sev,
                     .message = std::string(message) + " [in " + std::string(file) + ", line " +
                                std::to_string(lineno) +
                                (user_line > 0 ? ", reached from this line]" : ", a header your kernel includes]"),
                     .origin = "NVRTC"});
    } else if (sev != Diagnostic::Severity::Note) {
      out.push_back(generated_code_diagnostic(sev, file, lineno, message, "NVRTC", anchor));
    }
  }
  return out;
}

}  // namespace bs::custom
