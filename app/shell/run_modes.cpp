#include "shell/run_modes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <thread>

#include "core/launch_counters.hpp"
#include "core/timing.hpp"
#include "device/cuda_device.hpp"
#include "device/sm_clock.hpp"
#include "editor/kernel_files.hpp"
#include "gfx/interop.hpp"
#include "lab/bench.hpp"
#include "lab/report.hpp"
#include "measured/bench_counters.hpp"
#include "measured/profile_lines.hpp"
#include "sampling/pc_sampler.hpp"
#include "lab/sweep.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"

namespace bs::app {
namespace {

using Clock = std::chrono::steady_clock;

// The CUDA device to compute on: the user's choice, else the one driving the GL context, so
// interop can be zero-copy.
int choose_device(const CliOptions& options, Window& window) {
  if (options.cuda_device >= 0) return options.cuda_device;
  if (window.egl_cuda_device() >= 0) return window.egl_cuda_device();
  auto gl_devices = cuda_devices_for_current_gl_context();
  if (gl_devices && !gl_devices->empty()) return gl_devices->front();
  return -1;
}

// A start that failed on what a flag named (--kernel, --lab) is a bad command line.
int start_failure_exit(const Status& s) { return s.call.rfind("--", 0) == 0 ? kExitUsage : kExitFailure; }

// The App on a window (GLFW or EGL), or null with *exit_code set and the reason printed.
std::unique_ptr<App> start_app(const CliOptions& options, Window& window, LabCatalog catalog, int* exit_code) {
  // The PC sampler before the first launch, so it keeps every kernel's cubin (the Source tab).
  sampling::SamplerHandle sampling =
      sampling::keep_cubins(options.backend != BackendChoice::Cpu, options.cupti_library);
  auto session = open_compute_session(options.backend, choose_device(options, window), true);
  if (!session) {
    print_status("cannot use CUDA", session.status());
    *exit_code = kExitNoBackend;
    return nullptr;
  }
  auto app = App::create(window, options, std::move(session.value()), std::move(catalog), std::move(sampling));
  if (!app) {
    print_status("cannot start", app.status());
    *exit_code = start_failure_exit(app.status());
    return nullptr;
  }
  return std::move(app.value());
}

// The three lines that took the most of a line profile, each as "file.cu:12 40.0% (first stall)",
// the first after `lead`, the others after ";".
void print_top_lines(FILE* out, const LineProfile& p, const char* lead) {
  for (std::size_t i = 0; i < p.lines.size() && i < 3; ++i) {
    const LineSamples& l = p.lines[i];
    std::fprintf(out, "%s %s:%d %.1f%% (%s)", i ? ";" : lead, std::filesystem::path(l.file).filename().c_str(), l.line,
                 l.share_pct, l.stalls.empty() ? "-" : l.stalls.front().reason.c_str());
  }
}

// Frames drawn while the app was busy, and the longest of them after the first.
struct BusyFrames {
  int frames = 0;
  double longest_ms = 0;
};

// A --kernel-file compiles and runs its first launch off the UI thread: the frames keep coming
// meanwhile (an endless kernel is stopped at its time limit while the app stays responsive).
BusyFrames frames_while_busy(App& app) {
  BusyFrames out;
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  while (app.busy() && Clock::now() < deadline) {
    const auto t0 = Clock::now();
    app.frame();
    app.present();
    // The first frame warms up GL (a software renderer compiles its shaders then): not counted.
    if (out.frames++ > 0) out.longest_ms = std::max(out.longest_ms, ms_since(t0));
  }
  return out;
}

// --sweep: the same frames a window would draw while the sweep measures (the window's pacing,
// shell/frame_pacer.hpp: progress once a second, so the UI does not compete with the sweep),
// each timed: the longest says whether the UI stayed live.
void frames_while_sweeping(App& app) {
  const auto start = Clock::now();
  double longest = 0;
  int frames = 0, over_50 = 0;
  while (app.sweeping()) {
    const auto f0 = Clock::now();
    app.frame();
    const double ms = ms_since(f0);
    app.present();
    if (frames > 0) longest = std::max(longest, ms);  // the first frame opens the lab
    over_50 += frames > 0 && ms > 50;
    ++frames;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(1.0, app.idle_wait_s())));
  }
  std::printf("sweep frames: %d in %.2f s, longest %.1f ms, %d over 50 ms\n", frames,
              std::chrono::duration<double>(Clock::now() - start).count(), longest, over_50);
}

