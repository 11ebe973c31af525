#!/usr/bin/env bash
# Fuzzes the image loader (stb_image behind blockscope's checks) with libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer for a bounded time, and fails on any finding (crash, sanitizer
# report, leak, timeout, out-of-memory, or a broken loader contract).
#
#   tests/image/run_fuzz.sh [SECONDS]        default 60
#
# Environment: BLOCKSCOPE_FUZZ_BUILD_DIR (default <repo>/build-fuzz), CC/CXX (default clang).
#
# How it builds: the main project, configured with clang and
#   -DBLOCKSCOPE_FUZZ=ON -DBLOCKSCOPE_WITH_CUDA=OFF -DBLOCKSCOPE_BUILD_APP=OFF
# With the app off, app/ is skipped, so tests/image/CMakeLists.txt adds app/image on its own (it
# needs no GL/ImGui); the fuzz target compiles the loader's source itself, so stb_image gets the
# fuzzer's coverage instrumentation and the sanitizers. Only two targets are built: the fuzzer
# and the seed generator (which writes one small file of every format the tests cover, from the
# same writers, so no binary corpus lives in the repository).
# Findings are left in $BUILD/fuzz-artifacts/ (reproduce: fuzz_image_loader <artifact>); the
# grown corpus stays in $BUILD/fuzz-corpus/ and is reused by the next run.
set -euo pipefail

seconds="${1:-60}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BLOCKSCOPE_FUZZ_BUILD_DIR:-$repo/build-fuzz}"
jobs="$(nproc 2>/dev/null || echo 2)"

cmake -S "$repo" -B "$build" \
  -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBLOCKSCOPE_FUZZ=ON -DBLOCKSCOPE_WITH_CUDA=OFF -DBLOCKSCOPE_BUILD_APP=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz_image_loader image_fuzz_seeds

fuzzer="$build/tests/image/fuzz_image_loader"
seeds="$build/fuzz-seeds"
corpus="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
rm -rf "$seeds" "$artifacts"
mkdir -p "$corpus" "$artifacts"
"$build/tests/image/image_fuzz_seeds" "$seeds"

# UBSan: stop at the first report, except the few judged harmless in ubsan.supp (each says why).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$repo/tests/image/ubsan.supp"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"

# Every seed must load cleanly under the sanitizers before fuzzing starts.
"$fuzzer" -runs=0 "$seeds" 2>&1 | tail -n 2

echo "fuzzing for ${seconds} s (one process)"
status=0
"$fuzzer" "$corpus" "$seeds" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 || status=$?

found="$(find "$artifacts" -type f | wc -l)"
if [[ "$status" -ne 0 || "$found" -ne 0 ]]; then
  echo "FUZZING FOUND A PROBLEM (exit status $status, $found artifact(s) in $artifacts)" >&2
  exit 1
fi
echo "no findings in ${seconds} s; corpus: $(find "$corpus" -type f | wc -l) files in $corpus"
