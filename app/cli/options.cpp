#include "cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace bs::app {
namespace {

Status usage(std::string message) {
  return Status::failure(std::move(message), "run `blockscope --help` for every flag", "command line");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

std::optional<long long> to_int(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<float> to_float(const std::string& s) {
  try {
    std::size_t used = 0;
    float v = std::stof(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

// "AxB" or "AxBxC" with every part a non-negative integer.
std::optional<std::vector<int>> dims(const std::string& s, std::size_t min_parts, std::size_t max_parts) {
  auto parts = split(s, 'x');
  if (parts.size() < min_parts || parts.size() > max_parts) return std::nullopt;
  std::vector<int> out;
  for (auto& p : parts) {
    auto v = to_int(p);
    if (!v || *v < 0 || *v > 1'000'000'000) return std::nullopt;
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

std::string lab_list(const std::vector<LabFlags>& labs) {
  std::string s;
  for (const auto& l : labs) s += (s.empty() ? "" : ", ") + l.id;
  return s;
}

}  // namespace

Result<Dim3> parse_block(const std::string& text) {
  auto d = dims(text, 1, 3);
  if (!d) return usage("block '" + text + "' is not X, XxY or XxYxZ (e.g. 256, 16x16, 8x8x4)");
  Dim3 b{static_cast<unsigned>((*d)[0]), 1, 1};
  if (d->size() > 1) b.y = static_cast<unsigned>((*d)[1]);
  if (d->size() > 2) b.z = static_cast<unsigned>((*d)[2]);
  return b;  // zero and over-limit values are the lab's to refuse, with its reason
}

Result<PixelPos> parse_pixel(const std::string& text) {
  auto parts = split(text, ',');
  if (parts.size() != 2) return usage("'" + text + "' is not a pixel X,Y");
  auto x = to_int(parts[0]), y = to_int(parts[1]);
  if (!x || !y || *x < 0 || *y < 0) return usage("'" + text + "' is not a pixel X,Y");
  return PixelPos{*x, *y};
}

Result<CliOptions> parse_command_line(const std::vector<std::string>& args, const std::vector<LabFlags>& labs) {
  CliOptions o;
  std::size_t i = 0;
  auto known_lab = [&](const std::string& id) {
    for (const auto& l : labs)
      if (l.id == id) return true;
    return false;
  };
  if (!args.empty() && (args[0] == "bench" || args[0] == "sweep")) {
    if (args.size() < 2 || !known_lab(args[1]))
      return usage("`blockscope " + args[0] + "` needs a lab: " + lab_list(labs));
    o.bench = BenchOptions{};
    o.bench->lab = args[1];
    o.bench->sweep = args[0] == "sweep";
    if (o.bench->sweep) o.bench->flush_l2 = false;  // sweeps flush only when asked (--flush-l2)
    o.state.lab = args[1];
    i = 2;
  }
  auto value = [&](const std::string& flag) -> Result<std::string> {
    if (i + 1 >= args.size()) return usage(flag + " needs a value");
    return args[++i];
  };
#define BS_VALUE(var, flag)              \
  auto var##_r = value(flag);            \
  if (!var##_r) return var##_r.status(); \
  const std::string& var = var##_r.value();

  auto bench_only = [&](const std::string& flag) { return usage(flag + " belongs to `blockscope bench`"); };
  bool window_flush_l2 = false;  // --flush-l2 without bench/sweep: needs --sweep (checked at the end)
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (a == "--headless") {
      o.headless = true;
    } else if (a == "--frames") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 1 || *n > 1'000'000) return usage("--frames takes a count from 1 to 1000000");
      o.frames = static_cast<int>(*n);
    } else if (a == "--window-size") {
      BS_VALUE(v, a);
      auto d = dims(v, 2, 2);
      if (!d || (*d)[0] < 64 || (*d)[1] < 64 || (*d)[0] > 16384 || (*d)[1] > 16384)
        return usage("--window-size takes WxH between 64 and 16384");
      o.width = (*d)[0];
      o.height = (*d)[1];
    } else if (a == "--backend") {
      BS_VALUE(v, a);
      if (v == "auto") o.backend = BackendChoice::Auto;
      else if (v == "cuda") o.backend = BackendChoice::Cuda;
      else if (v == "cpu") o.backend = BackendChoice::Cpu;
      else return usage("--backend takes auto, cuda or cpu, not '" + v + "'");
    } else if (a == "--device") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 0 || *n > 1024) return usage("--device takes a CUDA device index");
      o.cuda_device = static_cast<int>(*n);
    } else if (a == "--lab") {
      BS_VALUE(v, a);
      if (!known_lab(v)) return usage("--lab takes " + lab_list(labs) + ", not '" + v + "'");
      if (o.bench && v != o.bench->lab) return usage("`blockscope bench " + o.bench->lab + "` runs that lab only");
      o.state.lab = v;
      o.state.lab_given = true;
    } else if (a == "--kernel") {
      BS_VALUE(v, a);
      if (v.empty()) return usage("--kernel needs a kernel id");
      if (o.bench) {
        if (v != "all") o.bench->kernels.push_back(v);
      } else if (v == "all") {
        o.state.sweep.ladder = true;  // --sweep: every kernel of the lab
      } else {
        o.state.selection.kernel = v;  // the lab checks it when it opens
      }
    } else if (a == "--block") {
      BS_VALUE(v, a);
      auto b = parse_block(v);
      if (!b) return b.status();
      if (o.bench) o.bench->blocks.push_back(b.value());
      else o.state.selection.block = b.value();
    } else if (a == "--config") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 0 || *n > 100000) return usage("--config takes a compiled configuration's index (0, 1, ...)");
      o.state.selection.compiled = static_cast<int>(*n);
    } else if (a == "--size") {
      BS_VALUE(v, a);
      if (!o.bench) return usage("--size belongs to `blockscope bench` (use --window-size for the window)");
      o.bench->sizes.push_back(v);  // the lab checks the syntax
    } else if (a == "--repeats" || a == "--warmup") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!o.bench) return bench_only(a);
      if (!n || *n < (a == "--repeats" ? 1 : 0) || *n > 100000) return usage(a + " takes a count");
      (a == "--repeats" ? o.bench->repeats : o.bench->warmup) = static_cast<int>(*n);
      (a == "--repeats" ? o.bench->repeats_given : o.bench->warmup_given) = true;
    } else if (a == "--no-flush") {
      if (!o.bench) return bench_only(a);
      o.bench->flush_l2 = false;
    } else if (a == "--lines") {
      if (!o.bench || o.bench->sweep)
        return usage("--lines belongs to `blockscope bench` (the window has the Source tab)");
      o.bench->lines = true;
    } else if (a == "--counters") {
      if (!o.bench) return usage("--counters belongs to `blockscope bench` (the window has the Measured tab)");
      o.bench->counters = true;
    } else if (a == "--compare-block") {
      if (o.bench) return usage("--compare-block belongs to the window or --headless");
      BS_VALUE(v, a);
      auto b = parse_block(v);
      if (!b) return b.status();
      o.compare_block = b.value();
      o.profile_lines = true;
      o.source_tab = true;
    } else if (a == "--profile-lines") {
      if (o.bench) return usage("--profile-lines belongs to the window or --headless (bench takes --lines)");
      o.profile_lines = true;
      o.source_tab = true;
    } else if (a == "--profile") {
      if (o.bench) return usage("--profile belongs to the window or --headless (bench takes --counters)");
      o.profile = true;
    } else if (a == "--source" || a == "--source-line") {
      if (o.bench) return usage(a + " belongs to the window or --headless");
      o.source_tab = true;
      if (a == "--source-line") {
        BS_VALUE(v, a);
        auto n = to_int(v);
        if (!n || *n < 1) return usage("--source-line takes a line number (1 or more)");
        o.source_line = static_cast<int>(*n);
      }
    } else if (a == "--cupti") {
      BS_VALUE(v, a);
      if (v.empty()) return usage("--cupti needs the path of a libcupti");
      o.cupti_library = v;
    } else if (a == "--flush-l2") {
      if (o.bench) {
        o.bench->flush_l2 = true;
      } else {  // the window's --sweep, as `blockscope sweep --flush-l2` (the Experiments checkbox)
        o.state.sweep.flush_l2 = true;  // over the saved settings' choice (merge_saved_under)
        window_flush_l2 = true;
      }
    } else if (a == "--blocks") {
      BS_VALUE(v, a);
      if (v.empty()) return usage("--blocks takes all or a list such as 32x8,16x16,256");
      if (o.bench && !o.bench->sweep) return usage("--blocks belongs to `blockscope sweep` (bench takes --block)");
      if (o.bench) {
        o.bench->block_list = v;
      } else {
        o.state.sweep.all_blocks = v == "all";
        if (v != "all") o.state.sweep.block_list = v;
        o.state.sweep_given = true;
      }
    } else if (a == "--point-budget" || a == "--target-ci") {
      BS_VALUE(v, a);
      if (!o.bench || !o.bench->sweep) return usage(a + " belongs to `blockscope sweep`");
      auto f = to_float(v);
      if (a == "--point-budget") {
        if (!f || *f <= 0 || *f > 600000) return usage("--point-budget takes milliseconds per point (> 0)");
        o.bench->point_budget_ms = *f;
      } else {
        if (!f || *f <= 0 || *f >= 1) return usage("--target-ci takes a fraction of the median, e.g. 0.01 for 1%");
        o.bench->target_ci = *f;
      }
    } else if (a == "--sweep") {
      if (o.bench) return usage("--sweep belongs to the window or --headless (use `blockscope sweep LAB`)");
      o.sweep = true;
    } else if (a == "--json" || a == "--csv") {
      BS_VALUE(v, a);
      if (!o.bench) {
        (a == "--json" ? o.json_path : o.csv_path) = v;  // --headless exports
      } else {
        (a == "--json" ? o.bench->json_path : o.bench->csv_path) = v;
      }
    } else if (a == "--screenshot") {
      BS_VALUE(v, a);
      o.screenshot_path = v;
    } else if (a == "--output" || a == "--gray-out") {
      BS_VALUE(v, a);
      o.output_path = v;
    } else if (a == "--schedule-json") {
      BS_VALUE(v, a);
      o.schedule_json_path = v;
    } else if (a == "--config-dir") {
      BS_VALUE(v, a);
      if (v.empty() || v[0] != '/') return usage("--config-dir takes an absolute folder path");
      o.config_dir = v;
    } else if (a == "--status-file") {
      BS_VALUE(v, a);
      if (o.bench) return usage("--status-file belongs to the window or --headless, not `blockscope bench`");
      o.status_file_path = v;
    } else if (a == "--kernel-file") {
      BS_VALUE(v, a);
      if (v.empty()) return usage("--kernel-file needs a .cu, .ipynb or .py file");
      o.kernel_file = v;  // read (with its limits) when the lab opens; a bad file is exit code 1
    } else if (a == "--kernel-time-limit") {
      BS_VALUE(v, a);
      auto f = to_float(v);
      if (!f || *f < 0.05f || *f > 600) return usage("--kernel-time-limit takes seconds from 0.05 to 600");
      o.kernel_time_limit_s = *f;
    } else if (a == "--view") {
      BS_VALUE(v, a);
      const std::optional<CompareMode> mode = value_of_word(kCompareWords, v);
      if (!mode) return usage("--view takes split, side, result or original");
      o.state.view.compare = *mode;
      o.state.view_given = true;
    } else if (a == "--split") {
      BS_VALUE(v, a);
      auto f = to_float(v);
      if (!f || *f < 0 || *f > 1) return usage("--split takes a fraction from 0 to 1");
      o.state.view.split = *f;
      o.state.view_given = true;
    } else if (a == "--zoom") {
      BS_VALUE(v, a);
      auto f = to_float(v);
      if (!f || *f < 0.01f || *f > 256) return usage("--zoom takes 0.01 to 256 screen pixels per image pixel");
      o.state.view.zoom = *f;
      o.state.view_given = true;
    } else if (a == "--center") {
      BS_VALUE(v, a);
      auto p = parse_pixel(v);
      if (!p) return p.status();
      o.state.view.center_x = static_cast<float>(p->x) + 0.5f;
      o.state.view.center_y = static_cast<float>(p->y) + 0.5f;
      o.state.view_given = true;
    } else if (a == "--overlay") {
      BS_VALUE(v, a);
      const std::optional<OverlayMode> overlay = value_of_word(kOverlayWords, v);
      if (!overlay) return usage("--overlay takes off, lines, block, warp or sm");
      o.state.view.overlay = *overlay;
      o.state.view_given = true;
    } else if (a == "--hover" || a == "--pin") {
      BS_VALUE(v, a);
      auto p = parse_pixel(v);
      if (!p) return p.status();
      (a == "--hover" ? o.state.view.hover : o.state.view.pinned) = p.value();
      o.state.view_given = true;
    } else if (a == "--panel") {
      BS_VALUE(v, a);
      const std::optional<Panel> panel = v == "stats" ? Panel::Launch : panel_of_word(v);  // "stats": the old word
      if (!panel) {
        std::string words;
        for (const PanelName& n : kPanelNames) words += std::string(words.empty() ? "" : ", ") + n.word;
        return usage("--panel takes a tab's name: " + words);
      }
      if (panel_name(*panel).dock == Dock::Centre) {
        o.state.centre = *panel;
      } else {
        o.state.panel = *panel;
        o.state.panel_given = true;
      }
    } else if (a == "--set") {
      BS_VALUE(v, a);
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 >= v.size())
        return usage("--set takes KEY=VALUE (e.g. --set layout=rgba), not '" + v + "'");
      std::vector<std::string> values;
      for (std::size_t at = eq + 1; at <= v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        if (comma == at) return usage("--set " + v + ": an empty value");
        values.push_back(v.substr(at, comma - at));
        at = comma + 1;
      }
      if (values.size() > 1 && !o.bench)
        return usage("--set " + v + ": several values belong to `blockscope bench` (the window takes one)");
      o.settings.emplace_back(v.substr(0, eq), std::move(values));
    } else if (!a.empty() && a[0] == '-') {
      // A flag of one of the labs?
      const ExtraOption* extra = nullptr;
      for (const auto& l : labs)
        for (const auto& e : l.options)
          if (e.flag == a) extra = &e;
      if (!extra) return usage("unknown flag '" + a + "'");
      BS_VALUE(v, a);
      if (Status s = extra->check(v); !s) return usage(s.message);
      o.state.lab_options[a] = v;
    } else {
      if (o.bench) return usage("`blockscope bench` takes no image paths ('" + a + "')");
      o.images.push_back(a);
    }
  }
