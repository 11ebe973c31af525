#include "labs/custom/source_parse.hpp"

#include <algorithm>
#include <cctype>

#include "labs/custom/element_types.hpp"

namespace bs::custom {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Token {
  enum Kind { Ident, Punct } kind;
  std::string_view text;
  std::size_t offset;
};

std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (ident_start(c)) {
      std::size_t j = i + 1;
      while (j < code.size() && ident_char(code[j])) ++j;
      out.push_back({Token::Ident, code.substr(i, j - i), i});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i + 1;
      while (j < code.size() && (ident_char(code[j]) || code[j] == '.')) ++j;
      out.push_back({Token::Punct, code.substr(i, j - i), i});
      i = j;
    } else {
      out.push_back({Token::Punct, code.substr(i, 1), i});
      ++i;
    }
  }
  return out;
}

class LineIndex {
 public:
  explicit LineIndex(std::string_view s) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] == '\n') starts_.push_back(i + 1);
  }
  SourcePos at(std::size_t offset) const {
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const std::size_t line = static_cast<std::size_t>(it - starts_.begin());  // 1-based
    return SourcePos{static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1), offset};
  }

 private:
  std::vector<std::size_t> starts_;
};

bool is_qualifier(std::string_view t) {
  return t == "const" || t == "volatile" || t == "__restrict__" || t == "__restrict" || t == "restrict" ||
         t == "__grid_constant__";
}

std::string normalise_type(const std::vector<std::string_view>& words) {
  std::string s;
  for (std::string_view w : words) {
    if (!s.empty()) s += ' ';
    s += w;
  }
  if (s == "unsigned int") return "unsigned";
  if (s == "signed int" || s == "signed") return "int";
  if (s == "long int" || s == "signed long") return "long";
  if (s == "unsigned long int") return "unsigned long";
  if (s == "long long int" || s == "signed long long") return "long long";
  if (s == "unsigned long long int") return "unsigned long long";
  if (s == "std::size_t") return "size_t";
  return s;
}

