// Headless mode: an OpenGL 3.3 core context from EGL (through libepoxy) drawing into an FBO.
//
// Why EGL directly and not GLFW: GLFW's null platform cannot give a GL context on the NVIDIA
// machines, and only EGL's device platform lets us choose *which* GPU the context lives on. For
// CUDA-GL interop that GPU must be the CUDA device, and EGL_NV_device_cuda says which one it is.
//
// Display order (first that gives a 3.3 core context wins):
//   1. EGL device platform (EGL_EXT_device_enumeration + EGL_EXT_platform_device): the NVIDIA
//      device whose CUDA ordinal is the preferred one, other NVIDIA devices, other hardware
//      devices, then software devices (Mesa's llvmpipe device);
//   2. Mesa's surfaceless platform (EGL_MESA_platform_surfaceless);
//   3. the default display.
// No window-system surface is needed: with EGL_KHR_surfaceless_context the context is made
// current without a surface, otherwise with a 1x1 pbuffer. Frames go to the window's own FBO.
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <string_view>

#include "platform/egl_devices.hpp"
#include "platform/window.hpp"

namespace bs {

namespace {

const char* egl_error_name(EGLint error) {
  switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "EGL error";
  }
}

// A Status for a failed EGL call, with eglGetError()'s name as the code.
Status egl_failure(std::string message, std::string call) {
  return Status::failure(std::move(message), {}, std::move(call), egl_error_name(eglGetError()));
}

// Extension strings are space-separated names; a substring match would confuse
// EGL_EXT_platform_device with EGL_EXT_platform_device_foo.
bool has_extension(const char* list, std::string_view name) {
  if (!list) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    const size_t end = std::min(rest.find(' '), rest.size());
    if (rest.substr(0, end) == name) return true;
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return false;
}

std::string client_extensions() {
  // NULL when EGL_EXT_client_extensions is missing; clear that error so it does not leak into
  // the next failure's report.
  const char* s = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!s) eglGetError();
  return s ? std::string(s) : std::string();
}

struct Device {
  EGLDeviceEXT handle;
  EglDeviceInfo info;
};

Result<std::vector<Device>> query_devices() {
  const std::string client = client_extensions();
  if (!has_extension(client.c_str(), "EGL_EXT_device_enumeration") &&
      !has_extension(client.c_str(), "EGL_EXT_device_base")) {
    return Status::failure("EGL cannot enumerate devices (no EGL_EXT_device_enumeration)", {},
                           "eglQueryString(EGL_EXTENSIONS)");
  }
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count)) return egl_failure("cannot count EGL devices", "eglQueryDevicesEXT");
  std::vector<EGLDeviceEXT> handles(static_cast<size_t>(std::max(count, 0)));
  if (count > 0 && !eglQueryDevicesEXT(count, handles.data(), &count)) {
    return egl_failure("cannot list EGL devices", "eglQueryDevicesEXT");
  }
  handles.resize(static_cast<size_t>(std::max(count, 0)));

  std::vector<Device> devices;
  for (size_t i = 0; i < handles.size(); ++i) {
    Device d{handles[i], {}};
    d.info.index = static_cast<int>(i);
    const char* ext = eglQueryDeviceStringEXT(handles[i], EGL_EXTENSIONS);
    d.info.extensions = ext ? ext : "";
    if (has_extension(ext, "EGL_EXT_device_drm")) {
      const char* file = eglQueryDeviceStringEXT(handles[i], EGL_DRM_DEVICE_FILE_EXT);
      if (file) d.info.drm_file = file;
    }
    if (has_extension(ext, "EGL_NV_device_cuda")) {
      EGLAttrib cuda = -1;
      if (eglQueryDeviceAttribEXT(handles[i], EGL_CUDA_DEVICE_NV, &cuda)) {
        d.info.cuda_device = static_cast<int>(cuda);
      }
    }
    eglGetError();  // a device without a DRM file or CUDA ordinal is not an error for the caller
    devices.push_back(std::move(d));
  }
  return devices;
}

// A display to try, not yet initialised.
struct Candidate {
  std::string description;
  EGLDisplay display = EGL_NO_DISPLAY;
  int cuda_device = -1;
};

