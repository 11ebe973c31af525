#include "shell/run_modes.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "device/cuda_device.hpp"
#include "gfx/interop.hpp"
#include "labs/grayscale/gray_bench.hpp"
#include "shell/app.hpp"
#include "shell/compute_session.hpp"
#include "shell/matmul_session.hpp"
#include "shell/matmul_bench_runner.hpp"

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

}  // namespace

int run_window(const CliOptions& options) {
  auto window = make_glfw_window(options.width, options.height, "blockscope");
  if (!window) {
    print_status("cannot open a window", window.status());
    return kExitNoDisplay;
  }
  auto session = open_for_window(options, **window);
  if (!session) return kExitNoBackend;
  auto app = App::create(**window, options, std::move(session.value()));
  if (!app) {
    print_status("cannot start", app.status());
    return kExitFailure;
  }
  while (!(*app)->should_close()) {
    (*app)->frame();
    (*app)->present();
  }
  return kExitOk;
}

int run_headless(const CliOptions& options) {
  auto window = make_headless_window(options.width, options.height, options.cuda_device);
  if (!window) {
    print_status("cannot create a headless OpenGL context", window.status());
    return kExitFailure;
  }
  auto session = open_for_window(options, **window);
  if (!session) return kExitNoBackend;
  auto app_r = App::create(**window, options, std::move(session.value()));
  if (!app_r) {
    print_status("cannot start", app_r.status());
    return kExitFailure;
  }
  App& app = *app_r.value();
  int exit_code = app.had_load_failure() ? kExitFailure : kExitOk;
  for (int f = 0; f < options.frames; ++f) {
    app.frame();
    if (f + 1 < options.frames) app.present();
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
  write(options.gray_out_path, "kernel output", &App::write_gray_output);
  write(options.schedule_json_path, "schedule", &App::write_schedule_json);
  app.present();

  const LaunchRecord& rec = app.last_launch();
  std::printf("backend: %s\n", app.backend_label().c_str());
  std::printf("gl: %s | %s | %s\n", (*window)->gl_renderer().c_str(), (*window)->gl_version().c_str(),
              (*window)->platform_description().c_str());
  std::printf("interop: %s\n", app.interop_mode().c_str());
  if (app.device_faulted()) std::printf("device fault: recovered on the CPU simulation\n");
  if (rec.ok() && !rec.kernel.empty())  // the matmul lab leaves the grayscale one unlaunched
    std::printf("launch: %s grid (%u, %u, %u) block (%u, %u, %u) %.4f ms (%s) %.1f GB/s\n", rec.kernel.c_str(),
                rec.config.grid.x, rec.config.grid.y, rec.config.grid.z, rec.config.block.x, rec.config.block.y,
                rec.config.block.z, rec.kernel_ms(), rec.timing.clock.c_str(), rec.gbytes_per_s());
  else if (!rec.kernel.empty()) {
    print_status("launch refused", rec.status);
    exit_code = kExitFailure;
  }
  if (const MatmulSession* mm = app.matmul_session()) {
    std::printf("%s\n", mm->summary_line().c_str());
    if (!mm->last_run_verified()) exit_code = kExitFailure;  // refused, failed or wrong
  } else if (options.state.lab == Lab::Matmul) {
    std::printf("matmul: the lab did not start (see the error below)\n");
    exit_code = kExitFailure;
  }
  for (const auto& m : app.messages().all())
    if (m.level != Message::Info)
      std::fprintf(stderr, "%s: %s%s%s\n", m.level == Message::Error ? "error" : "warning", m.text.c_str(),
                   m.detail.empty() ? "" : " - ", m.detail.c_str());
  return exit_code;
}

int run_bench(const CliOptions& options) {
  const BenchOptions& b = *options.bench;
  std::string json;
  if (b.what == "gray") {
    auto session = open_compute_session(options.backend, options.cuda_device, true);
    if (!session) {
      print_status("cannot use CUDA", session.status());
      return kExitNoBackend;
    }
    gray::GrayBenchSpec spec;
    spec.sizes = b.gray_sizes;
    spec.blocks = b.blocks;
    for (const auto& k : b.kernels) {
      auto id = gray::gray_kernel_from_key(k);
      if (!id) {
        std::fprintf(stderr, "blockscope: unknown grayscale kernel '%s' (1d, 2d)\n", k.c_str());
        return kExitUsage;
      }
      spec.kernels.push_back(*id);
    }
    spec.repeats = b.repeats;
    spec.warmup = b.warmup;
    gray::GrayBenchContext ctx{session->label, session->versions, session->copy_gbs};
    auto report = gray::run_gray_bench(*session->gray, spec, ctx);
    std::fputs(report.table.c_str(), stdout);
    json = report.json;
  } else {
    auto r = run_matmul_bench_command(options);
    if (!r) {
      print_status("matmul bench", r.status());
      return kExitFailure;
    }
    json = r.value();
  }
  if (b.json_path.empty()) {
    std::fputs(json.c_str(), stdout);
  } else {
    std::ofstream out(b.json_path, std::ios::binary);
    out << json;
    if (!out) {
      std::fprintf(stderr, "blockscope: cannot write %s\n", b.json_path.c_str());
      return kExitFailure;
    }
    std::printf("wrote %s\n", b.json_path.c_str());
  }
  return kExitOk;
}

}  // namespace bs::app
