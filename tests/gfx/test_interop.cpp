// InteropPixelBuffer without a GPU: the buffer is made either way, says which mode it is in and
// why, and both GL paths into the texture (from the PBO, from host memory) are exact at odd
// widths. The CUDA write path is in test_interop_gpu.cpp (label gpu).
#include <epoxy/gl.h>

#include "gfx/gl_objects.hpp"
#include "gfx/interop.hpp"
#include "gl_test_support.hpp"

namespace {

using bs::GlTexture;
using bs::InteropPixelBuffer;
using bs::test::GlTest;
using bs::test::random_bytes;

TEST_F(GlTest, InteropBufferReportsItsModeAndWhy) {
  auto pbo = InteropPixelBuffer::create(37, 23);
  ASSERT_TRUE(pbo.ok()) << pbo.status().describe();
  EXPECT_EQ(pbo->size_bytes(), 37u * 23u);
  EXPECT_NE(pbo->buffer_id(), 0u);
  const std::string mode = pbo->mode_description();
  if (pbo->interop_active()) {
    EXPECT_EQ(mode, "CUDA-GL interop (zero-copy: CUDA copies into the texture)");
    EXPECT_TRUE(pbo->registration_status().ok());
  } else {
    EXPECT_EQ(mode.rfind("host copy fallback: ", 0), 0u) << mode;
    const bs::Status& why = pbo->registration_status();
    EXPECT_FALSE(why.ok());
    EXPECT_FALSE(why.message.empty());
#if defined(BLOCKSCOPE_HAS_CUDA)
    EXPECT_FALSE(why.code.empty()) << "the CUDA error name belongs in the Status: " << why.describe();
#else
    EXPECT_NE(why.message.find("built without CUDA"), std::string::npos) << why.describe();
#endif
    std::printf("interop off here: %s\n", mode.c_str());
    // Mapping is refused with a Status, not a crash.
    auto mapped = pbo->map();
    EXPECT_FALSE(mapped.ok());
    EXPECT_FALSE(pbo->mapped());
  }
  EXPECT_FALSE(pbo->unmap().ok());  // nothing is mapped
}

TEST_F(GlTest, HostCopyFallbackUploadsExactly) {
  std::mt19937 rng(41);
  const int w = 41, h = 17;
  auto pbo = InteropPixelBuffer::create(w, h);
  ASSERT_TRUE(pbo.ok());
  auto texture = GlTexture::create_r8(w, h);
  ASSERT_TRUE(texture.ok());
  const auto pixels = random_bytes(pbo->size_bytes(), rng);
  bs::Status s = pbo->upload_from_host(pixels.data(), texture.value());
  ASSERT_TRUE(s.ok()) << s.describe();
  EXPECT_EQ(bs::read_texture_r8(texture.value()), pixels);
}

TEST_F(GlTest, PixelBufferToTextureCopyIsExactAndRestoresBindings) {
  std::mt19937 rng(42);
  for (int channels : {1, 4}) {
    const int w = 33, h = 9;                                                    // 33 bytes per R8 row: not 4-aligned
    auto pbo = InteropPixelBuffer::create(w, h, channels, /*try_cuda=*/false);  // GL's copy, on every machine
    ASSERT_TRUE(pbo.ok());
    ASSERT_FALSE(pbo->interop_active());
    auto texture = channels == 1 ? GlTexture::create_r8(w, h) : GlTexture::create_rgba8(w, h);
    ASSERT_TRUE(texture.ok());
    // Fill the PBO from the GL side (host-copy mode: GL code writes it, GL copies it).
    const auto bytes = random_bytes(pbo->size_bytes(), rng);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo->buffer_id());
    glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes.size()), bytes.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);

    bs::Status s = pbo->upload_to(texture.value());
    ASSERT_TRUE(s.ok()) << s.describe();
    const auto back = channels == 1 ? bs::read_texture_r8(texture.value()) : bs::read_texture_rgba8(texture.value());
    EXPECT_EQ(back, bytes) << channels << " channel(s)";
    GLint unpack = -1, alignment = 0;
    glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &unpack);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
    EXPECT_EQ(unpack, 0);
    EXPECT_EQ(alignment, 4);
  }
}

TEST_F(GlTest, MismatchedTexturesAreRefused) {
  auto pbo = InteropPixelBuffer::create(16, 8);
  ASSERT_TRUE(pbo.ok());
  auto wrong_size = GlTexture::create_r8(16, 9);
  auto wrong_format = GlTexture::create_rgba8(16, 8);
  ASSERT_TRUE(wrong_size.ok() && wrong_format.ok());
  std::vector<uint8_t> host(pbo->size_bytes(), 7);
  EXPECT_FALSE(pbo->upload_to(wrong_size.value()).ok());
  EXPECT_FALSE(pbo->upload_to(wrong_format.value()).ok());
  EXPECT_FALSE(pbo->upload_from_host(host.data(), wrong_format.value()).ok());
  EXPECT_FALSE(InteropPixelBuffer::create(0, 8).ok());
  EXPECT_FALSE(InteropPixelBuffer::create(8, 8, 3).ok());
}

TEST_F(GlTest, CudaDevicesOfTheGlContextMatchTheEglDevice) {
  auto devices = bs::cuda_devices_for_current_gl_context();
  const int egl_cuda = window_->egl_cuda_device();
  if (egl_cuda < 0) {
    // Software or non-NVIDIA GL: no CUDA device is on it. CUDA says so with an empty list, or
    // cannot answer at all (no driver, no device, built without CUDA): then the Status names the
    // call and why, as every CUDA failure does.
    if (devices.ok()) {
      EXPECT_TRUE(devices->empty());
    } else {
      EXPECT_EQ(devices.status().call, "cudaGLGetDevices") << devices.status().describe();
      EXPECT_FALSE(devices.status().message.empty());
#if defined(BLOCKSCOPE_HAS_CUDA)
      EXPECT_FALSE(devices.status().code.empty()) << "the CUDA error name belongs in the Status";
#endif
    }
  } else {
    ASSERT_TRUE(devices.ok()) << devices.status().describe();
    EXPECT_NE(std::find(devices->begin(), devices->end(), egl_cuda), devices->end());
  }
}

}  // namespace
