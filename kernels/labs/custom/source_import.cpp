// Section index:
//   1. Python: a tokenizer for strings, names and brackets; string expressions; the calls
//   2. CUDA: a source split into top-level items, each kernel with what it uses
//   3. files: notebooks, Python files, limits
#include "labs/custom/source_import.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "toolchain/json_reader.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {
namespace fs = std::filesystem;

namespace {

std::string lower_ext(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

// ---------------------------------------------------------------------------------------------
// 1. Python
// ---------------------------------------------------------------------------------------------

// A piece of a string value: where in the value it starts and the source line its literal
// started on, so a kernel's offset in the value gives back its line in the cell.
struct Piece {
  std::size_t offset = 0;
  int line = 0;
};
struct StrVal {
  std::string text;
  std::vector<Piece> pieces;
  bool fstring = false;
  int line_of(std::size_t offset) const {
    const Piece* p = nullptr;
    for (const Piece& q : pieces)
      if (q.offset <= offset) p = &q;
    if (!p) return pieces.empty() ? 0 : pieces.front().line;
    return p->line + static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(p->offset),
                                                 text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  }
  void append(const StrVal& o) {
    for (Piece p : o.pieces) {
      p.offset += text.size();
      pieces.push_back(p);
    }
    text += o.text;
    fstring = fstring || o.fstring;
  }
};

struct Tok {
  enum class K { Name, Str, Op, Newline, Other } k = K::Other;
  std::string text;  // a name or operator
  StrVal str;        // a string literal's value
  int line = 0;
  int col = 0;  // 0: the token starts its line (a statement not inside a def)
};

struct PyError {
  int line = 0;
  std::string what;
};

// Decodes a non-raw literal's escapes as Python does (unknown escapes stay as written).
std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case '\n': break;  // a continued line
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'x':
        if (i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
          out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
          i += 2;
        } else {
          out += "\\x";
        }
        break;
      default:
        out += '\\';
        out += e;
        break;
    }
  }
  return out;
}

std::variant<std::vector<Tok>, PyError> tokenize(std::string_view s) {
  std::vector<Tok> toks;
  int line = 1, depth = 0;
  std::size_t i = 0, line_start = 0;
  auto op = [&](std::string t) {
    toks.push_back({Tok::K::Op, std::move(t), {}, line, static_cast<int>(i - line_start)});
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      if (depth == 0 && !toks.empty() && toks.back().k != Tok::K::Newline)
        toks.push_back({Tok::K::Newline, "", {}, line});
      ++line;
      ++i;
      line_start = i;
      continue;
    }
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // A string, with its prefix.
    std::size_t q = i;
    while (q < s.size() && q - i < 2 && std::strchr("rRbBuUfF", s[q]) && s[q] != '\0') ++q;
    if (q < s.size() && (s[q] == '\'' || s[q] == '"') && (q == i || !ident_char(i > 0 ? s[i - 1] : ' '))) {
      const std::string prefix(s.substr(i, q - i));
      const bool raw = prefix.find_first_of("rR") != std::string::npos;
      const bool fstr = prefix.find_first_of("fF") != std::string::npos;
      const char quote = s[q];
      const bool triple = q + 2 < s.size() && s[q + 1] == quote && s[q + 2] == quote;
      const std::size_t open = q + (triple ? 3 : 1);
      const int start_line = line;
      std::size_t j = open;
      for (;;) {
        if (j >= s.size()) return PyError{start_line, "a string that does not end"};
        if (s[j] == '\\') {
          if (j + 1 < s.size() && s[j + 1] == '\n') ++line;
          j += 2;
          continue;
        }
        if (s[j] == '\n') {
          if (!triple) return PyError{start_line, "a string that does not end on its line"};
          ++line;
          line_start = j + 1;
        }
        if (s[j] == quote && (!triple || (j + 2 < s.size() && s[j + 1] == quote && s[j + 2] == quote))) break;
        ++j;
      }
      std::string_view body = s.substr(open, j - open);
      Tok t{Tok::K::Str, "", {}, start_line, static_cast<int>(i - line_start)};
      t.str.text = raw ? std::string(body) : unescape(body);
      if (fstr) {  // taken literally: {{ and }} are braces; {expressions} are not evaluated
        std::string v;
        for (std::size_t k = 0; k < t.str.text.size(); ++k) {
          v += t.str.text[k];
          if ((t.str.text[k] == '{' || t.str.text[k] == '}') && k + 1 < t.str.text.size() &&
              t.str.text[k + 1] == t.str.text[k])
            ++k;
        }
        t.str.text = std::move(v);
        t.str.fstring = true;
      }
      // A triple-quoted string usually starts with a newline right after the quotes.
      t.str.pieces.push_back({0, start_line});
      toks.push_back(std::move(t));
      i = j + (triple ? 3 : 1);
      continue;
    }
    if (ident_start(c)) {
      std::size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      toks.push_back({Tok::K::Name, std::string(s.substr(i, j - i)), {}, line, static_cast<int>(i - line_start)});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && (ident_char(s[j]) || s[j] == '.')) ++j;
      toks.push_back({Tok::K::Other, std::string(s.substr(i, j - i)), {}, line, static_cast<int>(i - line_start)});
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
    if (i + 1 < s.size() && s[i + 1] == '=' && std::strchr("=!<>+-*/%&|^@:", c)) {
      op(std::string(s.substr(i, 2)));
      i += 2;
      continue;
    }
    if (c == ';' && depth == 0) {
      toks.push_back({Tok::K::Newline, "", {}, line});
      ++i;
      continue;
    }
    op(std::string(1, c));
    ++i;
  }
  toks.push_back({Tok::K::Newline, "", {}, line});
  return toks;
}

