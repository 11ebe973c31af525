#include "cli/options.hpp"

#include <charconv>
#include <sstream>

#include "labs/matmul/matmul.hpp"

namespace bs::app {
namespace {

Status usage(std::string message) {
  return Status::failure(std::move(message), "run `blockscope --help` for every flag",
                         "command line");
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

// "AxB" or "AxBxC" with every part a positive integer.
std::optional<std::vector<int>> dims(const std::string& s, std::size_t min_parts,
                                     std::size_t max_parts) {
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

}  // namespace

Result<Dim3> parse_block(const std::string& text) {
  auto d = dims(text, 1, 3);
  if (!d) return usage("block '" + text + "' is not X, XxY or XxYxZ (e.g. 256, 16x16, 8x8x4)");
  Dim3 b{static_cast<unsigned>((*d)[0]), 1, 1};
  if (d->size() > 1) b.y = static_cast<unsigned>((*d)[1]);
  if (d->size() > 2) b.z = static_cast<unsigned>((*d)[2]);
  return b;  // zero and over-limit values are the launcher's to refuse, with its reason
}

Result<PixelPos> parse_pixel(const std::string& text) {
  auto parts = split(text, ',');
  if (parts.size() != 2) return usage("'" + text + "' is not a pixel X,Y");
  auto x = to_int(parts[0]), y = to_int(parts[1]);
  if (!x || !y || *x < 0 || *y < 0) return usage("'" + text + "' is not a pixel X,Y");
  return PixelPos{static_cast<int>(*x), static_cast<int>(*y)};
}

Result<CliOptions> parse_command_line(const std::vector<std::string>& args) {
  CliOptions o;
  std::size_t i = 0;
  if (!args.empty() && args[0] == "bench") {
    if (args.size() < 2 || (args[1] != "gray" && args[1] != "matmul"))
      return usage("`blockscope bench` needs `gray` or `matmul`");
    o.bench = BenchOptions{};
    o.bench->what = args[1];
    i = 2;
  } else if (!args.empty() && args[0] == "soak") {
    o.soak = SoakOptions{};
    o.headless = true;
    o.width = 960;  // small enough that the UI costs little next to the launches
    o.height = 600;
    i = 1;
  }
  auto value = [&](const std::string& flag) -> Result<std::string> {
    if (i + 1 >= args.size()) return usage(flag + " needs a value");
    return args[++i];
  };
#define BS_VALUE(var, flag)        \
  auto var##_r = value(flag);      \
  if (!var##_r) return var##_r.status(); \
  const std::string& var = var##_r.value();

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
    } else if (a == "--kernel") {
      BS_VALUE(v, a);
      if (o.bench) {
        if (v != "all") o.bench->kernels.push_back(v);
      } else {
        auto k = gray::gray_kernel_from_key(v);
        if (!k) return usage("--kernel takes 1d or 2d, not '" + v + "'");
        o.state.gray.kernel = *k;
        o.state.gray.block = gray::info(*k).default_block;
      }
    } else if (a == "--block") {
      BS_VALUE(v, a);
      auto b = parse_block(v);
      if (!b) return b.status();
      if (o.bench) o.bench->blocks.push_back(b.value());
      else o.state.gray.block = b.value();
    } else if (a == "--size") {
      BS_VALUE(v, a);
      if (!o.bench) return usage("--size belongs to `blockscope bench` (use --window-size for the window)");
      if (o.bench->what == "gray") {
        auto d = dims(v, 2, 2);
        if (!d || (*d)[0] < 1 || (*d)[1] < 1) return usage("--size takes WxH, e.g. 8192x8192");
        o.bench->gray_sizes.emplace_back((*d)[0], (*d)[1]);
      } else {
        auto d = dims(v, 3, 3);
        if (!d || (*d)[0] < 1 || (*d)[1] < 1 || (*d)[2] < 1)
          return usage("--size takes MxNxK, e.g. 4096x4096x4096");
        o.bench->matmul_sizes.push_back({(*d)[0], (*d)[1], (*d)[2]});
      }
    } else if (a == "--repeats" || a == "--warmup") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!o.bench) return usage(a + " belongs to `blockscope bench`");
      if (!n || *n < (a == "--repeats" ? 1 : 0) || *n > 100000) return usage(a + " takes a count");
      (a == "--repeats" ? o.bench->repeats : o.bench->warmup) = static_cast<int>(*n);
    } else if (a == "--json") {
      BS_VALUE(v, a);
      if (!o.bench) return usage("--json belongs to `blockscope bench`");
      o.bench->json_path = v;
    } else if (a == "--screenshot") {
      BS_VALUE(v, a);
      o.screenshot_path = v;
    } else if (a == "--gray-out") {
      BS_VALUE(v, a);
      o.gray_out_path = v;
    } else if (a == "--schedule-json") {
      BS_VALUE(v, a);
      o.schedule_json_path = v;
    } else if (a == "--status-file") {
      BS_VALUE(v, a);
      if (o.bench) return usage("--status-file belongs to the window or --headless, not `blockscope bench`");
      o.status_file_path = v;
    } else if (a == "--inject-fault") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 0 || *n > 1'000'000) return usage("--inject-fault takes a frame number");
      o.inject_fault_at_frame = static_cast<int>(*n);
    } else if (a == "--launches" || a == "--seconds" || a == "--seed" ||
               a == "--leak-bytes-per-launch") {
      BS_VALUE(v, a);
      if (!o.soak) return usage(a + " belongs to `blockscope soak`");
      if (a == "--seconds") {
        auto f = to_float(v);
        if (!f || !(*f > 0) || *f > 1e6f) return usage("--seconds takes a positive duration");
        o.soak->seconds = *f;
        continue;
      }
      auto n = to_int(v);
      if (a == "--launches") {
        if (!n || *n < 1 || *n > 10'000'000) return usage("--launches takes a count from 1 to 10000000");
        o.soak->launches = static_cast<int>(*n);
      } else if (a == "--seed") {
        if (!n || *n < 0) return usage("--seed takes a non-negative integer");
        o.soak->seed = static_cast<unsigned long long>(*n);
      } else {
        if (!n || *n < 0 || *n > (1ll << 30)) return usage("--leak-bytes-per-launch takes 0 to 2^30");
        o.soak->leak_bytes_per_launch = *n;
      }
    } else if (a == "--lab") {
      BS_VALUE(v, a);
      if (v == "gray") o.state.lab = Lab::Grayscale;
      else if (v == "matmul") o.state.lab = Lab::Matmul;
      else return usage("--lab takes gray or matmul");
    } else if (a == "--matmul-size") {
      BS_VALUE(v, a);
      auto d = dims(v, 3, 3);
      if (!d || (*d)[0] < 1 || (*d)[1] < 1 || (*d)[2] < 1)
        return usage("--matmul-size takes MxNxK, e.g. 512x512x512 (C is M x N, K is the inner size)");
      o.state.matmul.M = (*d)[0], o.state.matmul.N = (*d)[1], o.state.matmul.K = (*d)[2];
    } else if (a == "--matmul-kernel") {
      BS_VALUE(v, a);
      const matmul::MatmulKernelInfo* k = matmul::find_matmul_kernel(v);
      if (!k && v.size() == 1 && v[0] >= '1' && v[0] <= '7')
        k = &matmul::matmul_kernels()[static_cast<std::size_t>(v[0] - '1')];
      if (!k) return usage("--matmul-kernel takes a rung 1..7 or its id (k1_naive ... k7_warptile), not '" + v + "'");
      o.state.matmul.kernel = k->id;
    } else if (a == "--matmul-config") {
      BS_VALUE(v, a);
      if (auto n = to_int(v)) {
        if (*n < 0 || *n > 1000) return usage("--matmul-config takes a configuration index from 0");
        o.state.matmul.config_index = static_cast<int>(*n);  // the lab clamps it to the kernel's list
      } else {
        auto b = parse_block(v);
        if (!b) return usage("--matmul-config takes an index (0, 1, ...) or a blockDim XxY for rungs 1-3");
        o.state.matmul.block = b.value();
      }
    } else if (a == "--matmul-pattern") {
      BS_VALUE(v, a);
      matmul::Pattern p;
      if (!matmul::pattern_from_string(v, p))
        return usage("--matmul-pattern takes uniform, normal, small-integers, identity or structured");
      o.state.matmul.pattern_a = o.state.matmul.pattern_b = matmul::to_string(p);
    } else if (a == "--matmul-seed") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 0) return usage("--matmul-seed takes a non-negative integer");
      o.state.matmul.seed = static_cast<std::uint64_t>(*n);
    } else if (a == "--matmul-phase") {
      BS_VALUE(v, a);
      auto n = to_int(v);
      if (!n || *n < 0 || *n > 1'000'000) return usage("--matmul-phase takes a K-tile index from 0");
      o.state.matmul.phase = static_cast<int>(*n);
    } else if (a == "--view") {
      BS_VALUE(v, a);
      if (v == "split") o.state.view.compare = CompareMode::Split;
      else if (v == "side") o.state.view.compare = CompareMode::SideBySide;
      else if (v == "result") o.state.view.compare = CompareMode::ResultOnly;
      else if (v == "original") o.state.view.compare = CompareMode::OriginalOnly;
      else return usage("--view takes split, side, result or original");
    } else if (a == "--split") {
      BS_VALUE(v, a);
      auto f = to_float(v);
      if (!f || *f < 0 || *f > 1) return usage("--split takes a fraction from 0 to 1");
      o.state.view.split = *f;
    } else if (a == "--zoom") {
      BS_VALUE(v, a);
      auto f = to_float(v);
      if (!f || *f < 0.01f || *f > 256) return usage("--zoom takes 0.01 to 256 screen pixels per image pixel");
      o.state.view.zoom = *f;
    } else if (a == "--center") {
      BS_VALUE(v, a);
      auto p = parse_pixel(v);
      if (!p) return p.status();
      o.state.view.center_x = static_cast<float>(p->x) + 0.5f;
      o.state.view.center_y = static_cast<float>(p->y) + 0.5f;
    } else if (a == "--overlay") {
      BS_VALUE(v, a);
      if (v == "off") o.state.view.overlay = OverlayMode::Off;
      else if (v == "lines") o.state.view.overlay = OverlayMode::BlockLines;
      else if (v == "block") o.state.view.overlay = OverlayMode::ColourByBlock;
      else if (v == "warp") o.state.view.overlay = OverlayMode::ColourByWarp;
      else if (v == "sm") o.state.view.overlay = OverlayMode::ColourBySm;
      else return usage("--overlay takes off, lines, block, warp or sm");
    } else if (a == "--hover" || a == "--pin") {
      BS_VALUE(v, a);
      auto p = parse_pixel(v);
      if (!p) return p.status();
      (a == "--hover" ? o.state.view.hover : o.state.view.pinned) = p.value();
    } else if (a == "--panel") {
      BS_VALUE(v, a);
      if (v == "stats") o.state.panel = Panel::Stats;
      else if (v == "schedule") o.state.panel = Panel::Schedule;
      else if (v == "memory") o.state.panel = Panel::Memory;
      else if (v == "timings") o.state.panel = Panel::Timings;
      else return usage("--panel takes stats, schedule, memory or timings");
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown flag '" + a + "'");
    } else {
      if (o.bench) return usage("`blockscope bench` takes no image paths ('" + a + "')");
      if (o.soak) return usage("`blockscope soak` makes its own images ('" + a + "')");
      o.images.push_back(a);
    }
  }