// --frames N, and with --profile frames go on (the window's own pace) until the profile is on
// screen, 2 minutes at most. The last frame is drawn and not presented: the outputs come from
// it. False when the profile never showed.
bool frames_until_shown(App& app, int frames) {
  const auto started = Clock::now();
  bool shown = true;
  auto waiting_for_profile = [&] {
    if (!app.profile_pending() && !app.source_pending()) return false;
    if (Clock::now() - started < std::chrono::minutes(2)) return true;
    std::fprintf(stderr, "blockscope: --profile: no profile was shown within 2 minutes\n");
    shown = false;
    return false;
  };
  for (int f = 0;; ++f) {
    app.frame();
    const bool more = f + 1 < frames || waiting_for_profile();
    if (!more) break;
    app.present();
    if (f + 1 >= frames) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return shown;
}

// One output file: nothing when no path was asked for, else "wrote" or the reason. False when
// it could not be written.
bool write_output(const std::string& path, const char* what,
                  const std::function<Status(const std::filesystem::path&)>& write) {
  if (path.empty()) return true;
  if (Status s = write(path); !s) {
    print_status(what, s);
    return false;
  }
  std::printf("wrote %s: %s\n", what, path.c_str());
  return true;
}

// The outputs asked for, from the last frame before it is presented. False when one failed.
bool write_outputs(App& app, const CliOptions& options) {
  bool ok = write_output(options.screenshot_path, "screenshot",
                         [&](const std::filesystem::path& p) { return app.write_screenshot(p); });
  // --json / --csv: the sweep (with --sweep) or the last launch, through the one writer.
  const ExportWhat json = options.sweep ? ExportWhat::SweepJson : ExportWhat::LaunchJson;
  const ExportWhat csv = options.sweep ? ExportWhat::SweepCsv : ExportWhat::LaunchCsv;
  ok &= write_output(options.json_path, "json", [&](const std::filesystem::path& p) { return app.export_to(json, p); });
  ok &= write_output(options.csv_path, "csv", [&](const std::filesystem::path& p) { return app.export_to(csv, p); });
  ok &=
      write_output(options.output_path, "output", [&](const std::filesystem::path& p) { return app.write_output(p); });
  ok &= write_output(options.schedule_json_path, "schedule",
                     [&](const std::filesystem::path& p) { return app.write_schedule_json(p); });
  return ok;
}

// --kernel-file: what became of it, its build log indented, and the frames drawn meanwhile.
// False when it did not finish or failed.
bool print_kernel_file(const App& app, const std::string& kernel_file, const BusyFrames& busy) {
  const editor::KernelFileOutcome& k = app.kernel_file_outcome();
  std::string build = k.build;
  for (std::size_t at = build.find('\n'); at != std::string::npos; at = build.find('\n', at + 3))
    build.replace(at, 1, "\n  ");
  std::printf(
      "kernel file: %s\n  %s\n%s%s  (%d frames drawn while it compiled and ran; the longest after the first %.0f "
      "ms)\n",
      kernel_file.c_str(), k.done ? k.message.c_str() : "did not finish", build.empty() ? "" : "  ",
      build.empty() ? "" : (build + "\n").c_str(), busy.frames, busy.longest_ms);
  if (k.done && k.ok) return true;
  std::fprintf(stderr, "blockscope: %s: %s\n", kernel_file.c_str(),
               k.done ? k.message.c_str() : "the compile did not finish");
  return false;
}

// --profile-lines: what the Source tab shows, in one line (the GPU checks read it).
void print_profile_lines(App& app) {
  const LaunchRecord& shown = app.shown_launch();
  auto p = app.source_tab().profile_of(shown);
  if (!p) return;
  if (p->measure == LineMeasure::Executions)
    std::printf(
        "lines: %s [%s] %lld line executions counted in %lld launch (CPU simulator, gcov); %.3f s from "
        "the request to the table",
        shown.kernel.c_str(), shown.config_label.c_str(), p->total_samples, p->launches,
        app.source_tab().last_request_to_table_s());
  else
    std::printf("lines: %s [%s] %lld samples in %lld launches, %lld dropped; %.3f s from the request to the table",
                shown.kernel.c_str(), shown.config_label.c_str(), p->total_samples, p->launches, p->dropped_samples,
                app.source_tab().last_request_to_table_s());
  print_top_lines(stdout, *p, "; top");
  std::printf("\n");
}

// What the headless run ended with: the lab, the backend, GL, interop, where the frames' time
// went, the sweep, the kernel file, the line profile and the warnings. False when the run failed.
bool print_headless_report(App& app, Window& window, const CliOptions& options, const BusyFrames& busy) {
  bool ok = true;
  std::printf("lab: %s\n", app.lab_id().c_str());
  std::printf("backend: %s\n", app.backend_label().c_str());
  std::printf("gl: %s | %s | %s\n", window.gl_renderer().c_str(), window.gl_version().c_str(),
              window.platform_description().c_str());
  std::printf("interop: %s\n", app.interop_mode().c_str());
  // Where each frame's time went (shell/frame_phases.hpp): budgets.json's frame figures name the
  // phase that grew.
  if (const std::string phases = app.frame_phases().summary(); !phases.empty())
    std::printf("frame phases (ms): %s\n", phases.c_str());
  if (const std::string steps = app.frame_phases().launch_summary(); !steps.empty())
    std::printf("launch steps: %s\n", steps.c_str());
  if (app.device_faulted()) std::printf("device fault: recovered on the CPU simulation\n");
  std::printf("%s\n", app.summary().c_str());
  if (options.sweep) {
    if (const lab::SweepResult* r = app.sweep_result()) {
      std::fputs(lab::sweep_summary(*r).c_str(), stdout);
      ok &= r->fault.ok();
    } else {
      std::printf("sweep: none ran\n");
      ok = false;
    }
  }
  const LaunchRecord& rec = app.last_launch();
  if (rec.kernel.empty() || !rec.ok() || rec.check.failed()) ok = false;  // refused, failed, wrong
  if (!options.kernel_file.empty()) ok &= print_kernel_file(app, options.kernel_file, busy);
  if (options.profile_lines) print_profile_lines(app);
  // What to do, not where it came from (a call and its code are for bug reports).
  for (const auto& m : app.messages().all())
    if (m.level != Message::Info) {
      const std::string& more = m.hint.empty() && m.where.empty() ? m.detail : m.hint;
      std::fprintf(stderr, "%s: %s%s%s\n", m.level == Message::Error ? "error" : "warning", m.text.c_str(),
                   more.empty() ? "" : " - ", more.c_str());
    }
  return ok;
}

// bench --lines: each record that ran gains its line profile (or the reason, said once), and a
// line with its top lines.
void profile_lines_of(lab::Lab& l, std::vector<LaunchRecord>& records, const sampling::SamplerHandle& sampling,
                      FILE* text, std::set<std::string>& said) {
  for (LaunchRecord& r : records) {
    if (!r.ok()) continue;
    Status why = measured::lines_refusal(l, r.kernel);
    Result<LineProfile> p = why ? measured::profile_lines(l, r.kernel, r.request, sampling) : Result<LineProfile>(why);
    r.lines = std::make_shared<const LineProfile>(p ? std::move(p).value()
                                                    : measured::lines_unavailable(p.status(), r.kernel));
    if (r.lines->ok()) {
      if (r.lines->measure == LineMeasure::Executions)
        std::fprintf(text, "  %-18s %-34s lines: %lld line executions counted (CPU simulator, gcov), %.0f ms",
                     r.kernel.c_str(), r.config_label.c_str(), r.lines->total_samples, r.lines->profile_ms);
      else
        std::fprintf(text, "  %-18s %-34s lines: %lld samples in %lld launches, %lld dropped, %.0f ms",
                     r.kernel.c_str(), r.config_label.c_str(), r.lines->total_samples, r.lines->launches,
                     r.lines->dropped_samples, r.lines->profile_ms);
      print_top_lines(text, *r.lines, ",");
      std::fputc('\n', text);
    } else if (said.insert(r.lines->status.message).second) {
      print_status(("lines (" + r.kernel + ")").c_str(), r.lines->status);
    }
    std::fflush(text);
  }
}

}  // namespace

