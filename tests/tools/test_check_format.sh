#!/usr/bin/env bash
# The format check on a sample tree: a formatted file passes; one line that breaks the house style
# fails the check, and the failure names that file and line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/.clang-format" "$tmp/"
mkdir -p "$tmp/src"
printf '%s\n' '// a formatted file' 'int add(int a, int b) { return a + b; }' '' \
  'int twice(int v) {' '  int s = 0;' '  for (int i = 0; i < 2; ++i) s += v;' '  return s;' '}' > "$tmp/src/good.cpp"
"$root/tools/format/check_format.sh" "$tmp" > "$tmp/out" || { cat "$tmp/out"; echo "FAIL: a formatted tree was refused"; exit 1; }
# line 6 indented by four and with its spaces squeezed: not the house style
sed -i '6s/.*/    for(int i=0;i<2;++i) s+=v;/' "$tmp/src/good.cpp"
if "$root/tools/format/check_format.sh" "$tmp" > "$tmp/out" 2>&1; then
  cat "$tmp/out"; echo "FAIL: a mis-formatted line passed the check"; exit 1
fi
grep -q "src/good.cpp:6:" "$tmp/out" || { cat "$tmp/out"; echo "FAIL: the failure does not name good.cpp line 6"; exit 1; }
echo "PASS: the formatted sample passes, the mis-formatted line 6 fails and is named"