#undef BS_VALUE
  // The window applies single settings to the lab it opens (checked there, against the lab's own).
  if (!o.bench)
    for (const auto& [key, values] : o.settings) o.state.lab_settings[o.state.lab][key] = values.front();
  if (!o.headless && !o.screenshot_path.empty() && !o.bench) return usage("--screenshot needs --headless");
  if (!o.headless && !o.output_path.empty() && !o.bench) return usage("--output needs --headless");
  if (window_flush_l2 && !o.sweep)
    return usage("--flush-l2 belongs to --sweep (or `blockscope bench` / `blockscope sweep`)");
  if (!o.headless && !o.bench && !o.sweep && (!o.json_path.empty() || !o.csv_path.empty()))
    return usage("--json and --csv need --headless or --sweep (or `blockscope bench` / `blockscope sweep`)");
  return o;
}

std::string help_text(const std::vector<LabFlags>& labs) {
  std::string lab_lines;
  for (const auto& l : labs) {
    if (l.options.empty()) continue;
    std::string heading = l.title;  // "MATMUL LAB", as the other headings
    for (char& c : heading) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    lab_lines += "\n" + heading + " LAB (--lab " + l.id + ")\n";
    for (const auto& e : l.options) {
      std::string left = "  " + e.flag + " " + e.value_name;
      if (left.size() < 28) left.resize(28, ' ');
      else left += "  ";
      lab_lines += left + e.help + "\n";
    }
  }
  return R"(blockscope: see how a CUDA grid of blocks of threads covers your data.

USAGE
  blockscope [IMAGE...] [OPTIONS]          open the window (on the built-in sample if no IMAGE)
  blockscope --headless [IMAGE] [OPTIONS]  render the same UI offscreen (EGL), no window
  blockscope bench LAB [BENCH OPTIONS]     time a lab's kernels on fresh random data, JSON out
                                           (LAB: )" + lab_list(labs) + R"()
  blockscope sweep LAB [SWEEP OPTIONS]     sweep every block shape (or compiled configuration)
                                           of a lab's kernels, no window; JSON and CSV out

COMPUTE
  --backend auto|cuda|cpu   auto (default): CUDA if a usable GPU exists, else the CPU simulation
  --device N                CUDA device (default: the one driving the OpenGL context)

LAB AND KERNEL (in any order)
  --lab ID                  which lab is open: )" + lab_list(labs) + R"(
  --kernel ID               a kernel of that lab (its id, as the kernel list and bench JSON name it)
  --block X[xY[xZ]]         blockDim for kernels that take any blockDim, e.g. 256, 16x16, 32x8;
                            a shape the kernel cannot take is refused with the reason (exit 1)
  --config N                the compiled configuration N (0 = first listed) of a templated kernel
  --kernel-file FILE.cu     your own kernel (the lecture's signatures: see the kernel editor and
                            kernels/labs/custom/README.md): compiled for the backend, run on the
                            lab's data and verified; it joins the lab's kernels as custom:NAME
                            (window, headless, bench, sweep). Exit 1 when it does not compile (the
                            message names the line), its result is wrong, or it was stopped.
                            A notebook or Python file (.ipynb, .py: load_inline, CuPy) opens every
                            kernel found in it; --kernel NAME picks one
  --kernel-time-limit S     stop a launch of your kernel after S seconds (default 2)
)" + lab_lines + R"(
VIEW (window and headless)
  --view split|side|result|original
  --split F                 split position, 0..1 (original left, result right)
  --zoom Z                  screen pixels per image pixel (default: fit)
  --center X,Y              image pixel at the centre of the view
  --overlay off|lines|block|warp|sm   grid overlay: block lines, colour by block, warp or SM
  --hover X,Y               inspect this element (as if the mouse were over it)
  --pin X,Y                 pin this element (matmul: X = column, Y = row of C)
  --panel timings|launch|schedule|memory|runs|measured|pipeline   the side tab shown
  --panel data|sweep|compare|source                               ... or the centre's
  --source                  show the Source tab: the kernel's CUDA source, PTX and SASS side by side
  --source-line N           ... with line N of its source selected (its instructions highlighted)
  --profile-lines           ... and sample the first launch's warps (GPU PC sampling): stall samples
                            and reasons per source line and per instruction; on the CPU backend,
                            how often each line runs (the simulator's counts, gcov)
  --compare-block B         ... then launch and sample the same kernel with blockDim B, and pin the
                            two as A and B: Compare shows where their warps wait, line by line
  --set KEY=VALUE           a setting of the lab's problem, e.g. --set layout=rgba (grayscale:
                            layout planar|rgba; matmul: precision fp32|bf16, bf16 being the
                            tensor-core ladder); bench takes several: --set layout=planar,rgba
  --window-size WxH         window or offscreen framebuffer size (default 1600x1000)

HEADLESS
  --headless                render with EGL into an offscreen framebuffer
  --frames N                frames to render before exiting (default 3)
  --screenshot FILE.png     write the rendered UI
  --output FILE.png         write the lab's result as the view shows it (--gray-out: the same)
  --schedule-json FILE      write the last launch's block schedule (block, SM or worker, start, end)
  --sweep                   run a sweep of the selected kernel in the UI (window too); headless
                            waits for it and shows the heatmap (or bar chart) before --screenshot
  --blocks all|LIST         the shapes --sweep tries, e.g. 32x8,16x16,256 (default all)
  --flush-l2                with --sweep: overwrite the L2 before every timed repeat (GPU)
  --kernel all              with --sweep: every kernel of the lab (a ladder sweep)
  --json FILE  --csv FILE   export the sweep (with --sweep) or the last launch; in the window
                            (with --sweep) the sweep's results are written when it ends

HARDWARE COUNTERS (CUDA backend; the Measured tab)
  --profile                 profile the first launch that runs and show it in the Measured tab
                            (headless: frames continue until the profile is shown, then outputs)
  --cupti FILE              load this libcupti (default: libcupti.so.N on the loader's path,
                            then the CUDA toolkit blockscope was built with)

SETTINGS
  --config-dir DIR          keep settings, recent files and the window layout in DIR instead of
                            $XDG_CONFIG_HOME/blockscope (else ~/.config/blockscope); headless runs
                            use settings only when given this (or BLOCKSCOPE_CONFIG_DIR). Flags
                            always win over saved settings. View > Reset to defaults starts afresh.

AUTOMATION
  --status-file FILE        write the app's state as JSON to FILE whenever it changes, for
                            scripts and tests: the lab's data, the last launch, a hash of the
                            result the view shows, the latest messages (replaced atomically)

BENCH OPTIONS
  --size SIZE               repeatable; the lab's syntax (gray WxH, matmul MxNxK); fresh random
                            data each time; default: each lab's own sizes
  --kernel ID|all           repeatable; default all (library anchors such as cuBLAS included)
  --block X[xY[xZ]]         repeatable, for kernels that take any blockDim; default their presets
  --repeats N --warmup N    timed repeats (median reported) and untimed warm-ups
  --no-flush                do not flush the L2 between timed repeats
  --set KEY=V[,V...]        the lab's settings to run (gray: layout=planar,rgba; matmul:
                            precision=fp32,bf16); a setting not named runs every choice
  --json FILE  --csv FILE   write the results (schema: docs/results-schema.md)
  --counters                profile each launch once more with the GPU's counters (about 0.4 s
                            each) and add them to its JSON result, beside blockscope's model;
                            where they cannot be read, each result says why
  --lines                   sample each launch's warps with the GPU's PC sampling (CUDA) and add
                            the stall samples per source line and per instruction to its JSON
                            result ("lines"); where they cannot be sampled, each result says why

