// Files the tests read (the sample image, the shaders the app embeds) are found beside the test
// executable, never at the source path of the machine that built it: the build copies them into
// build/tests/test_data (the bs_test_data target), and tests/gpu/make_bundle.sh copies that folder
// into the bundle the GPU machine runs, beside the executables.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace bs::test {

// The folder of the running executable.
inline std::filesystem::path executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : exe.parent_path();
}

// test_data/<relative> beside the executable (a bundle), else one folder up (the build tree:
// build/tests/<room>/test_x and build/tests/test_data). Empty when neither exists.
inline std::filesystem::path test_data(const std::string& relative) {
  const std::filesystem::path dir = executable_dir();
  for (const std::filesystem::path& base : {dir / "test_data", dir.parent_path() / "test_data"}) {
    std::error_code ec;
    if (std::filesystem::exists(base / relative, ec)) return base / relative;
  }
  return {};
}

}  // namespace bs::test
