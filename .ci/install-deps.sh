#!/usr/bin/env bash
# Installs what blockscope needs on Debian 12 that is not there yet (Debian packages only).
# Runs as root, or through sudo when not root. Safe to run again: installed packages are skipped.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libimgui-dev libglfw3-dev libstb-dev libepoxy-dev   # the app: ImGui 1.86, GLFW 3.3, stb, GL/EGL loader
  libx11-dev                                          # Xlib: the X error handler, the XDND test's drag source
  libegl1 libegl-mesa0 libgl1-mesa-dri libgles2       # headless rendering through Mesa's EGL (llvmpipe)
  xvfb xauth                                          # a virtual display for the windowed-mode test
  fonts-dejavu-core fonts-droid-fallback              # UI text at any size; CJK file names
  libgtest-dev libbenchmark-dev                       # tests
  clang libclang-rt-14-dev                            # the loader's fuzzer (libFuzzer) and sanitizer runs
  clang-format                                        # the house style, checked by ctest (tools/format)
  lld                                                 # a faster linker for the ~70 executables (CMake: BLOCKSCOPE_LLD)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
