// What EGL's device platform offers on this machine (EGL_EXT_device_enumeration), so headless
// mode can put its GL context on the GPU that CUDA uses and so bs_egl_probe can print it.
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"

namespace bs {

struct EglDeviceInfo {
  int index = -1;          // position in eglQueryDevicesEXT's list
  std::string extensions;  // the device's extension string
  std::string drm_file;    // EGL_DRM_DEVICE_FILE_EXT, e.g. "/dev/dri/card0"; empty if none
  int cuda_device = -1;    // EGL_CUDA_DEVICE_NV: the CUDA ordinal of an NVIDIA device; -1 if none
  bool nvidia() const { return cuda_device >= 0; }
  bool software() const { return extensions.find("EGL_MESA_device_software") != std::string::npos; }
  std::string describe() const;  // one line, e.g. "EGL device 0: NVIDIA (CUDA device 0)"
};

// EGL's client extension string (eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS)); empty when
// EGL itself is missing.
std::string egl_client_extensions();

// The EGL devices, or a Status when the device platform is not available.
Result<std::vector<EglDeviceInfo>> enumerate_egl_devices();

}  // namespace bs
