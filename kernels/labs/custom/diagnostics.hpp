// Diagnostics the editor shows at a line and column of the user's kernel: from blockscope's own
// signature check, from the host compiler (g++ or clang++) and from NVRTC.
//
// Both compilers see the user's source after a prelude, behind a `#line 1 "kernel.cu"`
// directive, so their line numbers are already the user's; only the CPU build's rewritten
// parameter list shifts columns on the signature's lines, which a ColumnMap undoes. A message
// about blockscope's own generated code ("blockscope-prelude", "blockscope-entry") is moved to
// the kernel's signature, since that is what the user can change to fix it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace bs::custom {

// The file name the generated units give the user's source.
inline constexpr std::string_view kUserFile = "kernel.cu";

struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  int line = 0;    // 1-based in the user's source; 0 when not tied to a line
  int column = 0;  // 1-based, in bytes; 0 when the tool gave none
  Severity severity = Severity::Error;
  std::string message;
  std::string origin;  // "blockscope", "g++", "clang++", "NVRTC"

  bool is_error() const { return severity == Severity::Error; }
};

const char* to_string(Diagnostic::Severity s);
// "kernel.cu:3:12: error: expected ';' (g++)", with `file` for the user's file name.
std::string describe(const Diagnostic& d, std::string_view file = kUserFile);

// Column edits made to the user's lines (the CPU build rewrites parameter types).
class ColumnMap {
 public:
  // On `line`, the `old_length` bytes from 1-based column `column` became `new_length` bytes.
  void add_edit(int line, int column, int old_length, int new_length);
  // The user's column for a column of the generated line.
  int to_user(int line, int generated_column) const;

 private:
  struct Edit {
    int line, column, old_length, new_length;
  };
  std::vector<Edit> edits_;  // in order of column within a line
};

// Where to put messages about blockscope's generated code: the kernel's signature.
struct Anchor {
  int line = 1, column = 1;
};

// A host compiler's message in the user's terms: the CPU prelude's spelling of the built-ins
// (bs_tls_ctx->threadIdx, bs_u3) as CUDA's, typographic quotes as ASCII.
std::string tidy_host_message(std::string_view message);

// GCC/Clang text diagnostics ("file:line:col: error: message", -fno-diagnostics-show-caret).
std::vector<Diagnostic> parse_host_compiler_log(std::string_view log, std::string_view origin, const ColumnMap& columns,
                                                Anchor anchor);

// NVRTC's log: "file(line): error: message" followed by the source line and a caret line; the
// column is the caret's.
std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, Anchor anchor);

}  // namespace bs::custom
