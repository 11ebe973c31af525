// CUDA-GL interop on a GPU (label gpu): CUDA writes known random bytes through the mapped PBO,
// GL copies the PBO into a texture, and the texture reads back byte for byte. Skips visibly
// without a CUDA device, or when the GL context is not on the CUDA GPU (registration fails).
#include <cuda_runtime.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <random>

#include "gfx/gl_objects.hpp"
#include "gfx/interop.hpp"
#include "platform/window.hpp"
#include "skips.hpp"

namespace {

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

class InteropGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      cudaGetLastError();
      BS_SKIP_NO_GPU() << "no CUDA device (" << cudaGetErrorName(e) << ")";
    }
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    auto window = bs::make_headless_window(64, 64, 0);  // EGL on CUDA device 0
    ASSERT_TRUE(window.ok()) << window.status().describe();
    window_ = std::move(window).value();
    std::printf("GL: %s on %s\n", window_->gl_renderer().c_str(), window_->platform_description().c_str());
  }
  void TearDown() override { window_.reset(); }
  std::unique_ptr<bs::Window> window_;
};

void write_through_cuda_and_check(int w, int h, int channels, std::mt19937& rng) {
  auto pbo = bs::InteropPixelBuffer::create(w, h, channels);
  ASSERT_TRUE(pbo.ok()) << pbo.status().describe();
  if (!pbo->interop_active()) {
    BS_SKIP_NO_GPU() << "registration failed, GL is not on the CUDA GPU: " << pbo->mode_description();
  }
  auto texture = channels == 1 ? bs::GlTexture::create_r8(w, h) : bs::GlTexture::create_rgba8(w, h);
  ASSERT_TRUE(texture.ok());

  for (int frame = 0; frame < 3; ++frame) {  // fresh data each "relaunch", write-discard each time
    const auto bytes = random_bytes(pbo->size_bytes(), rng);
    auto device = pbo->map();
    ASSERT_TRUE(device.ok()) << device.status().describe();
    EXPECT_TRUE(pbo->mapped());
    ASSERT_EQ(cudaMemcpy(device.value(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    bs::Status unmapped = pbo->unmap();
    ASSERT_TRUE(unmapped.ok()) << unmapped.describe();
    bs::Status uploaded = pbo->upload_to(texture.value());
    ASSERT_TRUE(uploaded.ok()) << uploaded.describe();
    const auto back = channels == 1 ? bs::read_texture_r8(texture.value()) : bs::read_texture_rgba8(texture.value());
    ASSERT_EQ(back, bytes) << w << "x" << h << " x" << channels << ", frame " << frame;
  }
}

TEST_F(InteropGpu, CudaWritesReachTheR8TextureExactly) {
  std::mt19937 rng(51);
  write_through_cuda_and_check(331, 217, 1, rng);  // odd width: rows not 4-byte aligned
}

TEST_F(InteropGpu, CudaWritesReachTheRgba8TextureExactly) {
  std::mt19937 rng(52);
  write_through_cuda_and_check(129, 65, 4, rng);
}

TEST_F(InteropGpu, HeadlessContextIsOnTheCudaDevice) {
  if (window_->egl_cuda_device() < 0) {
    BS_SKIP_NO_GPU() << "the headless context is not on an NVIDIA EGL device: " << window_->platform_description();
  }
  EXPECT_EQ(window_->egl_cuda_device(), 0) << window_->platform_description();
  auto devices = bs::cuda_devices_for_current_gl_context();
  ASSERT_TRUE(devices.ok()) << devices.status().describe();
  EXPECT_NE(std::find(devices->begin(), devices->end(), 0), devices->end());
}

}  // namespace