SWEEP OPTIONS (blockscope sweep LAB)
  --size SIZE               repeatable, as bench; fresh random data
  --kernel ID|all           repeatable; default all (a ladder sweep: every kernel of the lab)
  --blocks all|LIST         free-blockDim kernels: every shape with x and y powers of two up to
                            1024 and x*y*z <= 1024 (z where the kernel maps it), or LIST such as
                            32x8,16x16,256 (a shape that cannot run is refused with the reason and
                            the rest still run); compiled kernels sweep every compiled configuration
  --repeats N               at least N timed repeats per point (default 5 on the GPU, 6 on the
                            CPU), then until the median's 95% CI is within --target-ci (default
                            0.01 = 1%) or the point has used --point-budget MS (default 100 GPU,
                            60 CPU)
  --warmup N                untimed launches before each point's repeats
  --flush-l2                overwrite the L2 before every timed repeat (off by default)
  --counters                once timed, profile each point's launch (hardware counters, CUDA):
                            DRAM bytes, L2 hit rate, sectors per request, occupancy, stalls in
                            the JSON "counters" object and the CSV's counter columns
  --set KEY=V[,V...]        settings to sweep (each combination); a setting not named keeps its
                            default
  --json FILE  --csv FILE   write the results (schema: docs/results-schema.md); without --json the
                            JSON goes to stdout after the table

