#include "labs/custom/line_counts.hpp"

#include "labs/custom/diagnostics.hpp"
#include "toolchain/gcov.hpp"
#include "toolchain/process.hpp"
#include "toolchain/files.hpp"

namespace bs::custom {
namespace {

constexpr const char* kUnit = "unit.cpp";

}  // namespace

Result<CountingObject> build_counting_object(const toolchain::HostCompiler& compiler, std::string_view unit_text,
                                             std::string_view user_source, double time_limit_s) {
  if (!compiler.gcc)
    return Status::failure(
        "counting executions per line on the CPU needs GCC's coverage counters and gcov; "
        "the kernels here are compiled with " +
            compiler.name,
        "set BLOCKSCOPE_CXX=g++ (and install g++) to count lines", "line counts");
  CountingObject o;
  o.gcov = toolchain::gcov_for(compiler);
  if (o.gcov.empty())
    return Status::failure("counting executions per line needs gcov, which is not installed beside " +
                               compiler.path.string() + " nor on PATH",
                           "install gcc (Debian: apt install gcc), which brings gcov", "line counts");
  // The unit, with the counters' writer exported (libgcov's own functions are hidden in the
  // shared object), and the user's source beside it, where gcov looks for kernel.cu.
  toolchain::TempFolderBuild spec;
  spec.what = "the counting build";
  spec.prefix = "blockscope-lines";
  spec.unit = std::string(unit_text) +
              "\nextern \"C\" void __gcov_dump(void);\n"
              "extern \"C\" __attribute__((visibility(\"default\"))) void bs_coverage_dump(void) { __gcov_dump(); }\n";
  spec.more_files = {{std::string(kUserFile), std::string(user_source)}};
  spec.optimisation = "-O0";
  spec.compile_flags = {"-g", "--coverage", "-fprofile-update=atomic"};
  spec.link_flags = {"--coverage"};
  spec.library = "counting.so";
  spec.failure_code = "line_counts_build";
  auto built = toolchain::build_in_temp_folder(compiler, spec, time_limit_s);
  if (!built) return built.status();
  o.dir = built->dir;
  o.library = built->library;
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
    return Status::failure("the counted launch wrote no counters (" + (object.dir / "unit.gcda").string() + ")", "",
                           "gcov", "line_counts");
  toolchain::CommandOptions in_dir;
  in_dir.cwd = object.dir;
  in_dir.output_limit = std::size_t{16} << 20;
  auto r = toolchain::run_command({object.gcov.string(), "-t", "-o", ".", kUnit}, time_limit_s, in_dir);
  if (!r) return r.status();
  if (r->timed_out || !r->exit.exited || r->exit.code != 0)
    return Status::failure("gcov could not read the counters: " + r->output.substr(0, 2000), "", "gcov", "line_counts");
  auto lines = toolchain::parse_gcov_text(r->output, kUserFile);
  if (!lines) return lines.status();
  LineProfile p;
  p.measure = LineMeasure::Executions;
  p.measure_note = "executions per line on the CPU simulator, every thread's added up (" + object.compiler + ", gcov)";
  p.lines = std::move(*lines);
  for (const LineSamples& l : p.lines) p.total_samples += l.samples;
  p.launches = 1;
  return p;
}

void remove_counting_object(const CountingObject& object) { toolchain::remove_folder(object.dir); }

}  // namespace bs::custom
