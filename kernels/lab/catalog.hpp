// The catalog of labs: one entry per lab, and what is written once against it. Everything that
// lists or makes labs reads one catalog (kernels/labs/built_in_labs.hpp lists the labs blockscope ships):
// the app pairs each entry with its view (app/labs/catalog.hpp), the command line's --lab, bench,
// sweep and help take its ids from there, the rungs' line counter makes its lab from it
// (linecount/line_counter_main.cpp), and the contract tests run every lab of it. A test-only lab
// joins with an entry of the same shape (tests/lab_interface/vadd_lab.hpp).
//
//   {"gray", "Grayscale", &lab::create_as_lab<gray::GrayLab>, &gray::user_kernel_spec()},  // one line
//   auto l = lab::make_lab(catalog, "matmul", lab::cpu_simulation(2, "a test"));
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "lab/lab.hpp"
#include "lab/user_kernel_spec.hpp"

namespace bs::lab {

struct CatalogEntry {
  std::string id;     // "gray": Lab::id(), --lab, bench, settings, JSON
  std::string title;  // "Grayscale": Lab::title(), the tab
  std::function<Result<std::unique_ptr<Lab>>(const Backend&)> create;  // the lab on that backend
  const UserKernelSpec* user_kernels = nullptr;  // its offer to the user's own kernels; nullptr: none
};

using Catalog = std::vector<CatalogEntry>;

// A lab class's own create() (returning its own type) as a catalog entry's create.
template <class L>
Result<std::unique_ptr<Lab>> create_as_lab(const Backend& backend) {
  auto made = L::create(backend);
  if (!made) return made.status();
  return std::unique_ptr<Lab>(std::move(made.value()));
}

const CatalogEntry* find_lab(const Catalog& catalog, std::string_view id);
// "gray, matmul": the ids in catalog order, for messages and help.
std::string catalog_ids(const Catalog& catalog, std::string_view separator = ", ");
// The lab `id` on `backend`; an id the catalog lacks is refused naming those it has.
Result<std::unique_ptr<Lab>> make_lab(const Catalog& catalog, std::string_view id, const Backend& backend);

// The CPU simulation as a backend: `workers` simulator threads (0: one per hardware thread), the
// simulator's limits (which mirror CUDA's), labelled "CPU simulation (N workers[, what])".
Backend cpu_simulation(unsigned workers, std::string_view what = {});
// CUDA device `device` as a backend: its limits, labelled "NAME (sm_XY)", with the driver's and
// runtime's versions; the copy bandwidth is left to the caller, who decides whether to measure it.
Result<Backend> cuda_backend(int device);

// The engine a lab runs on `backend`: make_cuda's on a CUDA backend (a Result: the device may be
// missing or unusable), make_cpu's on the CPU simulation. Every lab with the two engines behind
// it picks this way in its create():
//   auto engine = lab::make_engine(backend, make_cuda_engine, make_cpu_engine);
template <class Engine>
Result<std::unique_ptr<Engine>> make_engine(const Backend& backend,
                                            Result<std::unique_ptr<Engine>> (*make_cuda)(const Backend&),
                                            std::unique_ptr<Engine> (*make_cpu)(const Backend&)) {
  if (backend.kind == BackendKind::Cuda) return make_cuda(backend);
  return make_cpu(backend);
}

}  // namespace bs::lab