std::vector<Candidate> candidates(int preferred_cuda_device, std::vector<std::string>& skipped) {
  std::vector<Candidate> out;
  const std::string client = client_extensions();
  const bool platform_base = has_extension(client.c_str(), "EGL_EXT_platform_base");

  if (platform_base && has_extension(client.c_str(), "EGL_EXT_platform_device")) {
    auto devices = query_devices();
    if (devices) {
      // Rank: the preferred CUDA device, other NVIDIA devices, hardware, software.
      auto rank = [&](const Device& d) {
        if (d.info.nvidia() && d.info.cuda_device == preferred_cuda_device) return 0;
        if (d.info.nvidia()) return 1;
        if (!d.info.software()) return 2;
        return 3;
      };
      std::stable_sort(devices->begin(), devices->end(),
                       [&](const Device& a, const Device& b) { return rank(a) < rank(b); });
      for (const Device& d : devices.value()) {
        EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d.handle, nullptr);
        if (display == EGL_NO_DISPLAY) {
          skipped.push_back(d.info.describe() + ": eglGetPlatformDisplayEXT " + egl_error_name(eglGetError()));
          continue;
        }
        out.push_back({"EGL device platform, " + d.info.describe(), display, d.info.cuda_device});
      }
    } else {
      skipped.push_back(devices.status().describe());
    }
  } else {
    skipped.push_back("EGL device platform: not offered (no EGL_EXT_platform_device)");
  }

  if (platform_base && has_extension(client.c_str(), "EGL_MESA_platform_surfaceless")) {
    EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display != EGL_NO_DISPLAY) {
      out.push_back({"EGL Mesa surfaceless", display, -1});
    } else {
      skipped.push_back(std::string("EGL Mesa surfaceless: ") + egl_error_name(eglGetError()));
    }
  }

  EGLDisplay fallback = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (fallback != EGL_NO_DISPLAY) {
    out.push_back({"EGL default display", fallback, -1});
  } else {
    skipped.push_back(std::string("EGL default display: ") + egl_error_name(eglGetError()));
  }
  return out;
}

class HeadlessWindow final : public Window {
 public:
  HeadlessWindow(EGLDisplay display, EGLContext context, EGLSurface surface, std::string description, int cuda_device)
      : display_(display),
        context_(context),
        surface_(surface),
        description_(std::move(description)),
        cuda_device_(cuda_device) {}

  ~HeadlessWindow() override {
    make_current();
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (colour_) glDeleteRenderbuffers(1, &colour_);
    if (depth_stencil_) glDeleteRenderbuffers(1, &depth_stencil_);
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
    eglReleaseThread();
  }

  // The render target: RGBA8 colour + depth/stencil (ImGui needs neither, but a caller drawing
  // 3D or using the stencil should find what a window's default framebuffer would give).
  Status create_framebuffer(int width, int height) {
    glGenFramebuffers(1, &fbo_);
    glGenRenderbuffers(1, &colour_);
    glGenRenderbuffers(1, &depth_stencil_);
    allocate_storage(width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, depth_stencil_);
    const GLenum complete = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (complete != GL_FRAMEBUFFER_COMPLETE) {
      return Status::failure("the offscreen framebuffer is incomplete", {}, "glCheckFramebufferStatus",
                             std::to_string(complete));
    }
    glViewport(0, 0, width_, height_);
    return Status::success();
  }

  bool should_close() override { return close_requested_; }
  void request_close() override { close_requested_ = true; }
  void poll_events() override {}
  void swap_buffers() override { glFlush(); }
  std::pair<int, int> framebuffer_size() override { return {width_, height_}; }

  void resize(int width, int height) override {
    GLint previous = 0;
    glGetIntegerv(GL_RENDERBUFFER_BINDING, &previous);
    allocate_storage(width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, static_cast<GLuint>(previous));
  }

  float content_scale() override { return 1.0f; }
  std::vector<std::string> take_dropped_paths() override { return {}; }
  GLFWwindow* glfw_handle() override { return nullptr; }

  void make_current() override {
    eglBindAPI(EGL_OPENGL_API);
    eglMakeCurrent(display_, surface_, surface_, context_);
  }

  void bind_default_framebuffer() override { glBindFramebuffer(GL_FRAMEBUFFER, fbo_); }
  std::string platform_description() override { return description_; }
  int egl_cuda_device() override { return cuda_device_; }

 private:
  void allocate_storage(int width, int height) {
    width_ = std::max(width, 1);
    height_ = std::max(height, 1);
    glBindRenderbuffer(GL_RENDERBUFFER, colour_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width_, height_);
    glBindRenderbuffer(GL_RENDERBUFFER, depth_stencil_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width_, height_);
  }

  EGLDisplay display_;
  EGLContext context_;
  EGLSurface surface_;
  std::string description_;
  int cuda_device_;
  GLuint fbo_ = 0, colour_ = 0, depth_stencil_ = 0;
  int width_ = 0, height_ = 0;
  bool close_requested_ = false;
};

