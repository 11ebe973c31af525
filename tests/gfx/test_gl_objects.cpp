// GL object wrappers: odd-width uploads and read-backs are exact, errors come back as Status,
// embedded shaders are the files in shaders/, and GlStateGuard puts the state back.
#include <epoxy/gl.h>

#include <fstream>
#include <random>
#include <sstream>

#include "gfx/gl_objects.hpp"
#include "gfx/shaders.hpp"
#include "gl_test_support.hpp"
#include "test_data.hpp"

namespace {

using bs::GlTexture;
using bs::test::GlTest;
using bs::test::random_bytes;

TEST_F(GlTest, R8TexturesOfOddWidthRoundTripExactly) {
  std::mt19937 rng(11);
  for (int w : {1, 3, 37, 101}) {
    const int h = 7 + w % 5;
    const auto first = random_bytes(static_cast<size_t>(w) * h, rng);
    auto texture = GlTexture::create_r8(w, h, first.data());
    ASSERT_TRUE(texture.ok()) << texture.status().describe();
    EXPECT_EQ(bs::read_texture_r8(texture.value()), first) << "width " << w;

    const auto second = random_bytes(first.size(), rng);
    ASSERT_TRUE(texture->upload(second.data()).ok());
    EXPECT_EQ(bs::read_texture_r8(texture.value()), second) << "width " << w;
  }
}

// One texel read through a framebuffer equals the same texel of the whole-texture read, at
// random places of an odd-sized texture (the corners included); outside it, nothing.
TEST_F(GlTest, OneTexelReadsEqualTheWholeTexturesBytes) {
  std::mt19937 rng(std::random_device{}());
  const int w = 37 + static_cast<int>(rng() % 50), h = 5 + static_cast<int>(rng() % 40);
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h);
  for (auto& p : pixels) p = static_cast<uint8_t>(rng());
  auto texture = GlTexture::create_r8(w, h, pixels.data());
  ASSERT_TRUE(texture.ok()) << texture.status().describe();
  const std::vector<uint8_t> whole = bs::read_texture_r8(texture.value());
  ASSERT_EQ(whole, pixels);
  std::vector<std::pair<int, int>> at{{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}};
  for (int i = 0; i < 40; ++i) at.emplace_back(static_cast<int>(rng() % w), static_cast<int>(rng() % h));
  for (auto [x, y] : at) {
    const auto v = bs::read_texel_r8(texture.value(), x, y);
    ASSERT_TRUE(v.has_value()) << x << "," << y;
    EXPECT_EQ(*v, whole[static_cast<size_t>(y) * w + x]) << x << "," << y;
  }
  EXPECT_FALSE(bs::read_texel_r8(texture.value(), w, 0).has_value());
  EXPECT_FALSE(bs::read_texel_r8(texture.value(), 0, -1).has_value());
  EXPECT_TRUE(bs::take_gl_error().empty());
}

TEST_F(GlTest, Rgba8TexturesRoundTripExactly) {
  std::mt19937 rng(12);
  const int w = 29, h = 13;
  const auto pixels = random_bytes(static_cast<size_t>(w) * h * 4, rng);
  auto texture = GlTexture::create_rgba8(w, h, pixels.data());
  ASSERT_TRUE(texture.ok()) << texture.status().describe();
  EXPECT_EQ(texture->width(), w);
  EXPECT_EQ(texture->height(), h);
  EXPECT_FALSE(texture->is_gray());
  EXPECT_EQ(bs::read_texture_rgba8(texture.value()), pixels);
}

TEST_F(GlTest, UploadIgnoresTheCallersUnpackStateAndRestoresIt) {
  std::mt19937 rng(13);
  const int w = 17, h = 9;
  // A caller left alignment 8 and a bound pixel-unpack buffer: a naive upload would read rows
  // at the wrong stride from an offset into that buffer.
  auto stray = bs::GlBuffer::create(GL_PIXEL_UNPACK_BUFFER, 4096);
  ASSERT_TRUE(stray.ok());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 8);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, stray->id());
  const auto pixels = random_bytes(static_cast<size_t>(w) * h, rng);
  auto texture = GlTexture::create_r8(w, h, pixels.data());
  ASSERT_TRUE(texture.ok());
  GLint alignment = 0, bound = 0;
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &bound);
  EXPECT_EQ(alignment, 8);
  EXPECT_EQ(static_cast<GLuint>(bound), stray->id());
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  EXPECT_EQ(bs::read_texture_r8(texture.value()), pixels);
}

