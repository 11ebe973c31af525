#include "source/listing.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <algorithm>
#include <functional>

#include "labs/custom/codegen.hpp"
#include "labs/custom/diagnostics.hpp"
#include "labs/custom/source_parse.hpp"
#include "source/listing_parse.hpp"
#include "source/toolkit.hpp"
#include "toolchain/nvrtc_compile.hpp"

namespace bs::source {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

std::vector<ListedInstruction> join(const std::vector<AsmFunction>& functions, std::string_view main,
                                    std::string_view skip) {
  // The named function first, then the device functions it may call that were not inlined; the
  // traced twin of a user kernel's entry is the same body again, so it is left out.
  std::vector<ListedInstruction> out;
  if (const AsmFunction* f = find_function(functions, main)) out = f->instructions;
  for (const AsmFunction& f : functions) {
    if (f.name == main || f.name == skip || f.entry) continue;
    out.push_back(ListedInstruction{0, "// " + f.name + ": a function it calls", {}, 0});
    out.insert(out.end(), f.instructions.begin(), f.instructions.end());
  }
  return out;
}

std::string arch_tag(int cc) { return cc > 0 ? "sm_" + std::to_string(cc) : std::string(); }

void list_builtin(const ListingRequest& r, KernelListing& l) {
  l.source_file = r.source_file;
  l.source = std::string(embedded_source(r.source_file));
  if (l.source.empty())
    l.source_status =
        Status::failure("the text of " + r.source_file + " is not embedded in this build",
                        "rebuild blockscope: every file of kernels/labs is embedded at build time", "embedded_source");
  l.function = r.function;
  if (!r.ran_on_gpu) {
    const Status why = Status::failure(
        "the launch shown ran on the CPU simulator, which runs this body as C++: there is no PTX or SASS of it",
        "switch compute to the GPU (CUDA backend) to list the compiled kernel", "");
    l.ptx_status = why;
    l.sass_status = why;
    return;
  }
  const toolchain::Toolkit tk = toolchain::find_toolkit();
  const fs::path binary = r.binary.empty() ? fs::read_symlink("/proc/self/exe") : r.binary;
  // SASS: the cubin holding the function, then nvdisasm of that function. Without its name (a
  // runtime without cudaFuncGetName), the functions compiled from the rung's file are found by
  // their line table, and the first that is not the traced twin is listed, saying so.
  std::string function = r.function;
  std::string guessed;
  if (auto cubins = extract_from_binary(tk, binary, false); !cubins) {
    l.sass_status = cubins.status();
  } else if (function.empty()) {
    const std::string base = fs::path(r.source_file).filename().string();
    const fs::path cubin = file_containing(*cubins, base, arch_tag(r.cc));
    auto fns = cubin.empty() ? Result<std::vector<AsmFunction>>(Status::failure(
                                   "no cubin in " + binary.string() + " has line information for " + base,
                                   "blockscope's CUDA targets compile with -lineinfo; rebuild it", "cuobjdump"))
                             : disassemble_cubin(tk, cubin, {}, r.source_file);
    if (fns) l.live_status = add_life_ranges(tk, cubin, {}, *fns);
    if (!fns) {
      l.sass_status = fns.status();
    } else {
      std::vector<const AsmFunction*> from_file;
      for (const AsmFunction& f : *fns)
        for (const ListedInstruction& i : f.instructions)
          if (same_source_file(i.file, r.source_file)) {
            from_file.push_back(&f);
            break;
          }
      std::stable_partition(from_file.begin(), from_file.end(),
                            [](const AsmFunction* f) { return f->name.find("traced") == std::string::npos; });
      if (from_file.empty()) {
        l.sass_status =
            Status::failure("no function of " + cubin.filename().string() + " has a line in " + base, "", "nvdisasm");
      } else {
        function = from_file.front()->name;
        l.sass = from_file.front()->instructions;
        guessed = " -- the launch did not name its function, so this is the first of " +
                  std::to_string(from_file.size()) + " compiled from this file";
        l.sass_origin = "nvdisasm of " + cubin.filename().string() + guessed;
      }
    }
  } else {
    const fs::path cubin = file_containing(*cubins, ".text." + function + std::string(1, '\0'), arch_tag(r.cc));
    if (cubin.empty()) {
      l.sass_status = Status::failure("no cubin in " + binary.string() + " holds " + function, "", "cuobjdump");
    } else if (auto fns = disassemble_cubin(tk, cubin, function, r.source_file); !fns) {
      l.sass_status = fns.status();
    } else {
      l.live_status = add_life_ranges(tk, cubin, function, *fns);
      // The launched function alone (a whole-cubin listing has the file's other kernels too).
      if (const AsmFunction* f = find_function(*fns, function)) l.sass = f->instructions;
      l.sass_origin = "nvdisasm of " + cubin.filename().string() + " (cuobjdump -xelf of " + binary.string() + ")";
    }
  }
  l.function = function;
  if (function.empty()) {
    l.ptx_status = Status::failure("the launched function is not known, so its PTX cannot be picked out", "", "");
    return;
  }
  // PTX: only where the fatbin embeds it (a virtual architecture in CMAKE_CUDA_ARCHITECTURES).
  auto ptx_files = extract_from_binary(tk, binary, true);
  if (!ptx_files) {
    l.ptx_status = ptx_files.status();
    return;
  }
  const fs::path file = file_containing(*ptx_files, ".entry " + function + "(", {});
  if (file.empty()) {
    l.ptx_status = Status::failure(
        ptx_files->empty() ? "this build of blockscope embeds no PTX: it was built for real architectures only "
                             "(e.g. CMAKE_CUDA_ARCHITECTURES=90-real), so the binary holds SASS alone"
                           : "no PTX of this kernel in the binary: its file was built for real architectures only "
                             "(the Hopper rungs are sm_90a SASS)",
        "configure with a virtual architecture too, e.g. -DCMAKE_CUDA_ARCHITECTURES=\"90-real;90-virtual\" (the "
        "default list has one), to see PTX; the SASS is what runs",
        "cuobjdump -xptx");
    return;
  }
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto fns = parse_ptx(text, r.source_file); !fns) {
    l.ptx_status = fns.status();
  } else {
    if (const AsmFunction* f = find_function(*fns, function)) l.ptx = f->instructions;
    l.ptx_origin = "cuobjdump -xptx of " + binary.string() + " (" + file.filename().string() + ")" + guessed;
  }
}

