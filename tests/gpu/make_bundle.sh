#!/usr/bin/env bash
# Bundles the executables the GPU machine runs (tests/gpu/run_on_device.sh) with the libraries
# its image lacks, stripped of debug info to fit the transfer; CUDA's libraries stay behind (the
# machine's toolkit has them).   usage: tests/gpu/make_bundle.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:-build}
out=${2:-OUT}
rm -rf "$out"
bins=(app/blockscope app/blockscope-selftest app/blockscope-kernel-runner app/platform/bs_egl_probe
      tests/app/test_headless_app tests/app/test_soak tests/app/test_kernel_file tests/app/test_measured_app
      tests/app/test_matmul_lab_headless tests/experiments/test_sweep_app
      tests/gfx/test_gfx tests/gfx/test_gfx_gpu tests/grayscale/test_grayscale_gpu tests/grayscale/test_gray_ladder_gpu
      tests/device/test_device_gpu tests/mapping/test_mapping_gpu tests/matmul/test_matmul_gpu tests/matmul/test_matmul_tc_gpu tests/matmul/test_matmul_frags_gpu tests/matmul/test_pipeline_gpu tests/matmul/test_matmul_heatmap_gpu
      tests/platform/test_platform tests/counters/test_counters_gpu tests/measured/test_measured_gpu tests/measured/test_lines_gpu tests/sampling/test_sampling_gpu tests/sampling/test_sass_metrics_gpu tests/sampling/test_sass_metrics_cpu tests/source/test_source tests/source/test_source_gpu
      tests/custom/test_custom_gpu tests/counters/libfake_cupti_no_permission.so
      tools/counters_probe/counters_probe app/blockscope-edit-to-result)
../shared/device/bundle.sh "$out" "${bins[@]/#/$build/}" >/dev/null
rm -f "$out"/lib/libcublas* "$out"/lib/libcudart* "$out"/lib/libnvrtc*
# The counters' comparison with Nsight Compute runs there from the bundle (CUPTI itself is loaded
# at run time from the machine's toolkit, so it never travels).
cp "$(dirname "$0")"/../../tools/counters_probe/{compare_with_ncu.sh,compare_with_ncu.py,dram_writes_history.sh,user_kernel_vs_ncu.sh} "$out/"
cp "$(dirname "$0")"/../../tools/lines_vs_ncu/{lines_vs_ncu.sh,compare_lines.py} "$out/"
# The files the tests read, beside them (tests/support/test_data.hpp): the sample image, the shaders.
cp -r "$build/tests/test_data" "$out/"
# The per-issue GPU checks (tests/gpu/checks/*.sh) and the sanitizer script run from the bundle.
cp "$(dirname "$0")"/checks/*.sh "$(dirname "$0")"/sanitize.sh "$out/"
# The budgets and their checker (run_on_device.sh prints each figure beside its budget).
cp "$(dirname "$0")"/../../budgets.json "$(dirname "$0")"/../../tools/budgets/check_budgets.py "$out/"
# The user kernel with a bank conflict on purpose (tensor.sh's bank view), from the editor's
# template of that name, so the check runs what a user gets.
python3 - "$(dirname "$0")/../../kernels/labs/matmul/matmul_user_spec.cpp" >"$out/conflict.cu" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('"matmul_tiled_conflict"'); j = s.index('R"(', i); k = s.index(')"', j)
print(s[j + 3:k], end="")
PY
strip --strip-debug "$out"/* "$out"/lib/* 2>/dev/null || true  # (test_data/ is a folder: left as it is)
du -sh "$out"