TEST_F(GlTest, R32uiTexturesHoldBlockData) {
  std::mt19937 rng(14);
  std::vector<uint32_t> values(23 * 3);
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto texture = GlTexture::create_r32ui(23, 3, values.data());
  ASSERT_TRUE(texture.ok()) << texture.status().describe();
  std::vector<uint32_t> back(values.size());
  glBindTexture(GL_TEXTURE_2D, texture->id());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, back.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  EXPECT_EQ(back, values);
}

TEST_F(GlTest, ImpossibleTextureSizesAreAStatus) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  auto too_wide = GlTexture::create_rgba8(max_size + 1, 4);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_NE(too_wide.status().message.find(std::to_string(max_size)), std::string::npos)
      << too_wide.status().describe();
  EXPECT_FALSE(GlTexture::create_r8(0, 4).ok());
}

TEST_F(GlTest, ShaderCompileErrorsComeBackWithTheDriversLog) {
  auto vertex = bs::embedded_shader("image_view.vert");
  ASSERT_TRUE(vertex.ok());
  const char* broken = "#version 330 core\nout vec4 c;\nvoid main() { c = undefined_thing; }\n";
  auto program = bs::GlProgram::build(vertex.value(), broken, "broken_test_shader");
  ASSERT_FALSE(program.ok());
  const bs::Status& s = program.status();
  EXPECT_NE(s.call.find("broken_test_shader"), std::string::npos) << s.describe();
  EXPECT_NE(s.message.find("fragment"), std::string::npos) << s.describe();
  // The driver's log follows the first line and mentions the offending identifier.
  EXPECT_NE(s.message.find("undefined_thing"), std::string::npos) << s.describe();

  const char* fine = "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
  auto ok = bs::GlProgram::build(vertex.value(), fine, "fine");
  EXPECT_TRUE(ok.ok()) << ok.status().describe();
}

// The shaders as built into the app against the files they came from, copied beside the test
// (tests/support/test_data.hpp), so the check runs wherever the executable does.
TEST(EmbeddedShaders, AreExactlyTheFilesInShadersDir) {
  ASSERT_FALSE(bs::embedded_shaders().empty());
  for (const char* name : {"image_view.vert", "image_view.frag"}) {
    auto embedded = bs::embedded_shader(name);
    ASSERT_TRUE(embedded.ok()) << name;
    const auto path = bs::test::test_data(std::string("shaders/") + name);
    ASSERT_FALSE(path.empty()) << name << " is not in test_data beside " << bs::test::executable_dir();
    std::ifstream file(path, std::ios::binary);
    ASSERT_TRUE(file) << path;
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(std::string(embedded.value()), text.str()) << name;
  }
  EXPECT_FALSE(bs::embedded_shader("no_such.frag").ok());
}

TEST_F(GlTest, BufferUploadsOutOfRangeAreRejected) {
  std::mt19937 rng(15);
  auto buffer = bs::GlBuffer::create(GL_ARRAY_BUFFER, 64);
  ASSERT_TRUE(buffer.ok());
  const auto bytes = random_bytes(64, rng);
  EXPECT_TRUE(buffer->upload(bytes.data(), 64).ok());
  EXPECT_FALSE(buffer->upload(bytes.data(), 32, 40).ok());
  EXPECT_FALSE(bs::GlBuffer::create(GL_ARRAY_BUFFER, 0).ok());
}

TEST_F(GlTest, StateGuardRestoresWhatAPassChanges) {
  auto texture = GlTexture::create_r8(5, 5);
  ASSERT_TRUE(texture.ok());
  auto framebuffer = bs::GlFramebuffer::create();
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D, texture->id());
  glViewport(3, 4, 21, 19);
  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ZERO);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
  window_->bind_default_framebuffer();  // headless: the window's FBO, not 0
  GLint window_fbo = -1;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &window_fbo);
  ASSERT_NE(static_cast<GLuint>(window_fbo), framebuffer.id());
  {
    bs::GlStateGuard guard;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, 0);
    glViewport(0, 0, 1, 1);
    glDisable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer.id());
  }
  GLint active = 0, bound = 0, viewport[4] = {}, src = 0, alignment = 0, fbo = -1;
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
  glGetIntegerv(GL_VIEWPORT, viewport);
  glGetIntegerv(GL_BLEND_SRC_RGB, &src);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo);
  EXPECT_EQ(active, GL_TEXTURE2);
  EXPECT_EQ(static_cast<GLuint>(bound), texture->id());
  EXPECT_EQ(viewport[0], 3);
  EXPECT_EQ(viewport[1], 4);
  EXPECT_EQ(viewport[2], 21);
  EXPECT_EQ(viewport[3], 19);
  EXPECT_TRUE(glIsEnabled(GL_BLEND));
  EXPECT_EQ(src, GL_SRC_ALPHA);
  EXPECT_EQ(alignment, 2);
  EXPECT_EQ(fbo, window_fbo);
}

}  // namespace