void print_status(const char* what, const Status& s) {
  std::fprintf(stderr, "blockscope: %s: %s\n", what, s.message.c_str());
  if (!s.call.empty() || !s.code.empty())
    std::fprintf(stderr, "  (%s%s%s)\n", s.call.c_str(), s.call.empty() || s.code.empty() ? "" : ": ", s.code.c_str());
  if (!s.hint.empty()) std::fprintf(stderr, "  hint: %s\n", s.hint.c_str());
}

std::vector<LabFlags> lab_flags(const LabCatalog& catalog) {
  std::vector<LabFlags> out;
  for (const LabEntry& e : catalog) out.push_back({e.id, e.title, e.options});
  return out;
}

int run_window(const CliOptions& options, LabCatalog catalog) {
  auto window = make_glfw_window(options.width, options.height, "blockscope");
  if (!window) {
    print_status("cannot open a window", window.status());
    return kExitNoDisplay;
  }
  int exit_code = kExitOk;
  auto app = start_app(options, **window, std::move(catalog), &exit_code);
  if (!app) return exit_code;
  while (!app->should_close()) {
    app->wait_for_next_frame();  // asleep in the event loop while nothing changes
    app->frame();
    app->present();
  }
  return kExitOk;
}

int run_headless(const CliOptions& options, LabCatalog catalog) {
  auto window = make_headless_window(options.width, options.height, options.cuda_device);
  if (!window) {
    print_status("cannot create a headless OpenGL context", window.status());
    return kExitFailure;
  }
  int exit_code = kExitOk;
  auto app = start_app(options, **window, std::move(catalog), &exit_code);
  if (!app) return exit_code;
  bool ok = !app->had_load_failure();
  const BusyFrames busy = frames_while_busy(*app);
  if (options.sweep) frames_while_sweeping(*app);
  ok &= frames_until_shown(*app, options.frames);
  ok &= write_outputs(*app, options);
  app->present();
  ok &= print_headless_report(*app, **window, options, busy);
  return ok ? kExitOk : kExitFailure;
}

