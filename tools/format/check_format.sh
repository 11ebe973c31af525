#!/usr/bin/env bash
# Checks that blockscope's C++ and CUDA sources follow the house style (.clang-format at the root).
#   tools/format/check_format.sh [ROOT]        check; exit 1 naming each file and line that differs
#   tools/format/check_format.sh --fix [ROOT]  rewrite the files in place (then commit on its own)
# ctest runs the check on the repository (source_is_formatted) and on a mis-formatted sample
# (tests/tools/test_check_format.sh). third_party/ is not ours to format; the kernels tests feed to
# the compilers (tests/custom/kernels, tests/source/data) are inputs whose lines the tests name, and
# the preludes compiled into user kernels (kernels/labs/custom/prelude) keep their compact macros.
set -euo pipefail
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
command -v clang-format >/dev/null || { echo "clang-format is missing: .ci/install-deps.sh installs it" >&2; exit 2; }
if [ -d .git ] || [ -f .git ]; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' ':!:third_party/*' \
                       ':!:tests/custom/kernels/*' ':!:tests/source/data/*' ':!:kernels/labs/custom/prelude/*')
else
  mapfile -t files < <(find . -path ./third_party -prune -o -path './build*' -prune -o -path ./tests/custom/kernels -prune \
                       -o -path ./tests/source/data -prune -o -path ./kernels/labs/custom/prelude -prune -o -type f \
                       \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) -print)
fi
[ ${#files[@]} -gt 0 ] || { echo "no sources found under $root" >&2; exit 2; }
if [ "$fix" = 1 ]; then
  clang-format -i --style=file "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! out=$(clang-format --style=file "$f" | diff -U0 "$f" -); then
    bad=$((bad + 1))
    # the first differing line of each file, as FILE:LINE, then the hunk
    line=$(printf '%s\n' "$out" | sed -n 's/^@@ -\([0-9]*\).*/\1/p' | head -n 1)
    echo "$f:$line: not in the house style (tools/format/check_format.sh --fix):"
    printf '%s\n' "$out" | sed -n '3,12p'
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "$bad of ${#files[@]} files are not formatted" >&2
  exit 1
fi
echo "all ${#files[@]} files formatted"
