#!/usr/bin/env bash
# The compile time of the slowest translation unit, the Hopper tensor-core rungs
# (kernels/labs/matmul/matmul_hopper.cu, sm_90a), on this machine, without ccache:
#
#   tools/budgets/compile_time.sh BUILD [FIGURES]
#
# BUILD is a configured build folder (Makefiles) with CUDA and Hopper on. Prints the CPU seconds;
# with FIGURES (a budget_figures.json) records hopper_tu_compile_s there, the figure budgets.json's
# hopper_tu_compile budget reads.
set -euo pipefail
build=$(cd "${1:?usage: compile_time.sh BUILD [FIGURES]}" && pwd)
figures=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
dir="$build/kernels/labs/matmul"
[ -f "$dir/Makefile" ] && grep -q 'matmul_hopper.cu.o:' "$dir/Makefile" ||
  { echo "no Hopper translation unit in $build (CUDA off, or no 90 in CMAKE_CUDA_ARCHITECTURES)" >&2; exit 2; }
rm -f "$dir/CMakeFiles/bs_lab_matmul_hopper.dir/matmul_hopper.cu.o"
# CPU seconds (user + system of nvcc and the tools it starts), which a busy machine barely moves,
# and the wall time beside them.
read -r cpu wall < <(python3 - "$dir" <<'PY'
import os, resource, subprocess, sys, time
t = time.monotonic()
env = dict(os.environ, CCACHE_DISABLE="1")
subprocess.run(["make", "-s", "-C", sys.argv[1], "matmul_hopper.cu.o"], check=True, env=env, stdout=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round(r.ru_utime + r.ru_stime, 1), round(time.monotonic() - t, 1))
PY
)
echo "matmul_hopper.cu (sm_90a): $cpu CPU seconds ($wall s wall on $(nproc) cores)"
seconds=$cpu
if [ -n "$figures" ]; then
  python3 "$here/check_budgets.py" --record hopper_tu_compile_s "$seconds" \
    --note "matmul_hopper.cu alone, no ccache: CPU seconds of nvcc and its tools" --into "$figures"
fi