using Toks = std::vector<Tok>;
using Env = std::map<std::string, std::vector<StrVal>>;  // one value, or a list's items

bool is_op(const Tok& t, std::string_view o) { return t.k == Tok::K::Op && t.text == o; }

// The index after the bracket that closes the one at `open` (end when it never closes).
std::size_t close_of(const Toks& t, std::size_t open, std::size_t end) {
  int d = 0;
  for (std::size_t i = open; i < end; ++i) {
    if (t[i].k != Tok::K::Op) continue;
    const char c = t[i].text[0];
    if (t[i].text.size() == 1 && (c == '(' || c == '[' || c == '{')) ++d;
    if (t[i].text.size() == 1 && (c == ')' || c == ']' || c == '}') && --d == 0) return i + 1;
  }
  return end;
}

// A string expression over [b, e): literals, names in `env`, `+`, parentheses; or a list of
// them. nullopt when it is anything else.
std::optional<std::vector<StrVal>> eval(const Toks& t, std::size_t b, std::size_t e, const Env& env);

std::optional<StrVal> eval_string(const Toks& t, std::size_t b, std::size_t e, const Env& env) {
  StrVal v;
  bool expect_term = true;
  std::size_t i = b;
  while (i < e) {
    if (expect_term) {
      if (t[i].k == Tok::K::Str) {
        while (i < e && t[i].k == Tok::K::Str) v.append(t[i++].str);  // "a" "b": one string
      } else if (t[i].k == Tok::K::Name) {
        auto it = env.find(t[i].text);
        if (it == env.end() || it->second.size() != 1) return std::nullopt;
        v.append(it->second.front());
        ++i;
      } else if (is_op(t[i], "(")) {
        const std::size_t c = close_of(t, i, e);
        auto inner = eval_string(t, i + 1, c - 1, env);
        if (!inner || c > e) return std::nullopt;
        v.append(*inner);
        i = c;
      } else {
        return std::nullopt;
      }
      expect_term = false;
    } else {
      if (!is_op(t[i], "+")) return std::nullopt;
      ++i;
      expect_term = true;
    }
  }
  if (expect_term) return std::nullopt;
  return v;
}

std::optional<std::vector<StrVal>> eval(const Toks& t, std::size_t b, std::size_t e, const Env& env) {
  if (b >= e) return std::nullopt;
  if ((is_op(t[b], "[") || is_op(t[b], "(")) && close_of(t, b, e) == e) {
    // A list or tuple of strings (a parenthesised single string is handled below).
    std::vector<StrVal> items;
    std::size_t item = b + 1;
    bool comma = false;
    for (std::size_t i = b + 1; i < e - 1; ++i) {
      if (is_op(t[i], "(") || is_op(t[i], "[") || is_op(t[i], "{")) {
        i = close_of(t, i, e - 1) - 1;
        continue;
      }
      if (is_op(t[i], ",")) {
        auto v = eval_string(t, item, i, env);
        if (!v) return std::nullopt;
        items.push_back(std::move(*v));
        item = i + 1;
        comma = true;
      }
    }
    if (item < e - 1) {
      auto v = eval_string(t, item, e - 1, env);
      if (!v) return std::nullopt;
      items.push_back(std::move(*v));
    }
    if (comma || is_op(t[b], "[")) return items;
  }
  auto v = eval_string(t, b, e, env);
  if (!v) return std::nullopt;
  return std::vector<StrVal>{std::move(*v)};
}

