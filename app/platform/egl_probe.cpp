// bs_egl_probe: what would headless mode run on here, and could CUDA write into its GL?
//
//   bs_egl_probe [preferred_cuda_device]
//
// Prints EGL's client extensions, the EGL devices (with their CUDA ordinals where the NVIDIA
// driver reports them), the platform make_headless_window chose, the GL renderer and version,
// and the CUDA devices cudaGLGetDevices finds for the context. Exit status 0 when a context
// was made, 1 otherwise.
#include <cstdio>
#include <cstdlib>

#include "gfx/interop.hpp"
#include "platform/egl_devices.hpp"
#include "platform/window.hpp"

int main(int argc, char** argv) {
  const int preferred = argc > 1 ? std::atoi(argv[1]) : -1;

  std::printf("EGL client extensions: %s\n", bs::egl_client_extensions().c_str());
  auto devices = bs::enumerate_egl_devices();
  if (devices) {
    std::printf("EGL devices: %zu\n", devices->size());
    for (const auto& d : devices.value()) {
      std::printf("  %s\n    extensions: %s\n", d.describe().c_str(), d.extensions.c_str());
    }
  } else {
    std::printf("EGL devices: unavailable: %s\n", devices.status().describe().c_str());
  }

  auto window = bs::make_headless_window(64, 64, preferred);
  if (!window) {
    std::printf("headless context: FAILED: %s\n", window.status().describe().c_str());
    return 1;
  }
  std::printf("chosen platform: %s\n", window.value()->platform_description().c_str());
  std::printf("EGL CUDA device: %d\n", window.value()->egl_cuda_device());
  std::printf("GL renderer: %s\n", window.value()->gl_renderer().c_str());
  std::printf("GL version: %s\n", window.value()->gl_version().c_str());

  auto cuda = bs::cuda_devices_for_current_gl_context();
  if (cuda) {
    std::printf("cudaGLGetDevices: %zu device(s):", cuda->size());
    for (int d : cuda.value()) std::printf(" %d", d);
    std::printf("%s\n", cuda->empty() ? " (interop impossible: GL is not on a CUDA device)" : "");
  } else {
    std::printf("cudaGLGetDevices: %s\n", cuda.status().describe().c_str());
  }
  return 0;
}