std::variant<CommandLab, int> open_command_lab(const CliOptions& options, const LabCatalog& catalog) {
  const BenchOptions& b = *options.bench;
  const LabEntry* entry = nullptr;
  for (const LabEntry& e : catalog)
    if (e.id == b.lab) entry = &e;
  if (!entry) {
    std::fprintf(stderr, "blockscope: no lab '%s'\n", b.lab.c_str());
    return kExitUsage;
  }
  auto session = open_compute_session(options.backend, options.cuda_device, true);
  if (!session) {
    print_status("cannot use CUDA", session.status());
    return kExitNoBackend;
  }
  auto lab = entry->make_lab(session->backend);
  if (!lab) {
    print_status("cannot open the lab", lab.status());
    return kExitFailure;
  }
  // --kernel-file: the user's kernel joins the lab's kernels, timed and verified beside them.
  if (!options.kernel_file.empty()) {
    std::string diagnostics;
    auto id = editor::install_kernel_file(*lab.value(), options.kernel_file, options.kernel_time_limit_s, &diagnostics);
    std::fputs(diagnostics.c_str(), stderr);
    if (!id) {
      print_status("kernel file", id.status());
      return kExitFailure;
    }
    // bench and sweep without --json keep stdout for the JSON alone.
    std::fprintf(b.json_path.empty() ? stderr : stdout, "kernel file: %s compiled as %s\n", options.kernel_file.c_str(),
                 id->c_str());
  }
  return CommandLab{std::move(session.value()), std::move(lab.value())};
}