void list_user(const ListingRequest& r, KernelListing& l) {
  l.source_file = std::string(custom::kUserFile);
  l.source = r.user_source;
  const custom::ParseResult parsed = custom::parse_kernel_source(r.user_source, r.forms, r.user_name);
  if (!parsed.ok()) {
    std::string why = "the kernel's signature matches none of the lab's forms";
    if (!parsed.diagnostics.empty()) why = parsed.diagnostics.front().message;
    l.ptx_status = l.sass_status = Status::failure(why, "fix it in the kernel editor and compile", "parse");
    return;
  }
  const custom::GeneratedUnit unit = custom::make_gpu_unit(r.user_source, *parsed.kernel);
  l.function = unit.entry;
  auto out = toolchain::compile_for_listing(unit.text, r.cc);
  if (!out) {
    l.ptx_status = out.status();
    l.sass_status = Status::failure("no cubin: NVRTC did not compile the kernel", out.status().hint, "nvrtc");
    return;
  }
  const std::string where = r.cc > 0 ? "" : " (no GPU here: the code NVRTC makes for Hopper)";
  if (auto fns = parse_ptx(out->ptx, custom::kUserFile); !fns) {
    l.ptx_status = fns.status();
  } else {
    l.ptx = join(*fns, unit.entry, unit.traced_entry);
    l.ptx_origin = out->version + ", " + out->arch + ", --generate-line-info" + where;
  }
  if (out->cubin.empty()) {
    l.sass_status = Status::failure(
        "NVRTC made PTX only (the device is newer than this NVRTC): the driver compiles "
        "it to SASS at load time, so there is no cubin to disassemble",
        "install a CUDA toolkit that knows the device", "nvrtc");
    return;
  }
  const toolchain::Toolkit tk = toolchain::find_toolkit();
  if (tk.nvdisasm.empty()) {
    l.sass_status = toolchain::missing_tool("nvdisasm", tk);
    return;
  }
  std::error_code ec;
  std::string path = (fs::temp_directory_path(ec) / "blockscope-kernel-XXXXXX.cubin").string();
  const int fd = mkstemps(path.data(), 6);
  if (fd < 0) {
    l.sass_status = Status::failure("cannot write the cubin to a temporary file", "", "mkstemps");
    return;
  }
  const bool written = write(fd, out->cubin.data(), out->cubin.size()) == static_cast<ssize_t>(out->cubin.size());
  close(fd);
  if (!written) {
    l.sass_status = Status::failure("cannot write the cubin to " + path, "", "write");
  } else if (auto fns = disassemble_cubin(tk, path, {}, custom::kUserFile); !fns) {
    l.sass_status = fns.status();
  } else {
    l.live_status = add_life_ranges(tk, path, {}, *fns);
    l.sass = join(*fns, unit.entry, unit.traced_entry);
    l.sass_origin = "nvdisasm of NVRTC's cubin (" + out->arch + ")";
  }
  fs::remove(path, ec);
}

}  // namespace

std::string ListingRequest::key() const {
  const std::size_t h = std::hash<std::string>{}(user_source);
  return kernel + "|" + function + "|" + source_file + "|" + std::to_string(h) + "|" + std::to_string(cc) + "|" +
         (ran_on_gpu ? "gpu" : "cpu") + "|" + binary.string();
}

KernelListing make_listing(const ListingRequest& request) {
  const auto t0 = Clock::now();
  KernelListing l;
  l.kernel = request.kernel;
  switch (request.kind) {
    case ListingRequest::Kind::Library: {
      l.source_file = request.source_file;
      const Status why = Status::failure(
          "a library's kernel (CUB, cuBLAS or the copy engine): its source is not "
          "blockscope's, so there is nothing to list",
          "pick one of the lab's own kernels or write your own", "");
      l.source_status = l.ptx_status = l.sass_status = why;
      break;
    }
    case ListingRequest::Kind::BuiltIn: list_builtin(request, l); break;
    case ListingRequest::Kind::User: list_user(request, l); break;
  }
  l.build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return l;
}

}  // namespace bs::source
