#include "labs/custom/codegen.hpp"

#include <algorithm>
#include <cctype>

#include "labs/custom/cpu_headers.hpp"

namespace bs::custom {
namespace {

std::string with_final_newline(std::string_view s) {
  std::string out(s);
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

// "unsigned char* bs_a0, unsigned char* bs_a1, int bs_a2" and "bs_a0, bs_a1, bs_a2". A pointer
// the kernel types differently with the same bytes (element_types.hpp: `const __nv_bfloat16*`
// for the form's `unsigned short*`) is passed with a cast to the kernel's type.
void entry_params(const lab::UserForm& s, const std::vector<KernelParam>& kernel, std::string& decl,
                  std::string& call) {
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const std::string name = "bs_a" + std::to_string(i);
    if (i) {
      decl += ", ";
      call += ", ";
    }
    decl += s.params[i].type + (s.params[i].pointer() ? "* " : " ") + name;
    if (s.params[i].pointer() && i < kernel.size() && kernel[i].type != s.params[i].type)
      call += "(" + std::string(kernel[i].is_const ? "const " : "") + kernel[i].type + "*)" + name;
    else call += name;
  }
}

// Where a line leaves a /* comment open; strings, character literals and // comments are
// skipped so their slashes and stars do not count.
bool ends_in_block_comment(std::string_view line, bool in_comment) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (in_comment) {
      if (line[i] == '*' && i + 1 < line.size() && line[i + 1] == '/') {
        in_comment = false;
        ++i;
      }
      continue;
    }
    const char c = line[i];
    if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') return false;
    if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
      in_comment = true;
      ++i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < line.size() && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
    }
  }
  return in_comment;
}

// The directive's name when the line is a preprocessing directive ("include", "endif"), else "".
std::string_view directive_of(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos) return {};
  std::size_t end = i;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
  return line.substr(i, end - i);
}

}  // namespace

std::string with_includes_outside_global(std::string_view user_source) {
  const std::string file = "\"" + std::string(kUserFile) + "\"";
  std::string out;
  out.reserve(user_source.size() + 256);
  bool in_comment = false, continued = false, protected_any = false;
  int line_no = 0;
  std::size_t at = 0;
  while (at < user_source.size()) {
    std::size_t end = user_source.find('\n', at);
    const bool last = end == std::string_view::npos;
    if (last) end = user_source.size();
    const std::string_view line = user_source.substr(at, end - at);
    ++line_no;
    const std::string_view directive = in_comment || continued ? std::string_view() : directive_of(line);
    if (directive == "include") {
      // CUDA's own headers keep their __global__ (and see no __device__ in its place).
      out += "#undef __global__\n#define __global__ __location__(global)\n";
      out += "#line " + std::to_string(line_no) + " " + file + "\n";
      out += line;
      out += "\n#undef __global__\n#define __global__ __device__\n";
      out += "#line " + std::to_string(line_no + 1) + " " + file;
      protected_any = true;
    } else {
      out += line;
      // A protected include inside an #if group that was skipped skipped its #line too: set the
      // line again after each branch and the group's end.
      if (protected_any && (directive == "else" || directive == "elif" || directive == "endif"))
        out += "\n#line " + std::to_string(line_no + 1) + " " + file;
    }
    if (!last) out += '\n';
    in_comment = ends_in_block_comment(line, in_comment);
    continued = !line.empty() && line.back() == '\\';
    at = end + 1;
  }
  return out;
}

