#include "shell/run_modes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <thread>

#include "core/launch_counters.hpp"
#include "device/cuda_device.hpp"
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

void print_status(const char* what, const Status& s) {
  std::fprintf(stderr, "blockscope: %s: %s\n", what, s.message.c_str());
  if (!s.call.empty() || !s.code.empty())
    std::fprintf(stderr, "  (%s%s%s)\n", s.call.c_str(), s.call.empty() || s.code.empty() ? "" : ": ", s.code.c_str());
  if (!s.hint.empty()) std::fprintf(stderr, "  hint: %s\n", s.hint.c_str());
}

// The CUDA device to compute on: the user's choice, else the one driving the GL context, so
// interop can be zero-copy.
int choose_device(const CliOptions& options, Window& window) {
  if (options.cuda_device >= 0) return options.cuda_device;
  if (window.egl_cuda_device() >= 0) return window.egl_cuda_device();
  auto gl_devices = cuda_devices_for_current_gl_context();
  if (gl_devices && !gl_devices->empty()) return gl_devices->front();
  return -1;
}

Result<ComputeSession> open_for_window(const CliOptions& options, Window& window) {
  auto session = open_compute_session(options.backend, choose_device(options, window), true);
  if (!session) print_status("cannot use CUDA", session.status());
  return session;
}

// A start that failed on what a flag named (--kernel, --lab) is a bad command line.
int start_failure_exit(const Status& s) { return s.call.rfind("--", 0) == 0 ? kExitUsage : kExitFailure; }

}  // namespace

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
  // The PC sampler before the first launch, so it keeps every kernel's cubin (the Source tab).
  sampling::SamplerHandle sampling =
      sampling::keep_cubins(options.backend != BackendChoice::Cpu, options.cupti_library);
  auto session = open_for_window(options, **window);
  if (!session) return kExitNoBackend;
  auto app = App::create(**window, options, std::move(session.value()), std::move(catalog), std::move(sampling));
  if (!app) {
    print_status("cannot start", app.status());
    return start_failure_exit(app.status());
  }
  while (!(*app)->should_close()) {
    (*app)->wait_for_next_frame();  // asleep in the event loop while nothing changes
    (*app)->frame();
    (*app)->present();
  }
  return kExitOk;
}