// Makes a 3.3 core context current on an initialised display. On failure everything created
// here is released again and the display is left for the caller to terminate.
Status open_context(EGLDisplay display, EGLContext& context, EGLSurface& surface) {
  if (!eglBindAPI(EGL_OPENGL_API)) return egl_failure("desktop OpenGL is not offered", "eglBindAPI");
  const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
  const bool surfaceless = has_extension(extensions, "EGL_KHR_surfaceless_context");

  // Prefer a pbuffer-capable config (works with or without surfaceless); else, with
  // surfaceless contexts, any config that renders desktop GL.
  EGLint pbuffer_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLint any_attribs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint found = 0;
  bool config_has_pbuffer = true;
  if (!eglChooseConfig(display, pbuffer_attribs, &config, 1, &found) || found == 0) {
    config_has_pbuffer = false;
    if (!surfaceless || !eglChooseConfig(display, any_attribs, &config, 1, &found) || found == 0) {
      return egl_failure("no EGL config renders desktop OpenGL offscreen", "eglChooseConfig");
    }
  }

  const EGLint context_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) return egl_failure("no OpenGL 3.3 core context", "eglCreateContext");

  surface = EGL_NO_SURFACE;
  if (!surfaceless) {
    if (!config_has_pbuffer) {
      eglDestroyContext(display, context);
      return Status::failure("EGL offers neither surfaceless contexts nor pbuffers");
    }
    const EGLint pbuffer_size[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, pbuffer_size);
    if (surface == EGL_NO_SURFACE) {
      Status status = egl_failure("cannot create a 1x1 pbuffer", "eglCreatePbufferSurface");
      eglDestroyContext(display, context);
      return status;
    }
  }
  if (!eglMakeCurrent(display, surface, surface, context)) {
    Status status = egl_failure("cannot make the context current", "eglMakeCurrent");
    if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
    eglDestroyContext(display, context);
    return status;
  }
  return Status::success();
}

}  // namespace

std::string EglDeviceInfo::describe() const {
  std::string s;
  if (nvidia()) {
    s = "NVIDIA EGL device " + std::to_string(index) + " (CUDA device " + std::to_string(cuda_device) + ")";
  } else if (software()) {
    s = "Mesa software EGL device " + std::to_string(index);
  } else {
    s = "EGL device " + std::to_string(index);
  }
  if (!drm_file.empty()) s += " " + drm_file;
  return s;
}

std::string egl_client_extensions() { return client_extensions(); }

Result<std::vector<EglDeviceInfo>> enumerate_egl_devices() {
  auto devices = query_devices();
  if (!devices) return devices.status();
  std::vector<EglDeviceInfo> infos;
  for (auto& d : devices.value()) infos.push_back(d.info);
  return infos;
}

Result<std::unique_ptr<Window>> make_headless_window(int width, int height, int preferred_cuda_device) {
  if (width <= 0 || height <= 0) {
    return Status::failure(
        "headless framebuffer size must be positive, got " + std::to_string(width) + "x" + std::to_string(height),
        "pass a size such as 1280x800", "make_headless_window");
  }
  std::vector<std::string> tried;
  for (Candidate& c : candidates(preferred_cuda_device, tried)) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(c.display, &major, &minor)) {
      tried.push_back(c.description + ": eglInitialize " + egl_error_name(eglGetError()));
      continue;
    }
    EGLContext context = EGL_NO_CONTEXT;
    EGLSurface surface = EGL_NO_SURFACE;
    Status opened = open_context(c.display, context, surface);
    if (!opened) {
      tried.push_back(c.description + ": " + opened.describe());
      eglTerminate(c.display);
      continue;
    }
    // From here the window owns the display, context and surface.
    auto window = std::make_unique<HeadlessWindow>(c.display, context, surface, c.description, c.cuda_device);
    const int version = epoxy_gl_version();
    if (version < 33) {
      tried.push_back(c.description + ": context is GL " + std::to_string(version / 10) + "." +
                      std::to_string(version % 10) + ", need 3.3");
      continue;  // the window's destructor releases this display
    }
    Status fbo = window->create_framebuffer(width, height);
    if (!fbo) {
      tried.push_back(c.description + ": " + fbo.describe());
      continue;
    }
    return std::unique_ptr<Window>(std::move(window));
  }

  std::string detail;
  for (const auto& t : tried) detail += (detail.empty() ? "" : "; ") + t;
  return Status::failure("no headless OpenGL 3.3 core context: " + detail,
                         "install Mesa's EGL (libegl-mesa0) for software rendering, or the NVIDIA "
                         "driver's EGL library for the GPU",
                         "make_headless_window");
}

}  // namespace bs
