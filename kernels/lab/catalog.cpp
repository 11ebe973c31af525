#include "lab/catalog.hpp"

#include <algorithm>
#include <thread>

#include "device/cuda_device.hpp"
#include "simulator/grid_simulator.hpp"

namespace bs::lab {

const CatalogEntry* find_lab(const Catalog& catalog, std::string_view id) {
  for (const CatalogEntry& e : catalog)
    if (e.id == id) return &e;
  return nullptr;
}

std::string catalog_ids(const Catalog& catalog, std::string_view separator) {
  std::string s;
  for (const CatalogEntry& e : catalog) s += (s.empty() ? "" : std::string(separator)) + e.id;
  return s;
}

Result<std::unique_ptr<Lab>> make_lab(const Catalog& catalog, std::string_view id, const Backend& backend) {
  const CatalogEntry* e = find_lab(catalog, id);
  if (!e)
    return Status::failure("there is no lab '" + std::string(id) + "'", "the labs: " + catalog_ids(catalog), "--lab");
  return e->create(backend);
}

Backend cpu_simulation(unsigned workers, std::string_view what) {
  Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = workers > 0 ? workers : std::max(1u, std::thread::hardware_concurrency());
  b.limits = sim::simulator_limits(b.sim_workers);
  b.label = "CPU simulation (" + std::to_string(b.sim_workers) + " workers" +
            (what.empty() ? std::string() : ", " + std::string(what)) + ")";
  return b;
}

Result<Backend> cuda_backend(int device) {
  auto limits = cuda_device_limits(device);
  if (!limits) return limits.status();
  Backend b;
  b.kind = BackendKind::Cuda;
  b.cuda_device = device;
  b.limits = limits.value();
  b.label =
      b.limits.name + " (sm_" + std::to_string(b.limits.compute_major) + std::to_string(b.limits.compute_minor) + ")";
  b.versions = cuda_versions();
  return b;
}

}  // namespace bs::lab
