#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test.
#   1. the normal build (CUDA when nvcc is found; warnings are errors, BLOCKSCOPE_WERROR) and the
#      whole ctest suite under a virtual X display, where GL and X tests must run
#      (BLOCKSCOPE_REQUIRE_GL); tests labelled `gpu` skip visibly on machines without a CUDA device
#   2. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (CPU build)
#   3. the image loader's libFuzzer target for a bounded time (BLOCKSCOPE_FUZZ_SECONDS, 60)
# Both builds are unity builds (CMAKE_UNITY_BUILD): CI's time is mostly compiling.
# Set BLOCKSCOPE_QUICK=1 to run only step 1.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

.ci/install-deps.sh

echo "== build (build/, warnings as errors)"
# CUDA code is compiled once, for one architecture: the GPUs of this machine where it has any
# (their compute capabilities), else Hopper (sm_90, which also builds the sm_90a tensor-core rungs), so
# every CUDA file still compiles and links here. CUDAARCHS overrides; the app's own default
# build (README) keeps four architectures.
if [ -z "${CUDAARCHS:-}" ]; then
  caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | sort -u || true)
  if [ -n "$caps" ]; then
    export CUDAARCHS=$(printf '%s-real;' $caps | sed 's/;$//')
  else
    export CUDAARCHS=90-real
  fi
fi
echo "CUDA architectures: $CUDAARCHS"
# Line tables only (-g1): stack traces and sanitizer reports still name files and lines, and the
# compile and link skip the full debug info nothing in CI reads. A unity build (C++ files of a
# target compiled in batches of 8) parses each header and instantiates each template once per
# batch instead of once per file; the sanitizer build below is one too. CUDA files stay separate.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOCKSCOPE_WERROR=ON -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
cmake --build build -j"$jobs"
echo "== tests (under a virtual X display, so the window, X and GL tests run too)"
# Under xvfb the GL and X tests must run: BLOCKSCOPE_REQUIRE_GL turns their skips into failures
# (tests/support/skips.hpp). Without xvfb-run there is no display, so they may only skip.
# .ci/run sets BLOCKSCOPE_REQUIRE_GL=1; run by hand, it is on where xvfb-run is installed.
xvfb=()
command -v xvfb-run >/dev/null && xvfb=(xvfb-run -a -s "-screen 0 1600x1000x24 -noreset")
if [ -z "${BLOCKSCOPE_REQUIRE_GL:-}" ]; then
  BLOCKSCOPE_REQUIRE_GL=0
  [ ${#xvfb[@]} -gt 0 ] && BLOCKSCOPE_REQUIRE_GL=1
elif [ "$BLOCKSCOPE_REQUIRE_GL" = 1 ] && [ ${#xvfb[@]} -eq 0 ]; then
  echo "BLOCKSCOPE_REQUIRE_GL=1 but xvfb-run is missing (.ci/install-deps.sh installs it)" >&2
  exit 1
fi
BLOCKSCOPE_REQUIRE_GL=$BLOCKSCOPE_REQUIRE_GL "${xvfb[@]}" \
  ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs" --timeout 900

[ "${BLOCKSCOPE_QUICK:-0}" = 1 ] && exit 0

echo "== sanitizers (build-asan/: AddressSanitizer + UndefinedBehaviorSanitizer, CPU backend, line tables only)"
cmake -S . -B build-asan --preset asan
cmake --build build-asan -j"$jobs"
# EGL dlopen()s Mesa's software driver and dlclose()s it at eglTerminate; what the driver's
# globals still pointed to then looks leaked to LeakSanitizer, from an "<unknown module>" no
# suppression can name. Preloading the driver keeps it mapped, so its globals stay roots and
# only real leaks are reported (nothing is suppressed). AddressSanitizer's runtime goes first.
asan_lib=$(ldd build-asan/tests/simulator/test_simulator 2>/dev/null | awk '/libasan/ {print $3}' || true)
mesa_sw=$(ls /usr/lib/*/dri/swrast_dri.so 2>/dev/null | head -n 1 || true)
preload=""; [ -n "$asan_lib" ] && [ -n "$mesa_sw" ] && preload="$asan_lib $mesa_sw"
# No display here: the X tests skip (BLOCKSCOPE_REQUIRE_GL=0); they ran above. So did the tests
# labelled `scripts` (the format, include-graph and budget checkers: no compiled code of ours).
BLOCKSCOPE_REQUIRE_GL=0 LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --no-tests=error -j"$jobs" --timeout 900 -LE "gpu|scripts"

echo "== fuzzing the image loader"
tests/image/run_fuzz.sh "${BLOCKSCOPE_FUZZ_SECONDS:-60}"
