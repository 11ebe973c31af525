// The ladder benchmark: sizes x rungs x configurations, each verified against a reference and
// timed; a table for people and JSON for tools.
//
// Sections: 1. small helpers (JSON, formatting)  2. CUDA backend  3. CPU simulator backend
//           4. entry points
#include "labs/matmul/matmul_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "labs/matmul/matmul_cuda.hpp"

namespace bs::matmul {
namespace {

// ---------------------------------------------------------------------------------------------
// 1. Helpers
// ---------------------------------------------------------------------------------------------

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string size_text(const MatmulSize& s) {
  return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

std::string dim_json(const Dim3& d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

struct Row {
  std::string kernel, config;
  LaunchRecord rec;
  Verification check;
};

std::string row_json(const Row& r, double cublas_ms, double peak_gflops) {
  std::ostringstream o;
  o << "{\"kernel\":" << json_string(r.kernel) << ",\"config\":" << json_string(r.config)
    << ",\"grid\":" << dim_json(r.rec.config.grid) << ",\"block\":" << dim_json(r.rec.config.block)
    << ",\"status\":" << json_string(r.rec.ok() ? "ok" : r.rec.status.describe());
  if (r.rec.ok()) {
    o << ",\"ms\":" << json_number(r.rec.kernel_ms()) << ",\"gflops\":" << json_number(r.rec.gflops());
    if (cublas_ms > 0)
      o << ",\"pct_of_cublas\":" << json_number(100.0 * cublas_ms / r.rec.kernel_ms());
    if (peak_gflops > 0) o << ",\"pct_of_peak\":" << json_number(100.0 * r.rec.gflops() / peak_gflops);
    o << ",\"timer\":" << json_string(r.rec.timing.clock);
    o << ",\"max_abs_error\":" << json_number(r.check.max_abs)
      << ",\"max_rel_error\":" << json_number(r.check.max_rel)
      << ",\"worst_error_over_tolerance\":" << json_number(r.check.max_tolerance_ratio)
      << ",\"mismatches\":" << r.check.mismatches << ",\"passed\":" << (r.check.passed ? "true" : "false");
  }
  o << "}";
  return o.str();
}

void print_header(std::ostream& out) {
  out << pad("kernel", 17) << pad("configuration", 64) << pad("ms", 10) << pad("GFLOP/s", 10)
      << pad("%cuBLAS", 9) << pad("%peak", 7) << pad("max err", 10) << "check\n";
}

void print_row(std::ostream& out, const Row& r, double cublas_ms, double peak_gflops) {
  out << pad(r.kernel, 17) << pad(r.config, 64);
  if (!r.rec.ok()) {
    out << "refused/failed: " << r.rec.status.describe() << "\n";
    return;
  }
  out << pad(fmt("%.3f", r.rec.kernel_ms()), 10) << pad(fmt(r.rec.gflops() < 100 ? "%.2f" : "%.0f", r.rec.gflops()), 10)
      << pad(cublas_ms > 0 ? fmt("%.1f%%", 100.0 * cublas_ms / r.rec.kernel_ms()) : "-", 9)
      << pad(peak_gflops > 0 ? fmt("%.1f%%", 100.0 * r.rec.gflops() / peak_gflops) : "-", 7)
      << pad(fmt("%.2e", r.check.max_abs), 10)
      << (r.check.passed ? "ok" : "WRONG (" + std::to_string(r.check.mismatches) + " mismatches)")
      << "\n";
  out.flush();
}

std::vector<std::pair<MatmulKernel, MatmulConfig>> selected(const BenchOptions& o) {
  std::vector<std::pair<MatmulKernel, MatmulConfig>> list;
  for (const MatmulKernelInfo& k : matmul_kernels()) {
    if (!o.kernels.empty() && std::find(o.kernels.begin(), o.kernels.end(), k.id) == o.kernels.end())
      continue;
    for (std::size_t i = 0; i < k.configs.size(); ++i) {
      if (o.first_config_only && k.kernel != MatmulKernel::Warptile && i > 0) break;
      list.emplace_back(k.kernel, k.configs[i]);
    }
  }
  return list;
}

std::string settings_json(const BenchOptions& o, const std::string& backend) {
  std::ostringstream s;
  s << "{\"backend\":" << json_string(backend) << ",\"warmup\":" << o.warmup
    << ",\"repeats\":" << o.repeats << ",\"seed\":" << o.seed
    << ",\"pattern\":" << json_string(to_string(o.pattern))
    << ",\"flush_l2\":" << (o.flush_l2 ? "true" : "false")
    << ",\"cublas_math\":" << json_string(o.cublas_pedantic ? "CUBLAS_PEDANTIC_MATH" : "CUBLAS_DEFAULT_MATH")
    << ",\"verification\":" << json_string(
           "|got - ref| <= 16 * sqrt(K) * 2^-24 * ||A_i,:|| * ||B_:,j|| + 1e-30; ref = cuBLAS on "
           "CUDA (itself checked against the double-accumulating CPU reference up to the "
           "cpu_check size), the CPU reference on the simulator")
    << "}";
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// 2. CUDA backend
// ---------------------------------------------------------------------------------------------
#if BLOCKSCOPE_HAS_CUDA
BenchOutcome run_cuda(const BenchOptions& o, std::ostream& out) {
  BenchOutcome outcome;
  auto created = CudaMatmulLab::create(0);
  if (!created) {
    outcome.status = created.status();
    return outcome;
  }
  CudaMatmulLab& lab = *created.value();
  lab.set_flush_l2(o.flush_l2);
  lab.set_cublas_math(o.cublas_pedantic ? CublasMath::Pedantic : CublasMath::Default);
  const CudaDeviceReport& dev = lab.device_report();
  const double peak = dev.fp32_peak_gflops;

  out << "device: " << dev.name << " (sm_" << dev.compute_major << dev.compute_minor << ", "
      << dev.sm_count << " SMs), CUDA driver API " << dev.driver_version << ", runtime "
      << dev.runtime_version << ", cuBLAS " << dev.cublas_version << "\n"
      << "FP32 peak: " << dev.peak_formula << "\n";

  std::ostringstream js;
  js << "{\"benchmark\":\"matmul\",\"settings\":" << settings_json(o, "cuda") << ",\"device\":{"
     << "\"name\":" << json_string(dev.name) << ",\"compute_capability\":\"" << dev.compute_major
     << "." << dev.compute_minor << "\",\"sm_count\":" << dev.sm_count
     << ",\"fp32_lanes_per_sm\":" << dev.fp32_lanes_per_sm << ",\"clock_khz\":" << json_number(dev.clock_khz)
     << ",\"clock_source\":\"cudaDeviceGetAttribute(cudaDevAttrClockRate); cudaDeviceProp::clockRate was removed in CUDA 13\""
     << ",\"fp32_peak_gflops\":" << json_number(peak) << ",\"peak_formula\":" << json_string(dev.peak_formula)
     << ",\"driver_version\":" << dev.driver_version << ",\"runtime_version\":" << dev.runtime_version
     << ",\"cublas_version\":" << dev.cublas_version << ",\"l2_bytes\":" << dev.l2_bytes
     << ",\"global_bytes\":" << dev.total_global_bytes << "},\"sizes\":[";

  bool all_passed = true, first_size = true;
  const std::vector<MatmulSize> sizes = o.sizes.empty() ? std::vector<MatmulSize>{{4096, 4096, 4096}} : o.sizes;
  for (const MatmulSize& sz : sizes) {
    out << "\n== " << size_text(sz) << "  (" << fmt("%.1f", matmul_flops(sz.M, sz.N, sz.K) * 1e-9)
        << " GFLOP per product) ==\n";
    if (!first_size) js << ",";
    first_size = false;
    js << "{\"M\":" << sz.M << ",\"N\":" << sz.N << ",\"K\":" << sz.K
       << ",\"flops\":" << json_number(matmul_flops(sz.M, sz.N, sz.K));
    if (Status s = check_matmul_sizes(sz.M, sz.N, sz.K); !s) {
      out << "refused: " << s.describe() << "\n";
      js << ",\"status\":" << json_string(s.describe()) << "}";
      continue;
    }
    // Fits? Ask before generating gigabytes on the host.
    if (Status s = lab.reserve(sz.M, sz.N, sz.K); !s) {
      out << "refused: " << s.describe() << "\n";
      js << ",\"status\":" << json_string(s.describe()) << "}";
      continue;
    }
    const std::vector<float> A = generate_matrix(sz.M, sz.K, o.pattern, o.seed);
    const std::vector<float> B = generate_matrix(sz.K, sz.N, o.pattern, o.seed + 1);
    if (Status s = lab.set_matrices(A.data(), B.data(), sz.M, sz.N, sz.K); !s) {
      out << "refused: " << s.describe() << "\n";
      js << ",\"status\":" << json_string(s.describe()) << "}";
      continue;
    }
    outcome.ran = true;

    // cuBLAS first (also the reference), and again at the end: the faster of the two is what
    // the ladder is compared with, so clocks settling during the run cannot flatter a rung.
    LaunchRecord cublas_before = lab.run_cublas(o.repeats, o.warmup);
    if (!cublas_before.ok()) {
      out << "cuBLAS failed: " << cublas_before.status.describe() << "\n";
      js << ",\"status\":" << json_string(cublas_before.status.describe()) << "}";
      all_passed = false;
      continue;
    }
    // The reference itself, against the double-accumulating CPU reference where affordable.
    std::string cublas_check_json = "null";
    if (static_cast<long double>(sz.M) * sz.N * sz.K <= o.cpu_check_max_multiply_adds) {
      std::vector<float> cpu(static_cast<std::size_t>(sz.M) * sz.N), ref(cpu.size());
      const auto t0 = std::chrono::steady_clock::now();
      cpu_reference(A.data(), B.data(), cpu.data(), sz.M, sz.N, sz.K);
      const double cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      lab.download_reference(ref.data());
      const Verification v = verify(ref.data(), cpu.data(), sz.M, sz.N, error_scale(A.data(), B.data(), sz.M, sz.N, sz.K));
      out << "cuBLAS vs CPU reference (" << fmt("%.0f", cpu_ms) << " ms on the CPU): " << v.summary() << "\n";
      cublas_check_json = "{\"passed\":" + std::string(v.passed ? "true" : "false") +
                          ",\"max_abs_error\":" + json_number(v.max_abs) +
                          ",\"worst_error_over_tolerance\":" + json_number(v.max_tolerance_ratio) + "}";
      all_passed = all_passed && v.passed;
    } else {
      out << "cuBLAS vs CPU reference: skipped at this size (above cpu_check_max_multiply_adds)\n";
    }
    out << "cuBLAS SGEMM: " << fmt("%.3f", cublas_before.kernel_ms()) << " ms = "
        << fmt("%.0f", cublas_before.gflops()) << " GFLOP/s (" << fmt("%.1f", 100.0 * cublas_before.gflops() / peak)
        << "% of peak)\n\n";
    print_header(out);

    std::vector<Row> rows;
    for (const auto& [kernel, config] : selected(o)) {
      Row row{matmul_kernel_info(kernel).id, config.label, {}, {}};
      // One untimed probe decides how many repeats fit in the time budget.
      LaunchRecord probe = lab.run(kernel, config, 1, 0);
      if (!probe.ok()) {
        row.rec = probe;
        print_row(out, row, cublas_before.kernel_ms(), peak);
        rows.push_back(row);
        continue;
      }
      const int repeats = std::max(
          3, std::min(o.repeats, static_cast<int>(o.max_ms_per_config / std::max(probe.kernel_ms(), 1e-3))));
      const int warmup = probe.kernel_ms() > 100 ? 0 : o.warmup;
      row.rec = lab.run(kernel, config, repeats, warmup);
      if (row.rec.ok()) {
        row.check = lab.verify_against_cublas();
        all_passed = all_passed && row.check.passed;
      } else {
        all_passed = false;
      }
      print_row(out, row, cublas_before.kernel_ms(), peak);
      rows.push_back(row);
    }
    LaunchRecord cublas_after = lab.run_cublas(o.repeats, o.warmup);
    const double cublas_ms = cublas_after.ok() ? std::min(cublas_before.kernel_ms(), cublas_after.kernel_ms())
                                               : cublas_before.kernel_ms();
    out << "\ncuBLAS again: " << fmt("%.3f", cublas_after.kernel_ms()) << " ms; comparing with the faster, "
        << fmt("%.3f", cublas_ms) << " ms = " << fmt("%.0f", matmul_flops(sz.M, sz.N, sz.K) / (cublas_ms * 1e6))
        << " GFLOP/s\n";

    const Row* best = nullptr;
    for (const Row& r : rows)
      if (r.rec.ok() && r.check.passed && (!best || r.rec.kernel_ms() < best->rec.kernel_ms())) best = &r;
    if (best)
      out << "best hand-written: " << best->kernel << " " << best->config << ": "
          << fmt("%.0f", best->rec.gflops()) << " GFLOP/s = " << fmt("%.1f", 100.0 * cublas_ms / best->rec.kernel_ms())
          << "% of cuBLAS, " << fmt("%.1f", 100.0 * best->rec.gflops() / peak) << "% of peak\n";

    js << ",\"cublas\":{\"ms\":" << json_number(cublas_ms) << ",\"ms_first\":" << json_number(cublas_before.kernel_ms())
       << ",\"ms_last\":" << json_number(cublas_after.ok() ? cublas_after.kernel_ms() : NAN)
       << ",\"gflops\":" << json_number(matmul_flops(sz.M, sz.N, sz.K) / (cublas_ms * 1e6))
       << ",\"pct_of_peak\":" << json_number(100.0 * matmul_flops(sz.M, sz.N, sz.K) / (cublas_ms * 1e6) / peak)
       << ",\"vs_cpu_reference\":" << cublas_check_json << "},\"results\":[";
    for (std::size_t i = 0; i < rows.size(); ++i)
      js << (i ? "," : "") << row_json(rows[i], cublas_ms, peak);
    js << "]";
    if (best)
      js << ",\"best\":{\"kernel\":" << json_string(best->kernel) << ",\"config\":" << json_string(best->config)
         << ",\"gflops\":" << json_number(best->rec.gflops())
         << ",\"pct_of_cublas\":" << json_number(100.0 * cublas_ms / best->rec.kernel_ms()) << "}";
    js << "}";
  }
  js << "],\"all_passed\":" << (all_passed ? "true" : "false") << "}";
  outcome.json = js.str();
  outcome.all_passed = all_passed && outcome.ran;
  return outcome;
}
#endif

// ---------------------------------------------------------------------------------------------
// 3. CPU simulator backend
// ---------------------------------------------------------------------------------------------
BenchOutcome run_cpu(const BenchOptions& o, std::ostream& out) {
  BenchOutcome outcome;
  sim::GridSimulator simulator;
  out << "backend: CPU grid simulator, " << simulator.workers() << " worker threads\n";
  std::ostringstream js;
  js << "{\"benchmark\":\"matmul\",\"settings\":" << settings_json(o, "cpu")
     << ",\"device\":{\"name\":\"CPU simulation\",\"workers\":" << simulator.workers() << "},\"sizes\":[";
  bool all_passed = true, first_size = true;
  const std::vector<MatmulSize> sizes = o.sizes.empty() ? std::vector<MatmulSize>{{256, 256, 256}} : o.sizes;
  for (const MatmulSize& sz : sizes) {
    out << "\n== " << size_text(sz) << " ==\n";
    if (!first_size) js << ",";
    first_size = false;
    js << "{\"M\":" << sz.M << ",\"N\":" << sz.N << ",\"K\":" << sz.K
       << ",\"flops\":" << json_number(matmul_flops(sz.M, sz.N, sz.K));
    if (Status s = check_matmul_sizes(sz.M, sz.N, sz.K); !s) {
      out << "refused: " << s.describe() << "\n";
      js << ",\"status\":" << json_string(s.describe()) << "}";
      continue;
    }
    const std::vector<float> A = generate_matrix(sz.M, sz.K, o.pattern, o.seed);
    const std::vector<float> B = generate_matrix(sz.K, sz.N, o.pattern, o.seed + 1);
    std::vector<float> ref(static_cast<std::size_t>(sz.M) * sz.N), C(ref.size());
    const auto t0 = std::chrono::steady_clock::now();
    cpu_reference(A.data(), B.data(), ref.data(), sz.M, sz.N, sz.K);
    const double ref_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const ErrorScale scale = error_scale(A.data(), B.data(), sz.M, sz.N, sz.K);
    out << "CPU reference (blocked, double accumulation): " << fmt("%.2f", ref_ms) << " ms = "
        << fmt("%.2f", matmul_flops(sz.M, sz.N, sz.K) / (ref_ms * 1e6)) << " GFLOP/s\n\n";
    print_header(out);
    std::vector<Row> rows;
    for (const auto& [kernel, config] : selected(o)) {
      Row row{matmul_kernel_info(kernel).id, config.label, {}, {}};
      std::fill(C.begin(), C.end(), std::nanf(""));
      row.rec = simulate_matmul(simulator, kernel, config, A.data(), B.data(), C.data(), sz.M, sz.N, sz.K);
      if (row.rec.ok()) {
        outcome.ran = true;
        row.check = verify(C.data(), ref.data(), sz.M, sz.N, scale);
        all_passed = all_passed && row.check.passed;
      }
      print_row(out, row, 0, 0);
      rows.push_back(row);
    }
    js << ",\"cpu_reference_ms\":" << json_number(ref_ms) << ",\"results\":[";
    for (std::size_t i = 0; i < rows.size(); ++i) js << (i ? "," : "") << row_json(rows[i], 0, 0);
    js << "]}";
  }
  js << "],\"all_passed\":" << (all_passed ? "true" : "false") << "}";
  outcome.json = js.str();
  outcome.all_passed = all_passed && outcome.ran;
  if (!outcome.ran && outcome.status.ok())
    outcome.status = Status::failure("no size could be simulated", "sizes must stay under 2^27 multiply-adds");
  return outcome;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// 4. Entry points
// ---------------------------------------------------------------------------------------------

bool parse_matmul_size(std::string_view text, MatmulSize& out) {
  int v[3] = {0, 0, 0}, n = 0;
  std::size_t i = 0;
  while (i <= text.size() && n < 3) {
    long long x = 0;
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      x = x * 10 + (text[i] - '0');
      if (x > 2147483647LL) return false;
      ++i;
    }
    if (i == start) return false;
    v[n++] = static_cast<int>(x);
    if (i == text.size()) break;
    if (text[i] != 'x' && text[i] != 'X') return false;
    ++i;
  }
  if (i != text.size()) return false;
  if (n == 1) out = {v[0], v[0], v[0]};
  else if (n == 3) out = {v[0], v[1], v[2]};
  else return false;
  return true;
}

BenchOutcome run_matmul_bench_detailed(const BenchOptions& options) {
  std::ostream& out = options.table ? *options.table : std::cout;
  if (options.backend == "cpu") return run_cpu(options, out);
  if (options.backend != "cuda") {
    BenchOutcome o;
    o.status = Status::failure("unknown backend '" + options.backend + "'", "use cuda or cpu");
    return o;
  }
#if BLOCKSCOPE_HAS_CUDA
  return run_cuda(options, out);
#else
  BenchOutcome o;
  o.status = Status::failure("this build has no CUDA backend", "use --backend cpu, or rebuild with nvcc");
  return o;
#endif
}

std::string run_matmul_bench(const BenchOptions& options) {
  return run_matmul_bench_detailed(options).json;
}

}  // namespace bs::matmul