struct Arg {
  std::string keyword;  // empty: positional
  std::size_t b = 0, e = 0;
};

std::vector<Arg> call_args(const Toks& t, std::size_t open, std::size_t close) {
  std::vector<Arg> args;
  std::size_t start = open + 1;
  auto push = [&](std::size_t end) {
    if (start >= end) return;
    Arg a{"", start, end};
    if (end - start >= 2 && t[start].k == Tok::K::Name && is_op(t[start + 1], "=")) {
      a.keyword = t[start].text;
      a.b = start + 2;
    }
    args.push_back(a);
  };
  for (std::size_t i = open + 1; i + 1 < close; ++i) {
    if (is_op(t[i], "(") || is_op(t[i], "[") || is_op(t[i], "{")) {
      i = close_of(t, i, close - 1) - 1;
      continue;
    }
    if (is_op(t[i], ",")) {
      push(i);
      start = i + 1;
    }
  }
  push(close - 1);
  return args;
}

const Arg* find_arg(const std::vector<Arg>& args, std::string_view keyword, int position) {
  for (const Arg& a : args)
    if (a.keyword == keyword) return &a;
  int k = 0;
  for (const Arg& a : args) {
    if (!a.keyword.empty()) break;
    if (k++ == position) return &a;
  }
  return nullptr;
}

// One CUDA source found in the Python, with where it came from.
struct Found {
  StrVal value;
  int cell = 0;
  std::string how;         // "load_inline's cuda_sources"
  std::string entry_name;  // CuPy RawKernel's kernel name
};

// A function of the notebook's that passes one of its parameters to load_inline (the lecture's
// load_cuda(cuda_src, cpp_src, funcs)): its calls are followed as load_inline's.
struct Wrapper {
  std::string param;
  int index = 0;
};

struct PyScan {
  Env env;
  std::map<std::string, Wrapper> wrappers;
  std::string def_name;  // the def whose body the statements are in ("" at top level)
  std::vector<std::string> def_params;
  std::vector<Found> from_calls;
  std::vector<Found> fallback;  // strings holding __global__
  std::vector<std::string> notes;
};

std::string where(int cell, int line) {
  std::string s = cell > 0 ? "cell " + std::to_string(cell) + ", " : std::string();
  return s + "line " + std::to_string(line);
}

