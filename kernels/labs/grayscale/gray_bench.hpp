// `blockscope bench gray`: times the grayscale kernels for a set of block shapes and image
// sizes on one lab (GPU or CPU simulation) and reports medians, bandwidth and the fraction of
// the measured device-to-device copy bandwidth, as a table and as JSON.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/dim.hpp"
#include "labs/grayscale/gray_lab.hpp"

namespace bs::gray {

struct GrayBenchSpec {
  std::vector<std::pair<int, int>> sizes;  // empty: 8192x8192 and 1023x767
  std::vector<Dim3> blocks;                // empty: each kernel's presets
  std::vector<GrayKernel> kernels;         // empty: all
  int repeats = 20;
  int warmup = 3;
};

struct GrayBenchContext {
  std::string device;          // "NVIDIA H200 (sm_90)" or "CPU simulation (2 workers)"
  std::string versions;        // driver and runtime
  double copy_gbs = 0;         // measured device-to-device copy, 0 if not measured
};

struct GrayBenchRow {
  std::string kernel;
  Dim3 block, grid;
  int width = 0, height = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double gbs = 0;
  double copy_fraction = 0;
  std::string error;
};

struct GrayBenchReport {
  std::vector<GrayBenchRow> rows;
  std::string table;  // human-readable
  std::string json;
};

GrayBenchReport run_gray_bench(GrayLab& lab, const GrayBenchSpec& spec,
                               const GrayBenchContext& context);

}  // namespace bs::gray