#undef BS_VALUE
  if (!o.headless && (!o.screenshot_path.empty()) && !o.bench)
    return usage("--screenshot needs --headless");
  return o;
}

std::string help_text() {
  return R"(blockscope: see how a CUDA grid of blocks of threads covers your data.

USAGE
  blockscope [IMAGE...] [OPTIONS]          open the window (on the built-in sample if no IMAGE)
  blockscope --headless [IMAGE] [OPTIONS]  render the same UI offscreen (EGL), no window
  blockscope bench gray   [BENCH OPTIONS]  time the grayscale kernels, JSON out
  blockscope bench matmul [BENCH OPTIONS]  time the matmul ladder against cuBLAS, JSON out
  blockscope soak [SOAK OPTIONS]           relaunch thousands of times through the headless app

COMPUTE
  --backend auto|cuda|cpu   auto (default): CUDA if a usable GPU exists, else the CPU simulation
  --device N                CUDA device (default: the one driving the OpenGL context)

GRAYSCALE LAB
  --kernel 1d|2d            the lecture's 1D kernel over flattened pixels, or the 2D kernel
  --block X[xY[xZ]]         blockDim, e.g. 256, 16x16, 32x8 (refused shapes say why)

MATMUL LAB (with --lab matmul)
  --matmul-size MxNxK       C (M x N) = A (M x K) * B (K x N); default 4096^3 on a GPU,
                            128^3 on the CPU simulation (which takes M*N*K <= 2^27)
  --matmul-kernel K         rung 1..7 or its id: k1_naive k2_uncoalesced k3_smem_tiled
                            k4_blocktile_1d k5_blocktile_2d k6_vectorized k7_warptile
  --matmul-config N|XxY     the kernel's configuration N (0 = first listed), or a blockDim
                            for rungs 1-3 (refused shapes say why)
  --matmul-pattern P        uniform, normal, small-integers, identity or structured
  --matmul-seed S           A from S, B from S + 1 (default 1)
  --matmul-phase P          the shared-memory phase (K tile) to show
  --hover X,Y / --pin X,Y   in the matmul lab: element C[Y][X] (X = column, Y = row)

VIEW (window and headless)
  --lab gray|matmul         which lab is open
  --view split|side|result|original
  --split F                 split position, 0..1 (original left, result right)
  --zoom Z                  screen pixels per image pixel (default: fit)
  --center X,Y              image pixel at the centre of the view
  --overlay off|lines|block|warp|sm   grid overlay: block lines, colour by block, warp or SM
  --hover X,Y               inspect this pixel (as if the mouse were over it)
  --pin X,Y                 pin this pixel's block
  --panel stats|schedule|memory|timings
  --window-size WxH         window or offscreen framebuffer size (default 1600x1000)

HEADLESS
  --headless                render with EGL into an offscreen framebuffer
  --frames N                frames to render before exiting (default 3)
  --screenshot FILE.png     write the rendered UI
  --gray-out FILE.png       write the grayscale kernel's output image
  --schedule-json FILE      write the last launch's block schedule (block, SM or worker, start, end)

BENCH OPTIONS
  --size WxH (gray) | MxNxK (matmul)   repeatable; defaults: gray 8192x8192 and 1023x767,
                                       matmul 4096x4096x4096
  --block X[xY[xZ]]         repeatable (gray); default: each kernel's presets
  --kernel NAME|all         repeatable
  --repeats N --warmup N    timed repeats (median reported) and untimed warm-ups
  --json FILE               write results as JSON

SOAK OPTIONS (headless; exit 1 if any check fails)
  --launches N              frames, each a relaunch with a random valid or invalid block and
                            kernel (default 3000); random images of odd sizes are installed and
                            hostile files dropped in between
  --seconds S               stop earlier once S seconds have passed
  --seed N                  the random seed (default: fresh, printed)
  --backend auto|cuda|cpu   as above
  Checks: every invalid launch gets its "Launch refused" message and every hostile file its
  error (expected == observed); sampled outputs equal the CPU reference; host RSS grows by at
  most 16 MiB and used device memory by at most 2 MiB between the start (after warm-up) and
  the end. Prints one summary line and a verdict.

AUTOMATION
  --status-file FILE        write the app's state as JSON to FILE whenever it changes, for
                            scripts and tests: the image, the last launch, a hash of the
                            kernel's output, the latest messages (replaced atomically)

TESTING
  --inject-fault N          at frame N, make the GPU fault (an illegal address) to exercise
                            recovery: the app reports it and moves to the CPU simulation
  --leak-bytes-per-launch B soak: hold B more bytes per launch, to prove the memory check fails

OTHER
  -h, --help                this text
  --version                 print the version

EXIT CODES
  0  success
  1  a run failed (image not loaded, screenshot not written, a kernel failed)
  2  bad command line
  3  no display for the window: run with --headless
  4  --backend cuda asked for, but no usable CUDA device
)";
}

}  // namespace bs::app
