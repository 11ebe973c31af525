// blockscope-line-counter: one launch of one built-in rung on the CPU simulator, counted per source
// line. The labs' simulator units are linked in a second time, built with GCC's coverage counters
// (CMakeLists.txt), so each line of a rung's body adds one to its counter every time a simulated
// thread runs it. After the launch the counters are written into --out (GCOV_PREFIX), the
// build's .gcno files copied beside them, and gcov turns them into annotated text (gcov.txt)
// that blockscope reads (count_lines.hpp).
//
// The lab is made from the catalog (labs/built_in_labs.hpp), on the CPU simulation; its rungs' lines
// are counted where its simulator unit is one of the counted units (CMakeLists.txt).
//
//   blockscope-line-counter --lab gray --kernel gray_2d --block 32x8 --size 37x23
//                           [--set layout=planar] [--grid GxGxG] [--workers N] --out DIR
//   blockscope-line-counter --lab matmul --kernel k3_smem_tiled --config 0 --size 67x45x33 --out DIR
//
// The data is random, of the size asked: the rungs' counts depend on the sizes, the block and the
// settings, never on the values (no rung branches on a pixel or a matrix element).
//
// What it prints on stdout, one "key: value" a line, read by blockscope:
//   ran: <kernel> <config> grid <g> block <b>     the launch that was counted
//   gcov: <path> / source-dir: <dir> / compiler: <GCC x.y>
//   error: <message> / fix: <hint>                 (exit code 2) when it could not count
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lab/catalog.hpp"
#include "lab/lab.hpp"
#include "lab/size_text.hpp"
#include "labs/built_in_labs.hpp"
#include "toolchain/process.hpp"

extern "C" void __gcov_dump(void);
extern "C" void __gcov_reset(void);