int check_kernels_named(lab::Lab& lab, const std::string& lab_id, const std::vector<lab::SettingCombo>& combos,
                        const std::function<std::vector<std::string>(const lab::Lab&)>& unknown_in) {
  std::vector<std::string> unknown_everywhere;
  std::vector<std::string> have;  // every combination's kernels, in order, once each
  bool first = true;
  for (const lab::SettingCombo& combo : combos) {
    for (const auto& [key, value] : combo)
      if (Status st = lab.set_setting(key, value); !st) return kExitUsage;  // checked by setting_combinations
    std::vector<std::string> unknown = unknown_in(lab);
    if (first) unknown_everywhere = unknown;
    else
      std::erase_if(unknown_everywhere, [&](const std::string& k) {
        return std::find(unknown.begin(), unknown.end(), k) == unknown.end();
      });
    first = false;
    for (const auto& k : lab.kernels())
      if (std::find(have.begin(), have.end(), k.id) == have.end()) have.push_back(k.id);
  }
  if (unknown_everywhere.empty()) return 0;
  std::string list;
  for (const auto& k : have) list += " " + k;
  std::fprintf(stderr, "blockscope: the %s lab has no kernel '%s'%s; it has:%s\n", lab_id.c_str(),
               unknown_everywhere.front().c_str(),
               combos.size() > 1 || (!combos.empty() && !combos.front().empty()) ? " with these settings" : "",
               list.c_str());
  return kExitUsage;
}

void add_new_ceilings(std::vector<lab::Ceiling>& into, const std::vector<lab::Ceiling>& from) {
  for (const lab::Ceiling& c : from)
    if (std::none_of(into.begin(), into.end(),
                     [&](const lab::Ceiling& h) { return h.name == c.name && h.problem == c.problem; }))
      into.push_back(c);
}

