#include "cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>
#include <type_traits>

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
  } catch (...) { return std::nullopt; }
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

namespace {

// The command line, read left to right. Each group of flags answers for its own: nullopt for a
// flag it does not know, else success or the refusal of its value.
class CommandLine {
 public:
  CommandLine(const std::vector<std::string>& args, const std::vector<LabFlags>& labs) : args_(args), labs_(labs) {}
  Result<CliOptions> parse();

 private:
  using Answer = std::optional<Status>;
  Status command();  // `bench LAB` or `sweep LAB` first
  Answer app_flag(const std::string& a);
  Answer launch_flag(const std::string& a);
  Answer bench_flag(const std::string& a);
  Answer tab_flag(const std::string& a);
  Answer view_flag(const std::string& a);
  Status lab_flag_or_image(const std::string& a);
  Status check_combinations() const;

  // The word after `flag`: its value.
  Result<std::string> value(const std::string& flag) {
    if (i_ + 1 >= args_.size()) return usage(flag + " needs a value");
    return args_[++i_];
  }
  // `flag`'s value into `into`.
  Status text(const std::string& flag, std::string& into) {
    auto v = value(flag);
    if (!v) return v.status();
    into = std::move(v.value());
    return Status::success();
  }
  // `flag`'s value as a whole number (float: a number) from lo to hi into `into`, else `refusal`.
  template <class T>
  Status number(const std::string& flag, T& into, double lo, double hi, const std::string& refusal) {
    auto v = value(flag);
    if (!v) return v.status();
    if constexpr (std::is_integral_v<T>) {
      const auto n = to_int(*v);
      if (!n || *n < lo || *n > hi) return usage(refusal);
      into = static_cast<T>(*n);
    } else {
      const auto f = to_float(*v);
      if (!f || *f < lo || *f > hi) return usage(refusal);
      into = static_cast<T>(*f);
    }
    return Status::success();
  }
  bool known_lab(const std::string& id) const {
    return std::any_of(labs_.begin(), labs_.end(), [&](const LabFlags& l) { return l.id == id; });
  }
  Status bench_only(const std::string& flag) const { return usage(flag + " belongs to `blockscope bench`"); }

