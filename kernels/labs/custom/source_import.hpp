// Source import: the CUDA kernels inside a notebook (.ipynb) or Python file (.py), as a learner
// writes them for PyTorch's load_inline, CuPy or PyCUDA, turned into standalone kernel sources
// the editor compiles like a .cu file. CUDA-free, no GL; a .cu or .cuh passes through.
//
//   auto r = bs::custom::import_kernel_file("lecture.ipynb");   // size limit checked first
//   if (!r) r.status().message;          // "lecture.ipynb is not JSON: line 3, column 14: ..."
//   for (const ImportedKernel& k : r->kernels) k.name, k.source, k.origin, k.notes;
//
// Where the CUDA is found, in this order:
//   1. the arguments of load_inline(..., cuda_sources=...) (a string or a list), CuPy's
//      RawKernel(code, name) and RawModule(code=...), PyCUDA's SourceModule(code);
//      torch.utils.cpp_extension.load(sources=[...]) names files: a note says to open them;
//   2. when no such call gives a source: every string that holds `__global__`;
//   3. notebook cells written with %%writefile NAME.cu or %%cuda: the cell is CUDA.
// A string is a Python literal (any quotes, r/u/b/f prefixes, escapes, adjacent literals),
// `+` of literals and of variables assigned such strings earlier (a notebook's cells share their
// variables), and `+=`. This is a tokenizer, not a Python interpreter: a source built any other
// way (a function call, formatting, a loop) is not understood and a note says where. f-strings are
// taken literally ({{ and }} as { and }) with a note.
//
// From each source, every `__global__` kernel becomes one ImportedKernel holding what it uses,
// transitively: `__device__` and plain helper functions (the lecture's cdiv), #define macros,
// types, `__constant__` and other globals, CUDA's device headers. Left out, each with a note:
// the host-side launchers (functions that take or return torch::Tensor, or launch with <<< >>>),
// PYBIND11_MODULE, torch/ATen/c10 and other host includes, macros and helpers the kernel does
// not use (CHECK_INPUT). A kernel whose device code still names torch (torch::, at::, c10::,
// Tensor) gets `error`: torch's API does not exist in device code.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace bs::custom {

// A notebook with its outputs (plots, images as base64) is larger than a kernel: 16 MiB.
inline constexpr std::size_t kMaxImportFileBytes = 16u << 20;

struct ImportedKernel {
  std::string name;                // the __global__ function's name
  std::string source;              // standalone CUDA: what it uses, in the order the file had it
  std::string origin;              // "cell 4, line 12" (a notebook), "line 30" (.py); empty for a .cu
  int cell = 0;                    // 1-based among the notebook's cells; 0 for a .py or .cu
  int line = 0;                    // 1-based, in the cell (or file), of the kernel's signature
  std::vector<std::string> notes;  // what was left out and why
  std::string error;               // non-empty: the kernel cannot compile as it is (torch in device code)
};

struct ImportResult {
  std::vector<ImportedKernel> kernels;
  std::vector<std::string> notes;  // the file's: cells not understood, load() file names, ...
};

// .ipynb and .py (any case): files that hold kernels inside Python.
bool is_python_source_file(const std::filesystem::path& path);

// `bytes` as the file `file_name` holds them (its extension picks .ipynb, .py or .cu). Fails,
// with a message naming the file, for a notebook that is not JSON (line and column) or not a
// notebook, and for a file with no __global__ kernel in it.
Result<ImportResult> import_kernel_sources(std::string_view bytes, std::string_view file_name);

// Reads the file (refused before reading when over kMaxImportFileBytes, a folder, missing or
// not text) and imports it.
Result<ImportResult> import_kernel_file(const std::filesystem::path& path);

}  // namespace bs::custom