GeneratedUnit make_gpu_unit(std::string_view user_source, const ParsedKernel& kernel) {
  GeneratedUnit u;
  std::string decl, call;
  entry_params(kernel.form, kernel.params, decl, call);
  u.text = "#line 1 \"blockscope-prelude\"\n";
  u.text += with_final_newline(embedded_text("gpu_prelude.cuh"));
  if (!kernel.form.gpu_prelude.empty()) u.text += with_final_newline(kernel.form.gpu_prelude);
  u.text += "#undef __global__\n#define __global__ __device__\n";
  u.text += "#line 1 \"" + std::string(kUserFile) + "\"\n";
  u.text += with_final_newline(with_includes_outside_global(user_source));
  u.text += "#undef __global__\n#define __global__ __location__(global)\n";
  u.text += "#line 1 \"blockscope-entry\"\n";
  u.text += "extern \"C\" __global__ void bs_entry(" + decl + ") {\n  " + kernel.name + "(" + call + ");\n}\n";
  u.text += "extern \"C\" __global__ void bs_entry_traced(" + decl +
            ", bs_block_record* bs_records) {\n  bs_block_recorder bs_recorder(bs_records);\n  " + kernel.name + "(" +
            call + ");\n}\n";
  return u;
}

GeneratedUnit make_cpu_unit(std::string_view user_source, const ParsedKernel& kernel) {
  GeneratedUnit u;
  const lab::UserForm& spec = kernel.form;

  // CUDA's headers: blank the ones the simulator provides (same length: offsets stay valid) and
  // refuse what it cannot run.
  CpuSourcePlan plan = plan_cpu_source(user_source);
  u.refusals = std::move(plan.refusals);
  // Rewrite the pointer parameters' types, last first so earlier offsets stay valid.
  std::string source = std::move(plan.source);
  std::vector<std::size_t> order(kernel.params.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return kernel.params[a].begin > kernel.params[b].begin; });
  for (std::size_t i : order) {
    const KernelParam& p = kernel.params[i];
    if (!p.pointer || i >= spec.params.size()) continue;
    const bool output = spec.params[i].role == lab::UserParam::Role::Output;
    // The kernel's own element type (same bytes as the form's: source_parse matched them).
    std::string view = std::string(output ? "bs_out<" : "bs_in<") + (p.is_const ? "const " : "") + p.type + "> ";
    const std::size_t type_end = p.name.empty() ? p.end : p.name_begin;
    const std::size_t old_length = type_end - p.begin;
    source.replace(p.begin, old_length, view);
    u.columns.add_edit(p.pos.line, p.pos.column, static_cast<int>(old_length), static_cast<int>(view.size()));
  }

  std::string call;
  int ints = 0, buffers = 0;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    if (i) call += ", ";
    if (spec.params[i].pointer()) call += "bs_arg{a, " + std::to_string(buffers++) + "}";
    else call += "a->ints[" + std::to_string(ints++) + "]";
  }

  u.entry = "bs_cpu_thread";
  u.text = "#line 1 \"blockscope-prelude\"\n";
  u.text += with_final_newline(embedded_text("custom_abi.h"));
  u.text += with_final_newline(embedded_text("cpu_prelude.h"));
  u.text += with_final_newline(embedded_text("cpu_half16.h"));  // a macro only: what fp16 and bf16 share
  for (const std::string& section : plan.sections) u.text += with_final_newline(embedded_text(section));
  if (!spec.cpu_prelude.empty()) u.text += with_final_newline(spec.cpu_prelude);
  u.text += "#line 1 \"" + std::string(kUserFile) + "\"\n";
  u.text += with_final_newline(source);
  u.text += "#line 1 \"blockscope-entry\"\n";
  u.text +=
      "#define BS_EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n"
      "BS_EXPORT void bs_cpu_thread(const bs_thread_ctx* c, const bs_launch_args* a) {\n"
      "  bs_tls_ctx = c;\n"
      "  bs_tls_launch = a;\n"
      "  " +
      kernel.name + "(" + call +
      ");\n"
      "}\n"
      "BS_EXPORT void* bs_tls_touch() { return &bs_tls_ctx; }\n"
      "BS_EXPORT int bs_abi_version() { return BS_CUSTOM_ABI_VERSION; }\n";
  return u;
}

}  // namespace bs::custom