  const std::vector<std::string>& args_;
  const std::vector<LabFlags>& labs_;
  std::size_t i_ = 0;
  CliOptions o_;
  bool window_flush_l2_ = false;  // --flush-l2 without bench/sweep: needs --sweep (checked at the end)
};

#define BS_VALUE(var, flag)              \
  auto var##_r = value(flag);            \
  if (!var##_r) return var##_r.status(); \
  const std::string& var = var##_r.value();

Status CommandLine::command() {
  if (args_.empty() || (args_[0] != "bench" && args_[0] != "sweep")) return Status::success();
  if (args_.size() < 2 || !known_lab(args_[1]))
    return usage("`blockscope " + args_[0] + "` needs a lab: " + lab_list(labs_));
  o_.bench = BenchOptions{};
  o_.bench->lab = args_[1];
  o_.bench->sweep = args_[0] == "sweep";
  if (o_.bench->sweep) o_.bench->flush_l2 = false;  // sweeps flush only when asked (--flush-l2)
  o_.state.lab = args_[1];
  i_ = 2;
  return Status::success();
}

// The app as a whole: help, the window or headless, the device, where files go.
CommandLine::Answer CommandLine::app_flag(const std::string& a) {
  if (a == "-h" || a == "--help") {
    o_.help = true;
  } else if (a == "--version") {
    o_.version = true;
  } else if (a == "--headless") {
    o_.headless = true;
  } else if (a == "--frames") {
    return number(a, o_.frames, 1, 1'000'000, "--frames takes a count from 1 to 1000000");
  } else if (a == "--window-size") {
    BS_VALUE(v, a);
    auto d = dims(v, 2, 2);
    if (!d || (*d)[0] < 64 || (*d)[1] < 64 || (*d)[0] > 16384 || (*d)[1] > 16384)
      return usage("--window-size takes WxH between 64 and 16384");
    o_.width = (*d)[0];
    o_.height = (*d)[1];
  } else if (a == "--backend") {
    BS_VALUE(v, a);
    if (v == "auto") o_.backend = BackendChoice::Auto;
    else if (v == "cuda") o_.backend = BackendChoice::Cuda;
    else if (v == "cpu") o_.backend = BackendChoice::Cpu;
    else return usage("--backend takes auto, cuda or cpu, not '" + v + "'");
  } else if (a == "--device") {
    return number(a, o_.cuda_device, 0, 1024, "--device takes a CUDA device index");
  } else if (a == "--cupti") {
    BS_VALUE(v, a);
    if (v.empty()) return usage("--cupti needs the path of a libcupti");
    o_.cupti_library = v;
  } else if (a == "--screenshot") {
    return text(a, o_.screenshot_path);
  } else if (a == "--output" || a == "--gray-out") {
    return text(a, o_.output_path);
  } else if (a == "--schedule-json") {
    return text(a, o_.schedule_json_path);
  } else if (a == "--config-dir") {
    BS_VALUE(v, a);
    if (v.empty() || v[0] != '/') return usage("--config-dir takes an absolute folder path");
    o_.config_dir = v;
  } else if (a == "--status-file") {
    BS_VALUE(v, a);
    if (o_.bench) return usage("--status-file belongs to the window or --headless, not `blockscope bench`");
    o_.status_file_path = v;
  } else {
    return std::nullopt;
  }
  return Status::success();
}

// Which lab, kernel and launch: the same flags for the window and for bench.
CommandLine::Answer CommandLine::launch_flag(const std::string& a) {
  if (a == "--lab") {
    BS_VALUE(v, a);
    if (!known_lab(v)) return usage("--lab takes " + lab_list(labs_) + ", not '" + v + "'");
    if (o_.bench && v != o_.bench->lab) return usage("`blockscope bench " + o_.bench->lab + "` runs that lab only");
    o_.state.lab = v;
    o_.state.lab_given = true;
  } else if (a == "--kernel") {
    BS_VALUE(v, a);
    if (v.empty()) return usage("--kernel needs a kernel id");
    if (o_.bench) {
      if (v != "all") o_.bench->kernels.push_back(v);
    } else if (v == "all") {
      o_.state.sweep.ladder = true;  // --sweep: every kernel of the lab
    } else {
      o_.state.selection.kernel = v;  // the lab checks it when it opens
    }
  } else if (a == "--block") {
    BS_VALUE(v, a);
    auto b = parse_block(v);
    if (!b) return b.status();
    if (o_.bench) o_.bench->blocks.push_back(b.value());
    else o_.state.selection.block = b.value();
  } else if (a == "--config") {
    int index = 0;
    if (Status s = number(a, index, 0, 100000, "--config takes a compiled configuration's index (0, 1, ...)"); !s)
      return s;
    o_.state.selection.compiled = index;
  } else if (a == "--kernel-file") {
    BS_VALUE(v, a);
    if (v.empty()) return usage("--kernel-file needs a .cu, .ipynb or .py file");
    o_.kernel_file = v;  // read (with its limits) when the lab opens; a bad file is exit code 1
  } else if (a == "--kernel-time-limit") {
    return number(a, o_.kernel_time_limit_s, 0.05f, 600, "--kernel-time-limit takes seconds from 0.05 to 600");
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
    if (values.size() > 1 && !o_.bench)
      return usage("--set " + v + ": several values belong to `blockscope bench` (the window takes one)");
    o_.settings.emplace_back(v.substr(0, eq), std::move(values));
  } else {
    return std::nullopt;
  }
  return Status::success();
}

// Timing and sweeps: `blockscope bench` / `blockscope sweep`, and the window's --sweep.
CommandLine::Answer CommandLine::bench_flag(const std::string& a) {
  if (a == "--size") {
    BS_VALUE(v, a);
    if (!o_.bench) return usage("--size belongs to `blockscope bench` (use --window-size for the window)");
    o_.bench->sizes.push_back(v);  // the lab checks the syntax
  } else if (a == "--repeats" || a == "--warmup") {
    BS_VALUE(v, a);
    auto n = to_int(v);
    if (!o_.bench) return bench_only(a);
    if (!n || *n < (a == "--repeats" ? 1 : 0) || *n > 100000) return usage(a + " takes a count");
    (a == "--repeats" ? o_.bench->repeats : o_.bench->warmup) = static_cast<int>(*n);
    (a == "--repeats" ? o_.bench->repeats_given : o_.bench->warmup_given) = true;
  } else if (a == "--no-flush") {
    if (!o_.bench) return bench_only(a);
    o_.bench->flush_l2 = false;
  } else if (a == "--lines") {
    if (!o_.bench || o_.bench->sweep)
      return usage("--lines belongs to `blockscope bench` (the window has the Source tab)");
    o_.bench->lines = true;
  } else if (a == "--counters") {
    if (!o_.bench) return usage("--counters belongs to `blockscope bench` (the window has the Measured tab)");
    o_.bench->counters = true;
  } else if (a == "--flush-l2") {
    if (o_.bench) {
      o_.bench->flush_l2 = true;
    } else {  // the window's --sweep, as `blockscope sweep --flush-l2` (the Experiments checkbox)
      o_.state.sweep.flush_l2 = true;  // over the saved settings' choice (merge_saved_under)
      window_flush_l2_ = true;
    }
  } else if (a == "--blocks") {
    BS_VALUE(v, a);
    if (v.empty()) return usage("--blocks takes all or a list such as 32x8,16x16,256");
    if (o_.bench && !o_.bench->sweep) return usage("--blocks belongs to `blockscope sweep` (bench takes --block)");
    if (o_.bench) {
      o_.bench->block_list = v;
    } else {
      o_.state.sweep.all_blocks = v == "all";
      if (v != "all") o_.state.sweep.block_list = v;
      o_.state.sweep_given = true;
    }
  } else if (a == "--point-budget" || a == "--target-ci") {
    BS_VALUE(v, a);
    if (!o_.bench || !o_.bench->sweep) return usage(a + " belongs to `blockscope sweep`");
    auto f = to_float(v);
    if (a == "--point-budget") {
      if (!f || *f <= 0 || *f > 600000) return usage("--point-budget takes milliseconds per point (> 0)");
      o_.bench->point_budget_ms = *f;
    } else {
      if (!f || *f <= 0 || *f >= 1) return usage("--target-ci takes a fraction of the median, e.g. 0.01 for 1%");
      o_.bench->target_ci = *f;
    }
  } else if (a == "--sweep") {
    if (o_.bench) return usage("--sweep belongs to the window or --headless (use `blockscope sweep LAB`)");
    o_.sweep = true;
  } else if (a == "--json" || a == "--csv") {
    const bool json = a == "--json";
    if (!o_.bench) return text(a, json ? o_.json_path : o_.csv_path);  // --headless exports
    return text(a, json ? o_.bench->json_path : o_.bench->csv_path);
  } else {
    return std::nullopt;
  }
  return Status::success();
}

// The window's measured tabs: the Source tab, line profiles, counters.
CommandLine::Answer CommandLine::tab_flag(const std::string& a) {
  if (a == "--compare-block") {
    if (o_.bench) return usage("--compare-block belongs to the window or --headless");
    BS_VALUE(v, a);
    auto b = parse_block(v);
    if (!b) return b.status();
    o_.compare_block = b.value();
    o_.profile_lines = true;
    o_.source_tab = true;
  } else if (a == "--profile-lines") {
    if (o_.bench) return usage("--profile-lines belongs to the window or --headless (bench takes --lines)");
    o_.profile_lines = true;
    o_.source_tab = true;
  } else if (a == "--profile") {
    if (o_.bench) return usage("--profile belongs to the window or --headless (bench takes --counters)");
    o_.profile = true;
  } else if (a == "--source" || a == "--source-line") {
    if (o_.bench) return usage(a + " belongs to the window or --headless");
    o_.source_tab = true;
    if (a == "--source-line")
      return number(a, o_.source_line, 1, std::numeric_limits<double>::infinity(),
                    "--source-line takes a line number (1 or more)");
  } else {
    return std::nullopt;
  }
  return Status::success();
}

// The window's view: compare mode, zoom, overlay, hover, the open tab.
CommandLine::Answer CommandLine::view_flag(const std::string& a) {
  ViewState& view = o_.state.view;
  if (a == "--view") {
    BS_VALUE(v, a);
    const std::optional<CompareMode> mode = value_of_word(kCompareWords, v);
    if (!mode) return usage("--view takes split, side, result or original");
    view.compare = *mode;
  } else if (a == "--split") {
    if (Status s = number(a, view.split, 0, 1, "--split takes a fraction from 0 to 1"); !s) return s;
  } else if (a == "--zoom") {
    if (Status s = number(a, view.zoom, 0.01f, 256, "--zoom takes 0.01 to 256 screen pixels per image pixel"); !s)
      return s;
  } else if (a == "--center") {
    BS_VALUE(v, a);
    auto p = parse_pixel(v);
    if (!p) return p.status();
    view.center_x = static_cast<float>(p->x) + 0.5f;
    view.center_y = static_cast<float>(p->y) + 0.5f;
  } else if (a == "--overlay") {
    BS_VALUE(v, a);
    const std::optional<OverlayMode> overlay = value_of_word(kOverlayWords, v);
    if (!overlay) return usage("--overlay takes off, lines, block, warp or sm");
    view.overlay = *overlay;
  } else if (a == "--hover" || a == "--pin") {
    BS_VALUE(v, a);
    auto p = parse_pixel(v);
    if (!p) return p.status();
    (a == "--hover" ? view.hover : view.pinned) = p.value();
  } else if (a == "--panel") {
    BS_VALUE(v, a);
    const std::optional<Panel> panel = v == "stats" ? Panel::Launch : panel_of_word(v);  // "stats": the old word
    if (!panel) {
      std::string words;
      for (const PanelName& n : kPanelNames) words += std::string(words.empty() ? "" : ", ") + n.word;
      return usage("--panel takes a tab's name: " + words);
    }
    if (panel_name(*panel).dock == Dock::Centre) {
      o_.state.centre = *panel;
    } else {
      o_.state.panel = *panel;
      o_.state.panel_given = true;
    }
    return Status::success();
  } else {
    return std::nullopt;
  }
  o_.state.view_given = true;
  return Status::success();
}

// What no group knows: a flag of one of the labs, or an image path.
Status CommandLine::lab_flag_or_image(const std::string& a) {
  if (a.empty() || a[0] != '-') {
    if (o_.bench) return usage("`blockscope bench` takes no image paths ('" + a + "')");
    o_.images.push_back(a);
    return Status::success();
  }
  const ExtraOption* extra = nullptr;
  for (const auto& l : labs_)
    for (const auto& e : l.options)
      if (e.flag == a) extra = &e;
  if (!extra) return usage("unknown flag '" + a + "'");
  BS_VALUE(v, a);
  if (Status s = extra->check(v); !s) return usage(s.message);
  o_.state.lab_options[a] = v;
  return Status::success();
}

#undef BS_VALUE

// Flags that need another: the headless outputs need --headless, --flush-l2 a sweep.
Status CommandLine::check_combinations() const {
  if (!o_.headless && !o_.screenshot_path.empty() && !o_.bench) return usage("--screenshot needs --headless");
  if (!o_.headless && !o_.output_path.empty() && !o_.bench) return usage("--output needs --headless");
  if (window_flush_l2_ && !o_.sweep)
    return usage("--flush-l2 belongs to --sweep (or `blockscope bench` / `blockscope sweep`)");
  if (!o_.headless && !o_.bench && !o_.sweep && (!o_.json_path.empty() || !o_.csv_path.empty()))
    return usage("--json and --csv need --headless or --sweep (or `blockscope bench` / `blockscope sweep`)");
  return Status::success();
}

Result<CliOptions> CommandLine::parse() {
  if (Status s = command(); !s) return s;
  for (; i_ < args_.size(); ++i_) {
    const std::string& a = args_[i_];
    Answer answer = app_flag(a);
    if (!answer) answer = launch_flag(a);
    if (!answer) answer = bench_flag(a);
    if (!answer) answer = tab_flag(a);
    if (!answer) answer = view_flag(a);
    if (!answer) answer = lab_flag_or_image(a);
    if (!answer->ok()) return *answer;
  }
  // The window applies single settings to the lab it opens (checked there, against the lab's own).
  if (!o_.bench)
    for (const auto& [key, values] : o_.settings) o_.state.lab_settings[o_.state.lab][key] = values.front();
  if (Status s = check_combinations(); !s) return s;
  return std::move(o_);
}

}  // namespace

Result<CliOptions> parse_command_line(const std::vector<std::string>& args, const std::vector<LabFlags>& labs) {
  return CommandLine(args, labs).parse();
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
                                           (LAB: )" +
         lab_list(labs) + R"()
  blockscope sweep LAB [SWEEP OPTIONS]     sweep every block shape (or compiled configuration)
                                           of a lab's kernels, no window; JSON and CSV out

COMPUTE
  --backend auto|cuda|cpu   auto (default): CUDA if a usable GPU exists, else the CPU simulation
  --device N                CUDA device (default: the one driving the OpenGL context)

LAB AND KERNEL (in any order)
  --lab ID                  which lab is open: )" +
         lab_list(labs) + R"(
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
)" + lab_lines +
         R"(
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