OTHER
  -h, --help                this text
  --version                 print the version

EXIT CODES
  0  success
  1  a run failed (image not loaded, screenshot not written, a launch refused or failed, a wrong
     result)
  2  bad command line
  3  no display for the window: run with --headless
  4  --backend cuda asked for, but no usable CUDA device
)";
}


// `blockscope bench --help` and `blockscope sweep --help`: the command's own usage, the compute
// flags, its options and the exit codes, cut from the whole help by its headings.
std::string command_help_text(bool sweep, const std::vector<LabFlags>& labs) {
  const std::string all = help_text(labs);
  std::vector<std::pair<std::string, std::string>> sections;  // heading, body
  std::size_t at = 0;
  while (at < all.size()) {
    std::size_t end = all.find('\n', at);
    if (end == std::string::npos) end = all.size();
    const std::string line = all.substr(at, end - at);
    const bool heading = !line.empty() && std::isupper(static_cast<unsigned char>(line[0])) &&
                         std::isupper(static_cast<unsigned char>(line[1 < line.size() ? 1 : 0]));
    if (heading || sections.empty()) sections.push_back({line, ""});
    else sections.back().second += line + "\n";
    at = end + 1;
  }
  const std::string command = sweep ? "sweep" : "bench";
  std::string out = "blockscope " + command + ": " +
                    (sweep ? "sweep every block shape (or compiled configuration) of a lab's kernels, no window"
                           : "time a lab's kernels on fresh random data, no window") +
                    "\n\nUSAGE\n  blockscope " + command + " LAB [OPTIONS]   (LAB: " + lab_list(labs) +
                    ")\n  (blockscope --help: every mode and option)\n";
  for (const auto& [heading, body] : sections)
    if (heading.rfind("COMPUTE", 0) == 0 || heading.rfind(sweep ? "SWEEP OPTIONS" : "BENCH OPTIONS", 0) == 0 ||
        heading.rfind("EXIT CODES", 0) == 0)
      out += "\n" + heading + "\n" + body;
  return out;
}

}  // namespace bs::app
