#include "editor/kernel_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "lab/report.hpp"
#include "labs/custom/source_import.hpp"
#include "labs/custom/user_kernel_lab.hpp"

namespace bs::editor {
namespace fs = std::filesystem;

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size()) return false;
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

}  // namespace

bool is_kernel_file(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".cu" || ext == ".cuh" || custom::is_python_source_file(path);
}

Result<std::string> read_kernel_file(const fs::path& path) {
  const std::string name = path.filename().string();
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return Status::failure(name + " is a folder, not a kernel file", "choose a .cu file", "read_kernel_file");
  const auto bytes = fs::file_size(path, ec);
  if (ec) return Status::failure("cannot open " + path.string() + ": " + ec.message(), "", "read_kernel_file");
  if (bytes > kMaxKernelFileBytes)
    return Status::failure(name + " is " + std::to_string(bytes / 1024) + " KiB: more than a kernel (the limit is " +
                               std::to_string(kMaxKernelFileBytes / 1024) + " KiB)",
                           "open the file holding the __global__ kernel", "read_kernel_file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::failure("cannot read " + path.string(), "check its permissions", "read_kernel_file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > kMaxKernelFileBytes)
    return Status::failure(name + " grew past the size limit while being read", "", "read_kernel_file");
  if (text.find('\0') != std::string::npos || !valid_utf8(text))
    return Status::failure(name + " is not a text file (it holds binary bytes)", "open the kernel's CUDA source",
                           "read_kernel_file");
  return text;
}

Status write_kernel_file(const fs::path& path, std::string_view text) {
  return lab::write_text_file(path.string(), std::string(text));
}

fs::path default_recent_kernels_path() {
  const fs::path dir = config_dir();
  return dir.empty() ? fs::path() : dir / "recent_kernels.txt";
}

namespace {

// A notebook's or .py file's kernel for `lab`: the one named `kernel`, else the first the lab takes.
Result<std::string> imported_kernel(custom::UserKernelLab& user, std::string_view lab, const fs::path& path,
                                    const std::string& kernel) {
  auto found = custom::import_kernel_file(path);
  if (!found) return found.status();
  const std::string wanted =
      custom::is_user_kernel_id(kernel) ? kernel.substr(custom::kUserKernelPrefix.size()) : kernel;
  for (const custom::ImportedKernel& k : found->kernels) {
    if (wanted.empty() ? user.book().labs().lab_of_source(k.source, lab) == nullptr ||
                             user.book().labs().lab_of_source(k.source, lab)->id != lab
                       : k.name != wanted)
      continue;
    if (!k.error.empty()) return Status::failure(k.error, "", "--kernel-file");
    return k.source;
  }
  return Status::failure(
      path.filename().string() +
          (wanted.empty() ? " has no kernel the " + std::string(lab) + " lab takes" : " has no kernel named " + wanted),
      "", "--kernel-file");
}

}  // namespace

Result<std::string> install_kernel_file(lab::Lab& lab, const fs::path& path, double time_limit_s, std::string* log,
                                        const std::string& kernel) {
  auto* user = lab::layer<custom::UserKernelLab>(lab);
  if (!user)
    return Status::failure("the " + std::string(lab.title()) + " lab takes no kernels of your own", "",
                           "--kernel-file");
  auto text =
      custom::is_python_source_file(path) ? imported_kernel(*user, lab.id(), path, kernel) : read_kernel_file(path);
  if (!text) return text.status();
  // A kernel another lab takes is refused with that lab's name, before any compiler runs.
  if (const custom::UserLab* belongs = user->book().labs().lab_of_source(*text, lab.id());
      belongs && belongs->id != lab.id())
    return Status::failure(
        path.filename().string() + " holds a " + belongs->id + " kernel, not a " + std::string(lab.id()) + " one",
        "run it with the " + belongs->id + " lab", "--kernel-file");
  user->book().set_time_limit_s(time_limit_s);
  custom::TrialRequest req;
  req.source = *text;
  req.forms = user->spec().forms();
  req.origin = path.string();
  req.target = user->target();
  custom::TrialResult r = custom::compile_and_try(user->book().engine(), req);  // compile only: no problem yet
  if (log)
    for (const custom::Diagnostic& d : r.compile.diagnostics) *log += custom::describe_at(d, path.string()) + "\n";
  if (!r.compile.ok())
    return Status::failure(custom::first_error(r.compile, path.string()), "", "--kernel-file", r.compile.status.code);
  user->book().install(r.kernel, r.compile.kernel);
  return r.kernel.id;
}

}  // namespace bs::editor