// A word that means the threads of a warp or block meet: the simulator must then run the block's
// threads as fibers (__syncthreads*, warp shuffles and votes, __syncwarp, wmma, cooperative_groups).
bool is_collective_word(std::string_view w) {
  static constexpr std::string_view kPrefixes[] = {"__syncthreads", "__shfl", "__reduce_", "__match_"};
  for (std::string_view p : kPrefixes)
    if (w.starts_with(p)) return true;
  static constexpr std::string_view kWords[] = {"__syncwarp",      "__ballot_sync",      "__any_sync",
                                                "__all_sync",      "__uni_sync",         "wmma",
                                                "nvcuda",          "load_matrix_sync",   "store_matrix_sync",
                                                "mma_sync",        "cooperative_groups", "this_thread_block",
                                                "tiled_partition", "thread_block_tile"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

bool is_integer_type(std::string_view t) {
  static constexpr std::string_view kInts[] = {
      "int",    "unsigned", "long",     "unsigned long", "long long", "unsigned long long",
      "size_t", "int32_t",  "uint32_t", "int64_t",       "uint64_t"};
  return std::find(std::begin(kInts), std::end(kInts), t) != std::end(kInts);
}

bool is_builtin_type_word(std::string_view w) {
  return w == "int" || w == "char" || w == "long" || w == "short" || w == "float" || w == "double" || w == "unsigned" ||
         w == "signed" || w == "bool" || w == "void";
}

// One parameter from its byte range [begin, end) of the blanked code.
KernelParam parse_param(std::string_view code, std::string_view source, std::size_t begin, std::size_t end,
                        const LineIndex& lines) {
  KernelParam p;
  while (begin < end && std::isspace(static_cast<unsigned char>(code[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(code[end - 1]))) --end;
  p.begin = begin;
  p.end = end;
  p.name_begin = end;
  p.text = std::string(source.substr(begin, end - begin));
  p.pos = lines.at(begin);
  const std::vector<Token> toks = tokenize(code.substr(begin, end - begin));
  int stars = 0;
  std::size_t last_star = 0;
  bool odd = false;  // references, arrays, function pointers: not a form's parameter
  bool const_before_star = false;
  struct Word {
    std::string text;
    std::size_t offset;
  };
  std::vector<Word> words;
  bool glue = false;  // the previous tokens were "::": append to the last word
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const Token& t = toks[i];
    if (t.kind == Token::Ident) {
      if (t.text == "const" && stars == 0) const_before_star = true;
      if (is_qualifier(t.text)) continue;
      if (glue && !words.empty()) {
        words.back().text += "::" + std::string(t.text);
      } else {
        words.push_back({std::string(t.text), begin + t.offset});
      }
      glue = false;
    } else if (t.text == "*") {
      ++stars;
      last_star = begin + t.offset;
    } else if (t.text == ":" && i + 1 < toks.size() && toks[i + 1].text == ":") {
      glue = true;
      ++i;
    } else {
      odd = true;
    }
  }
  // The last word is the name when it follows the '*' (pointers) or when the words before it
  // already make a type and it is not itself a type word (`int n`, but `unsigned int` unnamed).
  bool named = false;
  if (!words.empty()) {
    if (stars > 0) named = words.back().offset > last_star;
    else named = words.size() >= 2 && !is_builtin_type_word(words.back().text);
  }
  if (named) {
    p.name = words.back().text;
    p.name_begin = words.back().offset;
    words.pop_back();
  }
  std::vector<std::string_view> type_words;
  for (const Word& w : words) type_words.push_back(w.text);
  p.pointer = stars == 1 && !odd;
  p.is_const = const_before_star;
  p.type = odd || stars > 1 ? std::string("?") : normalise_type(type_words);
  return p;
}

struct Candidate {
  std::string name;
  SourcePos pos;
  bool templated = false;
  std::vector<KernelParam> params;
};

using Role = lab::UserParam::Role;

bool param_matches(const KernelParam& p, const lab::UserParam& f) {
  if (f.role == Role::Int) return !p.pointer && is_integer_type(p.type);
  return p.pointer && same_bytes(p.type, f) && (f.role == Role::Input || !p.is_const);
}

bool matches(const Candidate& c, const lab::UserForm& s) {
  if (c.params.size() != s.params.size()) return false;
  for (std::size_t i = 0; i < s.params.size(); ++i)
    if (!param_matches(c.params[i], s.params[i])) return false;
  return true;
}

std::string expected_text(const lab::UserParam& f) {
  std::string s(f.type);
  if (f.pointer()) s += "*";
  s += " ";
  s += f.name;
  return s;
}

// Why `c` is not `form`, parameter by parameter (for a form with the same parameter count).
std::string mismatch_detail(const Candidate& c, const lab::UserForm& s) {
  std::string out;
  for (std::size_t i = 0; i < s.params.size() && i < c.params.size(); ++i) {
    if (param_matches(c.params[i], s.params[i])) continue;
    if (!out.empty()) out += "; ";
    out += "parameter " + std::to_string(i + 1) + " `" + c.params[i].text + "` should be `" +
           expected_text(s.params[i]) + "`";
    if (s.params[i].role == Role::Output && c.params[i].is_const) out += " (not const: it is written)";
    if (s.params[i].role == Role::Int) out += " (or another integer type)";
    if (const std::string why = other_meaning(c.params[i].type, s.params[i]); !why.empty()) out += " (" + why + ")";
    else if (const ElementSpelling* e = element_spelling(s.params[i]);
             e && e->spellings.size() > 1 && s.params[i].pointer())
      out += " (or " + std::string(e->spellings[e->spellings.size() > 2 ? 2 : 1]) + "*: the same bytes)";
  }
  return out;
}

}  // namespace

std::string blank_non_code(std::string_view s) {
  std::string out(s);
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  std::size_t i = 0;
  bool line_start = true;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // a preprocessor line, with its continuations
      std::size_t j = i;
      while (j < s.size() && s[j] != '\n') {
        if (s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n') j += 2;
        else ++j;
      }
      blank(i, j);
      i = j;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      std::size_t j = s.find('\n', i);
      if (j == std::string_view::npos) j = s.size();
      blank(i, j);
      i = j;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t j = s.find("*/", i + 2);
      j = j == std::string_view::npos ? s.size() : j + 2;
      blank(i, j);
      i = j;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, s.size());
      blank(i + 1, j - 1);
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

namespace {

Diagnostic blockscope_diagnostic(SourcePos pos, std::string message,
                                 Diagnostic::Severity severity = Diagnostic::Severity::Error) {
  return {.line = pos.line,
          .column = pos.column,
          .severity = severity,
          .message = std::move(message),
          .origin = "blockscope"};
}

// What the scan of the whole source finds: the `__global__` functions, and the words that change
// how the simulator runs them.
struct Scan {
  std::vector<Candidate> candidates;
  bool uses_barriers = false, uses_shared = false;
  std::optional<Diagnostic> refusal;  // dynamic shared memory
};

// Whether the `__global__` at token t is a template: `template <...>` right before, back to the
// previous declaration's end.
bool is_templated(const std::vector<Token>& toks, std::size_t t) {
  for (std::size_t b = t; b-- > 0;) {
    const std::string_view x = toks[b].text;
    if (x == ";" || x == "}" || x == "{") break;
    if (x == "template") return true;
  }
  return false;
}

// The '(' of the parameter list after the `__global__` at token t: the first one that follows an
// identifier (the name) and is not an attribute's.
std::optional<std::size_t> parameter_list_open(const std::vector<Token>& toks, std::size_t t) {
  for (std::size_t u = t + 1; u < toks.size();) {
    const std::string_view x = toks[u].text;
    if (x == ";" || x == "{" || x == "}") break;
    if (x == "__launch_bounds__" || x == "__attribute__" || x == "__align__" || x == "__declspec" ||
        x == "__maxnreg__") {
      // skip its balanced parentheses
      ++u;
      int depth = 0;
      for (; u < toks.size(); ++u) {
        if (toks[u].text == "(") ++depth;
        else if (toks[u].text == ")" && --depth == 0) break;
      }
      ++u;
      continue;
    }
    if (x == "(" && u > t + 1 && toks[u - 1].kind == Token::Ident) return u;
    ++u;
  }
  return std::nullopt;
}

// The byte ranges of the parameters of the list opening at `open`, split at top-level commas;
// none when the list is unbalanced.
std::optional<std::vector<std::pair<std::size_t, std::size_t>>> parameter_ranges(std::string_view code,
                                                                                 std::size_t open) {
  int depth = 0;
  std::size_t piece = open + 1;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t k = open; k < code.size(); ++k) {
    const char ch = code[k];
    if (ch == '(' || ch == '[' || ch == '<' || ch == '{') ++depth;
    else if (ch == ')' || ch == ']' || ch == '>' || ch == '}') {
      if (--depth == 0) {
        ranges.emplace_back(piece, k);
        return ranges;
      }
    } else if (ch == ',' && depth == 1) {
      ranges.emplace_back(piece, k);
      piece = k + 1;
    }
  }
  return std::nullopt;
}

Scan scan_source(std::string_view source, std::string_view code, const std::vector<Token>& toks,
                 const LineIndex& lines) {
  Scan scan;
  for (std::size_t t = 0; t < toks.size(); ++t) {
    const Token& tok = toks[t];
    if (tok.kind != Token::Ident) continue;
    if (is_collective_word(tok.text)) scan.uses_barriers = true;
    if (tok.text == "__shared__") {
      scan.uses_shared = true;
      if (t > 0 && toks[t - 1].text == "extern") {
        scan.refusal = blockscope_diagnostic(lines.at(toks[t - 1].offset),
                                             "dynamic shared memory (`extern __shared__`) is not available to a lab's "
                                             "kernel: the lab launches it without a dynamic size. Declare a fixed-size "
                                             "array instead, e.g. `__shared__ float tile[16][16];`");
        return scan;
      }
    }
    if (tok.text != "__global__") continue;
    const auto open = parameter_list_open(toks, t);
    if (!open) continue;
    const auto ranges = parameter_ranges(code, toks[*open].offset);
    if (!ranges) continue;  // unbalanced: the compiler will say where
    Candidate c;
    c.templated = is_templated(toks, t);
    c.name = std::string(toks[*open - 1].text);
    c.pos = lines.at(toks[*open - 1].offset);
    for (const auto& [b, e] : *ranges) {
      KernelParam p = parse_param(code, source, b, e, lines);
      if (p.text.empty() || p.text == "void") continue;
      c.params.push_back(std::move(p));
    }
    scan.candidates.push_back(std::move(c));
  }
  return scan;
}

// Why nothing in the pool matched, said at its first candidate.
Diagnostic no_match(const Candidate& c, std::span<const lab::UserForm> accepted) {
  if (c.templated)
    return blockscope_diagnostic(c.pos, "`" + c.name +
                                            "` is a template: the lab launches a plain function. Make the template "
                                            "arguments constants (e.g. `constexpr int tw = 16;`) or add a "
                                            "non-template kernel that calls it. This lab accepts:\n" +
                                            lab::describe_forms(accepted));
  std::string msg = "`" + c.name + "` takes " + std::to_string(c.params.size()) + " parameter" +
                    (c.params.size() == 1 ? "" : "s") + " that do not match a kernel this lab can launch.";
  for (const lab::UserForm& f : accepted)
    if (f.params.size() == c.params.size()) {
      msg += " As " + f.id + ": " + mismatch_detail(c, f) + ".";
      break;
    }
  msg += " This lab accepts:\n" + lab::describe_forms(accepted);
  return blockscope_diagnostic(c.pos, std::move(msg));
}

}  // namespace

ParseResult parse_kernel_source(std::string_view source, std::span<const lab::UserForm> accepted,
                                std::string_view want) {
  ParseResult result;
  const std::string code = blank_non_code(source);
  const LineIndex lines(source);
  Scan scan = scan_source(source, code, tokenize(code), lines);
  auto refuse = [&](Diagnostic d) {
    result.diagnostics.push_back(std::move(d));
    return std::move(result);
  };
  if (scan.refusal) return refuse(std::move(*scan.refusal));
  const std::vector<Candidate>& candidates = scan.candidates;
  if (candidates.empty())
    return refuse(blockscope_diagnostic(
        SourcePos{}, "no `__global__` kernel found. This lab accepts:\n" + lab::describe_forms(accepted)));

  std::vector<const Candidate*> pool;
  for (const Candidate& c : candidates)
    if (want.empty() || c.name == want) pool.push_back(&c);
  if (pool.empty())
    return refuse(blockscope_diagnostic(candidates.front().pos, "no `__global__` kernel named `" + std::string(want) +
                                                                    "`; found `" + candidates.front().name + "`"));

  for (const Candidate* c : pool) {
    if (c->templated) continue;
    for (const lab::UserForm& f : accepted) {
      if (!matches(*c, f)) continue;
      ParsedKernel k{.name = c->name,
                     .form = f,
                     .pos = c->pos,
                     .params = c->params,
                     .uses_barriers = scan.uses_barriers,
                     .uses_shared = scan.uses_shared};
      for (const Candidate& other : candidates)
        if (&other != c && want.empty())
          result.diagnostics.push_back(blockscope_diagnostic(other.pos,
                                                             "`" + other.name + "` is not launched: the lab runs `" +
                                                                 k.name +
                                                                 "`, the first kernel whose parameters it accepts",
                                                             Diagnostic::Severity::Note));
      result.kernel = std::move(k);
      return result;
    }
  }
  return refuse(no_match(*pool.front(), accepted));
}

}  // namespace bs::custom