// Runs one cell's (or a file's) statements in order against the scan's variables.
void scan_python(std::string_view code, int cell, PyScan& scan) {
  auto tokens = tokenize(code);
  if (auto* e = std::get_if<PyError>(&tokens)) {
    scan.notes.push_back(where(cell, e->line) + ": " + e->what + "; blockscope skipped " +
                         (cell > 0 ? "this cell" : "the rest of the file"));
    return;
  }
  const Toks& t = std::get<Toks>(tokens);
  std::size_t b = 0;
  for (std::size_t e = 0; e < t.size(); ++e) {
    if (t[e].k != Tok::K::Newline) continue;
    // The statement [b, e): a def, calls inside it, then an assignment.
    if (b < e && t[b].col == 0) scan.def_name.clear();
    if (e - b >= 3 && t[b].k == Tok::K::Name && t[b].text == "def" && t[b + 1].k == Tok::K::Name &&
        is_op(t[b + 2], "(")) {
      scan.def_name = t[b + 1].text;
      scan.def_params.clear();
      for (const Arg& a : call_args(t, b + 2, close_of(t, b + 2, e)))
        scan.def_params.push_back(t[a.keyword.empty() ? a.b : a.b - 2].text);
      b = e + 1;
      continue;
    }
    for (std::size_t i = b; i < e; ++i) {
      if (t[i].k == Tok::K::Str && t[i].str.text.find("__global__") != std::string::npos)
        scan.fallback.push_back({t[i].str, cell, "a string holding __global__", ""});
      if (i + 1 >= e || t[i].k != Tok::K::Name || !is_op(t[i + 1], "(")) continue;
      const std::string& f = t[i].text;
      const auto wrapper = scan.wrappers.find(f);
      if (f != "load_inline" && f != "load" && f != "RawKernel" && f != "RawModule" && f != "SourceModule" &&
          wrapper == scan.wrappers.end())
        continue;
      const std::size_t close = close_of(t, i + 1, e);
      const auto args = call_args(t, i + 1, close);
      const std::string at = where(cell, t[i].line);
      if (wrapper != scan.wrappers.end()) {
        const Arg* a = find_arg(args, wrapper->second.param, wrapper->second.index);
        if (!a) continue;
        auto v = eval(t, a->b, a->e, scan.env);
        if (!v) {
          scan.notes.push_back(at + ": the source passed to " + f + "() is built in a way blockscope does not follow");
          continue;
        }
        for (StrVal& sv : *v)
          scan.from_calls.push_back({std::move(sv), cell, "load_inline's cuda_sources, through " + f + "()", ""});
        continue;
      }
      if (f == "load") {
        if (const Arg* a = find_arg(args, "sources", 1)) {
          std::string files;
          for (std::size_t k = a->b; k < a->e; ++k)
            if (t[k].k == Tok::K::Str) files += (files.empty() ? "" : ", ") + t[k].str.text;
          scan.notes.push_back(at + ": load() compiles the files " + (files.empty() ? "it is given" : files) +
                               ": open those .cu files in blockscope (this call holds no CUDA source)");
        }
        continue;
      }
      const Arg* a = f == "load_inline"    ? find_arg(args, "cuda_sources", 2)
                     : f == "SourceModule" ? find_arg(args, "source", 0)
                                           : find_arg(args, "code", 0);
      const std::string how = f == "load_inline" ? "load_inline's cuda_sources" : f + "'s code";
      if (!a) {
        if (f == "load_inline")
          scan.notes.push_back(at + ": load_inline has no cuda_sources (C++ only): nothing to run on the GPU");
        continue;
      }
      auto v = eval(t, a->b, a->e, scan.env);
      if (!v && f == "load_inline" && !scan.def_name.empty()) {
        // load_inline(cuda_sources=[cuda_src]) inside `def load_cuda(cuda_src, ...)`: its calls count.
        std::size_t n = a->b;
        if (n < a->e && is_op(t[n], "[")) ++n;
        if (n < a->e && t[n].k == Tok::K::Name) {
          const auto p = std::find(scan.def_params.begin(), scan.def_params.end(), t[n].text);
          if (p != scan.def_params.end()) {
            scan.wrappers[scan.def_name] = {*p, static_cast<int>(p - scan.def_params.begin())};
            continue;
          }
        }
      }
      if (!v) {
        scan.notes.push_back(at + ": " + how +
                             " is built in a way blockscope does not follow (it reads string literals, `+` and "
                             "variables assigned them): the strings holding __global__ are used instead");
        continue;
      }
      std::string entry;
      if (f == "RawKernel")
        if (const Arg* n = find_arg(args, "name", 1))
          if (auto nv = eval_string(t, n->b, n->e, scan.env)) entry = nv->text;
      for (StrVal& s : *v) {
        if (s.fstring)
          scan.notes.push_back(at + ": " + how +
                               " is an f-string: taken literally ({{ as {), its {expressions} "
                               "are not evaluated");
        scan.from_calls.push_back({std::move(s), cell, how, entry});
      }
    }
    // NAME = expr, NAME += expr (a = b = expr: the last target only is followed).
    if (e - b >= 3 && t[b].k == Tok::K::Name && (is_op(t[b + 1], "=") || is_op(t[b + 1], "+="))) {
      auto v = eval(t, b + 2, e, scan.env);
      if (is_op(t[b + 1], "+=")) {
        auto it = scan.env.find(t[b].text);
        if (v && v->size() == 1 && it != scan.env.end() && it->second.size() == 1)
          it->second.front().append(v->front());
        else scan.env.erase(t[b].text);
      } else if (v) {
        scan.env[t[b].text] = std::move(*v);
      } else {
        scan.env.erase(t[b].text);  // reassigned to something else: no longer a source
      }
    }
    b = e + 1;
  }
}

// ---------------------------------------------------------------------------------------------
// 2. CUDA
// ---------------------------------------------------------------------------------------------

struct Item {
  enum class Kind { Include, Define, Directive, Kernel, Host, Function, Type, Global, Using, Other } kind = Kind::Other;
  std::size_t begin = 0, end = 0;
  std::string name;
  std::set<std::string> uses;  // identifiers in its code
  bool torch = false;          // names torch's API
};