namespace {

namespace fs = std::filesystem;
using bs::Result;
using bs::Status;

struct Args {
  std::string lab, kernel, size, out;
  std::vector<std::pair<std::string, std::string>> settings;
  bs::KernelConfig config;
  bool have_block = false, have_config = false;
  unsigned workers = 0;
};

int fail(const Status& s) {
  std::printf("error: %s\n", s.message.c_str());
  if (!s.hint.empty()) std::printf("fix: %s\n", s.hint.c_str());
  std::fflush(stdout);
  return 2;
}

std::optional<bs::Dim3> parse_dim3(std::string_view text) {
  auto d = bs::lab::parse_dims(text, 1, 3, 1 << 30);
  if (!d) return std::nullopt;
  bs::Dim3 out{1, 1, 1};
  unsigned* parts[] = {&out.x, &out.y, &out.z};
  for (std::size_t i = 0; i < d->size(); ++i) parts[i][0] = static_cast<unsigned>((*d)[i]);
  return out;
}

Result<Args> parse_args(int argc, char** argv) {
  Args a;
  auto bad = [](std::string why) {
    return Status::failure(
        std::move(why), "usage: blockscope-line-counter --lab " + bs::lab::catalog_ids(bs::labs::built_in_labs(), "|") +
                            " --kernel ID (--block BxBxB | --config N) --size SIZE [--grid GxGxG] [--set key=value] "
                            "[--workers N] --out DIR");
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) return bad("'" + std::string(arg) + "' needs a value");
    const std::string value = argv[++i];
    if (arg == "--lab") {
      a.lab = value;
    } else if (arg == "--kernel") {
      a.kernel = value;
    } else if (arg == "--size") {
      a.size = value;
    } else if (arg == "--out") {
      a.out = value;
    } else if (arg == "--block") {
      auto b = parse_dim3(value);
      if (!b) return bad("'" + value + "' is not a block shape BxBxB");
      a.config.block = *b;
      a.have_block = true;
    } else if (arg == "--grid") {
      auto g = parse_dim3(value);
      if (!g) return bad("'" + value + "' is not a grid shape GxGxG");
      a.config.grid = *g;
    } else if (arg == "--config") {
      auto n = bs::lab::parse_dims(value, 1, 1, 1 << 20);
      if (!n) return bad("'" + value + "' is not a compiled configuration's index");
      a.config.compiled = static_cast<int>(n->front());
      a.have_config = true;
    } else if (arg == "--workers") {
      auto n = bs::lab::parse_dims(value, 1, 1, 4096);
      if (!n) return bad("'" + value + "' is not a number of workers");
      a.workers = static_cast<unsigned>(n->front());
    } else if (arg == "--set") {
      const auto eq = value.find('=');
      if (eq == std::string::npos) return bad("--set takes key=value, not '" + value + "'");
      a.settings.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else {
      return bad("unknown option '" + std::string(arg) + "'");
    }
  }
  if (a.lab.empty() || a.kernel.empty() || a.size.empty() || a.out.empty())
    return bad("--lab, --kernel, --size and --out are needed");
  if (a.have_block == a.have_config) return bad("give --block or --config (one of them)");
  if (!fs::path(a.out).is_absolute()) return bad("--out must be an absolute folder");
  return a;
}

std::vector<fs::path> counted_objects() {
  std::vector<fs::path> out;
  const std::string_view all = BS_COUNTED_OBJECTS;
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t bar = all.find('|', start);
    const std::string_view one = all.substr(start, bar == std::string_view::npos ? all.npos : bar - start);
    if (!one.empty()) out.emplace_back(one);
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

// Writes this run's counters under `out` and gcov's annotated text of them to out/gcov.txt.
Status dump_and_annotate(const fs::path& out) {
  // The counters go to out + the object's absolute path (GCOV_PREFIX, read when they are
  // written), so two counters at once, or an old run, never add to each other's counts.
  setenv("GCOV_PREFIX", out.c_str(), 1);
  setenv("GCOV_PREFIX_STRIP", "0", 1);
  __gcov_dump();
  const std::string gcov = BS_GCOV_PATH;
  if (gcov.empty() || access(gcov.c_str(), X_OK) != 0)
    return Status::failure("counting lines needs gcov" + (gcov.empty() ? std::string() : " (" + gcov + ")") +
                               ", the coverage reader of the GCC that built blockscope, and it is not there",
                           "install gcc (Debian: apt install gcc), then configure the build again");
  std::vector<std::string> argv = {gcov, "-t", "-r", "-s", BS_SOURCE_DIR};
  std::error_code ec;
  for (const fs::path& object : counted_objects()) {
    fs::path notes = object, data = out / object.relative_path();
    notes.replace_extension(".gcno");
    data.replace_extension(".gcda");
    if (!fs::exists(notes, ec))
      return Status::failure("this line counter's coverage notes are missing (" + notes.string() +
                                 "): it reads them from the build tree it was built in",
                             "run blockscope from its build tree, or build the target blockscope-line-counter again");
    if (!fs::exists(data, ec))
      return Status::failure("the counted launch wrote no counters (" + data.string() + ")",
                             "is " + out.string() + " writable?");
    fs::path copy = data;
    copy.replace_extension(".gcno");
    fs::copy_file(notes, copy, fs::copy_options::overwrite_existing, ec);
    if (ec) return Status::failure("cannot copy " + notes.string() + " to " + copy.string() + ": " + ec.message());
    argv.push_back(data.string());
  }
  if (!fs::is_directory(fs::path(BS_SOURCE_DIR) / "kernels", ec))
    return Status::failure(std::string("the sources this line counter was built from are gone (") + BS_SOURCE_DIR +
                               "/kernels): gcov reads each line's text from them",
                           "run blockscope from a build of its source tree");
  bs::toolchain::CommandOptions in_out;
  in_out.cwd = out;
  in_out.output_limit = std::size_t{64} << 20;
  auto r = bs::toolchain::run_command(argv, 120, in_out);
  if (!r) return r.status();
  if (r->timed_out || !r->exit.exited || r->exit.code != 0)
    return Status::failure("gcov could not read the counters (" + r->exit.describe() +
                           "): " + r->output.substr(0, 2000));
  std::ofstream f(out / "gcov.txt", std::ios::binary);
  f.write(r->output.data(), static_cast<std::streamsize>(r->output.size()));
  if (!f) return Status::failure("cannot write " + (out / "gcov.txt").string(), "is the disk full?");
  return Status::success();
}

int count(int argc, char** argv) {
  auto args = parse_args(argc, argv);
  if (!args) return fail(args.status());
  auto made =
      bs::lab::make_lab(bs::labs::built_in_labs(), args->lab, bs::lab::cpu_simulation(args->workers, "counting lines"));
  if (!made) return fail(made.status());
  bs::lab::Lab& lab = **made;
  for (const auto& [key, value] : args->settings)
    if (Status s = lab.set_setting(key, value); !s) return fail(s);
  if (Status s = lab.set_random_problem(args->size); !s) return fail(s);
  if (!lab.find_kernel(args->kernel))
    return fail(Status::failure("the " + std::string(lab.title()) + " lab has no kernel '" + args->kernel + "'",
                                "pick one of its kernel list"));

  bs::lab::RunOptions run;
  run.timing = bs::TimingPolicy::once();
  run.trace_schedule = false;
  run.verify = false;
  __gcov_reset();  // only the launch: not the problem's setup
  const bs::LaunchRecord rec = lab.run(args->kernel, args->config, run);
  if (!rec.ok()) return fail(rec.status);
  if (Status s = dump_and_annotate(args->out); !s) return fail(s);
  std::printf("ran: %s %s grid %s block %s, %s\n", rec.kernel.c_str(), rec.config_label.c_str(),
              bs::block_text(rec.config.grid).c_str(), bs::block_text(rec.config.block).c_str(), rec.problem.c_str());
  std::printf("gcov: %s\nsource-dir: %s\ncompiler: %s -O0 --coverage\n", BS_GCOV_PATH, BS_SOURCE_DIR,
              BS_COUNTER_COMPILER);
  return 0;
}

}  // namespace

// Ends without libgcov's own write at exit: the counters are written once, by dump_and_annotate,
// into --out; a count that failed before must not leave .gcda files in the build tree.
int main(int argc, char** argv) {
  const int code = count(argc, argv);
  std::fflush(stdout);
  std::_Exit(code);
}
