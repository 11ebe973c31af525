#include "toolchain/files.hpp"

#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "toolchain/process.hpp"

namespace bs::toolchain {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool write_text(const std::filesystem::path& path, std::string_view text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(f);
}

Result<TempFolder> TempFolder::make(std::string_view prefix) {
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  std::string tmpl = (tmp / (std::string(prefix) + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    return Status::failure("cannot make a folder in " + tmp.string(), "is the disk full?", "mkdtemp");
  TempFolder f;
  f.path_ = tmpl;
  return f;
}

TempFolder& TempFolder::operator=(TempFolder&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::exchange(o.path_, {});
  }
  return *this;
}

void TempFolder::remove() { remove_folder(std::exchange(path_, {})); }

void remove_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

Result<BuiltInTempFolder> build_in_temp_folder(const HostCompiler& compiler, const TempFolderBuild& spec,
                                               double time_limit_s) {
  auto folder = TempFolder::make(spec.prefix);
  if (!folder)
    return Status::failure(
        "cannot make a folder for " + spec.what + " in " + std::filesystem::temp_directory_path().string(),
        "is the disk full?", spec.what);
  const std::filesystem::path& dir = folder->path();
  bool written = write_text(dir / "unit.cpp", spec.unit);
  for (const auto& [name, text] : spec.more_files) written = written && write_text(dir / name, text);
  if (!written)
    return Status::failure("cannot write " + spec.what + "'s sources to " + dir.string(), "is the disk full?",
                           spec.what);
  std::vector<std::string> compile = {compiler.path.string()};
  for (std::string& f : unit_flags(compiler, spec.optimisation)) compile.push_back(std::move(f));
  compile.insert(compile.end(), spec.compile_flags.begin(), spec.compile_flags.end());
  compile.insert(compile.end(), {"-c", "unit.cpp", "-o", "unit.o"});
  std::vector<std::string> link = {compiler.path.string(), "-shared"};
  link.insert(link.end(), spec.link_flags.begin(), spec.link_flags.end());
  link.insert(link.end(), {"unit.o", "-o", spec.library, "-lm"});
  CommandOptions in_dir;
  in_dir.cwd = dir;
  for (const std::vector<std::string>* argv : {&compile, &link}) {
    auto r = run_command(*argv, time_limit_s, in_dir);
    if (!r || r->timed_out || !r->exit.exited || r->exit.code != 0) {
      const std::string why = !r ? r.status().message : r->timed_out ? "it did not finish" : r->output;
      return Status::failure(spec.what + " of the kernel" + spec.failure_note + " failed: " + why.substr(0, 2000),
                             spec.failure_hint, compiler.name, spec.failure_code);
    }
  }
  BuiltInTempFolder built;
  built.library = dir / spec.library;
  built.dir = folder->release();
  return built;
}

}  // namespace bs::toolchain