std::set<std::string> identifiers(std::string_view code) {
  std::set<std::string> ids;
  for (std::size_t i = 0; i < code.size();) {
    if (ident_start(code[i]) && (i == 0 || !ident_char(code[i - 1]))) {
      std::size_t j = i;
      while (j < code.size() && ident_char(code[j])) ++j;
      ids.emplace(code.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return ids;
}

bool names_torch(std::string_view code) {
  for (std::string_view ns : {"torch::", "at::", "c10::"}) {
    for (std::size_t p = code.find(ns); p != std::string_view::npos; p = code.find(ns, p + 1))
      if (p == 0 || (!ident_char(code[p - 1]) && code[p - 1] != ':')) return true;
  }
  const auto ids = identifiers(code);
  return ids.count("Tensor") || ids.count("TORCH_CHECK") || ids.count("C10_CUDA_KERNEL_LAUNCH_CHECK");
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// The identifier that ends right before `pos` (skipping spaces).
std::string ident_before(std::string_view s, std::size_t pos) {
  std::size_t e = pos;
  while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::size_t b = e;
  while (b > 0 && ident_char(s[b - 1])) --b;
  return std::string(s.substr(b, e - b));
}

// A CUDA device header a kernel may need (kept); anything else is a host header (left out).
bool device_header(std::string_view h) {
  for (std::string_view p : {"cuda_fp16", "cuda_bf16", "cuda_fp8", "mma.h", "cooperative_groups", "cuda/", "cub/",
                             "cuda_pipeline", "sm_", "math_constants", "curand_kernel", "crt/"})
    if (h.substr(0, p.size()) == p) return true;
  return false;
}

void classify(Item& it, std::string_view raw, std::string_view blank) {
  const std::string_view code = blank.substr(it.begin, it.end - it.begin);
  it.uses = identifiers(code);
  it.torch = names_torch(code);
  // The part before the body; template<...> and attributes taken off for naming.
  const std::size_t brace = code.find('{');
  const std::string_view head = code.substr(0, brace);
  const auto head_ids = identifiers(head);
  auto has = [&](const char* w) { return head_ids.count(w) != 0; };
  if (has("PYBIND11_MODULE")) {
    it.kind = Item::Kind::Host;
    it.name = "PYBIND11_MODULE";
    return;
  }
  if (has("using")) {
    it.kind = has("namespace") ? Item::Kind::Using : Item::Kind::Type;
    const std::size_t eq = head.find('=');
    if (eq != std::string_view::npos) it.name = ident_before(head, eq);
    return;
  }
  if (has("typedef")) {
    it.kind = Item::Kind::Type;
    std::size_t semi = code.rfind(';');
    it.name = ident_before(code, semi == std::string_view::npos ? code.size() : semi);
    return;
  }
  // A function: the first '(' not belonging to an attribute, before any '='.
  std::size_t paren = std::string_view::npos;
  for (std::size_t p = head.find('('); p != std::string_view::npos; p = head.find('(', p + 1)) {
    const std::string before = ident_before(head, p);
    if (before == "__launch_bounds__" || before == "__align__" || before == "__attribute__" || before == "alignas" ||
        before == "__declspec")
      continue;
    paren = p;
    break;
  }
  const std::size_t eq = head.find('=');
  if (paren != std::string_view::npos && (eq == std::string_view::npos || paren < eq)) {
    // Depth of template angle brackets is ignored: the lecture writes no templates here.
    it.name = ident_before(head, paren);
    if (has("__global__")) it.kind = Item::Kind::Kernel;
    else if (it.torch || code.find("<<<") != std::string_view::npos) it.kind = Item::Kind::Host;
    else it.kind = Item::Kind::Function;
    return;
  }
  for (const char* kw : {"struct", "class", "union", "enum"}) {
    if (!has(kw)) continue;
    std::size_t p = head.find(kw);
    p += std::string_view(kw).size();
    while (p < head.size() && !ident_start(head[p])) ++p;
    std::size_t q = p;
    while (q < head.size() && ident_char(head[q])) ++q;
    std::string n(head.substr(p, q - p));
    if (n == "class" || n == "struct") {  // enum class X
      p = q;
      while (p < head.size() && !ident_start(head[p])) ++p;
      q = p;
      while (q < head.size() && ident_char(head[q])) ++q;
      n = std::string(head.substr(p, q - p));
    }
    it.kind = Item::Kind::Type;
    it.name = n;
    return;
  }
  // A global: the name before '[', '=', '{' or ';'.
  std::size_t stop = code.find_first_of("[={;");
  it.kind = Item::Kind::Global;
  it.name = ident_before(code, stop == std::string_view::npos ? code.size() : stop);
  if (it.torch) it.kind = Item::Kind::Host;
  (void)raw;
}

// Splits a CUDA source into top-level items: directives, and declarations or definitions ending
// at a ';' or at the brace that closes a function's body.
std::vector<Item> split_items(std::string_view raw) {
  const std::string blank = blank_non_code(raw);
  const std::string_view b = blank.size() == raw.size() ? std::string_view(blank) : raw;
  std::vector<Item> items;
  std::size_t i = 0, start = std::string_view::npos;
  int depth = 0;
  bool initializer = false;  // an '=' at depth 0: its braces are data, the item ends at ';'
  auto finish = [&](std::size_t end) {
    Item it;
    it.begin = start;
    it.end = end;
    classify(it, raw, b);
    items.push_back(std::move(it));
    start = std::string_view::npos;
    initializer = false;
  };
  while (i < raw.size()) {
    if (start == std::string_view::npos && depth == 0) {
      // A directive at the top level: its whole logical line.
      std::size_t j = i;
      while (j < raw.size() && (raw[j] == ' ' || raw[j] == '\t')) ++j;
      if (j < raw.size() && raw[j] == '#' && (i == 0 || raw[i - 1] == '\n')) {
        std::size_t k = j;
        while (k < raw.size() && raw[k] != '\n') k += (raw[k] == '\\' && k + 1 < raw.size()) ? 2 : 1;
        Item it;
        it.begin = i;
        it.end = std::min(k, raw.size());
        std::string text = trim(raw.substr(j + 1, it.end - j - 1));
        // A // comment after a directive is not part of what it says.
        if (auto c = text.find("//"); c != std::string::npos) text = trim(text.substr(0, c));
        if (text.rfind("include", 0) == 0) {
          it.kind = Item::Kind::Include;
          it.name = trim(text.substr(7));
        } else if (text.rfind("define", 0) == 0) {
          it.kind = Item::Kind::Define;
          std::size_t p = 6;
          while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
          std::size_t q = p;
          while (q < text.size() && ident_char(text[q])) ++q;
          it.name = text.substr(p, q - p);
          it.uses = identifiers(text.substr(q));
          it.torch = names_torch(text.substr(q));
        } else {
          it.kind = Item::Kind::Directive;
          it.name = "#" + text;
        }
        i = it.end;
        items.push_back(std::move(it));
        continue;
      }
    }
    const char c = b[i];
    if (start == std::string_view::npos) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      start = i;
    }
    if (c == '=' && depth == 0) initializer = true;
    if (c == '{' || c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c == '}' && depth > 0 && --depth == 0 && !initializer) {
      // The end of a body: a ';' right after it belongs to it (struct X { ... };).
      std::size_t j = i + 1;
      while (j < b.size() && std::isspace(static_cast<unsigned char>(b[j]))) ++j;
      if (j < b.size() && b[j] == ';') {
        finish(j + 1);
        i = j + 1;
      } else {
        finish(i + 1);
        ++i;
      }
      continue;
    }
    if (c == ';' && depth == 0) {
      finish(i + 1);
      ++i;
      continue;
    }
    ++i;
  }
  if (start != std::string_view::npos) finish(raw.size());
  return items;
}

std::string describe(const Item& it, std::string_view raw) {
  switch (it.kind) {
    case Item::Kind::Include: return "#include " + it.name;
    case Item::Kind::Define: return "the macro " + it.name;
    case Item::Kind::Directive: return it.name;
    case Item::Kind::Type: return "the type " + it.name;
    case Item::Kind::Global: return "the variable " + it.name;
    case Item::Kind::Using: return trim(raw.substr(it.begin, it.end - it.begin));
    default: return it.name + "()";
  }
}

// Every kernel of one source, each with what it uses.
void extract_kernels(const Found& f, std::string_view file, std::vector<ImportedKernel>& out) {
  const std::string& raw = f.value.text;
  const std::vector<Item> items = split_items(raw);
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k].kind != Item::Kind::Kernel) continue;
    const Item& kernel = items[k];
    // What it uses, transitively: the items defining a name it (or something it uses) names.
    std::vector<bool> keep(items.size(), false);
    keep[k] = true;
    std::vector<std::size_t> work{k};
    while (!work.empty()) {
      const Item& it = items[work.back()];
      work.pop_back();
      for (std::size_t j = 0; j < items.size(); ++j) {
        const Item& d = items[j];
        if (keep[j] || d.name.empty() || d.kind == Item::Kind::Kernel || d.kind == Item::Kind::Host) continue;
        if (d.kind == Item::Kind::Include || d.kind == Item::Kind::Directive || d.kind == Item::Kind::Using) continue;
        if (it.uses.count(d.name)) {
          keep[j] = true;
          work.push_back(j);
        }
      }
    }
    ImportedKernel ik;
    ik.name = kernel.name;
    ik.cell = f.cell;
    ik.line = f.value.line_of(kernel.begin);
    // The line of the signature, not of the blank line before it.
    for (std::size_t p = kernel.begin; p < raw.size() && std::isspace(static_cast<unsigned char>(raw[p])); ++p)
      if (raw[p] == '\n') ++ik.line;
    ik.origin = where(f.cell, ik.line);
    std::string body;
    std::vector<std::string> torch_in;
    bool last_directive = false;
    for (std::size_t j = 0; j < items.size(); ++j) {
      const Item& it = items[j];
      const std::string text = raw.substr(it.begin, it.end - it.begin);
      bool take = keep[j];
      std::string why;
      switch (it.kind) {
        case Item::Kind::Include: {
          const std::string h = it.name.size() > 2 ? it.name.substr(1, it.name.size() - 2) : it.name;
          take = device_header(h);
          if (!take)
            why = names_torch(h) || h.find("torch") != std::string::npos || h.find("ATen") == 0 || h.find("c10") == 0 ||
                          h.find("pybind11") == 0
                      ? "PyTorch's header: host code only"
                      : "a host header (device code needs none: printf is built in)";
          break;
        }
        case Item::Kind::Using:
          take = !it.torch;
          if (!take) why = "names torch";
          break;
        case Item::Kind::Host: why = "host-side launcher: blockscope launches the kernel itself"; break;
        case Item::Kind::Kernel:
          if (j != k) continue;  // another kernel: a tab of its own, not a note
          break;
        case Item::Kind::Directive:
          why = "a directive blockscope does not carry over";
          take = false;
          break;
        default:
          if (!take) why = "the kernel does not use it";
      }
      if (!take) {
        ik.notes.push_back("left out " + describe(it, raw) + ": " + why);
        continue;
      }
      if (it.torch) torch_in.push_back(describe(it, raw));
      // Directives one under another, as written; a blank line between everything else.
      const bool directive = it.kind == Item::Kind::Include || it.kind == Item::Kind::Define;
      if (!body.empty()) body += directive && last_directive ? "\n" : "\n\n";
      body += text;
      last_directive = directive;
    }
    ik.source =
        "// " + kernel.name + ": from " + std::string(file) + ", " + ik.origin + " (" + f.how + ")\n" + body + "\n";
    if (!f.entry_name.empty() && f.entry_name != kernel.name)
      ik.notes.push_back("CuPy launches " + f.entry_name + " from this source, not this kernel");
    if (f.value.fstring) ik.notes.push_back("from an f-string: taken literally");
    if (!torch_in.empty()) {
      std::string list;
      for (const std::string& s : torch_in) list += (list.empty() ? "" : ", ") + s;
      ik.error = std::string(file) + ", " + ik.origin + ": " + kernel.name + "'s device code uses torch (in " + list +
                 "): torch's API (torch::Tensor, at::, c10::) does not exist in device code; pass the tensor's data "
                 "as a pointer (tensor.data_ptr<float>()) and index it";
    }
    out.push_back(std::move(ik));
  }
}

