#include "labs/custom/line_counts.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "labs/custom/process.hpp"
#include "linecount/count_lines.hpp"
#include "labs/custom/diagnostics.hpp"

namespace bs::custom {
namespace {

constexpr const char* kUnit = "unit.cpp";

bool write_text(const std::filesystem::path& p, std::string_view text) {
  std::ofstream f(p, std::ios::binary);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(f);
}

// The gcov that belongs to `compiler`: g++-12 -> gcov-12 beside it, else gcov beside it, else
// gcov on PATH.
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

}  // namespace

Result<std::vector<LineSamples>> parse_gcov_text(std::string_view text, std::string_view file) {
  // One reader of gcov's text (the rungs' counter's): it counts a line once however many template
  // instantiations gcov lists it under.
  auto all = linecount::parse_gcov_sources(text);
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

Result<CountingObject> build_counting_object(const HostCompiler& compiler, std::string_view unit_text,
                                             std::string_view user_source, double time_limit_s) {
  if (!compiler.gcc)
    return Status::failure("counting executions per line on the CPU needs GCC's coverage counters and gcov; "
                           "the kernels here are compiled with " + compiler.name,
                           "set BLOCKSCOPE_CXX=g++ (and install g++) to count lines", "line counts");
  CountingObject o;
  o.gcov = gcov_for(compiler);
  if (o.gcov.empty())
    return Status::failure("counting executions per line needs gcov, which is not installed beside " +
                               compiler.path.string() + " nor on PATH",
                           "install gcc (Debian: apt install gcc), which brings gcov", "line counts");
  std::string tmpl = (std::filesystem::temp_directory_path() / "blockscope-lines-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return Status::failure("cannot make a folder for the counting build in " +
                               std::filesystem::temp_directory_path().string(),
                           "is the disk full?", "line counts");
  o.dir = tmpl;
  // The unit, with the counters' writer exported (libgcov's own functions are hidden in the
  // shared object), and the user's source beside it, where gcov looks for kernel.cu.
  std::string unit(unit_text);
  unit += "\nextern \"C\" void __gcov_dump(void);\n"
          "extern \"C\" __attribute__((visibility(\"default\"))) void bs_coverage_dump(void) { __gcov_dump(); }\n";
  if (!write_text(o.dir / kUnit, unit) || !write_text(o.dir / std::string(kUserFile), user_source)) {
    remove_counting_object(o);
    return Status::failure("cannot write the counting build's sources to " + o.dir.string(), "is the disk full?",
                           "line counts");
  }
  std::vector<std::string> compile = {compiler.path.string()};
  for (std::string& f : unit_flags(compiler, "-O0")) compile.push_back(std::move(f));
  for (const char* f : {"-g", "--coverage", "-fprofile-update=atomic", "-c", kUnit, "-o", "unit.o"})
    compile.push_back(f);
  const std::vector<std::string> link = {compiler.path.string(), "-shared", "--coverage", "unit.o", "-o",
                                         "counting.so", "-lm"};
  CommandOptions in_dir;
  in_dir.cwd = o.dir;
  const std::vector<std::string>* steps[] = {&compile, &link};
  for (const std::vector<std::string>* argv : steps) {
    auto r = run_command(*argv, time_limit_s, in_dir);
    if (!r || r->timed_out || !r->exit.exited || r->exit.code != 0) {
      const std::string why = !r ? r.status().message : r->timed_out ? "it did not finish" : r->output;
      remove_counting_object(o);
      return Status::failure("the counting build of the kernel failed: " + why.substr(0, 2000), "",
                             compiler.name, "line_counts_build");
    }
  }
  o.library = o.dir / "counting.so";
  o.compiler = compiler.name + " -O0 --coverage (" + compiler.version + ")";
  return o;
}

void clear_line_counts(const CountingObject& object) {
  std::error_code ec;
  std::filesystem::remove(object.dir / "unit.gcda", ec);
}

Result<LineProfile> read_line_counts(const CountingObject& object, double time_limit_s) {
  std::error_code ec;
  if (!std::filesystem::exists(object.dir / "unit.gcda", ec))
    return Status::failure("the counted launch wrote no counters (" + (object.dir / "unit.gcda").string() + ")",
                           "", "gcov", "line_counts");
  CommandOptions in_dir;
  in_dir.cwd = object.dir;
  in_dir.output_limit = std::size_t{16} << 20;
  auto r = run_command({object.gcov.string(), "-t", "-o", ".", kUnit}, time_limit_s, in_dir);
  if (!r) return r.status();
  if (r->timed_out || !r->exit.exited || r->exit.code != 0)
    return Status::failure("gcov could not read the counters: " + r->output.substr(0, 2000), "", "gcov",
                           "line_counts");
  auto lines = parse_gcov_text(r->output, kUserFile);
  if (!lines) return lines.status();
  LineProfile p;
  p.measure = LineMeasure::Executions;
  p.measure_note = "executions per line on the CPU simulator, every thread's added up (" + object.compiler +
                   ", gcov)";
  p.lines = std::move(*lines);
  for (const LineSamples& l : p.lines) p.total_samples += l.samples;
  p.launches = 1;
  return p;
}

void remove_counting_object(const CountingObject& object) {
  std::error_code ec;
  if (!object.dir.empty()) std::filesystem::remove_all(object.dir, ec);
}

}  // namespace bs::custom