int run_bench(const CliOptions& options, const LabCatalog& catalog) {
  const BenchOptions& b = *options.bench;
  // --lines: the sampler before the lab, so it keeps the cubin of every module the lab loads (a
  // sample's source line comes from its cubin's line table).
  const sampling::SamplerHandle sampling =
      b.lines ? sampling::keep_cubins(options.backend != BackendChoice::Cpu, options.cupti_library)
              : sampling::SamplerHandle{};
  auto opened = open_command_lab(options, catalog);
  if (const int* code = std::get_if<int>(&opened)) return *code;
  CommandLab& command = std::get<CommandLab>(opened);
  const ComputeSession& session = command.session;
  lab::Lab& l = *command.lab;
  lab::BenchSpec spec;
  spec.kernels = b.kernels;
  spec.blocks = b.blocks;
  spec.timing = TimingPolicy::fixed(b.repeats, b.warmup);
  spec.timing.flush_l2 = b.flush_l2 && session.backend.kind == BackendKind::Cuda;
  std::vector<LaunchRecord> records;
  lab::ResultsHeader header;
  header.kind = "bench";
  header.lab = b.lab;
  header.backend = to_string(session.backend.kind);
  header.device = session.backend.label;
  header.versions = session.backend.versions;
  header.policy = spec.timing;
  header.limits = session.backend.limits;
  // --set KEY=V1,V2: every combination of the values asked for, checked against the lab's own.
  // Settings not named run every choice (bench gray: both layouts).
  auto combos_r = lab::setting_combinations(l, options.settings, true);
  if (!combos_r) {
    print_status("--set", combos_r.status());
    return kExitUsage;
  }
  const std::vector<lab::SettingCombo>& combos = combos_r.value();
  if (int code = check_kernels_named(l, b.lab, combos, [&](const lab::Lab& at) {
        std::vector<std::string> unknown;
        lab::bench_points(at, spec, &unknown);
        return unknown;
      }))
    return code;
  bool failed = false;
  // Without --json the JSON goes to stdout, alone, so a pipe can parse it; the progress, the
  // table and the notes then go to stderr.
  FILE* text = b.json_path.empty() ? stderr : stdout;
  // --counters: one session for the whole bench; each result gains its counters or the reason.
  std::optional<measured::BenchCounters> with_counters;
  if (b.counters) with_counters.emplace(counters::CounterOptions{.cupti_library = options.cupti_library});
  std::set<std::string> said;
  std::vector<lab::KernelInfo> kernels;  // every kernel the combinations listed
  // The SM clock (device/sm_clock.hpp: measured by a spin on one SM, not asked of the driver)
  // before the first size and after each one's points, while the GPU is still as warm and as
  // power-capped as the kernels left it: the figures ran at about these clocks.
  const bool gpu = session.backend.kind == BackendKind::Cuda;
  auto say_clock = [&](const std::string& when, double* into) {
    if (!gpu) return;
    if (auto c = measure_sm_clock(session.backend.cuda_device)) {
      *into = c->mhz;
      std::fprintf(text, "SM clock %s: %.0f MHz (%s)\n", when.c_str(), c->mhz, c->method.c_str());
    } else {
      std::fprintf(text, "SM clock %s: not measured: %s\n", when.c_str(), c.status().describe().c_str());
    }
    std::fflush(text);
  };
  say_clock("before the first kernel", &header.clock_mhz_before);
  for (const std::string& size : b.sizes.empty() ? l.default_sizes() : b.sizes) {
    if (Status s = l.set_random_problem(size); !s) {
      print_status(("size " + size).c_str(), s);
      return kExitUsage;
    }
    for (const auto& combo : combos) {
      for (const auto& [key, value] : combo)
        if (Status st = l.set_setting(key, value); !st) {
          print_status("--set", st);
          return kExitUsage;
        }
      const lab::ProblemInfo problem = l.problem();
      std::fprintf(text, "%s: %s\n", b.lab.c_str(), problem.summary.c_str());
      std::fflush(text);
      add_new_ceilings(header.ceilings, problem.ceilings);
      auto got = lab::run_bench(l, spec, [&](const LaunchRecord& r) {
        std::fprintf(text, "  %-18s %-34s %s\n", r.kernel.c_str(), r.config_label.c_str(),
                     r.ok() ? (std::to_string(r.timing.median_ms) + " ms, " + r.check.summary()).c_str()
                            : (std::string(lab::outcome(r)) + ": " + r.status.message).c_str());
        std::fflush(text);
        if (r.check.failed() || (!r.ok() && !r.refused)) failed = true;
      });
      if (with_counters)
        with_counters->attach(l, got, [&](const LaunchRecord& r) {
          if (!r.counters) return;
          const LaunchCounters& c = *r.counters;
          if (c.measured())
            std::fprintf(text, "  %-18s %-34s counters: %s\n", r.kernel.c_str(), r.config_label.c_str(),
                         lab::counters_summary(c).c_str());
          else if (said.insert(c.status.message).second)  // each reason once, not per record
            print_status(("counters (" + r.kernel + ")").c_str(), c.status);
          std::fflush(text);
        });
      if (b.lines) profile_lines_of(l, got, sampling, text, said);
      records.insert(records.end(), got.begin(), got.end());
      // Settings may swap the kernel list (matmul precision): the report knows every kernel run.
      for (const auto& k : l.kernels())
        if (std::none_of(kernels.begin(), kernels.end(), [&](const lab::KernelInfo& o) { return o.id == k.id; }))
          kernels.push_back(k);
    }
    say_clock("after the " + size + " points", &header.clock_mhz_after);
  }
  const ThroughputUnit unit = l.problem().throughput_unit;
  std::fputs(lab::results_table(header, records, unit, kernels).c_str(), text);
  const std::string json = lab::results_json(header, records, unit, kernels);
  if (b.json_path.empty()) {
    std::fputs(json.c_str(), stdout);
  } else if (Status s = lab::write_text_file(b.json_path, json); !s) {
    print_status("json", s);
    return kExitFailure;
  } else {
    std::printf("wrote %s\n", b.json_path.c_str());
  }
  if (!b.csv_path.empty()) {
    if (Status s = lab::write_text_file(b.csv_path,
                                        lab::results_csv(records, header.ceilings, unit, l.kernels(), &*header.limits));
        !s) {
      print_status("csv", s);
      return kExitFailure;
    }
    std::fprintf(text, "wrote %s\n", b.csv_path.c_str());
  }
  if (failed) {
    std::fprintf(stderr, "blockscope: a kernel failed or gave a wrong result (see the table)\n");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace bs::app