// ---------------------------------------------------------------------------------------------
// 3. files
// ---------------------------------------------------------------------------------------------

Status no_cuda(std::string_view file, const ImportResult& r) {
  std::string hint =
      "blockscope looks for load_inline(cuda_sources=...), CuPy's RawKernel/RawModule and any string "
      "holding __global__";
  if (!r.notes.empty()) hint += "; " + r.notes.front();
  return Status::failure(std::string(file) + " holds no CUDA kernel (no __global__ function in its Python strings)",
                         hint, "import");
}

void add_found(const std::vector<Found>& found, std::string_view file, ImportResult& r) {
  for (const Found& f : found) {
    std::vector<ImportedKernel> ks;
    extract_kernels(f, file, ks);
    for (ImportedKernel& k : ks) {
      // The same kernel found twice (a source passed to two calls, or a fallback string that is
      // also a call's): once.
      const bool seen = std::any_of(r.kernels.begin(), r.kernels.end(), [&](const ImportedKernel& o) {
        return o.name == k.name && o.source.substr(o.source.find('\n')) == k.source.substr(k.source.find('\n'));
      });
      if (!seen) r.kernels.push_back(std::move(k));
    }
  }
}

}  // namespace

bool is_python_source_file(const fs::path& path) {
  const std::string e = lower_ext(path);
  return e == ".ipynb" || e == ".py";
}