int run_headless(const CliOptions& options, LabCatalog catalog) {
  auto window = make_headless_window(options.width, options.height, options.cuda_device);
  if (!window) {
    print_status("cannot create a headless OpenGL context", window.status());
    return kExitFailure;
  }
  sampling::SamplerHandle sampling =
      sampling::keep_cubins(options.backend != BackendChoice::Cpu, options.cupti_library);
  auto session = open_for_window(options, **window);
  if (!session) return kExitNoBackend;
  auto app_r = App::create(**window, options, std::move(session.value()), std::move(catalog), std::move(sampling));
  if (!app_r) {
    print_status("cannot start", app_r.status());
    return start_failure_exit(app_r.status());
  }
  App& app = *app_r.value();
  int exit_code = app.had_load_failure() ? kExitFailure : kExitOk;
  // A --kernel-file compiles and runs its first launch off the UI thread: the frames keep coming
  // meanwhile (an endless kernel is stopped at its time limit while the app stays responsive).
  int frames_waiting = 0;
  double longest_frame_ms = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (app.busy() && std::chrono::steady_clock::now() < deadline) {
    const auto t0 = std::chrono::steady_clock::now();
    app.frame();
    app.present();
    // The first frame warms up GL (a software renderer compiles its shaders then): not counted.
    if (frames_waiting++ > 0)
      longest_frame_ms = std::max(
          longest_frame_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  // --sweep: the same frames a window would draw while the sweep measures (the window's pacing,
  // shell/frame_pacer.hpp: progress once a second, so the UI does not compete with the sweep),
  // each timed: the longest says whether the UI stayed live.
  if (options.sweep) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    double longest = 0;
    int frames = 0, over_50 = 0;
    while (app.sweeping()) {
      const auto f0 = Clock::now();
      app.frame();
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - f0).count();
      app.present();
      if (frames > 0) longest = std::max(longest, ms);  // the first frame opens the lab
      over_50 += frames > 0 && ms > 50;
      ++frames;
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(1.0, app.idle_wait_s())));
    }
    std::printf("sweep frames: %d in %.2f s, longest %.1f ms, %d over 50 ms\n", frames,
                std::chrono::duration<double>(Clock::now() - start).count(), longest, over_50);
  }
  // --profile: frames go on (the window's own pace) until the profile is on screen, 2 minutes
  // at most; the outputs then show it.
  const auto started = std::chrono::steady_clock::now();
  auto waiting_for_profile = [&] {
    if (!app.profile_pending() && !app.source_pending()) return false;
    if (std::chrono::steady_clock::now() - started < std::chrono::minutes(2)) return true;
    std::fprintf(stderr, "blockscope: --profile: no profile was shown within 2 minutes\n");
    exit_code = kExitFailure;
    return false;
  };
  for (int f = 0;; ++f) {
    app.frame();
    const bool more = f + 1 < options.frames || waiting_for_profile();
    if (!more) break;
    app.present();
    if (f + 1 >= options.frames) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Outputs come from the last frame, before it is presented.
  auto write = [&](const std::string& path, const char* what, Status (App::*fn)(const std::filesystem::path&)) {
    if (path.empty()) return;
    if (Status s = (app.*fn)(path); !s) {
      print_status(what, s);
      exit_code = kExitFailure;
    } else {
      std::printf("wrote %s: %s\n", what, path.c_str());
    }
  };
  write(options.screenshot_path, "screenshot", &App::write_screenshot);
  // --json / --csv: the sweep (with --sweep) or the last launch, through the one writer.
  auto export_file = [&](const std::string& path, ExportWhat what, const char* label) {
    if (path.empty()) return;
    if (Status s = app.export_to(what, path); !s) {
      print_status(label, s);
      exit_code = kExitFailure;
    } else {
      std::printf("wrote %s: %s\n", label, path.c_str());
    }
  };
  export_file(options.json_path, options.sweep ? ExportWhat::SweepJson : ExportWhat::LaunchJson, "json");
  export_file(options.csv_path, options.sweep ? ExportWhat::SweepCsv : ExportWhat::LaunchCsv, "csv");
  write(options.output_path, "output", &App::write_output);
  write(options.schedule_json_path, "schedule", &App::write_schedule_json);
  app.present();

  std::printf("lab: %s\n", app.lab_id().c_str());
  std::printf("backend: %s\n", app.backend_label().c_str());
  std::printf("gl: %s | %s | %s\n", (*window)->gl_renderer().c_str(), (*window)->gl_version().c_str(),
              (*window)->platform_description().c_str());
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
      if (!r->fault.ok()) exit_code = kExitFailure;
    } else {
      std::printf("sweep: none ran\n");
      exit_code = kExitFailure;
    }
  }
  const LaunchRecord& rec = app.last_launch();
  if (rec.kernel.empty() || !rec.ok() || rec.check.failed()) exit_code = kExitFailure;  // refused, failed, wrong
  if (!options.kernel_file.empty()) {
    const editor::KernelFileOutcome& k = app.kernel_file_outcome();
    std::string build = k.build;
    for (std::size_t at = build.find('\n'); at != std::string::npos; at = build.find('\n', at + 3))
      build.replace(at, 1, "\n  ");
    std::printf(
        "kernel file: %s\n  %s\n%s%s  (%d frames drawn while it compiled and ran; the longest after the first %.0f "
        "ms)\n",
        options.kernel_file.c_str(), k.done ? k.message.c_str() : "did not finish", build.empty() ? "" : "  ",
        build.empty() ? "" : (build + "\n").c_str(), frames_waiting, longest_frame_ms);
    if (!k.done || !k.ok) {
      std::fprintf(stderr, "blockscope: %s: %s\n", options.kernel_file.c_str(),
                   k.done ? k.message.c_str() : "the compile did not finish");
      exit_code = kExitFailure;
    }
  }
  // --profile-lines: what the Source tab shows, in one line (the GPU checks read it).
  if (options.profile_lines) {
    const LaunchRecord& shown = app.shown_launch();
    if (auto p = app.source_tab().profile_of(shown)) {
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
      for (std::size_t i = 0; i < p->lines.size() && i < 3; ++i) {
        const LineSamples& l = p->lines[i];
        const auto slash = l.file.rfind('/');
        std::printf("%s %s:%d %.1f%% (%s)", i ? ";" : "; top",
                    (slash == std::string::npos ? l.file : l.file.substr(slash + 1)).c_str(), l.line, l.share_pct,
                    l.stalls.empty() ? "-" : l.stalls.front().reason.c_str());
      }
      std::printf("\n");
    }
  }
  // What to do, not where it came from (a call and its code are for bug reports).
  for (const auto& m : app.messages().all())
    if (m.level != Message::Info) {
      const std::string& more = m.hint.empty() && m.where.empty() ? m.detail : m.hint;
      std::fprintf(stderr, "%s: %s%s%s\n", m.level == Message::Error ? "error" : "warning", m.text.c_str(),
                   more.empty() ? "" : " - ", more.c_str());
    }
  return exit_code;
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
      for (const auto& c : problem.ceilings) {
        bool have = false;
        for (const auto& h : header.ceilings) have |= h.name == c.name && h.problem == c.problem;
        if (!have) header.ceilings.push_back(c);
      }
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
      if (b.lines)
        for (LaunchRecord& r : got) {
          if (!r.ok()) continue;
          Status why = measured::lines_refusal(l, r.kernel);
          Result<LineProfile> p =
              why ? measured::profile_lines(l, r.kernel, r.request, sampling) : Result<LineProfile>(why);
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
            for (std::size_t i = 0; i < r.lines->lines.size() && i < 3; ++i) {
              const LineSamples& ls = r.lines->lines[i];
              const std::size_t slash = ls.file.rfind('/');
              std::fprintf(text, "%s %s:%d %.1f%% (%s)", i ? ";" : ",",
                           (slash == std::string::npos ? ls.file : ls.file.substr(slash + 1)).c_str(), ls.line,
                           ls.share_pct, ls.stalls.empty() ? "-" : ls.stalls.front().reason.c_str());
            }
            std::fputc('\n', text);
          } else if (said.insert(r.lines->status.message).second) {
            print_status(("lines (" + r.kernel + ")").c_str(), r.lines->status);
          }
          std::fflush(text);
        }
      records.insert(records.end(), got.begin(), got.end());
      // Settings may swap the kernel list (matmul precision): the report knows every kernel run.
      for (const auto& k : l.kernels())
        if (std::none_of(kernels.begin(), kernels.end(), [&](const lab::KernelInfo& o) { return o.id == k.id; }))
          kernels.push_back(k);
    }
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
