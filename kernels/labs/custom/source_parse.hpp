// Finding the user's kernel in their source and checking its signature against the lab's forms
// (lab/user_kernel_spec.hpp),
// before any compiler runs: a wrong parameter list is reported at the signature, in the lab's
// terms ("this lab accepts ..."), instead of as a compiler error inside blockscope's launcher.
//
// The scan blanks comments, string and character literals and preprocessor lines (keeping every
// byte's line and column), then finds each `__global__` function, its name and its parameter
// list. A kernel matches a form when it has the form's number of parameters and each has the
// form's type, ignoring const, volatile, __restrict__ and spacing; an integer parameter may be
// any integer type. So `const float* __restrict__ m` matches `float* m`.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "labs/custom/diagnostics.hpp"
#include "lab/user_kernel_spec.hpp"

namespace bs::custom {

struct SourcePos {
  int line = 1, column = 1;  // 1-based; column in bytes
  std::size_t offset = 0;    // byte offset in the source
};

struct KernelParam {
  std::string text;            // as written, e.g. "const float* __restrict__ m"
  std::string type;            // normalised element or scalar type: "unsigned char", "float", "int"
  std::string name;            // "m" (empty when unnamed)
  bool pointer = false;        // exactly one '*'
  bool is_const = false;       // const element (for pointers: const before the '*')
  std::size_t begin = 0;       // byte range of the whole parameter in the source
  std::size_t name_begin = 0;  // where the name starts (== end of the type); end when unnamed
  std::size_t end = 0;
  SourcePos pos;
};

struct ParsedKernel {
  std::string name;
  lab::UserForm form;  // the form it matched
  SourcePos pos;       // of the name
  std::vector<KernelParam> params;
  bool uses_barriers = false;  // __syncthreads, a warp collective, wmma or cooperative_groups
                               // anywhere: the simulator runs the block's threads as fibers
  bool uses_shared = false;    // __shared__ anywhere
};

struct ParseResult {
  std::optional<ParsedKernel> kernel;
  std::vector<Diagnostic> diagnostics;  // errors when no kernel; notes otherwise
  bool ok() const { return kernel.has_value(); }
};

// Finds the kernel to launch: the one named `name` when given, else the first `__global__`
// function whose parameters match one of `accepted`.
ParseResult parse_kernel_source(std::string_view source, std::span<const lab::UserForm> accepted,
                                std::string_view name = {});

// The source with comments, literals and preprocessor lines replaced by spaces (newlines kept).
std::string blank_non_code(std::string_view source);

}  // namespace bs::custom