Result<ImportResult> import_kernel_sources(std::string_view bytes, std::string_view file_name) {
  const std::string file = fs::path(file_name).filename().string();
  const std::string ext = lower_ext(fs::path(file_name));
  ImportResult r;
  PyScan scan;
  std::vector<Found> cuda_cells;
  if (ext == ".cu" || ext == ".cuh") {
    cuda_cells.push_back({StrVal{std::string(bytes), {{0, 1}}, false}, 0, "the file", ""});
  } else if (ext == ".ipynb") {
    auto doc = toolchain::parse_json(bytes);
    if (!doc)
      return Status::failure(file + " is not JSON: " + doc.status().message,
                             "a notebook is a JSON file: is it "
                             "saved completely?",
                             "import");
    const toolchain::JsonValue& cells = doc->at("cells");
    if (!cells.is_array())
      return Status::failure(file + " is JSON but not a Jupyter notebook (it has no \"cells\" list)", "", "import");
    int n = 0;
    for (const toolchain::JsonValue& cell : cells.items) {
      ++n;
      if (cell.at("cell_type").str != "code") continue;
      std::string code;
      const toolchain::JsonValue& src = cell.at("source");
      if (src.is_string()) code = src.str;
      for (const toolchain::JsonValue& line : src.items) code += line.str;
      // Cell magics: %%writefile x.cu and %%cuda cells are CUDA; other %% cells are not Python.
      std::string first = code.substr(0, code.find('\n'));
      if (first.rfind("%%", 0) == 0) {
        const std::string magic = trim(first);
        const std::string ext_of = lower_ext(fs::path(magic.substr(magic.find_last_of(' ') + 1)));
        if (magic.rfind("%%cuda", 0) == 0 ||
            (magic.rfind("%%writefile", 0) == 0 && (ext_of == ".cu" || ext_of == ".cuh"))) {
          const std::size_t nl = code.find('\n');
          const std::string body = nl == std::string::npos ? std::string() : code.substr(nl + 1);
          cuda_cells.push_back({StrVal{body, {{0, 2}}, false}, n, magic.substr(0, magic.find(' ')) + " cell", ""});
        }
        continue;
      }
      // Line magics and shell lines (%time, !pip) are not Python: blanked, lines kept.
      std::string py;
      std::size_t p = 0;
      while (p <= code.size()) {
        std::size_t e = code.find('\n', p);
        if (e == std::string::npos) e = code.size();
        std::string line = code.substr(p, e - p);
        const std::string t = trim(line);
        if (!t.empty() && (t[0] == '%' || t[0] == '!')) line.clear();
        py += line;
        if (e < code.size()) py += '\n';
        p = e + 1;
      }
      scan_python(py, n, scan);
    }
  } else if (ext == ".py") {
    scan_python(bytes, 0, scan);
  } else {
    return Status::failure(file + ": blockscope imports kernels from .ipynb, .py and .cu files", "", "import");
  }
  r.notes = scan.notes;
  add_found(cuda_cells, file, r);
  add_found(scan.from_calls, file, r);
  if (r.kernels.empty() && !scan.fallback.empty()) {
    if (!scan.from_calls.empty())
      r.notes.push_back(
          "the sources passed to load_inline or CuPy hold no __global__ kernel: the strings holding "
          "__global__ are used instead");
    add_found(scan.fallback, file, r);
  }
  if (r.kernels.empty()) return no_cuda(file, r);
  return r;
}

Result<ImportResult> import_kernel_file(const fs::path& path) {
  const std::string name = path.filename().string();
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status::failure(name + " is a folder, not a file", "", "import");
  const auto size = fs::file_size(path, ec);
  if (ec) return Status::failure("cannot open " + path.string() + ": " + ec.message(), "", "import");
  if (size > kMaxImportFileBytes)
    return Status::failure(
        name + " is " + std::to_string(size >> 20) +
            " MiB: more than blockscope reads for kernels "
            "(the limit is " +
            std::to_string(kMaxImportFileBytes >> 20) + " MiB)",
        "clear the notebook's outputs (Edit > Clear All Outputs) or copy the kernel's cell into a .cu file", "import");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::failure("cannot read " + path.string(), "check its permissions", "import");
  std::string bytes;
  bytes.resize(static_cast<std::size_t>(size));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.find('\0') != std::string::npos)
    return Status::failure(name + " is not a text file (it holds NUL bytes)", "", "import");
  return import_kernel_sources(bytes, path.string());
}

}  // namespace bs::custom
